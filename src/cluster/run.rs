//! One process's part of a cluster run: loads its parts, starts timely's workers (threads of
//! this process, connected to the other processes by timely's own networking), and waits for
//! the result — or for the first sign that the cluster failed.
//!
//! Failure handling: the connections are made by [`super::connect`] within
//! [`ClusterOptions::connect_timeout`] (timely's own connection code retries forever and prints
//! to standard output); timely panics its network threads when a peer's connection breaks. So
//! the workers run on their own threads while the calling thread
//! waits for events: until every local worker has started (all processes connected) it waits at
//! most [`ClusterOptions::connect_timeout`]; after that, until the result or
//! [`ClusterOptions::timeout`]. A panic on any thread while the run is on (a broken connection
//! to a process that died) is caught by a panic hook and ends the wait with
//! [`Error::Cluster`]. On an error the workers are told to stop stepping; threads blocked inside
//! timely may remain until the process exits (the command line exits at once).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::any::Any;

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;
use timely::WorkerConfig;

use super::connect::connect_all;
use super::dataflow::{run_worker, Gathered, Settings};
use super::local::Local;
use super::plan::DistPlan;
use crate::error::{Error, Result};
use crate::exec::Semantics;
use crate::io::partitions::PartitionSet;
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// Where this process runs in the cluster.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// `host:port` of every process, in process order (one entry: a single process, no network).
    pub hosts: Vec<String>,
    /// This process's index in `hosts`.
    pub process: usize,
    /// Worker threads per process.
    pub threads: usize,
    /// The partition set's directory.
    pub parts: PathBuf,
    /// How long to wait for every process to connect.
    pub connect_timeout: Duration,
    /// An inherited file descriptor of a socket already listening on this process's address
    /// (Linux; `gemp cluster run` passes one so that no other program can take the port before
    /// this process listens on it); `None`: the address is bound here.
    pub listen_fd: Option<i32>,
    /// How long the query may run once connected (`None`: no limit).
    pub timeout: Option<Duration>,
    /// Start vertices per worker and round.
    pub batch: usize,
}

/// What this process ends with.
#[derive(Debug, Default)]
pub struct ProcessResult {
    /// Worker 0's gathered result (process 0), `None` on the other processes.
    pub gathered: Option<Gathered>,
}

enum Event {
    Started,
    Done(Result<ProcessResult>),
    Panic(String),
}

/// The sender the panic hook reports to while a run is on.
static PANICS: Mutex<Option<Sender<Event>>> = Mutex::new(None);

/// Installs the hook once: while a run is on, a panic is reported as an event (and not printed);
/// otherwise the previous hook runs.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let sender = PANICS.lock().ok().and_then(|s| s.clone());
            match sender {
                Some(s) => {
                    let text = info
                        .payload()
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a worker thread panicked".into());
                    let _ = s.send(Event::Panic(text));
                }
                None => previous(info),
            }
        }));
    });
}

/// Loads the parts of this process's workers (part `p` goes to worker `p mod workers`).
fn load(set: &PartitionSet, options: &ClusterOptions) -> Result<Local> {
    let workers = options.hosts.len().max(1) * options.threads.max(1);
    let mine =
        options.process * options.threads.max(1)..(options.process + 1) * options.threads.max(1);
    let mut parts = Vec::new();
    for p in 0..set.manifest.parts {
        let model = if mine.contains(&(p as usize % workers)) {
            Some(Arc::new(set.open_part(p)?))
        } else {
            None
        };
        parts.push(model);
    }
    Ok(Local {
        parts,
        workers,
        ids_only: crate::model::ModelBuilder::new().freeze()?,
        global_nodes: set.manifest.nodes,
    })
}

/// The node model of part 0 of the set at `dir` (for binding the query against the shared
/// schema: every part has the whole model's labels, types, property columns and dictionaries).
pub fn schema_model(dir: &std::path::Path) -> Result<Arc<Model>> {
    Ok(Arc::clone(PartitionSet::open(dir)?.open_part(0)?.nodes()))
}

/// This process's parts, opened once: for binding the query ([`Loaded::schema`]) and for the
/// run ([`run`]).
#[derive(Debug, Clone)]
pub struct Loaded {
    local: Arc<Local>,
    set: PartitionSet,
}

impl Loaded {
    /// Opens the set at `options.parts` and the parts of this process's workers.
    pub fn open(options: &ClusterOptions) -> Result<Loaded> {
        let set = PartitionSet::open(&options.parts)?;
        let local = Arc::new(load(&set, options)?);
        Ok(Loaded { local, set })
    }

    /// A model with the whole model's schema and dictionaries: the node model of the first part
    /// this process loaded (no second copy in memory), or of part 0 where it loaded none.
    pub fn schema(&self) -> Result<Arc<Model>> {
        match self.local.parts.iter().flatten().next() {
            Some(p) => Ok(Arc::clone(p.nodes())),
            None => Ok(Arc::clone(self.set.open_part(0)?.nodes())),
        }
    }
}

