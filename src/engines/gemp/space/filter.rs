//! Stage 1 — *filter*: candidate sets per pattern node, refined to a fixpoint (on a large
//! space, while it pays).
//!
//! The host's label, degree and unary-predicate filter gives the first sets. Refinement then
//! sweeps the pattern nodes in a BFS order, forwards and backwards in turn (as CFL and DP-iso do
//! along their BFS trees), and keeps a candidate `x` of `u` only when, for every group of `u`'s
//! relationships that look alike (same types, direction and label constraint at the far end), `x`
//! has at least as many distinct neighbours among the far ends' candidates as the group has far
//! ends (GraphQL's neighbourhood profile; under homomorphism one neighbour per relationship) and
//! one at least among each far end's own candidates (arc consistency: the union alone let yeast's
//! `query_dense_32_110` keep 200 candidates where 4 are consistent).
//!
//! A small space (at most [`FIXPOINT_BELOW`] candidates in all) is refined to the fixpoint: the
//! last few candidates a sweep removes can be what a dense query's search hinges on (yeast's
//! `query_dense_32_110`: sweeps 4–6 remove 3 % of the candidates, and with them 196 of the 200 of
//! the three nodes that head the largest subtrees). A larger space stops once a sweep removes less
//! than 3 % of what it started with.

use rayon::prelude::*;

use super::query_graph::{neighbours, Incidence, NeighbourScratch, QueryGraph};
use crate::model::Model;

/// A sorted candidate list with O(1) membership and rank (position of a member in the list).
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    /// Sorted, distinct data node ids.
    pub nodes: Vec<u32>,
    bits: Vec<u64>,
    /// Members before each 64-bit word.
    rank: Vec<u32>,
}

impl Candidates {
    /// The set of `nodes` (sorted, distinct) in a model of `n` nodes.
    pub fn from_sorted(nodes: Vec<u32>, n: usize) -> Self {
        let words = n.div_ceil(64);
        let mut bits = vec![0u64; words];
        for &v in &nodes {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        let mut rank = Vec::with_capacity(words);
        let mut total = 0u32;
        for w in &bits {
            rank.push(total);
            total += w.count_ones();
        }
        Candidates { nodes, bits, rank }
    }

    /// Replaces the set by `kept` (a sorted subset of it, in a model of `n` nodes) when that
    /// drops any; returns how many it dropped.
    pub fn keep_only(&mut self, kept: Vec<u32>, n: usize) -> usize {
        let dropped = self.len() - kept.len();
        if dropped > 0 {
            *self = Candidates::from_sorted(kept, n);
        }
        dropped
    }

    /// Number of candidates.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when this list and `other` share a node.
    pub fn overlaps(&self, other: &Candidates) -> bool {
        let (small, large) = if self.len() <= other.len() {
            (self, other)
        } else {
            (other, self)
        };
        small.nodes.iter().any(|&v| large.contains(v))
    }

    /// True when nothing can bind.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Membership.
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.bits
            .get(v as usize / 64)
            .is_some_and(|w| w & (1 << (v % 64)) != 0)
    }

    /// The position of `v` in [`Self::nodes`], if it is a candidate.
    #[inline]
    pub fn index_of(&self, v: u32) -> Option<u32> {
        let w = v as usize / 64;
        let word = *self.bits.get(w)?;
        let bit = 1u64 << (v % 64);
        if word & bit == 0 {
            return None;
        }
        Some(self.rank[w] + (word & (bit - 1)).count_ones())
    }
}

/// Relationships of one pattern node that look alike from it, and how many distinct data
/// neighbours a candidate needs among their far ends' candidates.
#[derive(Debug, Clone)]
struct Group {
    /// One representative incidence (types and direction are shared by the group).
    first: Incidence,
    /// The far ends.
    others: Vec<usize>,
    /// Distinct neighbours needed.
    need: usize,
    /// Groups with the same signature (types and direction) read the same neighbour list: the
    /// index of the first such group.
    sig: usize,
}

