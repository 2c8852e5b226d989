//! The ISO 8601 strings Cypher's temporal functions read: dates (`2015-07-21`, `20150721`,
//! `2015-W30-2`, `2015-202`, `2015-07`, `2015`), times (`21:40:32.142`, `214032`, `21`) with
//! offsets (`Z`, `+01:00`, `-0100`, `+18`), datetimes (`date` `T` `time`, a zone `[Europe/London]`)
//! and durations (`P14DT16H12M`, `P0.75M`, `P2012-02-02T14:37:21.545`).

use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::duration::{Amount, Builder, Unit};
use super::{err, Duration, Zone, NANOS_PER_SECOND};
use crate::exec::eval::EvalError;

fn bad<T>(what: &str, s: &str) -> Result<T, EvalError> {
    err(format!("'{s}' is not a {what} Cypher can read"))
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn num(s: &str, what: &str, all: &str) -> Result<i64, EvalError> {
    if !digits(s) {
        return bad(what, all);
    }
    s.parse().or_else(|_| bad(what, all))
}

/// A date from year, month and day, checked.
pub(crate) fn ymd(year: i64, month: i64, day: i64) -> Result<Date, EvalError> {
    let y = i16::try_from(year).or_else(|_| err(format!("year {year} is out of range")))?;
    let m = i8::try_from(month).or_else(|_| err(format!("month {month} is out of range")))?;
    let d = i8::try_from(day).or_else(|_| err(format!("day {day} is out of range")))?;
    Date::new(y, m, d).or_else(|e| err(format!("invalid date {year}-{month}-{day}: {e}")))
}

/// The date of ISO week `week`, weekday `dow` (1 = Monday) of week-based year `year`.
pub(crate) fn week_date(year: i64, week: i64, dow: i64) -> Result<Date, EvalError> {
    let y = i16::try_from(year).or_else(|_| err(format!("year {year} is out of range")))?;
    let w = i8::try_from(week).or_else(|_| err(format!("week {week} is out of range")))?;
    let wd = i8::try_from(dow)
        .ok()
        .and_then(|d| jiff::civil::Weekday::from_monday_one_offset(d).ok())
        .map_or_else(|| err(format!("day of week {dow} is out of range")), Ok)?;
    jiff::civil::ISOWeekDate::new(y, w, wd)
        .map(|d| d.date())
        .or_else(|e| err(format!("invalid week date {year}-W{week}-{dow}: {e}")))
}

/// The `day`th day (from 1) of `year`.
pub(crate) fn ordinal_date(year: i64, day: i64) -> Result<Date, EvalError> {
    let first = ymd(year, 1, 1)?;
    let last = first.last_of_year();
    if day < 1 || day > i64::from(last.day_of_year()) {
        return err(format!("day of year {day} is out of range for {year}"));
    }
    super::date_of_epoch_day(super::epoch_day(first) + day - 1)
}

/// A date string.
pub fn date(s: &str) -> Result<Date, EvalError> {
    let what = "date";
    if s.len() < 4 || !s.is_ascii() {
        return bad(what, s);
    }
    let (y, rest) = s.split_at(4);
    let year = num(y, what, s)?;
    if rest.is_empty() {
        return ymd(year, 1, 1);
    }
    let rest_w = rest.strip_prefix('-').unwrap_or(rest);
    if let Some(w) = rest_w.strip_prefix('W') {
        let dashed = rest.starts_with('-');
        return match w.len() {
            2 => week_date(year, num(w, what, s)?, 1),
            4 if dashed && w.as_bytes()[2] == b'-' => {
                week_date(year, num(&w[..2], what, s)?, num(&w[3..], what, s)?)
            }
            3 if !dashed => week_date(year, num(&w[..2], what, s)?, num(&w[2..], what, s)?),
            _ => bad(what, s),
        };
    }
    match rest.strip_prefix('-') {
        Some(r) => match r.len() {
            2 => ymd(year, num(r, what, s)?, 1),
            3 => ordinal_date(year, num(r, what, s)?),
            5 if r.as_bytes()[2] == b'-' => {
                ymd(year, num(&r[..2], what, s)?, num(&r[3..], what, s)?)
            }
            _ => bad(what, s),
        },
        None => match rest.len() {
            2 => ymd(year, num(rest, what, s)?, 1),
            3 => ordinal_date(year, num(rest, what, s)?),
            4 => ymd(year, num(&rest[..2], what, s)?, num(&rest[2..], what, s)?),
            _ => bad(what, s),
        },
    }
}

/// An offset: `Z`, `±HH`, `±HHMM`, `±HH:MM`, `±HH:MM:SS`, `±HHMMSS` (at most 18 hours).
pub fn offset(s: &str) -> Result<i32, EvalError> {
    let what = "time zone offset";
    if s == "Z" || s == "z" {
        return Ok(0);
    }
    let sign = match s.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return bad(what, s),
    };
    let body = &s[1..];
    let parts: Vec<&str> = if body.contains(':') {
        body.split(':').collect()
    } else if body.len() % 2 == 0 && body.is_ascii() {
        (0..body.len() / 2)
            .map(|i| &body[2 * i..2 * i + 2])
            .collect()
    } else {
        return bad(what, s);
    };
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.len() != 2) {
        return bad(what, s);
    }
    let mut v = [0i64; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = num(p, what, s)?;
    }
    if v[1] > 59 || v[2] > 59 || v[0] * 3600 + v[1] * 60 + v[2] > 18 * 3600 {
        return err(format!("time zone offset '{s}' is out of range"));
    }
    Ok(sign * (v[0] * 3600 + v[1] * 60 + v[2]) as i32)
}

