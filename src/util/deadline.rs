//! One time limit for a whole run (`--timeout`): a [`Deadline`] fixed when the run starts and
//! read by every stage after it — parsing and binding a query, planning it, the search (which
//! gets what is [`left`](Deadline::left) as its own timeout), each statement of a transform —
//! so that no stage runs on past it unnoticed.
//!
//! The parser takes no options: it reads the deadline of the thread's [`Deadline::scope`]
//! ([`current_passed`]) while it walks long inputs (a list of two million literals).

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// When a run must stop, and the limit it was given (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
    limit: Duration,
}

impl Deadline {
    /// The deadline `limit` from now.
    pub fn after(limit: Duration) -> Self {
        Deadline {
            at: Instant::now() + limit,
            limit,
        }
    }

    /// The limit it was made with.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// True once it has passed.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// The time left, at least a nanosecond: a stage given it as its own timeout stops at once
    /// (with what it found, marked partial) when none is left, as it would at its own deadline.
    pub fn left(&self) -> Duration {
        self.at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_nanos(1))
    }

    /// [`Error::Timeout`] naming `stage` (what was running: "planning the query") once the
    /// deadline has passed.
    pub fn check(&self, stage: impl FnOnce() -> String) -> Result<()> {
        if self.passed() {
            return Err(Error::Timeout {
                stage: stage(),
                limit: self.limit,
            });
        }
        Ok(())
    }
}

thread_local! {
    /// The deadline of the innermost [`Deadline::scope`] on this thread.
    static CURRENT: Cell<Option<Deadline>> = const { Cell::new(None) };
}

impl Deadline {
    /// Runs `f` with `deadline` as this thread's current deadline (read by stages that take no
    /// options, such as the parser: see [`current_passed`]).
    pub fn scope<R>(deadline: Option<Deadline>, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Deadline>);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(deadline)));
        f()
    }

    /// This thread's current deadline ([`Deadline::scope`]), if any.
    pub fn current() -> Option<Deadline> {
        CURRENT.with(Cell::get)
    }
}

/// True when this thread's current deadline ([`Deadline::scope`]) has passed.
pub fn current_passed() -> bool {
    Deadline::current().is_some_and(|d| d.passed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_is_a_timeout_naming_the_stage() {
        let d = Deadline::after(Duration::ZERO);
        assert!(d.passed());
        assert_eq!(d.left(), Duration::from_nanos(1));
        let e = d.check(|| "planning the query".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "timed out after 0ns while planning the query"
        );
        let d = Deadline::after(Duration::from_secs(3600));
        assert!(!d.passed());
        assert!(d.left() > Duration::from_secs(3500));
        assert!(d.check(|| unreachable!()).is_ok());
    }

    #[test]
    fn a_scope_sets_the_current_deadline_and_restores_the_outer_one() {
        assert!(Deadline::current().is_none() && !current_passed());
        let passed = Deadline::after(Duration::ZERO);
        Deadline::scope(Some(passed), || {
            assert!(current_passed());
            Deadline::scope(None, || assert!(!current_passed()));
            assert_eq!(Deadline::current(), Some(passed));
        });
        assert!(Deadline::current().is_none());
    }
}
