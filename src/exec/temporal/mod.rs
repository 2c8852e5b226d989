//! Cypher's temporal values: `Date`, `LocalTime`, `Time`, `LocalDateTime`, `DateTime` and
//! `Duration` ([`Temporal`]), with the calendar arithmetic and the time zone database of the
//! `jiff` crate (its bundled copy of the IANA database: no system files are read).
//!
//! - [`duration`]: durations (months, days, seconds, nanoseconds, as Cypher keeps them);
//! - [`parse`]: the ISO 8601 strings `date('2015-W30-2')`, `duration('P1DT2H')`… read;
//! - [`construct`]: the temporal functions (from strings, maps and other temporal values, now,
//!   epochs, truncation, `duration.between`…) and the fields of a value (`d.year`, `dur.days`…);
//! - [`arith`]: a temporal value plus or minus a duration.

mod arith;
mod construct;
mod duration;
mod parse;

use std::cmp::Ordering;
use std::fmt;

use jiff::civil::Date;
use jiff::tz::TimeZone;

pub use arith::{add_duration, between};
pub use construct::{call, field};
pub use duration::Duration;

use super::eval::EvalError;

/// Nanoseconds in a second.
pub(crate) const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// Nanoseconds in a day.
pub(crate) const NANOS_PER_DAY: i64 = 86_400 * NANOS_PER_SECOND;

/// A temporal value. Times of day are nanoseconds since midnight (`0..NANOS_PER_DAY`), offsets
/// seconds east of UTC.
#[derive(Debug, Clone)]
pub enum Temporal {
    /// A calendar date.
    Date(Date),
    /// A time of day without an offset.
    LocalTime(i64),
    /// A time of day and its offset.
    Time(i64, i32),
    /// A date and a time of day, without an offset.
    LocalDateTime(Date, i64),
    /// A date and a time of day in a time zone.
    DateTime(ZonedDateTime),
    /// A duration.
    Duration(Duration),
}

/// A date and time of day with its offset, and the named time zone it is in, if any (without one,
/// the offset is the zone).
#[derive(Debug, Clone)]
pub struct ZonedDateTime {
    /// The local date.
    pub date: Date,
    /// The local time of day, in nanoseconds since midnight.
    pub nanos: i64,
    /// The offset from UTC in seconds.
    pub offset: i32,
    /// The named (IANA) time zone.
    pub zone: Option<TimeZone>,
}

/// A time zone as given: a fixed offset or a named zone.
#[derive(Debug, Clone)]
pub enum Zone {
    /// Seconds east of UTC.
    Offset(i32),
    /// A zone of the IANA database.
    Named(TimeZone),
}

fn err<T>(message: impl Into<String>) -> Result<T, EvalError> {
    Err(EvalError(message.into()))
}

/// The days from 1970-01-01 to `d`.
pub(crate) fn epoch_day(d: Date) -> i64 {
    d.duration_since(jiff::civil::date(1970, 1, 1)).as_secs() / 86_400
}

/// The date `days` after 1970-01-01.
pub(crate) fn date_of_epoch_day(days: i64) -> Result<Date, EvalError> {
    jiff::Span::new()
        .try_days(days)
        .and_then(|s| jiff::civil::date(1970, 1, 1).checked_add(s))
        .or_else(|_| {
            err(format!(
                "a date {days} days from 1970-01-01 is out of range"
            ))
        })
}

/// A civil date and time as jiff's.
pub(crate) fn civil(date: Date, nanos: i64) -> Result<jiff::civil::DateTime, EvalError> {
    let s = nanos / NANOS_PER_SECOND;
    jiff::civil::DateTime::new(
        date.year(),
        date.month(),
        date.day(),
        (s / 3600) as i8,
        (s / 60 % 60) as i8,
        (s % 60) as i8,
        (nanos % NANOS_PER_SECOND) as i32,
    )
    .or_else(|e| err(format!("invalid date and time: {e}")))
}

impl ZonedDateTime {
    /// Nanoseconds since 1970-01-01T00:00Z.
    pub fn epoch_nanos(&self) -> i128 {
        (i128::from(epoch_day(self.date)) * i128::from(NANOS_PER_DAY) + i128::from(self.nanos))
            - i128::from(self.offset) * i128::from(NANOS_PER_SECOND)
    }

    /// The zone of this value.
    pub fn zone(&self) -> Zone {
        match &self.zone {
            Some(tz) => Zone::Named(tz.clone()),
            None => Zone::Offset(self.offset),
        }
    }

