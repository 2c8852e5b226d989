//! Counting over the host core's candidate space on the device (`cl/space.cl`): the candidate
//! sets and candidate-edge tables of [`crate::engines::gemp::space`] uploaded as flat `u32` arrays
//! (CSR), then work-groups that each extend one partial match cooperatively — intersecting the
//! bound neighbours' rows, counting the last node by the size of its intersection, summing per
//! work-group.
//!
//! - **Edge-parallel first level**: the roots of the first launches are the entries of the
//!   table between the first two nodes of the order (one root per candidate edge), in batches of
//!   [`DeviceConfig::space_batch`] roots (which also bounds one launch's time);
//! - **bounded stacks, split on overflow**: each work-group stores its open levels in
//!   [`DeviceConfig::space_stack_words`] words; a root whose levels do not fit is reported back
//!   (its partial count dropped) and split on the host into its extensions one node deeper, which
//!   run as prefix roots in the next launches. A prefix of `k − 1` nodes needs no stack (the last
//!   node is counted), so splitting ends. Skewed subtrees (a hub's edges) are what overflows, so
//!   they are what gets split across work-groups;
//! - **no global atomic per embedding**: one atomic per root taken, one per overflowing root.
//!
//! 32-bit limits (the kernel's): at most [`MAX_NODES`] pattern nodes, and every table's entries
//! together below `u32::MAX`; beyond them the query is a [`Error::DeviceLimit`] (the host runs it).

use std::sync::Arc;
use std::time::Instant;

use super::{DeviceConfig, DeviceTimings};
use crate::engines::gemp::space::Prepared;
use crate::error::{Error, Result};
use crate::exec::Control;
use crate::gpu::args::SpaceCountArgs;
use crate::gpu::{DeviceBuffer, Gpu};

/// `cl/space.cl`.
pub const SPACE_CL: &str = include_str!("../../../../cl/space.cl");

/// Most pattern nodes the kernel takes (`SPACE_MAX_NODES`).
pub const MAX_NODES: usize = 32;
/// Largest work-group (`SPACE_WG_MAX`: the local scan array).
pub const MAX_LOCAL: usize = 256;
/// Root modes (`SPACE_EDGES`, `SPACE_PREFIXES`).
const MODE_EDGES: u32 = 0;
const MODE_PREFIXES: u32 = 1;
/// Header layout (`SP_*`).
const SP_K: usize = 0;
const SP_INJECTIVE: usize = 1;
const SP_BACK: usize = 2;
const SP_OVL: usize = SP_BACK + MAX_NODES;
const SP_EDGE_TABLE: usize = SP_OVL + MAX_NODES;
const SP_EDGE_ROWS: usize = SP_EDGE_TABLE + 1;
const SP_HEADER: usize = SP_EDGE_ROWS + 1;

/// What one device count did.
#[derive(Debug, Clone, Default)]
pub struct SpaceStats {
    /// Kernel launches.
    pub launches: usize,
    /// Roots that overflowed a work-group's stack and were split on the host.
    pub overflowed: usize,
    /// Prefix roots made by splitting.
    pub split_roots: usize,
    /// Deepest prefix length split to.
    pub deepest_prefix: usize,
}

/// The candidate space as the kernel reads it (host side).
struct Flat {
    k: usize,
    plan: Vec<u32>,
    cand_off: Vec<u32>,
    cand_nodes: Vec<u32>,
    tab_off: Vec<u32>,
    tab_tgt: Vec<u32>,
    /// Per depth: (table start in `tab_off`, parent depth) of each backward relationship.
    back: Vec<Vec<(usize, usize)>>,
    overlaps: Vec<Vec<usize>>,
    injective: bool,
    /// Entries of the first-level table.
    edge_entries: usize,
}

