//! The OpenCL TruST pipeline (`opencl` feature): the same three phases as the host, with the same
//! fixed-point arithmetic, candidate order and tie-breaking, so the results are identical.
//!
//! - `trust_similarity` (`cl/trust_scores.cl`): one work-item per (template, data) pair,
//!   Levenshtein rows in per-work-item global scratch (no fixed-size local arrays);
//! - `trust_one_hop`: one work-item per pair, row-maxima shortcut then the iterative Hungarian
//!   algorithm with per-work-item global scratch sized by the largest degree — any degree works;
//!   launches are split into chunks so the scratch stays under [`SCRATCH_BYTES`];
//! - per level (`cl/trust_search.cl`): `trust_count` and `trust_expand` (one work-item per state)
//!   generate the candidates in canonical order, `trust_dedup_insert` / `trust_dedup_keep` remove
//!   duplicate canonical forms with a device hash table (the paper left this to future work),
//!   the host picks the β best of the kept candidates from their scores (a partial sort of
//!   `(score, index)` keys; the states themselves never leave the device), and
//!   `trust_materialise` builds the next level on the device.

use std::time::Instant;

use ocl::Program;

use super::graph::TrustGraph;
use super::one_hop::OneHopTable;
use super::search::{self, Level, LevelStats};
use super::{assemble, check_inputs, Timings, TrustParams, TrustResult};
use crate::error::{Error, Result};
use crate::gpu::args::{
    TrustCountArgs, TrustDedupInsertArgs, TrustDedupKeepArgs, TrustExpandArgs,
    TrustMaterialiseArgs, TrustOneHopArgs, TrustSimilarityArgs,
};
use crate::gpu::{DeviceBuffer, Gpu};

/// Phase 1 and 2 kernels.
pub const TRUST_SCORES_CL: &str = include_str!("../../cl/trust_scores.cl");
/// Phase 3 kernels.
pub const TRUST_SEARCH_CL: &str = include_str!("../../cl/trust_search.cl");

/// Most bytes of per-work-item scratch one launch of the table kernels may use.
pub const SCRATCH_BYTES: usize = 64 << 20;

/// The graphs and tables on the device.
struct DeviceInputs {
    t_adj_off: DeviceBuffer<u32>,
    t_adj: DeviceBuffer<u32>,
    d_adj_off: DeviceBuffer<u32>,
    d_adj: DeviceBuffer<u32>,
    oh: DeviceBuffer<u32>,
}

fn programs(gpu: &Gpu) -> Result<(std::sync::Arc<Program>, std::sync::Arc<Program>)> {
    Ok((
        gpu.program("trust_scores", &[TRUST_SCORES_CL], "")?,
        gpu.program("trust_search", &[TRUST_SEARCH_CL], "")?,
    ))
}

fn pair_count(template: &TrustGraph, data: &TrustGraph) -> Result<usize> {
    let pairs = template.node_count() * data.node_count();
    if pairs >= u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "{} template × {} data nodes exceed 2^32 pairs",
            template.node_count(),
            data.node_count()
        )));
    }
    Ok(pairs)
}

/// Work-items per launch so that `per_item` bytes of scratch each stay under [`SCRATCH_BYTES`].
fn chunk_for(per_item: usize, total: usize) -> usize {
    (SCRATCH_BYTES / per_item.max(1)).clamp(1, total.max(1))
}

