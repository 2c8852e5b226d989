//! Phase 1 on the device: the model upload ([`DeviceModel`]), the pivot step (`mark_pivot` and
//! device compaction) and the rounds of the `topology` kernel with its result buffer.
//!
//! # Rounds and overflow (GEMP §5, §7.2)
//!
//! Every round launches one work-item per *task*; a task is a pivot candidate, either fresh or
//! resumed. A work-item reserves result slots with `atomic_inc`; when the counter passes the
//! buffer's capacity, the work-item saves its backtracking state (with the match it could not
//! write pending) and reports itself suspended. A work-item also suspends when it has examined
//! its launch's budget of candidates (adapted per launch towards [`DeviceConfig::round_time`], at
//! most [`DeviceConfig::step_budget`]), which bounds one launch's time. The next round
//! resumes every suspended task exactly where it stopped, then adds fresh pivots up to the thread
//! count of GEMP's formulas 1–3 ([`sizing::next_thread_count`]). Every slot below the capacity
//! holds a complete match, so the host keeps all of them: nothing is lost or reported twice, and
//! a round that overflows has filled the whole buffer, so progress is guaranteed even with a
//! buffer of one slot or a single work-item per round.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ocl::Program;

use super::encode::{EncodedPlan, MAX_LEVELS, MAX_NAMED_RELS, MAX_PATTERN_NODES, NONE};
use super::{DeviceConfig, PREDICATES_CL, TOPOLOGY_CL};
use crate::error::{Error, Result};
use crate::exec::candidates::CandidateSet;
use crate::exec::Control;
use crate::gpu::args::{GraphArgs, MarkPivotArgs, TopologyArgs};
use crate::gpu::{scan, sizing, DeviceBuffer, Gpu, COMMON_CL};
use crate::model::Model;

/// The model's topology on the device, uploaded once and reused by every query of a batch:
/// out and in CSR (offsets, neighbours, types; in edge ids) and the node-label CSR.
#[derive(Debug)]
pub struct DeviceModel {
    nodes: usize,
    edges: usize,
    out_off: DeviceBuffer<u32>,
    out_nbr: DeviceBuffer<u32>,
    out_ty: DeviceBuffer<u32>,
    in_off: DeviceBuffer<u32>,
    in_nbr: DeviceBuffer<u32>,
    in_ty: DeviceBuffer<u32>,
    in_eid: DeviceBuffer<u32>,
    lab_off: DeviceBuffer<u32>,
    labs: DeviceBuffer<u32>,
    /// Bytes uploaded.
    pub bytes: usize,
    /// Time the upload took.
    pub upload_time: Duration,
}

impl DeviceModel {
    /// Uploads `model`'s topology to `gpu`.
    pub fn upload(gpu: &Gpu, model: &Model) -> Result<DeviceModel> {
        let start = Instant::now();
        let (out, inc) = (model.out(), model.inc());
        let (lab_off, labs) = model.node_label_csr();
        let dm = DeviceModel {
            nodes: model.node_count(),
            edges: model.edge_count(),
            out_off: gpu.buffer_from("out offsets", &out.offsets, true)?,
            out_nbr: gpu.buffer_from("out neighbours", &out.neighbors, true)?,
            out_ty: gpu.buffer_from("out types", &out.types, true)?,
            in_off: gpu.buffer_from("in offsets", &inc.offsets, true)?,
            in_nbr: gpu.buffer_from("in neighbours", &inc.neighbors, true)?,
            in_ty: gpu.buffer_from("in types", &inc.types, true)?,
            in_eid: gpu.buffer_from("in edge ids", &inc.edge_ids, true)?,
            lab_off: gpu.buffer_from("label offsets", lab_off, true)?,
            labs: gpu.buffer_from("labels", labs, true)?,
            bytes: 0,
            upload_time: Duration::ZERO,
        };
        gpu.finish()?;
        let bytes = [
            &dm.out_off,
            &dm.out_nbr,
            &dm.out_ty,
            &dm.in_off,
            &dm.in_nbr,
            &dm.in_ty,
            &dm.in_eid,
            &dm.lab_off,
            &dm.labs,
        ]
        .iter()
        .map(|b| b.bytes())
        .sum();
        Ok(DeviceModel {
            bytes,
            upload_time: start.elapsed(),
            ..dm
        })
    }

    /// The topology as the matcher's kernels take it.
    fn args(&self) -> GraphArgs<'_> {
        GraphArgs {
            out_off: &self.out_off,
            out_nbr: &self.out_nbr,
            out_ty: &self.out_ty,
            in_off: &self.in_off,
            in_nbr: &self.in_nbr,
            in_ty: &self.in_ty,
            in_eid: &self.in_eid,
            lab_off: &self.lab_off,
            labs: &self.labs,
        }
    }

    /// Number of nodes of the uploaded model.
    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// Number of edges of the uploaded model.
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    /// True when this upload is of a model shaped like `model` (same node and edge counts).
    pub fn fits(&self, model: &Model) -> bool {
        self.nodes == model.node_count() && self.edges == model.edge_count()
    }
}

