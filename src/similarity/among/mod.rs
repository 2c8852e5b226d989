//! AMonG (Hoffmann et al.): the A* similarity search on OpenCL with `n` search instances, each
//! with its own priority queue in device memory, iterating extraction → expansion → evaluation
//! (Eval_1, Eval_2, Eval_3) → insertion (Ins_1, Ins_2) until the best complete solution is at
//! least as good as every queued one. The isolated similarities are computed on the host
//! ([`Problem`]) and uploaded; the heuristic is `h_II` or `h_III`, the selection `select_II` or
//! `select_III` (improvement S), the initial solution optionally reduced (R). The device search is
//! query-oriented (improvement M is a host-only option) and never prunes: it is exact.
//!
//! [`race`] runs the device against the host A* and returns whichever finishes first, as in the
//! paper's evaluation. Kernels: `cl/among.cl`.

mod run;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub use run::among_search;

use super::astar::{search, Algorithm, Outcome, SearchOptions};
use super::problem::Problem;
use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// The kernel source.
pub const AMONG_CL: &str = include_str!("../../../cl/among.cl");

/// How expanded solutions are evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvalStrategy {
    /// Eval_1: each instance evaluates its children in sequence.
    One,
    /// Eval_2: one work-item per child.
    Two,
    /// Eval_3: one work-item per (child, element), then one per child to sum.
    #[default]
    Three,
}

impl TryFrom<u8> for EvalStrategy {
    type Error = Error;
    fn try_from(v: u8) -> Result<Self> {
        match v {
            1 => Ok(EvalStrategy::One),
            2 => Ok(EvalStrategy::Two),
            3 => Ok(EvalStrategy::Three),
            _ => Err(Error::InvalidArgument(format!(
                "evaluation strategy {v}: choose 1, 2 or 3"
            ))),
        }
    }
}

/// Where expanded solutions are inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InsertStrategy {
    /// Ins_1: all children of an instance go to one randomly chosen queue (a permutation per
    /// iteration).
    One,
    /// Ins_2: the children of an instance are spread evenly over all queues.
    #[default]
    Two,
}

impl TryFrom<u8> for InsertStrategy {
    type Error = Error;
    fn try_from(v: u8) -> Result<Self> {
        match v {
            1 => Ok(InsertStrategy::One),
            2 => Ok(InsertStrategy::Two),
            _ => Err(Error::InvalidArgument(format!(
                "insertion strategy {v}: choose 1 or 2"
            ))),
        }
    }
}

/// AMonG parameters.
#[derive(Debug, Clone)]
pub struct AmongOptions {
    /// Number of search instances `n` (priority queues).
    pub instances: usize,
    /// Evaluation strategy.
    pub eval: EvalStrategy,
    /// Insertion strategy.
    pub insert: InsertStrategy,
    /// Capacity of each priority queue; a full queue stops the search
    /// ([`StopReason::QueueCapacity`](super::astar::StopReason::QueueCapacity)): it would lose
    /// solutions.
    pub queue_capacity: usize,
    /// `h_III` (true) or `h_II`.
    pub heuristic_iii: bool,
    /// `select_III` (improvement S; needs `h_III`).
    pub selection: bool,
    /// Improvement R for the initial solution.
    pub reduction: bool,
    /// Seed of Ins_1's random routing.
    pub seed: u64,
    /// Give up after this long.
    pub time_limit: Option<Duration>,
    /// Give up when set.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Give up once every queued f-value is below this similarity (`f64` bits; retrieval's early
    /// stop).
    pub prune_below: Option<Arc<AtomicU64>>,
}

impl Default for AmongOptions {
    fn default() -> Self {
        AmongOptions {
            instances: 64,
            eval: EvalStrategy::Three,
            insert: InsertStrategy::Two,
            queue_capacity: 4096,
            heuristic_iii: true,
            selection: true,
            reduction: true,
            seed: 1,
            time_limit: None,
            cancel: None,
            prune_below: None,
        }
    }
}

impl AmongOptions {
    /// The device counterpart of host options: A*II or A*III, R and S carried over; A*I and a
    /// queue limit are not available on the device.
    pub fn from_search(options: &SearchOptions) -> Result<Self> {
        if options.algorithm == Algorithm::AStarI {
            return Err(Error::InvalidArgument(
                "AMonG runs A*II or A*III (astar2, astar3)".into(),
            ));
        }
        if options.queue_limit.is_some() {
            return Err(Error::InvalidArgument(
                "AMonG searches exactly; a queue limit is a host option".into(),
            ));
        }
        Ok(AmongOptions {
            heuristic_iii: options.algorithm == Algorithm::AStarIII,
            selection: options.improvements.selection,
            reduction: options.improvements.reduction,
            time_limit: options.time_limit,
            cancel: options.cancel.clone(),
            prune_below: options.prune_below.clone(),
            ..AmongOptions::default()
        })
    }
}

/// Which side won a [`race`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winner {
    /// The host A* finished first.
    Host,
    /// AMonG finished first.
    Device,
}

/// Runs AMonG and the host A* at the same time and returns the first finished result (the other
/// is cancelled). When neither finishes (time limit), the host's outcome is returned.
pub fn race(
    gpu: &Gpu,
    problem: &Problem,
    host: &SearchOptions,
    device: &AmongOptions,
) -> Result<(Outcome, Winner)> {
    const NONE: u8 = 0;
    const HOST: u8 = 1;
    const DEVICE: u8 = 2;
    let winner = AtomicU8::new(NONE);
    let host_cancel = Arc::new(AtomicBool::new(false));
    let device_cancel = Arc::new(AtomicBool::new(false));
    let mut host_options = host.clone();
    host_options.cancel = Some(Arc::clone(&host_cancel));
    let mut device_options = device.clone();
    device_options.cancel = Some(Arc::clone(&device_cancel));
    let (host_result, device_result) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let r = search(problem, &host_options);
            if matches!(r, Ok(Outcome::Done(_)))
                && winner
                    .compare_exchange(NONE, HOST, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            {
                device_cancel.store(true, Ordering::SeqCst);
            }
            r
        });
        let d = among_search(gpu, problem, &device_options);
        if matches!(d, Ok(Outcome::Done(_)))
            && winner
                .compare_exchange(NONE, DEVICE, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        {
            host_cancel.store(true, Ordering::SeqCst);
        }
        let h = h
            .join()
            .unwrap_or_else(|_| Err(Error::InvalidArgument("the host search panicked".into())));
        (h, d)
    });
    match winner.load(Ordering::SeqCst) {
        DEVICE => Ok((device_result?, Winner::Device)),
        HOST => Ok((host_result?, Winner::Host)),
        _ => Ok((host_result?, Winner::Host)),
    }
}