/// A time zone: an offset or an IANA name (`Europe/Stockholm`).
pub fn zone(s: &str) -> Result<Zone, EvalError> {
    if s.starts_with(['+', '-']) || s == "Z" || s == "z" {
        return Ok(Zone::Offset(offset(s)?));
    }
    TimeZone::get(s)
        .map(Zone::Named)
        .or_else(|_| err(format!("unknown time zone '{s}'")))
}

/// A time of day without offset: `HH[:MM[:SS[.fff]]]` or `HH[MM[SS[.fff]]]`, in nanoseconds.
pub fn local_time(s: &str) -> Result<i64, EvalError> {
    let what = "time";
    let (main, frac) = match s.find(['.', ',']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let parts: Vec<&str> = if main.contains(':') {
        main.split(':').collect()
    } else if main.len() % 2 == 0 && main.is_ascii() {
        (0..main.len() / 2)
            .map(|i| &main[2 * i..2 * i + 2])
            .collect()
    } else {
        return bad(what, s);
    };
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.len() != 2) {
        return bad(what, s);
    }
    if frac.is_some() && parts.len() < 3 {
        return bad(what, s);
    }
    let mut v = [0i64; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = num(p, what, s)?;
    }
    if v[0] > 23 || v[1] > 59 || v[2] > 59 {
        return err(format!("time '{s}' is out of range"));
    }
    let nanos = match frac {
        Some(f) if digits(f) && f.len() <= 9 => num(f, what, s)? * 10i64.pow(9 - f.len() as u32),
        Some(_) => return bad(what, s),
        None => 0,
    };
    Ok((v[0] * 3600 + v[1] * 60 + v[2]) * NANOS_PER_SECOND + nanos)
}

/// A time with an optional offset.
pub fn time(s: &str) -> Result<(i64, Option<i32>), EvalError> {
    match s.find(['Z', 'z', '+', '-']) {
        Some(i) => Ok((local_time(&s[..i])?, Some(offset(&s[i..])?))),
        None => Ok((local_time(s)?, None)),
    }
}

/// A datetime: a date, `T`, a time with an optional offset, and an optional `[zone]`.
pub fn datetime(s: &str) -> Result<(Date, i64, Option<Zone>), EvalError> {
    let (main, named) = match s.strip_suffix(']').and_then(|r| r.split_once('[')) {
        Some((m, z)) => (m, Some(z)),
        None => (s, None),
    };
    let (d, t) = match main.split_once(['T', 't']) {
        Some((d, t)) => (d, Some(t)),
        None => (main, None),
    };
    let date = date(d)?;
    let (nanos, off) = match t {
        Some(t) => time(t)?,
        None => (0, None),
    };
    let zone = match named {
        Some(z) => Some(zone(z)?),
        None => off.map(Zone::Offset),
    };
    Ok((date, nanos, zone))
}

/// A signed decimal number as an amount (integers exact).
fn amount(s: &str, all: &str) -> Result<Amount, EvalError> {
    let what = "duration";
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (i, f) = match body.find(['.', ',']) {
        Some(k) => (&body[..k], Some(&body[k + 1..])),
        None => (body, None),
    };
    if !digits(i) || f.is_some_and(|f| !digits(f)) {
        return bad(what, all);
    }
    match f {
        None => s.parse().map(Amount::Int).or_else(|_| bad(what, all)),
        Some(_) => s
            .replace(',', ".")
            .parse()
            .map(Amount::Float)
            .or_else(|_| bad(what, all)),
    }
}