/// Pivot indices shared by the device (taking rounds from the front) and host threads (taking
/// chunks from the back): each index is taken exactly once.
#[derive(Debug)]
pub struct PivotQueue {
    front: AtomicUsize,
    back: AtomicUsize,
    lock: std::sync::Mutex<()>,
}

impl PivotQueue {
    /// A queue over pivot indices `0..len`.
    pub fn new(len: usize) -> Self {
        PivotQueue {
            front: AtomicUsize::new(0),
            back: AtomicUsize::new(len),
            lock: std::sync::Mutex::new(()),
        }
    }

    /// Takes up to `n` indices from the front.
    pub fn take_front(&self, n: usize) -> std::ops::Range<usize> {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let f = self.front.load(Ordering::Relaxed);
        let b = self.back.load(Ordering::Relaxed);
        let end = f + n.min(b - f);
        self.front.store(end, Ordering::Relaxed);
        f..end
    }

    /// Takes up to `n` indices from the back.
    pub fn take_back(&self, n: usize) -> std::ops::Range<usize> {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let f = self.front.load(Ordering::Relaxed);
        let b = self.back.load(Ordering::Relaxed);
        let start = b - n.min(b - f);
        self.back.store(start, Ordering::Relaxed);
        start..b
    }

    /// Indices not taken yet.
    pub fn remaining(&self) -> usize {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.back.load(Ordering::Relaxed) - self.front.load(Ordering::Relaxed)
    }
}

/// What phase 1 produces on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase1Mode {
    /// Per-work-item counters only.
    Count,
    /// Every match's bindings in the result buffer.
    Bindings,
}

/// The per-query device state: plan, candidate bitsets, scan lists and the pivot list.
pub(crate) struct QueryBuffers {
    plan: DeviceBuffer<u32>,
    bits: DeviceBuffer<u32>,
    bit_words: usize,
    scan: DeviceBuffer<u32>,
    pred: super::bytecode::DevicePredicates,
    pivots: DeviceBuffer<u32>,
    /// The pivot candidates (node ids, ascending), read back for the host side.
    pub pivot_nodes: Vec<u32>,
    /// Bytes uploaded for this query.
    pub bytes: usize,
}

/// Statistics of a phase-1 run.
#[derive(Debug, Clone, Default)]
pub struct Phase1Stats {
    /// Kernel launches of `topology`.
    pub rounds: usize,
    /// Work-items per round.
    pub threads: Vec<usize>,
    /// Rounds that overflowed the result buffer.
    pub overflows: usize,
    /// Result buffer capacity, in matches.
    pub capacity: usize,
    /// Device time of the `topology` launches.
    pub kernel: Duration,
    /// Wall time reading results and statuses back.
    pub read: Duration,
    /// Pivots processed on the device.
    pub device_pivots: usize,
}

/// The output of phase 1.
#[derive(Debug, Default)]
pub struct Phase1Result {
    /// Matches found (count mode) or rows collected (bindings mode).
    pub count: u64,
    /// Bindings mode: `row_words` per match (node ids by slot, then the named relationships' edge
    /// ids).
    pub rows: Vec<u32>,
    /// True when stopped by the deadline.
    pub partial: bool,
    /// Statistics.
    pub stats: Phase1Stats,
}

fn program(gpu: &Gpu) -> Result<Arc<Program>> {
    let options = format!(
        "-D GEMP_MAX_NODES={MAX_PATTERN_NODES} -D GEMP_MAX_NAMED_RELS={MAX_NAMED_RELS} \
         -D GEMP_MAX_LEVELS={MAX_LEVELS}"
    );
    gpu.program(
        "topology",
        &[COMMON_CL, PREDICATES_CL, TOPOLOGY_CL],
        &options,
    )
}

/// Candidate bitsets of every slot, `ceil(n / 32)` words each.
fn bitsets(cands: &[CandidateSet], n: usize) -> (Vec<u32>, usize) {
    let words = n.div_ceil(32).max(1);
    let mut bits = vec![0u32; words * cands.len()];
    for (slot, c) in cands.iter().enumerate() {
        let base = slot * words;
        for &v in &c.nodes {
            bits[base + v as usize / 32] |= 1 << (v % 32);
        }
    }
    (bits, words)
}