    /// The instant `epoch_nanos` in `zone`.
    pub fn at_instant(epoch_nanos: i128, zone: Zone) -> Result<ZonedDateTime, EvalError> {
        let (offset, tz) = match zone {
            Zone::Offset(o) => (o, None),
            // Time zone databases agree from 1970 on; before, some merge zones (Europe/Stockholm
            // took Europe/Berlin's history in 2022) and others keep each zone's own: refuse rather
            // than answer with an offset another database would not give.
            Zone::Named(tz) if epoch_nanos < 0 => {
                return err(format!(
                    "gemp does not compute offsets of named time zones ({}) before 1970",
                    tz.iana_name().unwrap_or("?")
                ))
            }
            Zone::Named(tz) => {
                let ts = jiff::Timestamp::from_nanosecond(epoch_nanos)
                    .or_else(|e| err(format!("instant out of range: {e}")))?;
                (tz.to_offset(ts).seconds(), Some(tz))
            }
        };
        let local = epoch_nanos + i128::from(offset) * i128::from(NANOS_PER_SECOND);
        let day = local.div_euclid(i128::from(NANOS_PER_DAY));
        let nanos = local.rem_euclid(i128::from(NANOS_PER_DAY)) as i64;
        let day = i64::try_from(day).or_else(|_| err("instant out of range"))?;
        Ok(ZonedDateTime {
            date: date_of_epoch_day(day)?,
            nanos,
            offset,
            zone: tz,
        })
    }

    /// The local date and time `date`, `nanos` in `zone` (a local time a zone skips or repeats
    /// takes the offset before the transition, as `java.time` does).
    pub fn at_local(date: Date, nanos: i64, zone: Zone) -> Result<ZonedDateTime, EvalError> {
        match zone {
            Zone::Offset(offset) => Ok(ZonedDateTime {
                date,
                nanos,
                offset,
                zone: None,
            }),
            Zone::Named(tz) => {
                let ts = tz
                    .to_ambiguous_timestamp(civil(date, nanos)?)
                    .compatible()
                    .or_else(|e| err(format!("invalid local time in its time zone: {e}")))?;
                let at = ZonedDateTime::at_instant(ts.as_nanosecond(), Zone::Named(tz))?;
                Ok(at)
            }
        }
    }
}

/// Offsets as Cypher prints them: `Z`, `+01:00`, `-02:05:07`.
pub(crate) fn offset_text(offset: i32) -> String {
    if offset == 0 {
        return "Z".into();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    if s == 0 {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    }
}

fn write_date(f: &mut fmt::Formatter<'_>, d: Date) -> fmt::Result {
    let y = d.year();
    if y < 0 {
        write!(f, "-{:04}-{:02}-{:02}", -i32::from(y), d.month(), d.day())
    } else {
        write!(f, "{y:04}-{:02}-{:02}", d.month(), d.day())
    }
}

/// A time of day as `java.time` prints it: `HH:MM`, seconds when not zero, then 3, 6 or 9
/// digits of fraction.
fn write_time(f: &mut fmt::Formatter<'_>, nanos: i64) -> fmt::Result {
    let s = nanos / NANOS_PER_SECOND;
    let n = nanos % NANOS_PER_SECOND;
    write!(f, "{:02}:{:02}", s / 3600, s / 60 % 60)?;
    if s % 60 != 0 || n != 0 {
        write!(f, ":{:02}", s % 60)?;
    }
    if n != 0 {
        if n % 1_000_000 == 0 {
            write!(f, ".{:03}", n / 1_000_000)?;
        } else if n % 1000 == 0 {
            write!(f, ".{:06}", n / 1000)?;
        } else {
            write!(f, ".{n:09}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Temporal {
    /// As Cypher's `toString` gives it (ISO 8601).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Temporal::Date(d) => write_date(f, *d),
            Temporal::LocalTime(n) => write_time(f, *n),
            Temporal::Time(n, o) => {
                write_time(f, *n)?;
                f.write_str(&offset_text(*o))
            }
            Temporal::LocalDateTime(d, n) => {
                write_date(f, *d)?;
                f.write_str("T")?;
                write_time(f, *n)
            }
            Temporal::DateTime(z) => {
                write_date(f, z.date)?;
                f.write_str("T")?;
                write_time(f, z.nanos)?;
                f.write_str(&offset_text(z.offset))?;
                match z.zone.as_ref().and_then(|tz| tz.iana_name()) {
                    Some(name) => write!(f, "[{name}]"),
                    None => Ok(()),
                }
            }
            Temporal::Duration(d) => write!(f, "{d}"),
        }
    }
}

impl PartialEq for Temporal {
    /// Cypher's equality (see [`Temporal::equals`]).
    fn eq(&self, other: &Temporal) -> bool {
        self.equals(other)
    }
}

impl Temporal {
    /// The type's name as Cypher writes it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Temporal::Date(_) => "Date",
            Temporal::LocalTime(_) => "LocalTime",
            Temporal::Time(..) => "Time",
            Temporal::LocalDateTime(..) => "LocalDateTime",
            Temporal::DateTime(_) => "DateTime",
            Temporal::Duration(_) => "Duration",
        }
    }

    /// The kind of value, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Temporal::Date(_) => "a date",
            Temporal::LocalTime(_) => "a local time",
            Temporal::Time(..) => "a time",
            Temporal::LocalDateTime(..) => "a local datetime",
            Temporal::DateTime(_) => "a datetime",
            Temporal::Duration(_) => "a duration",
        }
    }

    /// Cypher's `=`: values of one type that are the same (a datetime's zone included; durations
    /// component by component: `P1M` is not `P30D`); values of different types are unequal.
    pub fn equals(&self, other: &Temporal) -> bool {
        match (self, other) {
            (Temporal::Date(a), Temporal::Date(b)) => a == b,
            (Temporal::LocalTime(a), Temporal::LocalTime(b)) => a == b,
            (Temporal::Time(a, x), Temporal::Time(b, y)) => a == b && x == y,
            (Temporal::LocalDateTime(a, x), Temporal::LocalDateTime(b, y)) => a == b && x == y,
            (Temporal::DateTime(a), Temporal::DateTime(b)) => {
                a.date == b.date
                    && a.nanos == b.nanos
                    && a.offset == b.offset
                    && zone_name(a) == zone_name(b)
            }
            (Temporal::Duration(a), Temporal::Duration(b)) => a == b,
            _ => false,
        }
    }

    /// Cypher's `<`, `>`…: values of one type in time order (times and datetimes by their
    /// instant); `None` for values of different types and for durations, which have no order.
    pub fn compare(&self, other: &Temporal) -> Option<Ordering> {
        Some(match (self, other) {
            (Temporal::Date(a), Temporal::Date(b)) => a.cmp(b),
            (Temporal::LocalTime(a), Temporal::LocalTime(b)) => a.cmp(b),
            (Temporal::Time(a, x), Temporal::Time(b, y)) => utc_time(*a, *x).cmp(&utc_time(*b, *y)),
            (Temporal::LocalDateTime(a, x), Temporal::LocalDateTime(b, y)) => (a, x).cmp(&(b, y)),
            (Temporal::DateTime(a), Temporal::DateTime(b)) => a.epoch_nanos().cmp(&b.epoch_nanos()),
            _ => return None,
        })
    }

    /// A total order for ORDER BY, DISTINCT and grouping (Cypher's orderability): datetimes, local
    /// datetimes, dates, times, local times, then durations; within a type in time order, ties
    /// (one instant in two zones, durations of one length in other units) broken by their text.
    pub fn sort_cmp(&self, other: &Temporal) -> Ordering {
        fn rank(t: &Temporal) -> u8 {
            match t {
                Temporal::DateTime(_) => 0,
                Temporal::LocalDateTime(..) => 1,
                Temporal::Date(_) => 2,
                Temporal::Time(..) => 3,
                Temporal::LocalTime(_) => 4,
                Temporal::Duration(_) => 5,
            }
        }
        let by_value = match (self, other) {
            (Temporal::Duration(a), Temporal::Duration(b)) => a.sort_key().cmp(&b.sort_key()),
            _ => self.compare(other).unwrap_or(Ordering::Equal),
        };
        rank(self)
            .cmp(&rank(other))
            .then(by_value)
            .then_with(|| self.to_string().cmp(&other.to_string()))
    }
}