/// Computes the similarity and one-hop tables on the device; returns both (read back) and the
/// device inputs the search needs.
fn tables(
    gpu: &Gpu,
    template: &TrustGraph,
    data: &TrustGraph,
    timings: &mut Timings,
) -> Result<(Vec<u32>, Vec<u32>, DeviceInputs)> {
    let start = Instant::now();
    let (scores, _) = programs(gpu)?;
    let pairs = pair_count(template, data)?;
    let d = data.node_count();
    let (t_off, t_chars) = template.value_arrays();
    let (d_off, d_chars) = data.value_arrays();
    let t_off = gpu.buffer_from("trust template value offsets", t_off, true)?;
    let t_chars = gpu.buffer_from("trust template values", t_chars, true)?;
    let d_off = gpu.buffer_from("trust data value offsets", d_off, true)?;
    let d_chars = gpu.buffer_from("trust data values", d_chars, true)?;
    let sim = gpu.zeroed::<u32>("trust similarity", pairs)?;
    let stride = template.max_value_len() + 1;
    let chunk = chunk_for(stride * 4, pairs);
    let scratch = gpu.uninit::<u32>("trust levenshtein rows", chunk * stride)?;
    let mut first = 0;
    while first < pairs {
        let count = chunk.min(pairs - first);
        let kernel = gpu.kernel_from(
            &scores,
            TrustSimilarityArgs {
                t_off: &t_off,
                t_chars: &t_chars,
                d_off: &d_off,
                d_chars: &d_chars,
                d_count: d as u32,
                scratch: &scratch,
                stride: stride as u32,
                first: first as u32,
                count: count as u32,
                sim: &sim,
            },
        )?;
        gpu.run(&kernel, count, None)?;
        first += count;
    }
    gpu.finish()?;
    timings.similarity = start.elapsed();
    let start = Instant::now();
    let (ta_off, ta) = template.csr();
    let (da_off, da) = data.csr();
    let inputs_t_off = gpu.buffer_from("trust template adjacency offsets", ta_off, true)?;
    let inputs_t = gpu.buffer_from("trust template adjacency", ta, true)?;
    let inputs_d_off = gpu.buffer_from("trust data adjacency offsets", da_off, true)?;
    let inputs_d = gpu.buffer_from("trust data adjacency", da, true)?;
    let oh = gpu.zeroed::<u32>("trust one-hop", pairs)?;
    let stride = template.max_degree().max(data.max_degree()) + 1;
    let chunk = chunk_for(3 * stride * (8 + 4), pairs);
    let lscratch = gpu.uninit::<i64>("trust hungarian potentials", chunk * 3 * stride)?;
    let uscratch = gpu.uninit::<u32>("trust hungarian links", chunk * 3 * stride)?;
    let mut first = 0;
    while first < pairs {
        let count = chunk.min(pairs - first);
        let kernel = gpu.kernel_from(
            &scores,
            TrustOneHopArgs {
                sim: &sim,
                d_count: d as u32,
                t_adj_off: &inputs_t_off,
                t_adj: &inputs_t,
                d_adj_off: &inputs_d_off,
                d_adj: &inputs_d,
                lscratch: &lscratch,
                uscratch: &uscratch,
                stride: stride as u32,
                first: first as u32,
                count: count as u32,
                oh: &oh,
            },
        )?;
        gpu.run(&kernel, count, None)?;
        first += count;
    }
    let sim_host = gpu.read(&sim)?;
    let oh_host = gpu.read(&oh)?;
    timings.one_hop = start.elapsed();
    Ok((
        sim_host,
        oh_host,
        DeviceInputs {
            t_adj_off: inputs_t_off,
            t_adj: inputs_t,
            d_adj_off: inputs_d_off,
            d_adj: inputs_d,
            oh,
        },
    ))
}

/// The similarity and one-hop tables computed on the device (`|V_T| · |V_D|` entries each,
/// row-major by template node) — for comparing with the host's.
pub fn device_tables(
    gpu: &Gpu,
    template: &TrustGraph,
    data: &TrustGraph,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let (s, oh, _) = tables(gpu, template, data, &mut Timings::default())?;
    Ok((s, oh))
}

/// One level's states on the device.
struct DeviceLevel {
    states: DeviceBuffer<u32>,
    scores: DeviceBuffer<u64>,
    hashes: DeviceBuffer<u64>,
    len: usize,
}

/// Runs the whole pipeline on the device.
pub fn run_device(
    gpu: &Gpu,
    template: &TrustGraph,
    data: &TrustGraph,
    params: &TrustParams,
) -> Result<TrustResult> {
    check_inputs(template, params)?;
    let t = template.node_count();
    let d = data.node_count();
    let mut timings = Timings::default();
    let (s, oh, inputs) = tables(gpu, template, data, &mut timings)?;
    let start = Instant::now();
    let (_, search_prog) = programs(gpu)?;
    let mut table = OneHopTable {
        table: &oh,
        data_nodes: d,
    };
    let first = search::first_level(&mut table, t, d, params.search.k0)?;
    let mut levels = vec![LevelStats {
        candidates: t * d,
        duplicates: 0,
        kept: first.len(),
    }];
    let mut level = upload_level(gpu, &first, t)?;
    for _ in 1..search::levels_for(&params.search, t) {
        match step(gpu, &search_prog, &inputs, &level, t, d, params.search.beam)? {
            Some((next, stats)) => {
                level = next;
                levels.push(stats);
            }
            None => break,
        }
    }
    let host_level = Level {
        states: gpu.read_prefix(&level.states, level.len * t)?,
        scores: gpu.read_prefix(&level.scores, level.len)?,
        hashes: gpu.read_prefix(&level.hashes, level.len)?,
    };
    let matchings = assemble(
        &host_level,
        t,
        params.top,
        |p| s[p.0 as usize * d + p.1 as usize],
        |p| oh[p.0 as usize * d + p.1 as usize],
    );
    timings.search = start.elapsed();
    Ok(TrustResult {
        matchings,
        levels,
        timings,
    })
}

fn upload_level(gpu: &Gpu, level: &Level, t: usize) -> Result<DeviceLevel> {
    debug_assert_eq!(level.states.len(), level.len() * t);
    Ok(DeviceLevel {
        states: gpu.buffer_from("trust states", &level.states, false)?,
        scores: gpu.buffer_from("trust scores", &level.scores, false)?,
        hashes: gpu.buffer_from("trust hashes", &level.hashes, false)?,
        len: level.len(),
    })
}