/// Uploads a query and runs the pivot step: `mark_pivot` flags the pivot's candidates, device
/// compaction lists them.
pub(crate) fn prepare_query(
    gpu: &Gpu,
    dm: &DeviceModel,
    enc: &EncodedPlan,
    cands: &[CandidateSet],
    pred: super::bytecode::DevicePredicates,
) -> Result<QueryBuffers> {
    let n = dm.nodes;
    if n > u32::MAX as usize / 2 {
        return Err(Error::DeviceLimit(format!(
            "the OpenCL matcher takes at most {} nodes",
            u32::MAX / 2
        )));
    }
    let (bits_host, bit_words) = bitsets(cands, n);
    let plan = gpu.buffer_from("plan", &enc.words, true)?;
    let bits = gpu.buffer_from("candidate bitsets", &bits_host, true)?;
    let scan_buf = gpu.buffer_from("scan lists", &enc.scan_nodes, true)?;
    let program = program(gpu)?;
    let flags = gpu.uninit::<u32>("pivot flags", n)?;
    if n > 0 {
        let l = gpu.local_size(&program, MarkPivotArgs::KERNEL, None)?;
        let kernel = gpu.kernel_from(
            &program,
            MarkPivotArgs {
                graph: dm.args(),
                plan: &plan,
                cand_bits: &bits,
                bit_words: bit_words as u32,
                pred: pred.args(),
                flags: &flags,
                n: n as u32,
            },
        )?;
        gpu.run(&kernel, sizing::round_up(n, l), Some(l))?;
    }
    let (pivots, count) = scan::compact_flags_device(gpu, &flags)?;
    let pivot_nodes = gpu.read_prefix(&pivots, count)?;
    let bytes = plan.bytes() + bits.bytes() + scan_buf.bytes() + pred.bytes;
    Ok(QueryBuffers {
        plan,
        bits,
        bit_words,
        scan: scan_buf,
        pred,
        pivots,
        pivot_nodes,
        bytes,
    })
}

/// Applied to each round's rows in bindings mode (the host keeps what it returns): the residual
/// and attribute conjuncts, so that only survivors accumulate.
pub(crate) type RowFilter<'a> = dyn FnMut(Vec<u32>) -> Result<Vec<u32>> + 'a;