impl Flat {
    fn new(p: &Prepared) -> Result<Flat> {
        let order = &p.plan.order;
        let k = order.len();
        if k > MAX_NODES {
            return Err(Error::DeviceLimit(format!(
                "the device counts patterns of at most {MAX_NODES} nodes ({k} here)"
            )));
        }
        if k < 2 {
            return Err(Error::DeviceLimit(
                "the device counts patterns of at least two nodes".into(),
            ));
        }
        let too_large = || {
            Error::DeviceLimit(
                "the candidate space has 2^32 or more candidate edges (the device's 32-bit \
                 positions)"
                    .into(),
            )
        };
        let mut cand_off = Vec::with_capacity(k + 1);
        let mut cand_nodes = Vec::new();
        cand_off.push(0u32);
        for &u in order {
            cand_nodes.extend_from_slice(&p.space.cands[u].nodes);
            cand_off.push(u32::try_from(cand_nodes.len()).map_err(|_| too_large())?);
        }
        let tables = &p.space.tables;
        let mut starts = Vec::with_capacity(tables.len());
        let mut tab_off = Vec::new();
        let mut tab_tgt: Vec<u32> = Vec::new();
        for t in tables {
            starts.push(tab_off.len());
            let base = u32::try_from(tab_tgt.len()).map_err(|_| too_large())?;
            for &o in &t.offsets {
                tab_off.push(base.checked_add(o).ok_or_else(too_large)?);
            }
            tab_tgt.extend_from_slice(&t.targets);
        }
        if tab_tgt.len() >= u32::MAX as usize || tab_off.len() >= u32::MAX as usize {
            return Err(too_large());
        }
        let back: Vec<Vec<(usize, usize)>> = p
            .plan
            .backward
            .iter()
            .map(|b| b.iter().map(|&(t, parent)| (starts[t], parent)).collect())
            .collect();
        let overlaps = p.plan.overlaps.clone();
        let mut plan = vec![0u32; SP_HEADER];
        plan[SP_K] = k as u32;
        plan[SP_INJECTIVE] = u32::from(p.injective);
        for d in 0..k {
            plan[SP_BACK + d] = plan.len() as u32;
            plan.push(back[d].len() as u32);
            for &(s, parent) in &back[d] {
                plan.push(s as u32);
                plan.push(parent as u32);
            }
            plan[SP_OVL + d] = plan.len() as u32;
            plan.push(overlaps[d].len() as u32);
            plan.extend(overlaps[d].iter().map(|&o| o as u32));
        }
        // Depth 1's first backward table is walked from depth 0 (the only earlier depth).
        let (edge_table, parent) = *back[1].first().ok_or_else(|| {
            Error::InvalidArgument("the order's second node has no bound neighbour".into())
        })?;
        debug_assert_eq!(parent, 0);
        plan[SP_EDGE_TABLE] = edge_table as u32;
        plan[SP_EDGE_ROWS] = p.space.cands[order[0]].len() as u32;
        let edge_entries = tables[p.plan.backward[1][0].0].len();
        Ok(Flat {
            k,
            plan,
            cand_off,
            cand_nodes,
            tab_off,
            tab_tgt,
            back,
            overlaps,
            injective: p.injective,
            edge_entries,
        })
    }

    fn row(&self, start: usize, i: u32) -> &[u32] {
        let lo = self.tab_off[start + i as usize] as usize;
        let hi = self.tab_off[start + i as usize + 1] as usize;
        &self.tab_tgt[lo..hi]
    }

    fn node(&self, d: usize, pos: u32) -> u32 {
        self.cand_nodes[self.cand_off[d] as usize + pos as usize]
    }

    /// The edge root `r` (an entry of the first-level table) as a prefix of two positions.
    fn edge_root(&self, first: usize, r: u32) -> [u32; 2] {
        let s = self.back[1][0].0;
        let rows = self.plan[SP_EDGE_ROWS] as usize;
        let a = self.tab_off[s] as usize + first + r as usize;
        let offs = &self.tab_off[s..s + rows + 1];
        let i = offs.partition_point(|&o| o as usize <= a) - 1;
        [i as u32, self.tab_tgt[a]]
    }

    /// The extensions of `prefix` (a valid partial match of its length) one node deeper, as the
    /// kernel computes local candidates: every backward row, and injectivity.
    fn extend(&self, prefix: &[u32], out: &mut Vec<u32>) {
        let d = prefix.len();
        let rows: Vec<&[u32]> = self.back[d]
            .iter()
            .map(|&(s, parent)| self.row(s, prefix[parent]))
            .collect();
        let Some(shortest) = rows.iter().min_by_key(|r| r.len()) else {
            return;
        };
        let bound: Vec<u32> = if self.injective {
            self.overlaps[d]
                .iter()
                .map(|&p| self.node(p, prefix[p]))
                .collect()
        } else {
            Vec::new()
        };
        for &x in *shortest {
            if rows.iter().all(|r| r.binary_search(&x).is_ok()) && !bound.contains(&self.node(d, x))
            {
                out.extend_from_slice(prefix);
                out.push(x);
            }
        }
    }
}

/// The device buffers of one count.
struct Buffers {
    plan: DeviceBuffer<u32>,
    cand_off: DeviceBuffer<u32>,
    cand_nodes: DeviceBuffer<u32>,
    tab_off: DeviceBuffer<u32>,
    tab_tgt: DeviceBuffer<u32>,
    next_root: DeviceBuffer<u32>,
    stack: DeviceBuffer<u32>,
    overflow: DeviceBuffer<u32>,
    overflow_count: DeviceBuffer<u32>,
    sums: DeviceBuffer<u64>,
}

