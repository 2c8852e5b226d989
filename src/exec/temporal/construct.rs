//! The temporal functions over evaluated arguments: `date(…)`, `localtime(…)`, `time(…)`,
//! `localdatetime(…)`, `datetime(…)` and `duration(…)` from a string, a map or another temporal
//! value (now without an argument), `date.statement()` and the other clocks, the epoch
//! constructors, `truncate`, `duration.between` and its variants; and the fields of a value
//! (`d.year`, `t.timezone`, `dur.days`…).

use std::borrow::Cow;

use jiff::civil::Date;

use super::arith::{between, Between};
use super::duration::{Amount, Builder, Unit};
use super::parse::{self, ordinal_date, week_date, ymd};
use super::{
    date_of_epoch_day, epoch_day, err, offset_text, Duration, Temporal, Zone, ZonedDateTime,
    NANOS_PER_DAY, NANOS_PER_SECOND,
};
use crate::exec::eval::{kind_name, shown, EvalError, Val};
use crate::pattern::ir::{TemporalFn, TemporalKind};

fn temporal<'m>(t: Temporal) -> Val<'m> {
    Val::Temporal(Box::new(t))
}

fn name(kind: TemporalKind) -> &'static str {
    match kind {
        TemporalKind::Date => "date",
        TemporalKind::LocalTime => "localtime",
        TemporalKind::Time => "time",
        TemporalKind::LocalDateTime => "localdatetime",
        TemporalKind::DateTime => "datetime",
        TemporalKind::Duration => "duration",
    }
}

fn wrong<T>(f: &str, v: &Val<'_>) -> Result<T, EvalError> {
    err(format!("{f}() cannot take {} ({})", kind_name(v), shown(v)))
}

/// Calls a temporal function (its number of arguments is checked when the query is bound).
pub fn call<'m>(func: TemporalFn, args: Vec<Val<'m>>) -> Result<Val<'m>, EvalError> {
    if args.iter().any(Val::is_null) {
        return Ok(Val::Null);
    }
    match func {
        TemporalFn::Of(kind) => match args.into_iter().next() {
            None => now(kind, None),
            Some(Val::Str(s)) => from_string(kind, &s).map(temporal),
            Some(Val::Map(m)) => from_map(kind, &m).map(temporal),
            Some(Val::Temporal(t)) => convert(kind, &t).map(temporal),
            Some(other) => wrong(name(kind), &other),
        },
        TemporalFn::Now(kind) => match args.into_iter().next() {
            None => now(kind, None),
            Some(Val::Str(s)) => now(kind, Some(parse::zone(&s)?)),
            Some(other) => wrong(name(kind), &other),
        },
        TemporalFn::FromEpoch => match args.as_slice() {
            [Val::Int(s), Val::Int(n)] => {
                let nanos = i128::from(*s) * i128::from(NANOS_PER_SECOND) + i128::from(*n);
                Ok(temporal(Temporal::DateTime(ZonedDateTime::at_instant(
                    nanos,
                    Zone::Offset(0),
                )?)))
            }
            [Val::Int(_), other] | [other, ..] => wrong("datetime.fromepoch", other),
            [] => err("datetime.fromepoch() takes two arguments"),
        },
        TemporalFn::FromEpochMillis => match args.as_slice() {
            [Val::Int(ms)] => Ok(temporal(Temporal::DateTime(ZonedDateTime::at_instant(
                i128::from(*ms) * 1_000_000,
                Zone::Offset(0),
            )?))),
            [other, ..] => wrong("datetime.fromepochmillis", other),
            [] => err("datetime.fromepochmillis() takes one argument"),
        },
        TemporalFn::Truncate(kind) => truncate(kind, &args),
        TemporalFn::Between | TemporalFn::InMonths | TemporalFn::InDays | TemporalFn::InSeconds => {
            let unit = match func {
                TemporalFn::InMonths => Between::Months,
                TemporalFn::InDays => Between::Days,
                TemporalFn::InSeconds => Between::Seconds,
                _ => Between::All,
            };
            match args.as_slice() {
                [Val::Temporal(a), Val::Temporal(b)] => {
                    Ok(temporal(Temporal::Duration(between(a, b, unit)?)))
                }
                [Val::Temporal(_), other] | [other, ..] => wrong("duration.between", other),
                [] => err("duration.between() takes two arguments"),
            }
        }
    }
}