/// A duration: `P[nY][nM][nW][nD][T[nH][nM][nS]]` (numbers signed, the last may have a
/// fraction) or `PYYYY-MM-DDTHH:MM:SS[.fff]`.
pub fn duration(s: &str) -> Result<Duration, EvalError> {
    let what = "duration";
    let Some(body) = s.strip_prefix(['P', 'p']) else {
        return bad(what, s);
    };
    if body.is_empty() {
        return bad(what, s);
    }
    let mut b = Builder::default();
    // The alternative form: a date and time of amounts.
    let b4 = body.as_bytes();
    if b4.len() >= 10 && b4[4] == b'-' && b4[..4].iter().all(u8::is_ascii_digit) {
        let (d, t) = match body.split_once('T') {
            Some((d, t)) => (d, Some(t)),
            None => (body, None),
        };
        let dp: Vec<&str> = d.split('-').collect();
        if dp.len() != 3 {
            return bad(what, s);
        }
        b.add(Unit::Years, Amount::Int(num(dp[0], what, s)?))?;
        b.add(Unit::Months, Amount::Int(num(dp[1], what, s)?))?;
        b.add(Unit::Days, Amount::Int(num(dp[2], what, s)?))?;
        if let Some(t) = t {
            let tp: Vec<&str> = t.split(':').collect();
            if tp.len() != 3 {
                return bad(what, s);
            }
            b.add(Unit::Hours, Amount::Int(num(tp[0], what, s)?))?;
            b.add(Unit::Minutes, Amount::Int(num(tp[1], what, s)?))?;
            b.add(Unit::Seconds, amount(tp[2], s)?)?;
        }
        return b.build();
    }
    let mut in_time = false;
    let mut start = 0;
    let mut seen_any = false;
    let bytes = body.as_bytes();
    let mut order = 0u8;
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'T' || c == b't' {
            if in_time || start != i {
                return bad(what, s);
            }
            in_time = true;
            start = i + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            continue;
        }
        let unit = match (in_time, c.to_ascii_uppercase()) {
            (false, b'Y') => (Unit::Years, 1),
            (false, b'M') => (Unit::Months, 2),
            (false, b'W') => (Unit::Weeks, 3),
            (false, b'D') => (Unit::Days, 4),
            (true, b'H') => (Unit::Hours, 5),
            (true, b'M') => (Unit::Minutes, 6),
            (true, b'S') => (Unit::Seconds, 7),
            _ => return bad(what, s),
        };
        if unit.1 <= order {
            return bad(what, s);
        }
        order = unit.1;
        b.add(unit.0, amount(&body[start..i], s)?)?;
        seen_any = true;
        start = i + 1;
    }
    if start != bytes.len() || !seen_any {
        return bad(what, s);
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_date_form() {
        let d = |s: &str| date(s).map(|d| d.to_string()).unwrap_or_else(|e| e.message);
        assert_eq!(d("2015-07-21"), "2015-07-21");
        assert_eq!(d("20150721"), "2015-07-21");
        assert_eq!(d("2015-07"), "2015-07-01");
        assert_eq!(d("201507"), "2015-07-01");
        assert_eq!(d("2015-W30-2"), "2015-07-21");
        assert_eq!(d("2015W302"), "2015-07-21");
        assert_eq!(d("2015-W30"), "2015-07-20");
        assert_eq!(d("2015-202"), "2015-07-21");
        assert_eq!(d("2015202"), "2015-07-21");
        assert_eq!(d("2015"), "2015-01-01");
        assert!(date("2015-13-01").is_err());
        assert!(date("2015-02-30").is_err());
        assert!(date("hello").is_err());
        assert!(date("2015aé1").is_err());
        assert!(duration("Péééééééé").is_err());
    }

    #[test]
    fn reads_times_and_offsets() {
        assert_eq!(
            local_time("21:40:32.142"),
            Ok((21 * 3600 + 40 * 60 + 32) * NANOS_PER_SECOND + 142_000_000)
        );
        assert_eq!(
            local_time("2140"),
            Ok((21 * 3600 + 40 * 60) * NANOS_PER_SECOND)
        );
        assert_eq!(
            time("2140-02"),
            Ok((78_000 * NANOS_PER_SECOND, Some(-7200)))
        );
        assert_eq!(offset("+0845"), Ok(8 * 3600 + 45 * 60));
        assert_eq!(offset("-00:00"), Ok(0));
        assert!(offset("+19:00").is_err());
        assert!(local_time("24:00").is_err());
    }

    #[test]
    fn reads_durations() {
        let d = |s: &str| {
            duration(s)
                .map(|d| d.to_string())
                .unwrap_or_else(|e| e.message)
        };
        assert_eq!(d("P14DT16H12M"), "P14DT16H12M");
        assert_eq!(d("P5M1.5D"), "P5M1DT12H");
        assert_eq!(d("PT0.75M"), "PT45S");
        assert_eq!(d("P2012-02-02T14:37:21.545"), "P2012Y2M2DT14H37M21.545S");
        assert_eq!(d("PT-1M-0.001S"), "PT-1M-0.001S");
        assert_eq!(
            d("P-6M-15DT-17H-45M-3.500000002S"),
            "P-6M-15DT-17H-45M-3.500000002S"
        );
        assert!(duration("P").is_err());
        assert!(duration("PT1D").is_err());
        assert!(duration("P1H").is_err());
    }
}
