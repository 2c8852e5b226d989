//! One thread per Python `Graph` that owns the graph and its sessions.
//!
//! A gemp session (`gemp::api::Runner`) borrows its graph and is not `Send`, so the graph, the
//! runners (one per backend and engine: the model is uploaded to a device once) and every query
//! live on this thread. Python threads send it jobs and wait for the reply with the GIL
//! released, polling for signals (Ctrl-C) every 50 ms; see [`Worker::call`].

use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::Duration;

use gemp::api::embedding::{Backend, EngineKind};
use gemp::api::{CancelFlag, Graph, Matches, RunOptions, Runner};
use pyo3::prelude::*;

/// A job that reads the graph (queries, explain, schema, save).
pub type ReadJob = Box<dyn for<'g> FnOnce(&Reader<'g>) + Send>;
/// A job that changes the graph (transform); the runners are opened again after it.
pub type WriteJob = Box<dyn FnOnce(&mut Graph) + Send>;

enum Job {
    Read(ReadJob),
    Write(WriteJob),
}

/// What a read job sees: the graph and the runners opened on it so far.
pub struct Reader<'g> {
    pub graph: &'g Graph,
    runners: RefCell<Vec<((Backend, EngineKind), Runner<'g>)>>,
    /// Results whose freeing waits until the job's answer is sent.
    discarded: RefCell<Vec<Matches<'g>>>,
}

impl<'g> Reader<'g> {
    /// Drops `matches` after the job's answer is sent (freeing a million rows takes a tenth of a
    /// second that the caller need not wait for).
    pub fn discard_later(&self, matches: Matches<'g>) {
        self.discarded.borrow_mut().push(matches);
    }

    /// Calls `f` with the runner for `options`' backend and engine, opening it the first time.
    pub fn with_runner<R>(
        &self,
        options: &RunOptions,
        f: impl FnOnce(&Runner<'g>) -> R,
    ) -> gemp::Result<R> {
        let key = (options.backend, options.engine);
        let mut runners = self.runners.borrow_mut();
        let i = match runners.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let runner = self.graph.runner(&RunOptions {
                    stages: None,
                    ..options.clone()
                })?;
                runners.push((key, runner));
                runners.len() - 1
            }
        };
        Ok(f(&runners[i].1))
    }
}

/// The handle of a graph's thread.
pub struct Worker {
    jobs: Mutex<Option<Sender<Job>>>,
}

impl Worker {
    /// Starts the thread that owns `graph`.
    pub fn start(graph: Graph) -> Worker {
        let (tx, rx) = mpsc::channel();
        // Detached: dropping the handle closes the channel, and the thread ends after the job it
        // is running (a dropped graph never blocks the Python thread that drops it).
        std::thread::Builder::new()
            .name("gemp-graph".into())
            .spawn(move || serve(graph, rx))
            .expect("starting the graph's thread");
        Worker {
            jobs: Mutex::new(Some(tx)),
        }
    }

    fn send(&self, job: Job) -> PyResult<()> {
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        match jobs.as_ref() {
            Some(tx) if tx.send(job).is_ok() => Ok(()),
            _ => Err(crate::errors::internal("the graph's thread has stopped")),
        }
    }

    /// Runs a read job on the graph's thread and returns its answer. With `cancel`, Ctrl-C (any
    /// signal handler raising) raises the flag, waits for the job to stop and re-raises; without
    /// one the job runs to its end first.
    pub fn read<R: Send + 'static>(
        &self,
        py: Python<'_>,
        cancel: Option<&CancelFlag>,
        job: impl for<'g> FnOnce(&Reader<'g>) -> R + Send + 'static,
    ) -> PyResult<R> {
        let (tx, rx) = mpsc::channel();
        let flag = cancel.cloned();
        self.send(Job::Read(Box::new(move |reader: &Reader<'_>| {
            let answer = match &flag {
                Some(f) => f.scope(|| job(reader)),
                None => job(reader),
            };
            let _ = tx.send(answer);
        })))?;
        let on_interrupt = cancel.map(|f| move || f.cancel());
        wait_with(py, rx, on_interrupt.as_ref().map(|f| f as &dyn Fn()))
    }

    /// Runs a write job on the graph's thread (not cancellable: a change is applied whole or
    /// not at all; a Ctrl-C during it is raised once it is done).
    pub fn write<R: Send + 'static>(
        &self,
        py: Python<'_>,
        job: impl FnOnce(&mut Graph) -> R + Send + 'static,
    ) -> PyResult<R> {
        let (tx, rx) = mpsc::channel();
        self.send(Job::Write(Box::new(move |graph: &mut Graph| {
            let _ = tx.send(job(graph));
        })))?;
        wait_with(py, rx, None)
    }
}

/// Waits for the answer on `rx` with the GIL released. With `on_interrupt`, signals are checked
/// every 50 ms: on Ctrl-C (a signal handler raising) `on_interrupt` is called, the answer waited
/// for and dropped, and the exception raised. Without it, the answer is waited for (a pending
/// Ctrl-C is raised by Python after the call).
pub fn wait_with<R: Send>(
    py: Python<'_>,
    rx: Receiver<R>,
    on_interrupt: Option<&dyn Fn()>,
) -> PyResult<R> {
    let failed = || crate::errors::internal("the graph's thread failed (a panic)");
    let Some(on_interrupt) = on_interrupt else {
        return py.allow_threads(move || rx.recv()).map_err(|_| failed());
    };
    let mut rx = rx;
    loop {
        // The receiver is not `Sync`: it goes into the GIL-free closure and comes back.
        let (back, answer) = py.allow_threads(move || {
            let answer = rx.recv_timeout(Duration::from_millis(50));
            (rx, answer)
        });
        rx = back;
        match answer {
            Ok(answer) => return Ok(answer),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    on_interrupt();
                    // The run stops at its next deadline check; its partial answer is dropped.
                    // A second Ctrl-C stops waiting for that (the graph's thread finishes the
                    // run in the background; the graph's next call waits for it).
                    loop {
                        let (back, answer) = py.allow_threads(move || {
                            let answer = rx.recv_timeout(Duration::from_millis(50));
                            (rx, answer)
                        });
                        rx = back;
                        match answer {
                            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                            _ => return Err(interrupt),
                        }
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Err(failed()),
        }
    }
}

/// The graph's thread: read jobs share the runners; a write job closes them, changes the graph
/// and the next read opens them again. A job that panics drops its reply channel (the caller
/// raises) and the thread goes on.
fn serve(mut graph: Graph, jobs: Receiver<Job>) {
    loop {
        let write = {
            let reader = Reader {
                graph: &graph,
                runners: RefCell::new(Vec::new()),
                discarded: RefCell::new(Vec::new()),
            };
            loop {
                match jobs.recv() {
                    Err(_) => return,
                    Ok(Job::Read(f)) => {
                        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| f(&reader)));
                        reader.discarded.borrow_mut().clear();
                    }
                    Ok(Job::Write(f)) => break f,
                }
            }
        };
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| write(&mut graph)));
    }
}
