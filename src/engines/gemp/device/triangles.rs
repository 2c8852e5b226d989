//! Co-occurrence triangles on the device: the device form of [`crate::engines::gemp::triangles`], for
//! factorised plans of that shape (the co-star cycle and triangle).
//!
//! 1. **co-occurrence graph**: the factorised kernel (`cl/factorised.cl`) runs the pair plan
//!    `x → middle ← y, id(x) < id(y), count(middle)` over the kept candidates and returns every
//!    pair sharing a middle node with its count; the host orients each pair towards the node of
//!    higher rank (degree in that graph, then id: the degree ordering of triangle listing, which
//!    keeps every list short), sorts them into per-node lists and uploads them;
//! 2. **listing**: `cl/triangles.cl` finds every triangle once, at its lowest-ranked node `a`, by
//!    merging `a`'s and `b`'s sorted lists for every `b` in `a`'s, and weighs it by
//!    inclusion–exclusion over the three pairs' shared middle nodes (the middle nodes all three
//!    share are intersected from their lists); rows carry the triangle's nodes in rank order
//!    (the pivot first), the caller binds them in id order.
//!
//! Both stages go through [`run_rounds`] (row-buffer overflow rounds; the pair plan's pivots
//! whose tables exceed the scratch limit are counted on the host).

use std::time::Instant;

use hashbrown::HashMap;
use rayon::prelude::*;

use super::factorised::{
    encode_pairs, program as factorised_program, run_encoded, run_rounds, Launch, RoundShape,
    RoundsOutput,
};
use super::DeviceTimings;
use crate::engines::gemp::factorised::{reverse, walk, FactorPlan};
use crate::error::{Error, Result};
use crate::exec::candidates::CandidateSet;
use crate::exec::Control;
use crate::gpu::args::TrianglesArgs;
use crate::gpu::Gpu;
use crate::model::Model;

/// `cl/triangles.cl`.
pub const TRIANGLES_CL: &str = include_str!("../../../../cl/triangles.cl");

/// Largest pair count the listing multiplies (three of them fit in 63 bits).
const MAX_PAIR_COUNT: u32 = 1 << 21;