/// One level on the device: expand, deduplicate, select, materialise. `None` when the level has
/// no candidates.
fn step(
    gpu: &Gpu,
    prog: &Program,
    inp: &DeviceInputs,
    level: &DeviceLevel,
    t: usize,
    d: usize,
    beam: usize,
) -> Result<Option<(DeviceLevel, LevelStats)>> {
    let n = level.len;
    let counts = gpu.zeroed::<u32>("trust candidate counts", n)?;
    let kernel = gpu.kernel_from(
        prog,
        TrustCountArgs {
            states: &level.states,
            n_states: n as u32,
            t_count: t as u32,
            t_off: &inp.t_adj_off,
            t_adj: &inp.t_adj,
            d_off: &inp.d_adj_off,
            d_adj: &inp.d_adj,
            d_count: d as u32,
            counts: &counts,
        },
    )?;
    gpu.run(&kernel, n, None)?;
    let counts = gpu.read(&counts)?;
    let mut offsets = Vec::with_capacity(n);
    let mut total = 0u64;
    for &c in &counts {
        offsets.push(total as u32);
        total += u64::from(c);
    }
    if total == 0 {
        return Ok(None);
    }
    if total >= u64::from(u32::MAX / 2) {
        return Err(Error::InvalidArgument(format!(
            "{total} candidates in one level are more than the device search handles; lower the beam"
        )));
    }
    let total = total as usize;
    let offsets = gpu.buffer_from("trust candidate offsets", &offsets, true)?;
    let c_parent = gpu.uninit::<u32>("trust candidate parents", total)?;
    let c_u = gpu.uninit::<u32>("trust candidate template nodes", total)?;
    let c_x = gpu.uninit::<u32>("trust candidate data nodes", total)?;
    let c_score = gpu.uninit::<u64>("trust candidate scores", total)?;
    let c_hash = gpu.uninit::<u64>("trust candidate hashes", total)?;
    let kernel = gpu.kernel_from(
        prog,
        TrustExpandArgs {
            states: &level.states,
            scores: &level.scores,
            hashes: &level.hashes,
            n_states: n as u32,
            t_count: t as u32,
            t_off: &inp.t_adj_off,
            t_adj: &inp.t_adj,
            d_off: &inp.d_adj_off,
            d_adj: &inp.d_adj,
            d_count: d as u32,
            oh: &inp.oh,
            offsets: &offsets,
            c_parent: &c_parent,
            c_u: &c_u,
            c_x: &c_x,
            c_score: &c_score,
            c_hash: &c_hash,
        },
    )?;
    gpu.run(&kernel, n, None)?;
    let size = (2 * total).next_power_of_two();
    let table = gpu.zeroed::<u32>("trust dedup table", size)?;
    let winner = gpu.zeroed::<u32>("trust dedup winners", size)?;
    let slot_of = gpu.uninit::<u32>("trust dedup slots", total)?;
    let kernel = gpu.kernel_from(
        prog,
        TrustDedupInsertArgs {
            states: &level.states,
            t_count: t as u32,
            c_parent: &c_parent,
            c_u: &c_u,
            c_x: &c_x,
            c_hash: &c_hash,
            n_cand: total as u32,
            table: &table,
            mask: (size - 1) as u32,
            winner: &winner,
            slot_of: &slot_of,
        },
    )?;
    gpu.run(&kernel, total, None)?;
    let keep = gpu.uninit::<u32>("trust dedup keep", total)?;
    let kernel = gpu.kernel_from(
        prog,
        TrustDedupKeepArgs {
            slot_of: &slot_of,
            winner: &winner,
            n_cand: total as u32,
            keep: &keep,
        },
    )?;
    gpu.run(&kernel, total, None)?;
    let keep: Vec<bool> = gpu.read(&keep)?.into_iter().map(|k| k != 0).collect();
    let scores = gpu.read(&c_score)?;
    let kept = keep.iter().filter(|&&k| k).count();
    let selected = search::select(&scores, &keep, beam);
    let m = selected.len();
    let sel = gpu.buffer_from("trust selection", &selected, true)?;
    let next = DeviceLevel {
        states: gpu.uninit::<u32>("trust states", m * t)?,
        scores: gpu.uninit::<u64>("trust scores", m)?,
        hashes: gpu.uninit::<u64>("trust hashes", m)?,
        len: m,
    };
    let kernel = gpu.kernel_from(
        prog,
        TrustMaterialiseArgs {
            sel: &sel,
            n_sel: m as u32,
            c_parent: &c_parent,
            c_u: &c_u,
            c_x: &c_x,
            c_score: &c_score,
            c_hash: &c_hash,
            states: &level.states,
            t_count: t as u32,
            new_states: &next.states,
            new_scores: &next.scores,
            new_hashes: &next.hashes,
        },
    )?;
    gpu.run(&kernel, m, None)?;
    Ok(Some((
        next,
        LevelStats {
            candidates: total,
            duplicates: total - kept,
            kept: m,
        },
    )))
}