/// The current instant in `zone` (UTC by default) as a value of `kind`.
fn now<'m>(kind: TemporalKind, zone: Option<Zone>) -> Result<Val<'m>, EvalError> {
    let ts = jiff::Timestamp::now();
    let z = ZonedDateTime::at_instant(ts.as_nanosecond(), zone.unwrap_or(Zone::Offset(0)))?;
    Ok(temporal(match kind {
        TemporalKind::Date => Temporal::Date(z.date),
        TemporalKind::LocalTime => Temporal::LocalTime(z.nanos),
        TemporalKind::Time => Temporal::Time(z.nanos, z.offset),
        TemporalKind::LocalDateTime => Temporal::LocalDateTime(z.date, z.nanos),
        TemporalKind::DateTime => Temporal::DateTime(z),
        TemporalKind::Duration => return err("duration has no current value"),
    }))
}

/// A value of `kind` read from its ISO 8601 text.
fn from_string(kind: TemporalKind, s: &str) -> Result<Temporal, EvalError> {
    Ok(match kind {
        TemporalKind::Date => Temporal::Date(parse::date(s)?),
        TemporalKind::LocalTime => Temporal::LocalTime(parse::local_time(s)?),
        TemporalKind::Time => {
            let (n, o) = parse::time(s)?;
            Temporal::Time(n, o.unwrap_or(0))
        }
        TemporalKind::LocalDateTime => match parse::datetime(s)? {
            (d, n, None) => Temporal::LocalDateTime(d, n),
            (_, _, Some(_)) => return err(format!("'{s}' has a time zone: use datetime()")),
        },
        TemporalKind::DateTime => {
            let (d, n, zone) = parse::datetime(s)?;
            Temporal::DateTime(ZonedDateTime::at_local(
                d,
                n,
                zone.unwrap_or(Zone::Offset(0)),
            )?)
        }
        TemporalKind::Duration => Temporal::Duration(parse::duration(s)?),
    })
}

/// `date(t)`, `localtime(t)`…: the parts of `t` a value of `kind` has.
fn convert(kind: TemporalKind, t: &Temporal) -> Result<Temporal, EvalError> {
    Ok(match (kind, t) {
        (TemporalKind::Date, Temporal::Date(d) | Temporal::LocalDateTime(d, _)) => {
            Temporal::Date(*d)
        }
        (TemporalKind::Date, Temporal::DateTime(z)) => Temporal::Date(z.date),
        (
            TemporalKind::LocalTime,
            Temporal::LocalTime(n) | Temporal::Time(n, _) | Temporal::LocalDateTime(_, n),
        ) => Temporal::LocalTime(*n),
        (TemporalKind::LocalTime, Temporal::DateTime(z)) => Temporal::LocalTime(z.nanos),
        (TemporalKind::Time, Temporal::Time(n, o)) => Temporal::Time(*n, *o),
        (TemporalKind::Time, Temporal::LocalTime(n) | Temporal::LocalDateTime(_, n)) => {
            Temporal::Time(*n, 0)
        }
        (TemporalKind::Time, Temporal::DateTime(z)) => Temporal::Time(z.nanos, z.offset),
        (TemporalKind::LocalDateTime, Temporal::LocalDateTime(d, n)) => {
            Temporal::LocalDateTime(*d, *n)
        }
        (TemporalKind::LocalDateTime, Temporal::DateTime(z)) => {
            Temporal::LocalDateTime(z.date, z.nanos)
        }
        (TemporalKind::DateTime, Temporal::DateTime(z)) => Temporal::DateTime(z.clone()),
        (TemporalKind::DateTime, Temporal::LocalDateTime(d, n)) => {
            Temporal::DateTime(ZonedDateTime::at_local(*d, *n, Zone::Offset(0))?)
        }
        (TemporalKind::Duration, Temporal::Duration(d)) => Temporal::Duration(*d),
        _ => {
            return err(format!(
                "{}() cannot take {} ({t})",
                name(kind),
                t.kind_name()
            ))
        }
    })
}