/// The program holding `space_count`.
pub(crate) fn program(gpu: &Gpu) -> Result<Arc<ocl::Program>> {
    gpu.program("space", &[crate::gpu::COMMON_CL, SPACE_CL], "")
}

/// Counts the matches of `p` on the device. Stops between launches once `control` says so (the
/// count is then partial, as the host's is).
///
/// Errors: [`Error::DeviceLimit`] for a space beyond the kernel's limits, OpenCL failures.
pub fn count(
    gpu: &Gpu,
    config: &DeviceConfig,
    p: &Prepared,
    control: &Control,
    t: &mut DeviceTimings,
) -> Result<(u64, SpaceStats)> {
    let mut stats = SpaceStats::default();
    if p.is_empty() {
        return Ok((0, stats));
    }
    let start = Instant::now();
    let flat = Flat::new(p)?;
    t.convert += start.elapsed();

    let start = Instant::now();
    let prog = program(gpu)?;
    let local = gpu
        .local_size(&prog, "space_count", config.local_size)?
        .min(MAX_LOCAL);
    let info = gpu.info();
    let groups = config.space_groups.unwrap_or_else(|| {
        crate::gpu::sizing::persistent_work_items(info.device_type, info.compute_units as usize, 1)
    });
    let groups = groups.max(1);
    let stack_words = config.space_stack_words.max(1);
    let batch = config.space_batch.max(1);
    let b = Buffers {
        plan: gpu.buffer_from("space plan", &flat.plan, true)?,
        cand_off: gpu.buffer_from("space candidate offsets", &flat.cand_off, true)?,
        cand_nodes: gpu.buffer_from("space candidates", &flat.cand_nodes, true)?,
        tab_off: gpu.buffer_from("space table offsets", &flat.tab_off, true)?,
        tab_tgt: gpu.buffer_from("space table targets", &flat.tab_tgt, true)?,
        next_root: gpu.zeroed("space next root", 1)?,
        stack: gpu.uninit("space stacks", groups * stack_words)?,
        overflow: gpu.uninit("space overflow", batch)?,
        overflow_count: gpu.zeroed("space overflow count", 1)?,
        sums: gpu.zeroed("space sums", groups)?,
    };
    t.upload_bytes += 4
        * (flat.plan.len()
            + flat.cand_off.len()
            + flat.cand_nodes.len()
            + flat.tab_off.len()
            + flat.tab_tgt.len());
    t.upload += start.elapsed();

    let phase = Instant::now();
    let mut total = 0u64;
    let empty = gpu.zeroed::<u32>("space no roots", 1)?;
    // 1. Edge roots, in batches.
    let mut pending: Vec<u32> = Vec::new();
    let mut first = 0usize;
    while first < flat.edge_entries && control.check_deadline() {
        let n = batch.min(flat.edge_entries - first);
        let (sum, over) = launch(
            gpu,
            &prog,
            &b,
            &empty,
            MODE_EDGES,
            2,
            first,
            n,
            groups,
            local,
            stack_words,
            t,
        )?;
        stats.launches += 1;
        total += sum;
        for r in over {
            pending.extend_from_slice(&flat.edge_root(first, r));
        }
        first += n;
    }
    // 2. Overflowed roots, split one node deeper until none overflows.
    let mut len = 2usize;
    while !pending.is_empty() && control.check_deadline() {
        stats.overflowed += pending.len() / len;
        let mut split = Vec::new();
        for prefix in pending.chunks_exact(len) {
            flat.extend(prefix, &mut split);
        }
        len += 1;
        stats.deepest_prefix = len;
        stats.split_roots += split.len() / len;
        pending = Vec::new();
        for part in split.chunks(batch * len) {
            if !control.check_deadline() {
                break;
            }
            let n = part.len() / len;
            let roots = gpu.buffer_from("space prefix roots", part, true)?;
            t.upload_bytes += 4 * part.len();
            let (sum, over) = launch(
                gpu,
                &prog,
                &b,
                &roots,
                MODE_PREFIXES,
                len,
                0,
                n,
                groups,
                local,
                stack_words,
                t,
            )?;
            stats.launches += 1;
            total += sum;
            for r in over {
                let r = r as usize;
                pending.extend_from_slice(&part[r * len..(r + 1) * len]);
            }
        }
        if len + 1 >= flat.k && !pending.is_empty() {
            return Err(Error::DeviceLimit(
                "a prefix one node short of a match overflowed the device's stack".into(),
            ));
        }
    }
    t.phase1 += phase.elapsed();
    t.rounds += stats.launches;
    t.overflows += stats.overflowed;
    t.phase1_matches += total;
    log::debug!(
        "device space count: {total} matches, {} launches of {groups} groups × {local}, {} roots \
         split into {} prefixes (deepest {}), {:.1?}",
        stats.launches,
        stats.overflowed,
        stats.split_roots,
        stats.deepest_prefix,
        phase.elapsed()
    );
    Ok((total, stats))
}