/// The listening socket behind the inherited file descriptor `fd`: refused unless `fd` is an open
/// socket that listens (so that a wrong number is an error, not a foreign file taken over).
#[cfg(target_os = "linux")]
fn inherited_listener(fd: i32) -> Result<std::net::TcpListener> {
    use std::os::fd::FromRawFd;
    let mut listening: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `listening`; on a descriptor that is not
    // an open socket it fails with an error code and writes nothing.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ACCEPTCONN,
            (&mut listening as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if rc != 0 || listening == 0 {
        return Err(Error::Cluster(format!(
            "--listen-fd {fd} is not a listening socket of this process"
        )));
    }
    // SAFETY: `fd` is an open listening socket (checked above) that this process owns from here
    // on: `gemp cluster run` hands each process its own one and keeps no use of it.
    Ok(unsafe { std::net::TcpListener::from_raw_fd(fd) })
}

/// Elsewhere a listening socket is not inherited (the address is bound by the process).
#[cfg(not(target_os = "linux"))]
fn inherited_listener(fd: i32) -> Result<std::net::TcpListener> {
    Err(Error::Cluster(format!(
        "--listen-fd {fd}: inherited sockets are supported on Linux only"
    )))
}

/// The communication of this process's workers: threads of one process, or (several hosts) the
/// connections made by [`connect_all`] within the connect timeout, handed to timely.
fn communication(options: &ClusterOptions) -> Result<(Vec<AllocatorBuilder>, Box<dyn Any + Send>)> {
    let threads = options.threads.max(1);
    if options.hosts.len() <= 1 {
        let config = if threads == 1 {
            timely::CommunicationConfig::Thread
        } else {
            timely::CommunicationConfig::Process(threads)
        };
        return config
            .try_build()
            .map_err(|e| Error::Cluster(format!("starting the workers: {e}")));
    }
    let deadline = Instant::now() + options.connect_timeout;
    let listener = options.listen_fd.map(inherited_listener).transpose()?;
    let sockets = connect_all(&options.hosts, options.process, listener, deadline)?;
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, options.process, threads, hooks)
            .map_err(|e| Error::Cluster(format!("starting the network threads: {e}")))?;
    Ok((
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

/// Runs `query` as this process of the cluster on its parts `loaded` ([`Loaded::open`] with the
/// same options). Checks the plan before any connection is made.
pub fn run(
    query: &BoundQuery,
    semantics: Semantics,
    options: &ClusterOptions,
    loaded: &Loaded,
) -> Result<ProcessResult> {
    if options.process >= options.hosts.len().max(1) {
        return Err(Error::Cluster(format!(
            "process {} of a cluster of {} hosts",
            options.process,
            options.hosts.len()
        )));
    }
    let plan = Arc::new(DistPlan::new(query, semantics)?);
    let local = Arc::clone(&loaded.local);
    let settings = Settings {
        batch: options.batch,
        set_id: loaded.set.manifest.set_id.clone(),
    };
    let query = Arc::new(query.clone());
    let threads = options.threads.max(1);
    let (builders, others) = communication(options)?;
    let (tx, rx) = channel::<Event>();
    install_hook();
    if let Ok(mut slot) = PANICS.lock() {
        *slot = Some(tx.clone());
    }
    let abort = Arc::new(AtomicBool::new(false));
    let worker_abort = Arc::clone(&abort);
    let started = tx.clone();
    let done = tx;
    std::thread::spawn(move || {
        let started = Mutex::new(started);
        let outcome = timely::execute::execute_from(
            builders,
            others,
            WorkerConfig::default(),
            move |worker| {
                if let Ok(s) = started.lock() {
                    let _ = s.send(Event::Started);
                }
                let result = run_worker(
                    worker,
                    Arc::clone(&local),
                    Arc::clone(&query),
                    Arc::clone(&plan),
                    &settings,
                    &worker_abort,
                );
                if result.is_err() {
                    for id in worker.installed_dataflows() {
                        worker.drop_dataflow(id);
                    }
                }
                (worker.index(), result)
            },
        );
        let result = match outcome {
            Err(e) => Err(Error::Cluster(format!("starting the workers: {e}"))),
            Ok(guards) => {
                let mut gathered = None;
                let mut failure = None;
                for joined in guards.join() {
                    match joined {
                        Ok((0, Ok(g))) => gathered = Some(g),
                        Ok((_, Ok(_))) => {}
                        Ok((_, Err(e))) => failure = failure.or(Some(e)),
                        Err(e) => failure = failure.or(Some(Error::Cluster(e))),
                    }
                }
                match failure {
                    Some(e) => Err(e),
                    None => Ok(ProcessResult { gathered }),
                }
            }
        };
        let _ = done.send(Event::Done(result));
    });
    let result = wait(&rx, threads, options);
    if let Ok(mut slot) = PANICS.lock() {
        *slot = None;
    }
    if result.is_err() {
        abort.store(true, Ordering::Relaxed);
    }
    result
}

/// Waits for the workers' events (see the module docs).
fn wait(
    rx: &std::sync::mpsc::Receiver<Event>,
    threads: usize,
    options: &ClusterOptions,
) -> Result<ProcessResult> {
    let begun = Instant::now();
    let mut started = 0;
    let mut connected_at = None;
    loop {
        let limit = match connected_at {
            None => Some(options.connect_timeout.saturating_sub(begun.elapsed())),
            Some(at) => options
                .timeout
                .map(|t| t.saturating_sub(Instant::elapsed(&at))),
        };
        let event = match limit {
            Some(left) => rx.recv_timeout(left),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(Event::Started) => {
                started += 1;
                if started == threads {
                    connected_at = Some(Instant::now());
                }
            }
            Ok(Event::Done(result)) => return result,
            Ok(Event::Panic(text)) => {
                return Err(Error::Cluster(format!(
                    "process {} lost the cluster: {text} (a process died or cannot be reached)",
                    options.process
                )))
            }
            Err(RecvTimeoutError::Timeout) if connected_at.is_none() => {
                return Err(Error::Cluster(format!(
                    "process {} could not connect to every process of {} within {:?}",
                    options.process,
                    options.hosts.join(", "),
                    options.connect_timeout
                )))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(Error::Cluster(format!(
                    "process {}: the query did not finish within {:?} (a process may have \
                     stopped answering)",
                    options.process,
                    options.timeout.unwrap_or_default()
                )))
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::Cluster(
                    "the worker threads ended without a result".into(),
                ))
            }
        }
    }
}