/// The keys of a temporal map, looked up case-insensitively; every key must be used.
struct Fields<'a, 'm> {
    entries: &'a [(String, Val<'m>)],
    used: Vec<bool>,
    func: &'static str,
}

impl<'a, 'm> Fields<'a, 'm> {
    fn new(entries: &'a [(String, Val<'m>)], func: &'static str) -> Self {
        Fields {
            entries,
            used: vec![false; entries.len()],
            func,
        }
    }

    fn get(&mut self, key: &str) -> Option<&'a Val<'m>> {
        let i = self
            .entries
            .iter()
            .position(|(k, _)| k.eq_ignore_ascii_case(key))?;
        self.used[i] = true;
        match &self.entries[i].1 {
            Val::Null => None,
            v => Some(v),
        }
    }

    fn int(&mut self, key: &str) -> Result<Option<i64>, EvalError> {
        match self.get(key) {
            None => Ok(None),
            Some(Val::Int(i)) => Ok(Some(*i)),
            Some(other) => err(format!(
                "{}(): `{key}` must be an integer, not {} ({})",
                self.func,
                kind_name(other),
                shown(other)
            )),
        }
    }

    fn temporal(&mut self, key: &str) -> Result<Option<&'a Temporal>, EvalError> {
        match self.get(key) {
            None => Ok(None),
            Some(Val::Temporal(t)) => Ok(Some(&**t)),
            Some(other) => err(format!(
                "{}(): `{key}` must be a temporal value, not {}",
                self.func,
                kind_name(other)
            )),
        }
    }

    fn finish(&self) -> Result<(), EvalError> {
        match self.used.iter().position(|u| !u) {
            Some(i) => err(format!(
                "{}() has no field `{}`",
                self.func, self.entries[i].0
            )),
            None => Ok(()),
        }
    }
}

/// The date of a map's date fields over an optional base date (`{date: d, week: 2}`).
fn map_date(f: &mut Fields<'_, '_>, base: Option<Date>) -> Result<Date, EvalError> {
    let year = f.int("year")?;
    let month = f.int("month")?;
    let day = f.int("day")?;
    let week = f.int("week")?;
    let dow = f.int("dayOfWeek")?;
    let ordinal = f.int("ordinalDay")?;
    let quarter = f.int("quarter")?;
    let doq = f.int("dayOfQuarter")?;
    let need_year = || match (year, base) {
        (Some(y), _) => Ok(y),
        (None, Some(b)) => Ok(i64::from(b.year())),
        (None, None) => err(format!("{}(): `year` is required", f.func)),
    };
    let mixed = |a: bool, what: &str| -> Result<(), EvalError> {
        if a {
            err(format!("{}(): {what} cannot be combined", f.func))
        } else {
            Ok(())
        }
    };
    if week.is_some() || (dow.is_some() && base.is_some()) {
        mixed(
            month.is_some() || day.is_some() || ordinal.is_some() || quarter.is_some(),
            "week fields and other date fields",
        )?;
        let iso = base.map(|b| b.iso_week_date());
        let wy = match (year, iso) {
            (Some(y), _) => y,
            (None, Some(i)) => i64::from(i.year()),
            (None, None) => return err(format!("{}(): `year` is required", f.func)),
        };
        let w = match (week, iso) {
            (Some(w), _) => w,
            (None, Some(i)) => i64::from(i.week()),
            (None, None) => 1,
        };
        let d = match (dow, iso) {
            (Some(d), _) => d,
            (None, Some(i)) => i64::from(i.weekday().to_monday_one_offset()),
            (None, None) => 1,
        };
        return week_date(wy, w, d);
    }
    if dow.is_some() {
        return err(format!("{}(): `dayOfWeek` needs `week`", f.func));
    }
    if let Some(o) = ordinal {
        mixed(
            month.is_some() || day.is_some() || quarter.is_some(),
            "`ordinalDay` and other date fields",
        )?;
        return ordinal_date(need_year()?, o);
    }
    if quarter.is_some() || doq.is_some() {
        mixed(
            month.is_some() || day.is_some(),
            "quarter fields and months or days",
        )?;
        let y = need_year()?;
        let q = match (quarter, base) {
            (Some(q), _) => q,
            (None, Some(b)) => (i64::from(b.month()) - 1) / 3 + 1,
            (None, None) => return err(format!("{}(): `dayOfQuarter` needs `quarter`", f.func)),
        };
        if !(1..=4).contains(&q) {
            return err(format!("{}(): quarter {q} is out of range", f.func));
        }
        let first = ymd(y, (q - 1) * 3 + 1, 1)?;
        let d = match (doq, base) {
            (Some(d), _) => d,
            (None, Some(b)) if quarter.is_none() => {
                epoch_day(b) - epoch_day(ymd(i64::from(b.year()), (q - 1) * 3 + 1, 1)?) + 1
            }
            _ => 1,
        };
        let next = ymd(
            if q == 4 { y + 1 } else { y },
            if q == 4 { 1 } else { q * 3 + 1 },
            1,
        )?;
        if d < 1 || d > epoch_day(next) - epoch_day(first) {
            return err(format!("{}(): day of quarter {d} is out of range", f.func));
        }
        return date_of_epoch_day(epoch_day(first) + d - 1);
    }
    if day.is_some() && month.is_none() && base.is_none() {
        return err(format!("{}(): `day` needs `month`", f.func));
    }
    let y = need_year()?;
    let m = month.or(base.map(|b| i64::from(b.month()))).unwrap_or(1);
    let d = day.or(base.map(|b| i64::from(b.day()))).unwrap_or(1);
    ymd(y, m, d)
}