/// One launch over `n` roots; returns the matches counted and the roots that overflowed.
#[allow(clippy::too_many_arguments)]
fn launch(
    gpu: &Gpu,
    prog: &ocl::Program,
    b: &Buffers,
    roots: &DeviceBuffer<u32>,
    mode: u32,
    root_len: usize,
    first: usize,
    n: usize,
    groups: usize,
    local: usize,
    stack_words: usize,
    t: &mut DeviceTimings,
) -> Result<(u64, Vec<u32>)> {
    gpu.zero(&b.next_root)?;
    gpu.zero(&b.overflow_count)?;
    let kernel = gpu.kernel_from(
        prog,
        SpaceCountArgs {
            plan: &b.plan,
            cand_off: &b.cand_off,
            cand_nodes: &b.cand_nodes,
            tab_off: &b.tab_off,
            tab_tgt: &b.tab_tgt,
            mode,
            roots,
            root_len: root_len as u32,
            first: first as u32,
            n: n as u32,
            next_root: &b.next_root,
            stack: &b.stack,
            stack_words: stack_words as u32,
            overflow: &b.overflow,
            overflow_count: &b.overflow_count,
            sums: &b.sums,
        },
    )?;
    t.phase1_kernel += gpu.run_timed(&kernel, groups * local, Some(local))?;
    let start = Instant::now();
    let sums = gpu.read(&b.sums)?;
    let over_n = gpu.read(&b.overflow_count)?[0] as usize;
    let over = if over_n == 0 {
        Vec::new()
    } else {
        gpu.read_prefix(&b.overflow, over_n.min(n))?
    };
    t.read_results += start.elapsed();
    Ok((sums.iter().sum(), over))
}

/// Runs `query` as a count over the candidate space on the device when it is a pure count the
/// host's core takes (see `space_exec::prepare_count`) within the kernel's limits and
/// [`DeviceConfig::space`] is on; `None` leaves it to the other device paths.
pub(crate) fn try_execute<'m>(
    m: &super::DeviceMatcher<'m>,
    query: &crate::pattern::ir::BoundQuery,
    options: &crate::exec::MatchOptions,
) -> Result<Option<(crate::exec::QueryOutput<'m>, DeviceTimings)>> {
    if !m.config.space || query.pattern.nodes.len() > MAX_NODES {
        return Ok(None);
    }
    let control = Control::new(options.timeout.map(|d| Instant::now() + d));
    let mut t = DeviceTimings::default();
    let start = Instant::now();
    let Some(prepared) =
        crate::engines::gemp::space_exec::prepare_count(m.model(), query, options, &control)
    else {
        return Ok(None);
    };
    t.prepare = start.elapsed();
    let (gpu, config) = (m.gpu(), &m.config);
    let mut device_count = |p: &Prepared| count(gpu, config, p, &control, &mut t).map(|r| r.0);
    let mut out = crate::engines::gemp::space_exec::execute_counted(
        m.model(),
        query,
        options,
        &control,
        &prepared,
        &mut device_count,
    )?;
    t.space = true;
    out.timings.enumerate = t.phase1;
    Ok(Some((out, t)))
}

/// `--backend auto`'s prediction ([`crate::gpu::cost`]) for `query` on `m`'s device against the
/// host core on all threads, or `None` when the device would not count it over the candidate
/// space.
pub(crate) fn predict(
    m: &super::DeviceMatcher<'_>,
    query: &crate::pattern::ir::BoundQuery,
    options: &crate::exec::MatchOptions,
) -> Option<crate::gpu::cost::Prediction> {
    if !m.config.space || query.pattern.nodes.len() > MAX_NODES {
        return None;
    }
    let control = Control::new(None);
    let p = crate::engines::gemp::space_exec::prepare_count(m.model(), query, options, &control)?;
    let tables: usize = p
        .space
        .tables
        .iter()
        .map(|t| t.offsets.len() + t.targets.len())
        .sum();
    let cands: usize = p.space.cands.iter().map(|c| c.len()).sum();
    let edge_entries = p
        .plan
        .backward
        .get(1)
        .and_then(|b| b.first())
        .map_or(0, |&(t, _)| p.space.tables[t].len());
    let w = crate::gpu::cost::Workload {
        visits: p.choice.cost,
        upload_bytes: 4 * (tables + cands) as u64,
        launches: edge_entries.div_ceil(m.config.space_batch.max(1)) as u64,
    };
    Some(crate::gpu::cost::predict(
        &w,
        m.gpu().info(),
        rayon::current_num_threads(),
    ))
}
