//! The contract between a search and what receives its matches ([`Sink`]), and the shared stop
//! conditions every engine honours ([`Control`]: LIMIT reached, `--timeout`, `--memory-limit`).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
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

    /// Takes in another sink of the same search (another worker's or chunk's share).
    fn absorb(&mut self, other: Self)
    where
        Self: Sized;
}

/// Shared stop conditions: an explicit stop (LIMIT reached) and a deadline (`--timeout`).
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    timed_out: AtomicBool,
    deadline: Option<Instant>,
    /// Matches reported so far, across workers (used for LIMIT).
    pub emitted: AtomicU64,
    /// The caller's cancel flag ([`CancelFlag`]), watched like the deadline.
    cancel: Option<Arc<AtomicBool>>,
}

impl Control {
    /// No deadline.
    pub fn new(deadline: Option<Instant>) -> Self {
        Control {
            deadline,
            cancel: current_cancel_flag(),
            ..Default::default()
        }
    }

    /// A control of its own for a part of this search that must stop on its own (a trial that
    /// ends at its own LIMIT): the same deadline and cancel flag, its own stop flag and counter.
    /// Fold it back with [`Control::absorb`].
    pub fn child(&self) -> Control {
        Control {
            deadline: self.deadline,
            cancel: self.cancel.clone(),
            ..Default::default()
        }
    }

    /// Takes in what a [`Control::child`] saw: a deadline passed (or a cancel) there stops this
    /// search as timed out.
    pub fn absorb(&self, child: &Control) {
        if child.timed_out() {
            self.timed_out.store(true, Ordering::Relaxed);
            self.stop();
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
        // A cancelled run ([`CancelFlag`]) stops as if its deadline had passed.
        let cancelled = self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed));
        if cancelled || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.timed_out.store(true, Ordering::Relaxed);
            self.stop();
            return false;
        }
        !self.stopped()
    }
}

thread_local! {
    /// The flag of the innermost [`CancelFlag::scope`] on this thread.
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Stops running queries from another thread (a Ctrl-C handler, a UI's stop button).
///
/// Runs started inside [`CancelFlag::scope`] — on the calling thread — watch the flag where they
/// watch their deadline (`timeout`): once it is raised they stop as if the deadline had passed
/// and return what they found so far, marked partial (`Matches::is_partial` in the API). A caller
/// that raised the flag should discard that result.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag not raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Raises the flag: every run started in its scope stops soon (at its next deadline check).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once raised.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Runs `f` with this flag watched by the runs it starts on this thread.
    pub fn scope<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Arc<AtomicBool>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| *c.borrow_mut() = self.0.take());
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(Arc::clone(&self.0)));
        let _restore = Restore(previous);
        f()
    }
}

/// The flag of the innermost [`CancelFlag::scope`] on this thread (read when a run's stop
/// control is made).
pub fn current_cancel_flag() -> Option<Arc<AtomicBool>> {
    CURRENT.with(|c| c.borrow().clone())
}