fn zone_name(z: &ZonedDateTime) -> Option<&str> {
    z.zone.as_ref().and_then(|tz| tz.iana_name())
}

/// A time with an offset as nanoseconds of the UTC day (may fall outside `0..NANOS_PER_DAY`).
fn utc_time(nanos: i64, offset: i32) -> i64 {
    nanos - i64::from(offset) * NANOS_PER_SECOND
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_times_with_three_six_or_nine_digits_of_fraction() {
        let t = |n: i64| Temporal::LocalTime(n).to_string();
        assert_eq!(t(12 * 3600 * NANOS_PER_SECOND), "12:00");
        assert_eq!(t((12 * 3600 + 14) * NANOS_PER_SECOND), "12:00:14");
        assert_eq!(t(14 * NANOS_PER_SECOND + 500_000_000), "00:00:14.500");
        assert_eq!(t(645_876_000), "00:00:00.645876");
        assert_eq!(t(3), "00:00:00.000000003");
        assert_eq!(offset_text(3600), "+01:00");
        assert_eq!(offset_text(-(2 * 3600 + 5 * 60 + 7)), "-02:05:07");
        assert_eq!(offset_text(0), "Z");
    }

    #[test]
    fn epoch_days_round_trip() {
        let d = jiff::civil::date(1984, 10, 11);
        assert_eq!(epoch_day(d), 5397);
        assert_eq!(date_of_epoch_day(5397).ok(), Some(d));
        assert_eq!(epoch_day(jiff::civil::date(1969, 12, 31)), -1);
    }

    #[test]
    fn named_zones_take_their_offset_of_the_day() {
        let tz = TimeZone::get("Europe/Stockholm").expect("bundled tzdb");
        let summer =
            ZonedDateTime::at_local(jiff::civil::date(1984, 7, 20), 0, Zone::Named(tz.clone()))
                .expect("valid");
        assert_eq!(summer.offset, 7200);
        let winter = ZonedDateTime::at_local(jiff::civil::date(1984, 1, 1), 0, Zone::Named(tz))
            .expect("valid");
        assert_eq!(winter.offset, 3600);
        assert_eq!(
            Temporal::DateTime(winter).to_string(),
            "1984-01-01T00:00+01:00[Europe/Stockholm]"
        );
    }
}
