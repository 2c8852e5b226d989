//! The contract between a search and what receives its matches ([`Sink`]), and the shared stop
//! conditions every engine honours ([`Control`]: LIMIT reached, `--timeout`, `--memory-limit`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Pivot candidates per parallel task, for every engine that splits its search by pivot.
pub const CHUNK: usize = 64;

/// Receives matches. One sink per worker; the driver merges them.
pub trait Sink {
    /// A complete match; return false to stop the search.
    fn emit(&mut self, nodes: &[u32], rels: &[u32]) -> bool;
    /// `count` more matches that are not materialised (count-only queries).
    fn add_count(&mut self, count: u64) -> bool;
    /// True when the sink only counts, which lets the enumerator count without enumerating.
    fn count_only(&self) -> bool {
        false
    }
}

/// Shared stop conditions: an explicit stop (LIMIT reached) and a deadline (`--timeout`).
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    timed_out: AtomicBool,
    deadline: Option<Instant>,
    /// Matches reported so far, across workers (used for LIMIT).
    pub emitted: AtomicU64,
}

impl Control {
    /// No deadline.
    pub fn new(deadline: Option<Instant>) -> Self {
        Control {
            deadline,
            ..Default::default()
        }
    }

    /// Asks every worker to stop.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// True once stopped (by LIMIT or timeout).
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// True when the deadline passed before the search finished.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    /// False (after stopping every worker and marking the search timed out) once the deadline has
    /// passed, false (after stopping every worker) once the heap passed `--memory-limit`
    /// ([`crate::util::memory`]); otherwise whether no stop was requested.
    pub fn check_deadline(&self) -> bool {
        if crate::util::memory::check_beyond("the search") {
            self.stop();
            return false;
        }
        if let Some(d) = self.deadline {
            if Instant::now() >= d {
                self.timed_out.store(true, Ordering::Relaxed);
                self.stop();
                return false;
            }
        }
        !self.stopped()
    }
}