/// Lists the weighted triangles of `fp` (a plan recognised as
/// [`TriangleShape`](crate::engines::gemp::triangles::TriangleShape)) on the device. Rows are
/// `(a, b, c, weight low, weight high)` in rank order (`a` the pivot); in count mode only the sum.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    gpu: &Gpu,
    config: &super::DeviceConfig,
    model: &Model,
    fp: &FactorPlan,
    cands: &[CandidateSet],
    count_mode: bool,
    control: &Control,
    t: &mut DeviceTimings,
) -> Result<RoundsOutput> {
    let e = &fp.eliminated[0];
    let link = &e.links[0];
    let kept = &cands[link.kept];
    let mids = &cands[e.slot];

    // 1. Pairs sharing a middle node, with their counts.
    let begin = Instant::now();
    let start = Instant::now();
    let enc = encode_pairs(model, kept, mids, link, config.factorised_region_words)?;
    t.convert += start.elapsed();
    let fx = factorised_program(gpu)?;
    let (pairs, lists) = run_encoded(gpu, config, &fx, &enc, &kept.nodes, false, 1, control, t)?;

    // The co-occurrence lists, sorted (pairs of pivots the device left to the host added).
    let start = Instant::now();
    let mut edges: Vec<(u64, u32)> = pairs
        .rows
        .par_chunks_exact(4)
        .map(|r| (((r[0] as u64) << 32) | r[1] as u64, r[2]))
        .collect();
    edges.par_extend(
        pairs
            .host_pivots
            .par_iter()
            .flat_map_iter(|&x| host_pairs(model, x, link, kept, mids)),
    );
    if edges.iter().any(|e| e.1 >= MAX_PAIR_COUNT) {
        return Err(Error::DeviceLimit(format!(
            "two kept nodes share {MAX_PAIR_COUNT} or more middle nodes"
        )));
    }
    let (base, span) = match (kept.nodes.first(), kept.nodes.last()) {
        (Some(&lo), Some(&hi)) => (lo, (hi - lo) as usize + 1),
        _ => (0, 0),
    };
    // Orient every pair towards the higher rank (degree in the co-occurrence graph, then id):
    // the degree ordering of triangle listing, which keeps every list short.
    let mut degree = vec![0u32; span];
    for e in &edges {
        degree[((e.0 >> 32) as u32 - base) as usize] += 1;
        degree[(e.0 as u32 - base) as usize] += 1;
    }
    let rank = |v: u32| (degree[(v - base) as usize], v);
    edges.par_iter_mut().for_each(|e| {
        let (x, y) = ((e.0 >> 32) as u32, e.0 as u32);
        if rank(y) < rank(x) {
            e.0 = ((y as u64) << 32) | x as u64;
        }
    });
    edges.par_sort_unstable_by_key(|e| e.0);
    let mut co_off = vec![0u32; span + 1];
    for e in &edges {
        co_off[((e.0 >> 32) as u32 - base) as usize + 1] += 1;
    }
    for i in 0..span {
        co_off[i + 1] += co_off[i];
    }
    let co_nbr: Vec<u32> = edges.iter().map(|e| e.0 as u32).collect();
    let co_cnt: Vec<u32> = edges.iter().map(|e| e.1).collect();
    // Nodes with two or more higher-ranked neighbours can be the lowest node of a triangle.
    let pivots: Vec<u32> = (0..span)
        .filter(|&i| co_off[i + 1] - co_off[i] >= 2)
        .map(|i| base + i as u32)
        .collect();
    // Orienting and sorting the pairs on the host is part of converting the plan.
    t.convert += start.elapsed();

    // 2. Triangles.
    let listing = Instant::now();
    let start = Instant::now();
    let co_off_b = gpu.buffer_from("co-occurrence offsets", &co_off, true)?;
    let co_nbr_b = gpu.buffer_from("co-occurrence lists", &co_nbr, true)?;
    let co_cnt_b = gpu.buffer_from("co-occurrence counts", &co_cnt, true)?;
    t.upload_bytes += 4 * (co_off.len() + co_nbr.len() + co_cnt.len());
    t.upload += start.elapsed();
    // The kept → middle list is the pair plan's list 0.
    let lists_off = enc.plan[super::factorised::FH_LISTS_OFF] as usize;
    let (mid_start, mid_base, mid_span) = (
        enc.plan[lists_off],
        enc.plan[lists_off + 1],
        enc.plan[lists_off + 2],
    );
    let shape = RoundShape {
        row_words: 5,
        count_mode,
        regions: 0,
        region_words: (0, 0),
        tables: 0,
        table_slots: (0, 0),
    };
    let min_weight = fp.min_weight.max(1);
    let local = gpu.local_size(&fx, "triangles", config.local_size)?;
    let out = run_rounds(
        gpu,
        config,
        local,
        &shape,
        &pivots,
        control,
        t,
        &mut |l: &Launch<'_>| {
            gpu.kernel_from(
                &fx,
                TrianglesArgs {
                    co_off: &co_off_b,
                    co_nbr: &co_nbr_b,
                    co_cnt: &co_cnt_b,
                    co_base: base,
                    co_span: span as u32,
                    mid_off: &lists.list_off,
                    mid_nbr: &lists.list_nbr,
                    mid_start,
                    mid_base,
                    mid_span,
                    pivots: l.pivots,
                    n: l.n,
                    next_pivot: l.next_pivot,
                    mode: u32::from(!count_mode),
                    min_weight,
                    rows: l.rows,
                    row_cap: l.row_cap,
                    row_counter: l.row_counter,
                    status: l.status,
                    sums: l.sums,
                },
            )
        },
    )?;
    log::debug!(
        "device triangle listing: co-occurrence graph of {} pairs ({} from the host) in {:.1?}, \
         listing {:.1?}",
        edges.len(),
        pairs.host_pivots.len(),
        listing - begin,
        listing.elapsed()
    );
    if !out.host_pivots.is_empty() {
        return Err(Error::DeviceLimit(
            "a node's triangles exceed the largest row buffer".into(),
        ));
    }
    Ok(out)
}

/// The pairs `(x, y)`, `y > x`, sharing middle nodes with `x`, and their counts, on the host
/// (for pivots whose candidate table exceeded the device's scratch limit).
fn host_pairs(
    model: &Model,
    x: u32,
    link: &crate::engines::gemp::factorised::Link,
    kept: &CandidateSet,
    mids: &CandidateSet,
) -> Vec<(u64, u32)> {
    let back = reverse(link.dir);
    let mut ms = Vec::new();
    walk(model, x, &link.types, link.dir, |m| {
        if mids.contains(m) {
            ms.push(m);
        }
    });
    ms.sort_unstable();
    ms.dedup();
    let mut counts: HashMap<u32, u32> = HashMap::new();
    for &m in &ms {
        let mut ys = Vec::new();
        walk(model, m, &link.types, back, |y| {
            if y > x && kept.contains(y) {
                ys.push(y);
            }
        });
        ys.sort_unstable();
        ys.dedup();
        for y in ys {
            *counts.entry(y).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(y, c)| (((x as u64) << 32) | y as u64, c))
        .collect()
}
