//! Durations as Cypher keeps them: months, days, seconds and nanoseconds apart (a month is not a
//! number of days, nor a day a number of seconds), their text (`P1Y2M3DT4H5M6.7S`), sums,
//! differences, and products and quotients by numbers.

use std::fmt;

use super::{err, NANOS_PER_DAY, NANOS_PER_SECOND};
use crate::exec::eval::EvalError;

/// The average length of a month in nanoseconds (365.2425 days / 12), by which a fraction of a
/// month becomes days and seconds.
const NANOS_PER_AVG_MONTH: f64 = 2_629_746.0 * 1e9;

/// A duration: `months` and `days` as counted, `seconds` and `nanos` (`0..1e9`) of clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Duration {
    /// Months (a year is 12).
    pub months: i64,
    /// Days (a week is 7).
    pub days: i64,
    /// Seconds.
    pub seconds: i64,
    /// Nanoseconds of the second, `0..1_000_000_000`.
    pub nanos: i64,
}

/// A unit a duration is built from (`duration({weeks: 2})`, `P2W`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Years.
    Years,
    /// Months.
    Months,
    /// Weeks.
    Weeks,
    /// Days.
    Days,
    /// Hours.
    Hours,
    /// Minutes.
    Minutes,
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// Microseconds.
    Microseconds,
    /// Nanoseconds.
    Nanoseconds,
}

/// A number of a unit: an integer, or a float (kept apart so that integers stay exact).
#[derive(Debug, Clone, Copy)]
pub enum Amount {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

/// A float of nanoseconds as an integer: rounded when within a thousandth of a nanosecond of an
/// integer (binary fractions such as 0.1 are not exact), else truncated toward zero as Cypher does.
fn nanos_of(x: f64) -> Result<i128, EvalError> {
    if !x.is_finite() || x.abs() > 1e36 {
        return err(format!("duration out of range ({x} nanoseconds)"));
    }
    let r = x.round();
    Ok(if (x - r).abs() < 1e-3 { r } else { x.trunc() } as i128)
}

/// Sums amounts of units into a duration; fractions of months and days spill into days and
/// seconds (a month averaging 30.436875 days), never the other way.
#[derive(Debug, Default)]
pub struct Builder {
    months: i128,
    days: i128,
    nanos: i128,
    frac_months: f64,
    frac_days: f64,
}

impl Builder {
    /// Adds `amount` of `unit`.
    pub fn add(&mut self, unit: Unit, amount: Amount) -> Result<(), EvalError> {
        let (whole, frac) = match amount {
            Amount::Int(i) => (i128::from(i), 0.0),
            Amount::Float(x) => {
                if !x.is_finite() || x.abs() > 9.0e18 {
                    return err(format!("duration component out of range ({x})"));
                }
                (x.trunc() as i128, x - x.trunc())
            }
        };
        let clock = |per: i64| -> Result<i128, EvalError> {
            Ok(whole * i128::from(per) + nanos_of(frac * per as f64)?)
        };
        match unit {
            Unit::Years => {
                self.months += whole * 12;
                self.frac_months += frac * 12.0;
            }
            Unit::Months => {
                self.months += whole;
                self.frac_months += frac;
            }
            Unit::Weeks => {
                self.days += whole * 7;
                self.frac_days += frac * 7.0;
            }
            Unit::Days => {
                self.days += whole;
                self.frac_days += frac;
            }
            Unit::Hours => self.nanos += clock(3600 * NANOS_PER_SECOND)?,
            Unit::Minutes => self.nanos += clock(60 * NANOS_PER_SECOND)?,
            Unit::Seconds => self.nanos += clock(NANOS_PER_SECOND)?,
            Unit::Milliseconds => self.nanos += clock(1_000_000)?,
            Unit::Microseconds => self.nanos += clock(1000)?,
            Unit::Nanoseconds => self.nanos += clock(1)?,
        }
        Ok(())
    }

    /// The duration.
    pub fn build(mut self) -> Result<Duration, EvalError> {
        let m = self.frac_months.trunc();
        self.months += m as i128;
        let d = self.frac_days.trunc();
        self.days += d as i128;
        let spill = nanos_of((self.frac_months - m) * NANOS_PER_AVG_MONTH)?
            + nanos_of((self.frac_days - d) * NANOS_PER_DAY as f64)?;
        self.days += spill / i128::from(NANOS_PER_DAY);
        self.nanos += spill % i128::from(NANOS_PER_DAY);
        Duration::of_parts(self.months, self.days, self.nanos)
    }
}

impl Duration {
    /// The duration of `months`, `days` and `nanos` of clock time; an error beyond 64 bits.
    pub fn of_parts(months: i128, days: i128, nanos: i128) -> Result<Duration, EvalError> {
        let ps = i128::from(NANOS_PER_SECOND);
        let fit = |x: i128| i64::try_from(x).or_else(|_| err("duration out of range"));
        Ok(Duration {
            months: fit(months)?,
            days: fit(days)?,
            seconds: fit(nanos.div_euclid(ps))?,
            nanos: nanos.rem_euclid(ps) as i64,
        })
    }

