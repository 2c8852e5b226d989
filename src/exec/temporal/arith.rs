//! Temporal arithmetic: a temporal value plus or minus a duration (months, then days, then clock
//! time, each where the value has it), and the duration between two values
//! (`duration.between`, `inMonths`, `inDays`, `inSeconds`), as `java.time` computes them.

use jiff::civil::Date;

use super::{
    date_of_epoch_day, epoch_day, err, Duration, Temporal, ZonedDateTime, NANOS_PER_DAY,
    NANOS_PER_SECOND,
};
use crate::exec::eval::EvalError;

/// `d` plus `months` (the day clamped to the month's last) and `days`.
fn shift_date(d: Date, months: i128, days: i128) -> Result<Date, EvalError> {
    let months = i64::try_from(months).or_else(|_| err("date out of range"))?;
    let d = if months == 0 {
        d
    } else {
        jiff::Span::new()
            .try_months(months)
            .and_then(|s| d.checked_add(s))
            .or_else(|_| err("date out of range"))?
    };
    let days = i64::try_from(days).or_else(|_| err("date out of range"))?;
    date_of_epoch_day(
        epoch_day(d)
            .checked_add(days)
            .map_or_else(|| err("date out of range"), Ok)?,
    )
}

/// A local date and time plus clock nanoseconds, carried into the date.
fn shift_local(d: Date, nanos: i64, clock: i128) -> Result<(Date, i64), EvalError> {
    let total = i128::from(nanos) + clock;
    let day = total.div_euclid(i128::from(NANOS_PER_DAY));
    let n = total.rem_euclid(i128::from(NANOS_PER_DAY)) as i64;
    Ok((shift_date(d, 0, day)?, n))
}

/// A time of day plus clock nanoseconds, wrapping around midnight.
fn shift_time(nanos: i64, clock: i128) -> i64 {
    (i128::from(nanos) + clock).rem_euclid(i128::from(NANOS_PER_DAY)) as i64
}

/// `t + d` (`sign` 1) or `t - d` (`sign` -1); a duration plus or minus a duration component by
/// component. Dates take whole days of the clock part.
pub fn add_duration(t: &Temporal, d: &Duration, sign: i128) -> Result<Temporal, EvalError> {
    let months = sign * i128::from(d.months);
    let days = sign * i128::from(d.days);
    let clock = sign * d.clock_nanos();
    Ok(match t {
        Temporal::Date(x) => Temporal::Date(shift_date(
            *x,
            months,
            days + clock / i128::from(NANOS_PER_DAY),
        )?),
        Temporal::LocalTime(n) => Temporal::LocalTime(shift_time(*n, clock)),
        Temporal::Time(n, o) => Temporal::Time(shift_time(*n, clock), *o),
        Temporal::LocalDateTime(x, n) => {
            let (x, n) = shift_local(shift_date(*x, months, days)?, *n, clock)?;
            Temporal::LocalDateTime(x, n)
        }
        Temporal::DateTime(z) => {
            let date = shift_date(z.date, months, days)?;
            let at = ZonedDateTime::at_local(date, z.nanos, z.zone())?;
            Temporal::DateTime(ZonedDateTime::at_instant(
                at.epoch_nanos() + clock,
                z.zone(),
            )?)
        }
        Temporal::Duration(x) => Temporal::Duration(x.plus(d, sign)?),
    })
}

/// What `duration.between` and its variants compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Between {
    /// Months, days and clock time.
    All,
    /// Whole months.
    Months,
    /// Whole days.
    Days,
    /// Clock time.
    Seconds,
}

/// Whole months from `a` to `b` (`java.time`'s `LocalDate.until(…, MONTHS)`).
fn months_until(a: Date, b: Date) -> i64 {
    let packed =
        |d: Date| (i64::from(d.year()) * 12 + i64::from(d.month()) - 1) * 32 + i64::from(d.day());
    (packed(b) - packed(a)) / 32
}

