//! Counting a star where its centre lives: a count whose pattern is one centre vertex joined by
//! one relationship to each of its other vertices (the leaves), where the leaves check nothing
//! but labels. Every match is a centre node and, per leaf, one way to bind the leaf's
//! relationship from the centre's lists, so the count is a sum over the centre's candidates of a
//! product of per-leaf counts, each read from the centre's own lists with the leaves' labels from
//! the label sieves ([`super::sieve`]). Every worker counts its own centres; nothing but the
//! sieves and the final counts travels (the factorised count of the single-machine engine, spread
//! over the cluster).
//!
//! Under Cypher semantics each list entry is an edge (parallel edges count apart) and the
//! relationships' type sets must be pairwise disjoint, so two of them can never bind one edge;
//! under homomorphism a leaf counts the distinct nodes of its lists. Isomorphism (leaves distinct
//! from each other and from the centre) and every other shape run the general dataflow.

use std::sync::atomic::AtomicBool;

use timely::worker::Worker;

use super::dataflow::exchange_all;
use super::local::{accepts, Local};
use super::plan::DistPlan;
use super::sieve::{build_sieves, Sieve};
use crate::error::Result;
use crate::exec::plan::Dir;
use crate::model::part::Part;
use crate::model::{Adjacency, ANY_TYPE};
use crate::pattern::ir::BoundQuery;

/// One leaf of a star: its position in the plan and its relationship seen from the centre.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// The leaf's position in the plan's order.
    pub pos: usize,
    /// The relationship's direction from the centre.
    pub dir: Dir,
    /// Its types (empty: any).
    pub types: Vec<u32>,
}

/// A star count: see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Star {
    /// The centre's position in the plan's order.
    pub centre: usize,
    /// The leaves.
    pub leaves: Vec<Leaf>,
}

impl Star {
    /// The star `plan` counts, if it is one.
    pub fn of(plan: &DistPlan) -> Option<Star> {
        let k = plan.order.len();
        if k < 2 || !plan.counts_last() || plan.injective || plan.rels.len() != k - 1 {
            return None;
        }
        if plan.order.iter().any(|v| !v.id_filters.is_empty()) {
            return None;
        }
        if plan.edges && !plan.disjoint_types {
            // Two relationships that could bind one edge.
            return None;
        }
        (0..k).find_map(|centre| {
            let mut leaves = Vec::new();
            for r in &plan.rels {
                let (leaf, dir) = match (r.src == centre, r.dst == centre) {
                    (true, false) => (r.dst, Dir::Out),
                    (false, true) => (r.src, Dir::In),
                    _ => return None,
                };
                let dir = if r.undirected { Dir::Both } else { dir };
                leaves.push(Leaf {
                    pos: leaf,
                    dir,
                    types: r.types.clone(),
                });
            }
            let mut positions: Vec<usize> = leaves.iter().map(|l| l.pos).collect();
            positions.sort_unstable();
            positions.dedup();
            let leaves_plain = leaves.iter().all(|l| {
                let v = &plan.order[l.pos];
                v.filters.is_empty() && v.loops.is_empty() && v.items.is_empty()
            });
            let centre_plain = plan.order[centre].loops.is_empty();
            (positions.len() == k - 1 && leaves_plain && centre_plain)
                .then_some(Star { centre, leaves })
        })
    }
}

/// Counts `star` over this worker's parts; worker 0 returns the cluster's total.
pub fn count_star(
    worker: &mut Worker,
    abort: &AtomicBool,
    local: &Local,
    query: &BoundQuery,
    plan: &DistPlan,
    star: &Star,
) -> Result<u64> {
    let started = std::time::Instant::now();
    let sieves = build_sieves(worker, abort, local, plan, star.centre)?;
    let centre = &plan.order[star.centre];
    let mut total = 0u64;
    for part in local.parts_of(worker.index()) {
        let model = part.nodes();
        let mut count_at = |v: u32| {
            if !accepts(part, query, centre, plan.slots, v) {
                return;
            }
            let mut product = 1u64;
            for leaf in &star.leaves {
                let sieve = sieves.get(leaf.pos).and_then(Option::as_ref);
                let n = leaf_count(part, v, leaf, sieve, plan.edges);
                product = product.saturating_mul(n);
                if product == 0 {
                    return;
                }
            }
            total = total.saturating_add(product);
        };
        match centre.labels.first() {
            Some(any) if any.len() == 1 => {
                for &v in model.nodes_with_label(any[0]) {
                    count_at(v);
                }
            }
            _ => (0..part.owned_count() as u32).for_each(&mut count_at),
        }
    }
    log::debug!(
        "worker {}: star counted at its centre in {:.1} ms",
        worker.index(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let counts = exchange_all(worker, abort, vec![(0, total)])?;
    Ok(counts.iter().fold(0u64, |a, &b| a.saturating_add(b)))
}

/// The ways `leaf`'s relationship binds from the centre of local index `v` in `part` to a node
/// passing `sieve` (none: any): each edge under Cypher semantics (`edges`; an undirected
/// self-loop once), else each distinct node.
fn leaf_count(part: &Part, v: u32, leaf: &Leaf, sieve: Option<&Sieve>, edges: bool) -> u64 {
    let passes = |c: u32| sieve.is_none_or(|s| s.holds(c));
    let runs = |adj: &Adjacency, out: &mut Vec<std::ops::Range<usize>>| {
        if leaf.types.is_empty() {
            out.push(adj.range_of_type(v, ANY_TYPE));
        } else {
            out.extend(leaf.types.iter().map(|&t| adj.range_of_type(v, t)));
        }
    };
    if edges {
        let count_in = |adj: &Adjacency, skip: Option<u32>| {
            let mut ranges = Vec::new();
            runs(adj, &mut ranges);
            ranges
                .into_iter()
                .flat_map(|r| adj.neighbors[r].iter().copied())
                .filter(|&c| Some(c) != skip && passes(c))
                .count() as u64
        };
        return match leaf.dir {
            Dir::Out => count_in(part.out(), None),
            Dir::In => count_in(part.inc(), None),
            // A self-loop is in both lists: counted from the out-list only.
            Dir::Both => count_in(part.out(), None) + count_in(part.inc(), part.global(v)),
        };
    }
    let mut nodes: Vec<u32> = Vec::new();
    let mut ranges = Vec::new();
    if matches!(leaf.dir, Dir::Out | Dir::Both) {
        runs(part.out(), &mut ranges);
        for r in ranges.drain(..) {
            nodes.extend_from_slice(&part.out().neighbors[r]);
        }
    }
    if matches!(leaf.dir, Dir::In | Dir::Both) {
        runs(part.inc(), &mut ranges);
        for r in ranges.drain(..) {
            nodes.extend_from_slice(&part.inc().neighbors[r]);
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    nodes.into_iter().filter(|&c| passes(c)).count() as u64
}