    /// The clock part in nanoseconds.
    pub fn clock_nanos(&self) -> i128 {
        i128::from(self.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(self.nanos)
    }

    /// `self + other` (`sign` 1) or `self - other` (`sign` -1), component by component.
    pub fn plus(&self, other: &Duration, sign: i128) -> Result<Duration, EvalError> {
        Duration::of_parts(
            i128::from(self.months) + sign * i128::from(other.months),
            i128::from(self.days) + sign * i128::from(other.days),
            self.clock_nanos() + sign * other.clock_nanos(),
        )
    }

    /// The duration times an integer: each component exactly.
    pub fn times_int(&self, k: i64) -> Result<Duration, EvalError> {
        let k = i128::from(k);
        let clock = self
            .clock_nanos()
            .checked_mul(k)
            .map_or_else(|| err("duration out of range"), Ok)?;
        Duration::of_parts(
            i128::from(self.months) * k,
            i128::from(self.days) * k,
            clock,
        )
    }

    /// Each component through `f` (a product or quotient by a float), fractions spilling down as
    /// when a duration is built.
    pub fn scaled(&self, f: impl Fn(f64) -> f64) -> Result<Duration, EvalError> {
        let mut b = Builder::default();
        b.add(Unit::Months, Amount::Float(f(self.months as f64)))?;
        b.add(Unit::Days, Amount::Float(f(self.days as f64)))?;
        b.add(Unit::Seconds, Amount::Float(f(self.seconds as f64)))?;
        b.add(Unit::Nanoseconds, Amount::Float(f(self.nanos as f64)))?;
        b.build()
    }

    /// A key that orders durations by their approximate length, then by their components.
    pub fn sort_key(&self) -> (i128, i64, i64, i64, i64) {
        let approx = i128::from(self.months) * 2_629_746 * i128::from(NANOS_PER_SECOND)
            + i128::from(self.days) * i128::from(NANOS_PER_DAY)
            + self.clock_nanos();
        (approx, self.months, self.days, self.seconds, self.nanos)
    }
}

/// Nine digits of fraction without trailing zeros, after a dot.
fn fraction(f: &mut fmt::Formatter<'_>, n: i64) -> fmt::Result {
    let digits = format!("{:09}", n.unsigned_abs());
    write!(f, ".{}", digits.trim_end_matches('0'))
}

impl fmt::Display for Duration {
    /// As Cypher prints it: `P12Y5M14DT16H13M10.000000001S`, each component with its own sign,
    /// `PT0S` for zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Duration::default() {
            return f.write_str("PT0S");
        }
        f.write_str("P")?;
        let part = |f: &mut fmt::Formatter<'_>, v: i64, unit: char| -> fmt::Result {
            if v != 0 {
                write!(f, "{v}{unit}")?;
            }
            Ok(())
        };
        part(f, self.months / 12, 'Y')?;
        part(f, self.months % 12, 'M')?;
        part(f, self.days, 'D')?;
        if self.seconds != 0 || self.nanos != 0 {
            f.write_str("T")?;
            let (mut s, mut n) = (self.seconds, self.nanos);
            if s < 0 && n != 0 {
                s += 1;
                n -= NANOS_PER_SECOND;
            }
            part(f, s / 3600, 'H')?;
            part(f, s % 3600 / 60, 'M')?;
            let s = s % 60;
            if s != 0 {
                write!(f, "{s}")?;
                if n != 0 {
                    fraction(f, n)?;
                }
                f.write_str("S")?;
            } else if n != 0 {
                f.write_str(if n < 0 { "-0" } else { "0" })?;
                fraction(f, n)?;
                f.write_str("S")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(parts: &[(Unit, Amount)]) -> Duration {
        let mut b = Builder::default();
        for (u, a) in parts {
            b.add(*u, *a).expect("in range");
        }
        b.build().expect("in range")
    }

    #[test]
    fn fractions_spill_into_smaller_units() {
        use Amount::*;
        // 0.75 of 30.436875 days = 22 days and 71509.5 s = 19:51:49.5.
        assert_eq!(
            build(&[(Unit::Months, Float(0.75))]).to_string(),
            "P22DT19H51M49.5S"
        );
        assert_eq!(build(&[(Unit::Weeks, Float(2.5))]).to_string(), "P17DT12H");
        assert_eq!(
            build(&[(Unit::Minutes, Float(1.5)), (Unit::Seconds, Int(1))]).to_string(),
            "PT1M31S"
        );
        assert_eq!(
            build(&[(Unit::Years, Int(12)), (Unit::Seconds, Int(70))]).to_string(),
            "P12YT1M10S"
        );
    }

    #[test]
    fn prints_signed_components_as_cypher() {
        use Amount::*;
        let d = |s: i64, ms: i64| {
            build(&[(Unit::Seconds, Int(s)), (Unit::Milliseconds, Int(ms))]).to_string()
        };
        assert_eq!(d(-2, 1), "PT-1.999S");
        assert_eq!(d(-60, -1), "PT-1M-0.001S");
        assert_eq!(d(60, -1), "PT59.999S");
        assert_eq!(d(0, 0), "PT0S");
        assert_eq!(
            build(&[(Unit::Days, Int(1)), (Unit::Milliseconds, Int(-1))]).to_string(),
            "P1DT-0.001S"
        );
    }

    #[test]
    fn products_and_quotients() {
        let d = Duration {
            months: 149,
            days: 14,
            seconds: 58390,
            nanos: 1,
        };
        assert_eq!(
            d.times_int(2).expect("fits").to_string(),
            "P24Y10M28DT32H26M20.000000002S"
        );
        assert_eq!(
            d.scaled(|x| x * 0.5).expect("fits").to_string(),
            "P6Y2M22DT13H21M8S"
        );
        assert!(Duration {
            months: i64::MAX,
            ..d
        }
        .times_int(2)
        .is_err());
        let long = Duration {
            seconds: i64::MAX,
            ..d
        };
        assert!(long.times_int(i64::MAX).is_err());
    }
}