/// The end date that whole date units count to from `(d1, n1)` to `(d2, n2)`: a day less (more)
/// when the end's time of day is before (after) the start's.
fn end_date(d1: Date, n1: i64, d2: Date, n2: i64) -> Result<Date, EvalError> {
    if d2 > d1 && n2 < n1 {
        shift_date(d2, 0, -1)
    } else if d2 < d1 && n2 > n1 {
        shift_date(d2, 0, 1)
    } else {
        Ok(d2)
    }
}

/// The duration between two local date-times.
fn local_between(
    (d1, n1): (Date, i64),
    (d2, n2): (Date, i64),
    unit: Between,
) -> Result<Duration, EvalError> {
    let end = end_date(d1, n1, d2, n2)?;
    let months = if matches!(unit, Between::All | Between::Months) {
        months_until(d1, end)
    } else {
        0
    };
    if unit == Between::Months {
        return Duration::of_parts(i128::from(months), 0, 0);
    }
    let from = shift_date(d1, i128::from(months), 0)?;
    let days = epoch_day(end) - epoch_day(from);
    if unit == Between::Days {
        return Duration::of_parts(0, i128::from(days), 0);
    }
    let from = shift_date(from, 0, i128::from(days))?;
    let clock = (i128::from(epoch_day(d2)) - i128::from(epoch_day(from)))
        * i128::from(NANOS_PER_DAY)
        + i128::from(n2)
        - i128::from(n1);
    if unit == Between::Seconds {
        let all = (i128::from(epoch_day(d2)) - i128::from(epoch_day(d1)))
            * i128::from(NANOS_PER_DAY)
            + i128::from(n2)
            - i128::from(n1);
        return Duration::of_parts(0, 0, all);
    }
    Duration::of_parts(i128::from(months), i128::from(days), clock)
}

fn mismatch<T>(a: &Temporal, b: &Temporal) -> Result<T, EvalError> {
    err(format!(
        "duration.between cannot take {} and {}",
        a.kind_name(),
        b.kind_name()
    ))
}