/// The groups of `u`'s relationships (see the module doc).
fn groups(
    q: &QueryGraph,
    labels: &[Vec<Vec<u32>>],
    sizes: &[usize],
    u: usize,
    injective: bool,
) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for inc in &q.incident[u] {
        let r = &q.rels[inc.rel];
        let alike = |g: &Group| {
            let f = &q.rels[g.first.rel];
            injective
                && f.types == r.types
                && f.undirected == r.undirected
                && (r.undirected || g.first.forward == inc.forward)
                && labels[g.first.other] == labels[inc.other]
        };
        match out.iter_mut().find(|g| alike(g)) {
            Some(g) => {
                if !g.others.contains(&inc.other) {
                    g.others.push(inc.other);
                }
            }
            None => out.push(Group {
                first: *inc,
                others: vec![inc.other],
                need: 0,
                sig: 0,
            }),
        }
    }
    for g in &mut out {
        g.need = if injective { g.others.len() } else { 1 };
    }
    let same_walk = |a: &Incidence, b: &Incidence| {
        let (ra, rb) = (&q.rels[a.rel], &q.rels[b.rel]);
        ra.types == rb.types
            && ra.undirected == rb.undirected
            && (ra.undirected || a.forward == b.forward)
    };
    for i in 0..out.len() {
        out[i].sig = (0..=i)
            .find(|&j| same_walk(&out[j].first, &out[i].first))
            .unwrap_or(i);
    }
    // One signature after another; within one, the groups with the fewest far-end candidates
    // per neighbour needed first: they reject soonest.
    out.sort_by(|a, b| {
        let weight =
            |g: &Group| g.others.iter().map(|&v| sizes[v]).sum::<usize>() as f64 / g.need as f64;
        (a.sig, weight(a))
            .partial_cmp(&(b.sig, weight(b)))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// True when `x` passes every group of its pattern node against `cands`. Groups come sorted by
/// signature (one neighbour list read per signature) and, within one, most selective first.
fn passes(
    model: &Model,
    q: &QueryGraph,
    groups: &[Group],
    cands: &[Candidates],
    x: u32,
    scratch: &mut NeighbourScratch,
) -> bool {
    let mut i = 0;
    while i < groups.len() {
        let sig = groups[i].sig;
        let first = groups[i].first;
        let list = neighbours(model, x, &q.rels[first.rel], first.forward, scratch);
        while i < groups.len() && groups[i].sig == sig {
            let g = &groups[i];
            i += 1;
            if list.len() < g.need {
                return false;
            }
            // Enough distinct neighbours among the far ends' candidates, and (arc consistency)
            // one at least among each far end's own.
            let ends = g.others.len().min(64);
            let all_ends = if ends == 64 {
                u64::MAX
            } else {
                (1u64 << ends) - 1
            };
            let (mut found, mut hit) = (0, 0u64);
            let ok = list.iter().any(|&y| {
                let mut any = false;
                for (e, &v) in g.others.iter().enumerate().take(64) {
                    if cands[v].contains(y) {
                        any = true;
                        hit |= 1 << e;
                    }
                }
                found += usize::from(any);
                found >= g.need && hit == all_ends
            });
            if !ok {
                return false;
            }
        }
    }
    true
}

/// A BFS order of the pattern nodes from the one with the fewest candidates.
pub fn bfs_order(q: &QueryGraph, sizes: &[usize]) -> Vec<usize> {
    let k = q.len();
    let mut seen = vec![false; k];
    let mut order = Vec::with_capacity(k);
    while order.len() < k {
        let start = (0..k)
            .filter(|&u| !seen[u])
            .min_by_key(|&u| sizes[u])
            .expect("an unseen node");
        seen[start] = true;
        let mut head = order.len();
        order.push(start);
        while head < order.len() {
            let u = order[head];
            head += 1;
            for v in q.neighbours(u) {
                if !seen[v] {
                    seen[v] = true;
                    order.push(v);
                }
            }
        }
    }
    order
}

/// What each pattern node's candidates need of their neighbour-label profile
/// ([`crate::model::neighbour_labels`]): per label, the distinct pattern neighbours that require
/// it (one of their label groups is that label alone), or one under homomorphism; ascending by
/// label.
fn label_needs(
    q: &QueryGraph,
    labels: &[Vec<Vec<u32>>],
    u: usize,
    injective: bool,
) -> Vec<(u32, u32)> {
    let mut required: Vec<u32> = Vec::new();
    for v in q.neighbours(u) {
        if v == u {
            continue;
        }
        for group in &labels[v] {
            if let [label] = group[..] {
                required.push(label);
            }
        }
    }
    required.sort_unstable();
    required
        .chunk_by(|a, b| a == b)
        .map(|run| (run[0], if injective { run.len() as u32 } else { 1 }))
        .collect()
}

/// Removes the candidates whose neighbour-label profile cannot host their pattern node's
/// neighbours ([`label_needs`]) — a cheap test that takes most of what the first refinement sweep
/// would reject, reading a few entries per candidate instead of its neighbour list. Does nothing
/// when the model has no profile index (a large model). Returns the candidates removed.
pub fn by_neighbour_labels(
    model: &Model,
    q: &QueryGraph,
    labels: &[Vec<Vec<u32>>],
    cands: &mut [Candidates],
    injective: bool,
) -> usize {
    let Some(index) = model.neighbour_labels() else {
        return 0;
    };
    let n = model.node_count();
    let mut removed = 0;
    for (u, c) in cands.iter_mut().enumerate() {
        let needs = label_needs(q, labels, u, injective);
        if needs.is_empty() {
            continue;
        }
        let kept: Vec<u32> = c
            .nodes
            .iter()
            .copied()
            .filter(|&x| index.satisfies(x, &needs))
            .collect();
        removed += c.keep_only(kept, n);
    }
    removed
}

/// Candidate sets at least this large are filtered on all cores.
pub const PARALLEL_FROM: usize = 4096;

/// Statistics of a refinement.
#[derive(Debug, Clone, Default)]
pub struct RefineStats {
    /// Sweeps run.
    pub sweeps: usize,
    /// Candidates removed in all.
    pub removed: usize,
}

/// Candidates in all up to which refinement runs to its fixpoint (see the module doc): a sweep
/// then re-checks only the nodes next to a shrunk set, a few milliseconds at most.
pub const FIXPOINT_BELOW: usize = 1 << 16;

/// Refines `cands` in place (see the module doc): sweeps until one removes nothing or, over more
/// than [`FIXPOINT_BELOW`] candidates, less than 3 % of those it started with; at most
/// `max_sweeps`. Stops early when `stop()` says so.
pub fn refine(
    model: &Model,
    q: &QueryGraph,
    labels: &[Vec<Vec<u32>>],
    cands: &mut [Candidates],
    injective: bool,
    max_sweeps: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> RefineStats {
    let k = q.len();
    let n = model.node_count();
    let sizes: Vec<usize> = cands.iter().map(Candidates::len).collect();
    let groups: Vec<Vec<Group>> = (0..k)
        .map(|u| groups(q, labels, &sizes, u, injective))
        .collect();
    let order = bfs_order(q, &sizes);
    let mut stats = RefineStats::default();
    let mut scratch = NeighbourScratch::default();
    // A node's verdicts change only when a neighbour's set shrank since it was last checked:
    // `shrunk[v]` and `checked[u]` are steps of one clock (a step per node checked).
    let (mut shrunk, mut checked) = (vec![0usize; k], vec![0usize; k]);
    let mut clock = 0usize;
    for sweep in 0..max_sweeps {
        let t_sweep = std::time::Instant::now();
        let before: usize = cands.iter().map(Candidates::len).sum();
        let mut removed = 0;
        let seq: Vec<usize> = if sweep % 2 == 0 {
            order.clone()
        } else {
            order.iter().rev().copied().collect()
        };
        for u in seq {
            if stop() || cands[u].is_empty() {
                continue;
            }
            if sweep > 0 && q.incident[u].iter().all(|i| shrunk[i.other] < checked[u]) {
                continue;
            }
            clock += 1;
            checked[u] = clock;
            let kept: Vec<u32> = {
                let view: &[Candidates] = cands;
                let keep = |x: u32, scratch: &mut NeighbourScratch| {
                    passes(model, q, &groups[u], view, x, scratch)
                };
                if view[u].len() < PARALLEL_FROM {
                    // Small sets: on this thread (handing them to the pool costs more).
                    view[u]
                        .nodes
                        .iter()
                        .copied()
                        .filter(|&x| keep(x, &mut scratch))
                        .collect()
                } else {
                    view[u]
                        .nodes
                        .par_chunks(512)
                        .map_init(NeighbourScratch::default, |scratch, chunk| {
                            chunk
                                .iter()
                                .copied()
                                .filter(|&x| keep(x, scratch))
                                .collect::<Vec<u32>>()
                        })
                        .flatten_iter()
                        .collect()
                }
            };
            let dropped = cands[u].keep_only(kept, n);
            if dropped > 0 {
                removed += dropped;
                shrunk[u] = clock;
            }
        }
        stats.sweeps += 1;
        stats.removed += removed;
        log::trace!(
            "refinement sweep {sweep}: {removed} of {before} removed in {:.2?}",
            t_sweep.elapsed()
        );
        // Another sweep pays only while one still removes a good share (on a small space, while
        // one removes anything).
        let small = before <= FIXPOINT_BELOW;
        if removed == 0
            || (!small && removed * 33 < before)
            || cands.iter().any(Candidates::is_empty)
        {
            break;
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rank is the position in the sorted list; non-members have none.
    #[test]
    fn index_of_is_the_position_in_the_list() {
        let nodes = vec![0, 3, 63, 64, 65, 200, 1000];
        let c = Candidates::from_sorted(nodes.clone(), 1001);
        for (i, &v) in nodes.iter().enumerate() {
            assert_eq!(c.index_of(v), Some(i as u32));
            assert!(c.contains(v));
        }
        for v in [1, 2, 62, 66, 199, 999] {
            assert_eq!(c.index_of(v), None);
            assert!(!c.contains(v));
        }
        assert_eq!(c.index_of(5000), None);
    }
}
