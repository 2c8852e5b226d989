//! The AMonG host loop: uploads the problem, allocates the queues, launches the phases of
//! `cl/among.cl` until termination and reads the best complete solution back.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{AmongOptions, EvalStrategy, InsertStrategy, AMONG_CL};
use crate::error::{Error, Result};
use crate::generate::rng::{Rng, SplitMix64};
use crate::gpu::args::{
    EvalArgs, EvalElementArgs, EvalReduceArgs, ExtractExpandArgs, InsertArgs, StatusArgs,
};
use crate::gpu::{DeviceBuffer, Gpu};
use crate::similarity::astar::{
    mapping_similarity, Mapping, Outcome, SearchResult, Stats, StopReason,
};
use crate::similarity::problem::Problem;

const FREE: u16 = u16::MAX;
const NUL: u16 = u16::MAX - 1;

/// Runs AMonG for `problem` on `gpu` (see the module documentation). The similarity returned is
/// recomputed on the host in `f64` from the mapping the device found.
pub fn among_search(gpu: &Gpu, problem: &Problem, options: &AmongOptions) -> Result<Outcome> {
    let start = Instant::now();
    if options.instances == 0 || options.queue_capacity == 0 {
        return Err(Error::InvalidArgument(
            "AMonG needs at least one instance and a queue capacity of at least 1".into(),
        ));
    }
    if options.selection && !options.heuristic_iii {
        return Err(Error::InvalidArgument(
            "improvement S (heuristic-based selection) needs A*III's heuristic".into(),
        ));
    }
    let q = &problem.query;
    let c = &problem.case;
    let mut stats = Stats::default();
    if q.is_empty() {
        stats.time = start.elapsed();
        return Ok(Outcome::Done(SearchResult {
            similarity: 1.0,
            mapping: Mapping::default(),
            stats,
            exact: true,
        }));
    }
    let (qn, cn) = (q.nodes as u32, c.nodes as u32);
    let (qlen, clen) = (q.len() as u32, c.len() as u32);
    let s = q.len() + c.len();
    let n = options.instances;
    let cap = options.queue_capacity;
    let k = problem
        .query_candidates
        .iter()
        .map(|l| l.len() + 1)
        .max()
        .unwrap_or(1);

    // Problem arrays.
    let flat =
        |ends: &[(u32, u32)]| -> Vec<u32> { ends.iter().flat_map(|&(l, r)| [l, r]).collect() };
    let mut cand_off = vec![0u32];
    let mut cand_case = Vec::new();
    let mut cand_sim = Vec::new();
    for list in &problem.query_candidates {
        for &(y, sim) in list {
            cand_case.push(y);
            cand_sim.push(sim as f32);
        }
        cand_off.push(cand_case.len() as u32);
    }
    let q_max: Vec<f32> = problem
        .query_candidates
        .iter()
        .map(|l| l.first().map_or(0.0, |c| c.1 as f32))
        .collect();
    let surplus: Vec<u32> = problem
        .query_type_count
        .iter()
        .zip(&problem.case_type_count)
        .map(|(&a, &b)| a.saturating_sub(b))
        .collect();

    // Initial solution (R: the only possible node mappings).
    let mut init = vec![FREE; s];
    let mut g0 = 0.0f32;
    if options.reduction {
        for x in 0..q.nodes {
            let t = q.kind[x] as usize;
            if problem.query_type_count[t] == 1 && problem.case_type_count[t] == 1 {
                if let Some(&(y, sim)) = problem.query_candidates[x].first() {
                    init[x] = y as u16;
                    init[q.len() + y as usize] = x as u16;
                    g0 += sim as f32;
                }
            }
        }
    }

    let ro = |name: &str, data: &[u32]| gpu.buffer_from(name, data, true);
    let q_kind = ro("among q_kind", &q.kind)?;
    let q_ends = ro("among q_ends", &flat(&q.ends))?;
    let c_ends = ro("among c_ends", &flat(&c.ends))?;
    let cand_off_b = ro("among cand_off", &cand_off)?;
    let cand_case_b = ro("among cand_case", &cand_case)?;
    let cand_sim_b = gpu.buffer_from("among cand_sim", &cand_sim, true)?;
    let q_max_b = gpu.buffer_from("among q_max", &q_max, true)?;
    let surplus_b = ro("among surplus", &surplus)?;

    let heap_f: DeviceBuffer<f32> = gpu.uninit("among heap_f", n * cap)?;
    let heap_slot: DeviceBuffer<u32> = gpu.uninit("among heap_slot", n * cap)?;
    let heap_size: DeviceBuffer<u32> = gpu.zeroed("among heap_size", n)?;
    let free_init: Vec<u32> = (0..n).flat_map(|_| 0..cap as u32).collect();
    let free_stack = gpu.buffer_from("among free_stack", &free_init, false)?;
    let free_top = gpu.buffer_from("among free_top", &vec![cap as u32; n], false)?;
    // Heaps and pool slots are written before they are read (heap_size / free stacks guard them).
    let pool: DeviceBuffer<u16> = gpu.uninit("among pool", n * cap * s)?;
    let pool_g: DeviceBuffer<f32> = gpu.uninit("among pool_g", n * cap)?;
    let pool_next: DeviceBuffer<i32> = gpu.uninit("among pool_next", n * cap)?;
    let best_f = gpu.buffer_from("among best_f", &vec![-1.0f32; n], false)?;
    let best_state: DeviceBuffer<u16> = gpu.zeroed("among best_state", n * s)?;
    let child: DeviceBuffer<u16> = gpu.uninit("among child", n * k * s)?;
    gpu.write(&child, 0, &init)?;
    let mut g_init = vec![0.0f32; n * k];
    g_init[0] = g0;
    let child_g = gpu.buffer_from("among child_g", &g_init, false)?;
    let mut count_init = vec![0u32; n];
    count_init[0] = 1;
    let child_count = gpu.buffer_from("among child_count", &count_init, false)?;
    let child_f: DeviceBuffer<f32> = gpu.zeroed("among child_f", n * k)?;
    let child_next: DeviceBuffer<i32> = gpu.zeroed("among child_next", n * k)?;
    let eval3 = options.eval == EvalStrategy::Three;
    let contrib: DeviceBuffer<f32> =
        gpu.zeroed("among contrib", if eval3 { n * k * q.len() } else { 0 })?;
    let cnt: DeviceBuffer<i32> =
        gpu.zeroed("among cnt", if eval3 { n * k * q.len() } else { 0 })?;
    let perm_inv = gpu.buffer_from("among perm_inv", &(0..n as u32).collect::<Vec<_>>(), false)?;
    let expansions: DeviceBuffer<u32> = gpu.zeroed("among expansions", n)?;
    let status_f: DeviceBuffer<f32> = gpu.zeroed("among status_f", 2)?;
    let status_u: DeviceBuffer<u32> = gpu.zeroed("among status_u", 3)?;

    let program = gpu.program("among", &[AMONG_CL], "")?;
    let (h3, sel3) = (
        u32::from(options.heuristic_iii),
        u32::from(options.selection),
    );
    let inv_denom = 1.0f32 / q.len() as f32;
    let (k32, cap32, n32) = (k as u32, cap as u32, n as u32);
    let extract = gpu.kernel_from(
        &program,
        ExtractExpandArgs {
            q: qlen,
            qn,
            c: clen,
            cn,
            k: k32,
            cap: cap32,
            q_kind: &q_kind,
            q_ends: &q_ends,
            c_ends: &c_ends,
            cand_off: &cand_off_b,
            cand_case: &cand_case_b,
            cand_sim: &cand_sim_b,
            surplus: &surplus_b,
            heap_f: &heap_f,
            heap_slot: &heap_slot,
            heap_size: &heap_size,
            free_stack: &free_stack,
            free_top: &free_top,
            pool: &pool,
            pool_g: &pool_g,
            pool_next: &pool_next,
            best_f: &best_f,
            child: &child,
            child_g: &child_g,
            child_count: &child_count,
            expansions: &expansions,
        },
    )?;
    let evals = match options.eval {
        EvalStrategy::One | EvalStrategy::Two => {
            let name = if options.eval == EvalStrategy::One {
                "eval_instance"
            } else {
                "eval_child"
            };
            vec![(
                gpu.kernel_named(
                    &program,
                    name,
                    EvalArgs {
                        q: qlen,
                        qn,
                        c: clen,
                        cn,
                        k: k32,
                        h3,
                        sel3,
                        inv_denom,
                        q_ends: &q_ends,
                        c_ends: &c_ends,
                        cand_off: &cand_off_b,
                        cand_case: &cand_case_b,
                        cand_sim: &cand_sim_b,
                        q_max: &q_max_b,
                        child: &child,
                        child_g: &child_g,
                        child_count: &child_count,
                        child_f: &child_f,
                        child_next: &child_next,
                    },
                )?,
                if options.eval == EvalStrategy::One {
                    n
                } else {
                    n * k
                },
            )]
        }
        EvalStrategy::Three => vec![
            (
                gpu.kernel_from(
                    &program,
                    EvalElementArgs {
                        q: qlen,
                        qn,
                        c: clen,
                        cn,
                        k: k32,
                        h3,
                        q_ends: &q_ends,
                        c_ends: &c_ends,
                        cand_off: &cand_off_b,
                        cand_case: &cand_case_b,
                        cand_sim: &cand_sim_b,
                        q_max: &q_max_b,
                        child: &child,
                        child_count: &child_count,
                        contrib: &contrib,
                        cnt: &cnt,
                    },
                )?,
                n * k * q.len(),
            ),
            (
                gpu.kernel_from(
                    &program,
                    EvalReduceArgs {
                        q: qlen,
                        qn,
                        c: clen,
                        k: k32,
                        sel3,
                        inv_denom,
                        q_ends: &q_ends,
                        child: &child,
                        child_g: &child_g,
                        child_count: &child_count,
                        contrib: &contrib,
                        cnt: &cnt,
                        child_f: &child_f,
                        child_next: &child_next,
                    },
                )?,
                n * k,
            ),
        ],
    };
    let strategy = match options.insert {
        InsertStrategy::One => 1u32,
        InsertStrategy::Two => 2u32,
    };
    let insert = gpu.kernel_from(
        &program,
        InsertArgs {
            q: qlen,
            c: clen,
            k: k32,
            cap: cap32,
            n_inst: n32,
            strategy,
            perm_inv: &perm_inv,
            child: &child,
            child_g: &child_g,
            child_f: &child_f,
            child_next: &child_next,
            child_count: &child_count,
            heap_f: &heap_f,
            heap_slot: &heap_slot,
            heap_size: &heap_size,
            free_stack: &free_stack,
            free_top: &free_top,
            pool: &pool,
            pool_g: &pool_g,
            pool_next: &pool_next,
            best_f: &best_f,
            best_state: &best_state,
            status_u: &status_u,
        },
    )?;
    let status = gpu.kernel_from(
        &program,
        StatusArgs {
            n_inst: n32,
            cap: cap32,
            heap_f: &heap_f,
            heap_size: &heap_size,
            best_f: &best_f,
            status_f: &status_f,
            status_u: &status_u,
        },
    )?;

    let mut rng = SplitMix64::new(options.seed);
    let mut perm: Vec<u32> = (0..n as u32).collect();
    let mut iterations = 0u64;
    let winner_queue;
    loop {
        for (kernel, global) in &evals {
            gpu.run(kernel, *global, None)?;
        }
        if options.insert == InsertStrategy::One && n > 1 {
            // A random target per source: a fresh permutation each iteration, its inverse uploaded.
            for i in (1..n).rev() {
                perm.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut inv = vec![0u32; n];
            for (src, &dst) in perm.iter().enumerate() {
                inv[dst as usize] = src as u32;
            }
            gpu.write(&perm_inv, 0, &inv)?;
        }
        gpu.run(&insert, n, None)?;
        gpu.run(&status, 1, None)?;
        let sf = gpu.read(&status_f)?;
        let su = gpu.read(&status_u)?;
        iterations += 1;
        stats.max_queue = stats.max_queue.max(su[1] as usize);
        let (top, incumbent) = (sf[0], sf[1]);
        if su[2] != 0 {
            log::debug!(
                "AMonG: a priority queue overflowed (capacity {cap} per instance, {n} instances)"
            );
            stats.expansions = gpu.read(&expansions)?.iter().map(|&e| u64::from(e)).sum();
            stats.iterations = iterations;
            stats.time = start.elapsed();
            return Ok(Outcome::Stopped {
                reason: StopReason::QueueCapacity,
                upper_bound: f64::from(top.max(incumbent)).max(0.0),
                stats,
            });
        }
        if incumbent >= 0.0 && incumbent >= top {
            winner_queue = su[0] as usize;
            break;
        }
        if top < 0.0 {
            return Err(Error::InvalidArgument(
                "AMonG: every queue ran empty without a complete solution (internal error)".into(),
            ));
        }
        let below = options.prune_below.as_ref().is_some_and(|b| {
            f64::from(top.max(incumbent)) < f64::from_bits(b.load(Ordering::Relaxed))
        });
        let stop = if below {
            Some(StopReason::BelowBound)
        } else if options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            Some(StopReason::Cancelled)
        } else if options.time_limit.is_some_and(|t| start.elapsed() > t) {
            Some(StopReason::TimeLimit)
        } else {
            None
        };
        if let Some(reason) = stop {
            stats.expansions = gpu.read(&expansions)?.iter().map(|&e| u64::from(e)).sum();
            stats.iterations = iterations;
            stats.time = start.elapsed();
            return Ok(Outcome::Stopped {
                reason,
                upper_bound: f64::from(top.max(incumbent)),
                stats,
            });
        }
        gpu.run(&extract, n, None)?;
    }
    stats.expansions = gpu.read(&expansions)?.iter().map(|&e| u64::from(e)).sum();
    stats.iterations = iterations;
    let best = gpu.read_prefix(&best_state, (winner_queue + 1) * s)?;
    let state = &best[winner_queue * s..winner_queue * s + q.len()];
    let target = |x: usize| -> Option<usize> {
        let y = state[x];
        (y != FREE && y != NUL).then_some(y as usize)
    };
    let mapping = Mapping {
        nodes: (0..q.nodes).map(target).collect(),
        edges: (q.nodes..q.len())
            .map(|x| target(x).map(|y| y - c.nodes))
            .collect(),
    };
    let similarity = mapping_similarity(problem, &mapping).ok_or_else(|| {
        Error::InvalidArgument("AMonG returned an illegal mapping (internal error)".into())
    })?;
    stats.time = start.elapsed();
    Ok(Outcome::Done(SearchResult {
        similarity,
        mapping,
        stats,
        exact: true,
    }))
}