/// The time of day of a map's time fields over an optional base time.
fn map_time(f: &mut Fields<'_, '_>, base: Option<i64>) -> Result<i64, EvalError> {
    let b = base.unwrap_or(0);
    let bs = b / NANOS_PER_SECOND;
    let bn = b % NANOS_PER_SECOND;
    let hour = f.int("hour")?;
    let minute = f.int("minute")?;
    let second = f.int("second")?;
    let ms = f.int("millisecond")?;
    let us = f.int("microsecond")?;
    let ns = f.int("nanosecond")?;
    if base.is_none()
        && ((minute.is_some() && hour.is_none())
            || (second.is_some() && minute.is_none())
            || ((ms.is_some() || us.is_some() || ns.is_some()) && second.is_none()))
    {
        return err(format!(
            "{}(): a time field needs the larger ones (hour, minute, second)",
            f.func
        ));
    }
    let h = hour.unwrap_or(bs / 3600);
    let m = minute.unwrap_or(bs / 60 % 60);
    let s = second.unwrap_or(bs % 60);
    let check = |v: i64, hi: i64, what: &str| -> Result<i64, EvalError> {
        if (0..hi).contains(&v) {
            Ok(v)
        } else {
            err(format!("{}(): {what} {v} is out of range", f.func))
        }
    };
    let sub = if ms.is_some() || us.is_some() || ns.is_some() {
        let (ms_hi, us_hi, ns_hi) = match (ms.is_some(), us.is_some()) {
            (true, true) => (1000, 1000, 1000),
            (true, false) => (1000, 1, 1_000_000),
            (false, true) => (1, 1_000_000, 1000),
            (false, false) => (1, 1, 1_000_000_000),
        };
        check(ms.unwrap_or(0), ms_hi.max(1), "millisecond")? * 1_000_000
            + check(us.unwrap_or(0), us_hi.max(1), "microsecond")? * 1000
            + check(ns.unwrap_or(0), ns_hi, "nanosecond")?
    } else {
        bn
    };
    Ok(
        (check(h, 24, "hour")? * 3600 + check(m, 60, "minute")? * 60 + check(s, 60, "second")?)
            * NANOS_PER_SECOND
            + sub,
    )
}