/// The duration from `a` to `b`: `b` taken as a value of `a`'s type (a datetime in `a`'s zone);
/// only the clock time between times of day.
pub fn between(a: &Temporal, b: &Temporal, unit: Between) -> Result<Duration, EvalError> {
    let time_only = |n1: i64, n2: i64| -> Result<Duration, EvalError> {
        match unit {
            Between::All | Between::Seconds => Duration::of_parts(0, 0, i128::from(n2 - n1)),
            Between::Months | Between::Days => Ok(Duration::default()),
        }
    };
    match (a, b) {
        (Temporal::Duration(_), _) | (_, Temporal::Duration(_)) => mismatch(a, b),
        (Temporal::Date(d1), _) => {
            let d2 = match b {
                Temporal::Date(d) | Temporal::LocalDateTime(d, _) => *d,
                Temporal::DateTime(z) => z.date,
                _ => return mismatch(a, b),
            };
            local_between((*d1, 0), (d2, 0), unit)
        }
        (Temporal::LocalTime(n1), _) => match b {
            Temporal::LocalTime(n2) | Temporal::Time(n2, _) | Temporal::LocalDateTime(_, n2) => {
                time_only(*n1, *n2)
            }
            Temporal::DateTime(z) => time_only(*n1, z.nanos),
            _ => mismatch(a, b),
        },
        (Temporal::Time(n1, o1), _) => {
            let (n2, o2) = match b {
                Temporal::Time(n, o) => (*n, *o),
                Temporal::DateTime(z) => (z.nanos, z.offset),
                _ => return mismatch(a, b),
            };
            let same_offset = shift_time(n2, i128::from(o1 - o2) * i128::from(NANOS_PER_SECOND));
            time_only(*n1, same_offset)
        }
        (Temporal::LocalDateTime(d1, n1), _) => match b {
            Temporal::LocalDateTime(d2, n2) => local_between((*d1, *n1), (*d2, *n2), unit),
            Temporal::DateTime(z) => local_between((*d1, *n1), (z.date, z.nanos), unit),
            _ => mismatch(a, b),
        },
        (Temporal::DateTime(z1), Temporal::DateTime(z2)) => {
            let z2 = ZonedDateTime::at_instant(z2.epoch_nanos(), z1.zone())?;
            let local = local_between((z1.date, z1.nanos), (z2.date, z2.nanos), unit)?;
            if matches!(unit, Between::Months | Between::Days) {
                return Ok(local);
            }
            // Clock time is measured between instants (a zone's transitions count).
            let start = add_duration(
                &Temporal::DateTime(z1.clone()),
                &Duration {
                    seconds: 0,
                    nanos: 0,
                    ..local
                },
                1,
            )?;
            let Temporal::DateTime(start) = start else {
                return mismatch(a, b);
            };
            let clock = z2.epoch_nanos() - start.epoch_nanos();
            if unit == Between::Seconds {
                return Duration::of_parts(0, 0, z2.epoch_nanos() - z1.epoch_nanos());
            }
            Duration::of_parts(i128::from(local.months), i128::from(local.days), clock)
        }
        (Temporal::DateTime(_), _) => mismatch(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn dur(months: i64, days: i64, seconds: i64, nanos: i64) -> Duration {
        Duration {
            months,
            days,
            seconds,
            nanos,
        }
    }

    #[test]
    fn dates_take_months_days_and_whole_days_of_clock_time() {
        let d = Temporal::Date(date(1984, 10, 11));
        // P12Y5M14DT16H13M10.000000002S
        let p = dur(149, 14, 58390, 2);
        assert_eq!(
            add_duration(&d, &p, 1).map(|t| t.to_string()),
            Ok("1997-03-25".into())
        );
        assert_eq!(
            add_duration(&d, &p, -1).map(|t| t.to_string()),
            Ok("1972-04-27".into())
        );
        // Jan 31 plus 1 month is the last of February.
        let j = Temporal::Date(date(2023, 1, 31));
        assert_eq!(
            add_duration(&j, &dur(1, 0, 0, 0), 1).map(|t| t.to_string()),
            Ok("2023-02-28".into())
        );
    }

    #[test]
    fn local_datetimes_carry_clock_time_into_the_date() {
        let t = Temporal::LocalDateTime(
            date(1984, 10, 11),
            (12 * 3600 + 31 * 60 + 14) * NANOS_PER_SECOND + 1,
        );
        let p = dur(149, 14, 58390, 2);
        assert_eq!(
            add_duration(&t, &p, 1).map(|t| t.to_string()),
            Ok("1997-03-26T04:44:24.000000003".into())
        );
        assert_eq!(
            add_duration(&t, &p, -1).map(|t| t.to_string()),
            Ok("1972-04-26T20:18:03.999999999".into())
        );
    }

    #[test]
    fn between_counts_months_then_days_then_time() {
        let a = Temporal::LocalDateTime(date(2020, 1, 31), 12 * 3600 * NANOS_PER_SECOND);
        let b = Temporal::LocalDateTime(date(2020, 3, 1), 6 * 3600 * NANOS_PER_SECOND);
        // Jan 31 12:00 to Feb 29 12:00 is no whole month (29 < 31) but 29 days, then 18 hours
        // to Mar 1 06:00.
        assert_eq!(
            between(&a, &b, Between::All).map(|d| d.to_string()),
            Ok("P29DT18H".into())
        );
        assert_eq!(between(&a, &b, Between::Days).map(|d| d.days), Ok(29));
        assert_eq!(
            between(&b, &a, Between::All).map(|d| d.to_string()),
            Ok("P-1MT-18H".into())
        );
        assert!(between(
            &Temporal::Date(date(2020, 1, 1)),
            &Temporal::LocalTime(0),
            Between::All
        )
        .is_err());
    }
}