/// Runs the `topology` kernel in rounds over the pivots taken from the front of `queue`, until
/// the queue is empty and no task is suspended, the deadline passes, or (bindings mode) the
/// shared row counter of `limit` reaches its bound (rows found by host threads count too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_rounds(
    gpu: &Gpu,
    dm: &DeviceModel,
    enc: &EncodedPlan,
    qb: &QueryBuffers,
    mode: Phase1Mode,
    config: &DeviceConfig,
    queue: &PivotQueue,
    control: &Control,
    limit: Option<(&AtomicU64, u64)>,
    mut filter: Option<&mut RowFilter<'_>>,
) -> Result<Phase1Result> {
    let program = program(gpu)?;
    let local = gpu.local_size(&program, TopologyArgs::KERNEL, config.local_size)?;
    let w = enc.row_words.max(1);
    let bindings = mode == Phase1Mode::Bindings;
    let max_threads = config.max_threads.max(1);
    let capacity = if bindings {
        (config.result_buffer_words / w).clamp(1, u32::MAX as usize / 2)
    } else {
        0
    };
    let results = gpu.uninit::<u32>("result buffer", capacity * w)?;
    let counter = gpu.zeroed::<u32>("result counter", 1)?;
    let sw = enc.state_words;
    let mut state_in = gpu.uninit::<u32>("resume state A", max_threads * sw)?;
    let mut state_out = gpu.uninit::<u32>("resume state B", max_threads * sw)?;
    let tasks_buf = gpu.uninit::<u32>("tasks", 2 * max_threads)?;
    let status_buf = gpu.uninit::<u32>("task status", max_threads)?;
    let counts_buf = gpu.uninit::<u64>("task counts", max_threads)?;

    let mut out = Phase1Result {
        stats: Phase1Stats {
            capacity,
            ..Default::default()
        },
        ..Default::default()
    };
    let initial = config.initial_threads.unwrap_or_else(|| {
        (gpu.info().compute_units as usize)
            .max(1)
            .saturating_mul(local)
            .saturating_mul(4)
    });
    let mut threads = if bindings { initial } else { max_threads }.clamp(1, max_threads);
    let mut budget = match config.step_budget {
        0 => 0,
        max => config.initial_step_budget.clamp(1, max),
    };
    // Suspended tasks: (pivot index, index of its state in `state_in`).
    let mut suspended: Vec<(u32, u32)> = Vec::new();
    let mut tasks: Vec<u32> = Vec::with_capacity(2 * max_threads);
    loop {
        if control.stopped() || !control_alive(control) {
            out.partial = control.timed_out();
            break;
        }
        if limit.is_some_and(|(produced, bound)| produced.load(Ordering::Relaxed) >= bound) {
            break;
        }
        let room = max_threads - suspended.len();
        let fresh = queue.take_front(threads.saturating_sub(suspended.len()).min(room));
        if suspended.is_empty() && fresh.is_empty() {
            break;
        }
        out.stats.device_pivots += fresh.len();
        tasks.clear();
        for &(p, s) in &suspended {
            tasks.extend_from_slice(&[p, s]);
        }
        for p in fresh {
            tasks.extend_from_slice(&[p as u32, NONE]);
        }
        let n_tasks = tasks.len() / 2;
        gpu.write(&tasks_buf, 0, &tasks)?;
        if bindings {
            gpu.write(&counter, 0, &[0u32])?;
        }
        let kernel = gpu.kernel_from(
            &program,
            TopologyArgs {
                graph: dm.args(),
                plan: &qb.plan,
                cand_bits: &qb.bits,
                bit_words: qb.bit_words as u32,
                scan_nodes: &qb.scan,
                pivots: &qb.pivots,
                tasks: &tasks_buf,
                n_tasks: n_tasks as u32,
                state_in: &state_in,
                state_out: &state_out,
                status: &status_buf,
                counts: &counts_buf,
                results: &results,
                result_cap: capacity as u32,
                result_counter: &counter,
                mode: u32::from(bindings),
                step_budget: budget,
                pred: qb.pred.args(),
            },
        )?;
        let elapsed = gpu.run_timed(&kernel, sizing::round_up(n_tasks, local), Some(local))?;
        out.stats.kernel += elapsed;
        out.stats.rounds += 1;
        out.stats.threads.push(n_tasks);

        let read_start = Instant::now();
        let status = gpu.read_prefix(&status_buf, n_tasks)?;
        let counts = gpu.read_prefix(&counts_buf, n_tasks)?;
        let found: u64 = counts.iter().sum();
        let mut used = 0usize;
        let mut reserved = 0usize;
        if bindings {
            reserved = gpu.read(&counter)?[0] as usize;
            used = reserved.min(capacity);
            let rows = gpu.read_prefix(&results, used * w)?;
            match filter.as_mut() {
                Some(f) => out.rows.extend_from_slice(&f(rows)?),
                None => out.rows.extend_from_slice(&rows),
            }
            if reserved > capacity {
                out.stats.overflows += 1;
            }
        }
        out.stats.read += read_start.elapsed();
        out.count += found;
        if let Some((produced, _)) = limit {
            produced.fetch_add(found, Ordering::Relaxed);
        }
        suspended.clear();
        for (i, &s) in status.iter().enumerate() {
            if s != 0 {
                suspended.push((tasks[2 * i], i as u32));
            }
        }
        std::mem::swap(&mut state_in, &mut state_out);
        if bindings {
            let growth = if reserved > capacity {
                config.overflow_growth
            } else {
                config.growth
            };
            threads = sizing::next_thread_count(
                n_tasks,
                capacity,
                used,
                growth,
                queue.remaining() + suspended.len(),
            );
        }
        threads = threads.max(suspended.len()).clamp(1, max_threads);
        if budget != 0 {
            budget = next_budget(budget, elapsed, config, control);
        }
    }
    if bindings {
        sort_by_pivot(&mut out.rows, w, enc.pivot_slot);
    }
    Ok(out)
}

/// The next launch's step budget: scaled (at most ×4, at least ×¼) towards a launch time of
/// `round_time`, or a quarter of the time left before the deadline when that is shorter;
/// within `[64, step_budget]`.
fn next_budget(budget: u64, elapsed: Duration, config: &DeviceConfig, control: &Control) -> u64 {
    let mut target = config.round_time.max(Duration::from_micros(100));
    if let Some(deadline) = control.deadline() {
        let left = deadline.saturating_duration_since(Instant::now());
        target = target.min(left / 4).max(Duration::from_micros(100));
    }
    let ratio = if elapsed.is_zero() {
        4.0
    } else {
        (target.as_secs_f64() / elapsed.as_secs_f64()).clamp(0.25, 4.0)
    };
    ((budget as f64 * ratio) as u64).clamp(64.min(config.step_budget), config.step_budget)
}

/// False once the deadline has passed (and then marks the control timed out).
fn control_alive(control: &Control) -> bool {
    control.check_deadline()
}

/// Stable sort of the rows by their pivot node (rows of one pivot keep their search order).
pub(crate) fn sort_by_pivot(rows: &mut Vec<u32>, w: usize, pivot_slot: usize) {
    let n = rows.len() / w;
    if n < 2 || rows.chunks_exact(w).is_sorted_by_key(|r| r[pivot_slot]) {
        return;
    }
    let mut idx: Vec<u32> = (0..n as u32).collect();
    idx.sort_by_key(|&i| rows[i as usize * w + pivot_slot]);
    let mut sorted = Vec::with_capacity(rows.len());
    for i in idx {
        let s = i as usize * w;
        sorted.extend_from_slice(&rows[s..s + w]);
    }
    *rows = sorted;
}