/// The duration of a map of units (`{days: 14, hours: 16}`), amounts integers or floats.
fn map_duration(entries: &[(String, Val<'_>)]) -> Result<Duration, EvalError> {
    let mut b = Builder::default();
    for (k, v) in entries {
        let unit = match k.to_ascii_lowercase().as_str() {
            "years" => Unit::Years,
            "months" => Unit::Months,
            "weeks" => Unit::Weeks,
            "days" => Unit::Days,
            "hours" => Unit::Hours,
            "minutes" => Unit::Minutes,
            "seconds" => Unit::Seconds,
            "milliseconds" => Unit::Milliseconds,
            "microseconds" => Unit::Microseconds,
            "nanoseconds" => Unit::Nanoseconds,
            _ => return err(format!("duration() has no field `{k}`")),
        };
        let amount = match v {
            Val::Int(i) => Amount::Int(*i),
            Val::Float(x) => Amount::Float(*x),
            Val::Null => continue,
            other => {
                return err(format!(
                    "duration(): `{k}` must be a number, not {} ({})",
                    kind_name(other),
                    shown(other)
                ))
            }
        };
        b.add(unit, amount)?;
    }
    b.build()
}

/// The date part of a temporal value, if it has one.
fn date_of(t: &Temporal) -> Option<Date> {
    match t {
        Temporal::Date(d) | Temporal::LocalDateTime(d, _) => Some(*d),
        Temporal::DateTime(z) => Some(z.date),
        _ => None,
    }
}

/// The time of day and zone of a temporal value, if it has a time.
fn time_of(t: &Temporal) -> Option<(i64, Option<Zone>)> {
    match t {
        Temporal::LocalTime(n) | Temporal::LocalDateTime(_, n) => Some((*n, None)),
        Temporal::Time(n, o) => Some((*n, Some(Zone::Offset(*o)))),
        Temporal::DateTime(z) => Some((z.nanos, Some(z.zone()))),
        _ => None,
    }
}

/// A value of `kind` from a map of fields.
fn from_map(kind: TemporalKind, entries: &[(String, Val<'_>)]) -> Result<Temporal, EvalError> {
    if kind == TemporalKind::Duration {
        return map_duration(entries).map(Temporal::Duration);
    }
    let mut f = Fields::new(entries, name(kind));
    let has_date = matches!(
        kind,
        TemporalKind::Date | TemporalKind::LocalDateTime | TemporalKind::DateTime
    );
    let has_time = kind != TemporalKind::Date;
    let has_zone = matches!(kind, TemporalKind::Time | TemporalKind::DateTime);
    // Bases: `date`, `time`, `datetime` (in that order of precedence for their parts).
    let whole = if has_date && has_time {
        f.temporal("datetime")?
    } else {
        None
    };
    let date_base = if has_date {
        f.temporal("date")?.or(whole)
    } else {
        None
    };
    let time_base = if has_time {
        f.temporal("time")?.or(whole)
    } else {
        None
    };
    let zone_given = if has_zone {
        match f.get("timezone") {
            None => None,
            Some(Val::Str(s)) => Some(parse::zone(s)?),
            Some(other) => return wrong(name(kind), other),
        }
    } else {
        None
    };
    if kind == TemporalKind::DateTime {
        let secs = f.int("epochSeconds")?;
        let millis = f.int("epochMillis")?;
        if secs.is_some() || millis.is_some() {
            let ns = f.int("nanosecond")?.unwrap_or(0);
            let base = match (secs, millis) {
                (Some(s), None) => i128::from(s) * i128::from(NANOS_PER_SECOND),
                (None, Some(m)) => i128::from(m) * 1_000_000,
                _ => return err("datetime(): give `epochSeconds` or `epochMillis`, not both"),
            };
            f.finish()?;
            return Ok(Temporal::DateTime(ZonedDateTime::at_instant(
                base + i128::from(ns),
                zone_given.unwrap_or(Zone::Offset(0)),
            )?));
        }
    }
    let date = if has_date {
        let base = match date_base {
            Some(t) => Some(date_of(t).map_or_else(
                || {
                    err(format!(
                        "{}(): `date` must have a date, not {}",
                        name(kind),
                        t.kind_name()
                    ))
                },
                Ok,
            )?),
            None => None,
        };
        Some(map_date(&mut f, base)?)
    } else {
        None
    };
    // A base with a zone given a new zone is moved to it, keeping its instant.
    let (time_base, base_zone) = match time_base.map(|t| (t, time_of(t))) {
        Some((t, None)) => {
            return err(format!(
                "{}(): `time` must have a time, not {}",
                name(kind),
                t.kind_name()
            ))
        }
        Some((_, Some((n, Some(z))))) => match &zone_given {
            Some(new) => (Some(move_zone(n, &z, new, date)?), Some(new.clone())),
            None => (Some(n), Some(z)),
        },
        Some((_, Some((n, None)))) => (Some(n), None),
        None => (None, None),
    };
    let nanos = if has_time {
        map_time(&mut f, time_base)?
    } else {
        0
    };
    f.finish()?;
    let zone = zone_given.or(base_zone).unwrap_or(Zone::Offset(0));
    let d = || date.map_or_else(|| err("a date is required"), Ok);
    Ok(match kind {
        TemporalKind::Date => Temporal::Date(d()?),
        TemporalKind::LocalTime => Temporal::LocalTime(nanos),
        TemporalKind::Time => match zone {
            Zone::Offset(o) => Temporal::Time(nanos, o),
            Zone::Named(_) => {
                return err(
                    "time(): a named time zone has no offset without a date; give an offset",
                )
            }
        },
        TemporalKind::LocalDateTime => Temporal::LocalDateTime(d()?, nanos),
        TemporalKind::DateTime => Temporal::DateTime(ZonedDateTime::at_local(d()?, nanos, zone)?),
        TemporalKind::Duration => return err("duration() takes no temporal fields"),
    })
}

/// The time of day `nanos` in zone `from` moved to zone `to` (same instant), on `date` when given
/// (a named zone's offset depends on the day).
fn move_zone(nanos: i64, from: &Zone, to: &Zone, date: Option<Date>) -> Result<i64, EvalError> {
    let day = date.unwrap_or(jiff::civil::date(1970, 1, 1));
    let here = ZonedDateTime::at_local(day, nanos, from.clone())?;
    let there = ZonedDateTime::at_instant(here.epoch_nanos(), to.clone())?;
    if date.is_none() && matches!(to, Zone::Named(_)) {
        return err("a time cannot move to a named time zone");
    }
    Ok(there.nanos)
}

/// `kind.truncate(unit, value[, fields])`: `value` cut down to the start of its `unit`, then the
/// fields of the map set.
fn truncate<'m>(kind: TemporalKind, args: &[Val<'m>]) -> Result<Val<'m>, EvalError> {
    let f = name(kind);
    let (unit, t, fields) = match args {
        [Val::Str(u), Val::Temporal(t)] => (u.as_ref(), &**t, &[][..]),
        [Val::Str(u), Val::Temporal(t), Val::Map(m)] => (u.as_ref(), &**t, m.as_slice()),
        [Val::Str(_), other, ..] | [other, ..] => return wrong(f, other),
        [] => return err(format!("{f}.truncate() takes two or three arguments")),
    };
    let date = date_of(t);
    let time = time_of(t);
    let day_units = [
        "millennium",
        "century",
        "decade",
        "year",
        "weekyear",
        "quarter",
        "month",
        "week",
        "day",
    ];
    let lower = unit.to_ascii_lowercase();
    let is_day_unit = day_units.contains(&lower.as_str());
    let cut_date = match date {
        Some(d) if is_day_unit => {
            let y = i64::from(d.year());
            Some(match lower.as_str() {
                "millennium" => ymd(y.div_euclid(1000) * 1000, 1, 1)?,
                "century" => ymd(y.div_euclid(100) * 100, 1, 1)?,
                "decade" => ymd(y.div_euclid(10) * 10, 1, 1)?,
                "year" => ymd(y, 1, 1)?,
                "weekyear" => week_date(i64::from(d.iso_week_date().year()), 1, 1)?,
                "quarter" => ymd(y, (i64::from(d.month()) - 1) / 3 * 3 + 1, 1)?,
                "month" => ymd(y, i64::from(d.month()), 1)?,
                "week" => date_of_epoch_day(
                    epoch_day(d) - i64::from(d.weekday().to_monday_zero_offset()),
                )?,
                _ => d,
            })
        }
        Some(d) => Some(d),
        None if is_day_unit => return err(format!("{f}.truncate(): `{unit}` needs a date")),
        None => None,
    };
    let per = match lower.as_str() {
        _ if is_day_unit => NANOS_PER_DAY,
        "hour" => 3600 * NANOS_PER_SECOND,
        "minute" => 60 * NANOS_PER_SECOND,
        "second" => NANOS_PER_SECOND,
        "millisecond" => 1_000_000,
        "microsecond" => 1000,
        _ => return err(format!("{f}.truncate(): unknown unit '{unit}'")),
    };
    let cut_time = time.as_ref().map(|(n, _)| n / per * per);
    let mut entries: Vec<(String, Val<'m>)> = Vec::new();
    if let Some(d) = cut_date {
        entries.push(("date".into(), temporal(Temporal::Date(d))));
    }
    if let Some(n) = cut_time {
        // The offset goes along, except a named zone's, which a datetime keeps as a zone.
        let base = match t {
            Temporal::Time(_, o) => Temporal::Time(n, *o),
            Temporal::DateTime(z) if z.zone.is_none() || kind == TemporalKind::Time => {
                Temporal::Time(n, z.offset)
            }
            _ => Temporal::LocalTime(n),
        };
        entries.push(("time".into(), temporal(base)));
    } else if kind != TemporalKind::Date {
        entries.push(("time".into(), temporal(Temporal::LocalTime(0))));
    }
    if kind == TemporalKind::DateTime {
        if let Some((_, Some(Zone::Named(tz)))) = &time {
            if !fields
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("timezone"))
            {
                if let Some(n) = tz.iana_name() {
                    entries.push(("timezone".into(), Val::Str(Cow::Owned(n.to_string()))));
                }
            }
        }
    }
    for (k, v) in fields {
        entries.retain(|(e, _)| !e.eq_ignore_ascii_case(k));
        entries.push((k.clone(), v.clone()));
    }
    // A named zone given as a field moves nothing: the truncated local time is in that zone.
    if kind == TemporalKind::DateTime || kind == TemporalKind::Time {
        if let Some(i) = entries.iter().position(|(k, _)| k == "time") {
            if let Val::Temporal(b) = &entries[i].1 {
                if let Temporal::Time(n, o) = **b {
                    if fields
                        .iter()
                        .any(|(k, _)| k.eq_ignore_ascii_case("timezone"))
                    {
                        entries[i].1 = temporal(Temporal::LocalTime(n));
                    } else {
                        entries.push(("timezone".into(), Val::Str(Cow::Owned(offset_text(o)))));
                        entries[i].1 = temporal(Temporal::LocalTime(n));
                    }
                }
            }
        }
    }
    let entries: Vec<(String, Val<'m>)> = entries
        .into_iter()
        .filter(|(k, _)| {
            let dated = matches!(
                kind,
                TemporalKind::Date | TemporalKind::LocalDateTime | TemporalKind::DateTime
            );
            (k != "date" || dated) && (k != "time" || kind != TemporalKind::Date)
        })
        .collect();
    from_map(kind, &entries).map(temporal)
}

/// A field of a temporal value (`d.year`, `t.timezone`, `dur.minutesOfHour`…).
pub fn field<'m>(t: &Temporal, key: &str) -> Result<Val<'m>, EvalError> {
    if let Temporal::Duration(d) = t {
        return duration_field(d, key);
    }
    let none = || err(format!("{} has no field `{key}`", t.kind_name()));
    let int = |i: i64| Ok(Val::Int(i));
    if let Some(d) = date_of(t) {
        let iso = d.iso_week_date();
        let quarter_start = ymd(
            i64::from(d.year()),
            (i64::from(d.month()) - 1) / 3 * 3 + 1,
            1,
        )?;
        match key {
            "year" => return int(i64::from(d.year())),
            "quarter" => return int((i64::from(d.month()) - 1) / 3 + 1),
            "month" => return int(i64::from(d.month())),
            "week" => return int(i64::from(iso.week())),
            "weekYear" => return int(i64::from(iso.year())),
            "dayOfQuarter" => return int(epoch_day(d) - epoch_day(quarter_start) + 1),
            "day" => return int(i64::from(d.day())),
            "ordinalDay" => return int(i64::from(d.day_of_year())),
            "dayOfWeek" | "weekDay" => return int(i64::from(d.weekday().to_monday_one_offset())),
            _ => {}
        }
    }
    if let Some((n, zone)) = time_of(t) {
        let s = n / NANOS_PER_SECOND;
        let sub = n % NANOS_PER_SECOND;
        match key {
            "hour" => return int(s / 3600),
            "minute" => return int(s / 60 % 60),
            "second" => return int(s % 60),
            "millisecond" => return int(sub / 1_000_000),
            "microsecond" => return int(sub / 1000),
            "nanosecond" => return int(sub),
            _ => {}
        }
        let offset = match t {
            Temporal::Time(_, o) => Some(*o),
            Temporal::DateTime(z) => Some(z.offset),
            _ => None,
        };
        if let (Some(o), Some(zone)) = (offset, zone) {
            let text = |s: String| Ok(Val::Str(Cow::Owned(s)));
            match key {
                "timezone" => {
                    return match zone {
                        Zone::Named(tz) => text(tz.iana_name().unwrap_or("").to_string()),
                        Zone::Offset(o) => text(offset_text(o)),
                    }
                }
                "offset" => return text(offset_text(o)),
                "offsetMinutes" => return int(i64::from(o) / 60),
                "offsetSeconds" => return int(i64::from(o)),
                _ => {}
            }
        }
        if let Temporal::DateTime(z) = t {
            let e = z.epoch_nanos();
            match key {
                "epochSeconds" => return int(e.div_euclid(i128::from(NANOS_PER_SECOND)) as i64),
                "epochMillis" => return int(e.div_euclid(1_000_000) as i64),
                _ => {}
            }
        }
    }
    none()
}

/// A field of a duration: totals in a unit (`months`, `days`, `seconds`…) and remainders
/// (`monthsOfYear`, `minutesOfHour`, `nanosecondsOfSecond`…).
fn duration_field<'m>(d: &Duration, key: &str) -> Result<Val<'m>, EvalError> {
    let (m, days, s, n) = (d.months, d.days, d.seconds, d.nanos);
    let wide = |per: i64, sub: i64| {
        i64::try_from(i128::from(s) * i128::from(per) + i128::from(n / sub))
            .or_else(|_| err(format!("duration field `{key}` is beyond 64-bit integers")))
    };
    let v = match key {
        "years" => m / 12,
        "quarters" => m / 3,
        "months" => m,
        "weeks" => days / 7,
        "days" => days,
        "hours" => s / 3600,
        "minutes" => s / 60,
        "seconds" => s,
        "milliseconds" => wide(1000, 1_000_000)?,
        "microseconds" => wide(1_000_000, 1000)?,
        "nanoseconds" => wide(NANOS_PER_SECOND, 1)?,
        "quartersOfYear" => m / 3 % 4,
        "monthsOfQuarter" => m % 3,
        "monthsOfYear" => m % 12,
        "daysOfWeek" => days % 7,
        "minutesOfHour" => s / 60 % 60,
        "secondsOfMinute" => s % 60,
        "millisecondsOfSecond" => n / 1_000_000,
        "microsecondsOfSecond" => n / 1000,
        "nanosecondsOfSecond" => n,
        _ => return err(format!("a duration has no field `{key}`")),
    };
    Ok(Val::Int(v))
}
