//! GpSense's joining phase (paper Algorithm 1, lines 8–10): edge candidates collected per query
//! relationship, then partial matches combined into full matches.
//!
//! - **Edge candidates** of a relationship `(a)-[r]->(b)` are the data edges `x -> y` of `r`'s
//!   types with `x ∈ C(a)` and `y ∈ C(b)` (either way when undirected), grouped by `x` (and, for
//!   expanding from `b`, a transposed copy grouped by `y`). An anonymous relationship keeps each
//!   `(x, y)` pair once — it is an existence check, parallel edges do not multiply matches; a named
//!   one keeps every edge, so each edge is a distinct binding (as in the default engine).
//! - **Combining** follows the plan's order in batches: each partial match is extended by the
//!   edge candidates of the cheapest relationship to an earlier node, the other relationships to
//!   earlier nodes are checked (named ones enumerated), injectivity (or, on a compressed graph,
//!   the hyper-node capacity) is enforced, and the step's conjuncts are evaluated. Batches are
//!   bounded, so memory stays bounded whatever the number of matches.

use crate::exec::candidates::Semantics;
use rayon::prelude::*;

use crate::exec::eval::{Env, ExistsOracle};
use crate::exec::{Control, Sink};
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, RelVar};

use super::filter::Topo;
use super::plan::GpsPlan;

/// Rows per batch of partial matches before the next level is processed.
pub const BATCH_ROWS: usize = 4096;

/// Edge candidates of one relationship grouped by one end: for each key node, its far ends and
/// edge ids (sorted by far end, then edge).
#[derive(Debug, Clone, Default)]
pub struct EdgeGroups {
    /// Key nodes with at least one edge candidate, ascending.
    pub keys: Vec<u32>,
    /// `keys.len() + 1` offsets into `far` / `edges`.
    pub offsets: Vec<u32>,
    /// Far end of each edge candidate.
    pub far: Vec<u32>,
    /// Edge id of each edge candidate (`u32::MAX` for anonymous relationships).
    pub edges: Vec<u32>,
}

impl EdgeGroups {
    /// Builds groups from per-key counts already prefix-summed (`offsets`) and written entries:
    /// the two-step output scheme's result.
    pub fn from_parts(keys: Vec<u32>, offsets: Vec<u32>, far: Vec<u32>, edges: Vec<u32>) -> Self {
        EdgeGroups {
            keys,
            offsets,
            far,
            edges,
        }
    }

    /// The far ends and edge ids of `key` (empty when it has none).
    #[inline]
    pub fn group(&self, key: u32) -> (&[u32], &[u32]) {
        match self.keys.binary_search(&key) {
            Ok(i) => {
                let (s, e) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
                (&self.far[s..e], &self.edges[s..e])
            }
            Err(_) => (&[], &[]),
        }
    }

    /// Entries of `key`'s group whose far end is `far`: their edge ids.
    #[inline]
    pub fn between(&self, key: u32, far: u32) -> &[u32] {
        let (f, e) = self.group(key);
        let lo = f.partition_point(|&x| x < far);
        let hi = lo + f[lo..].partition_point(|&x| x <= far);
        &e[lo..hi]
    }

    /// Number of edge candidates.
    pub fn len(&self) -> usize {
        self.far.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.far.is_empty()
    }

    /// The same edge candidates grouped by their far end.
    pub fn transposed(&self) -> EdgeGroups {
        let mut triples: Vec<(u32, u32, u32)> = Vec::with_capacity(self.far.len());
        for (i, &k) in self.keys.iter().enumerate() {
            for p in self.offsets[i] as usize..self.offsets[i + 1] as usize {
                triples.push((self.far[p], k, self.edges[p]));
            }
        }
        triples.sort_unstable();
        let mut out = EdgeGroups {
            offsets: vec![0],
            ..Default::default()
        };
        for (y, x, e) in triples {
            if out.keys.last() != Some(&y) {
                if !out.keys.is_empty() {
                    out.offsets.push(out.far.len() as u32);
                }
                out.keys.push(y);
            }
            out.far.push(x);
            out.edges.push(e);
        }
        if !out.keys.is_empty() {
            out.offsets.push(out.far.len() as u32);
        }
        out
    }
}

/// Edge candidates of one relationship, grouped both ways.
#[derive(Debug, Clone, Default)]
pub struct EdgeCandidates {
    /// Grouped by the source end's data node.
    pub by_src: EdgeGroups,
    /// Grouped by the target end's data node.
    pub by_dst: EdgeGroups,
}

/// Sorts and deduplicates one key's entries: pairs once for anonymous relationships, edges once
/// for named ones (an undirected self loop is seen from both lists).
pub fn normalise_group(entries: &mut Vec<(u32, u32)>, named: bool) {
    entries.sort_unstable();
    if named {
        entries.dedup();
    } else {
        entries.dedup_by_key(|p| p.0);
        for p in entries.iter_mut() {
            p.1 = u32::MAX;
        }
    }
}

/// Collects the edge candidates of `rel` on the host, given the candidate arrays of its source
/// (`src_cands`) and the candidate flags of its target (`dst_flags`).
pub fn collect_edge_candidates(
    topo: &Topo<'_>,
    rel: &RelVar,
    src_cands: &[u32],
    dst_flags: &[bool],
    all_anonymous: bool,
) -> EdgeCandidates {
    let named = rel.named && !all_anonymous;
    let mut by_src = EdgeGroups {
        offsets: vec![0],
        ..Default::default()
    };
    let mut entries = Vec::new();
    for &x in src_cands {
        entries.clear();
        topo.for_each_neighbour(x, rel, true, |y, e| {
            if dst_flags[y as usize] && (rel.src != rel.dst || y == x) {
                entries.push((y, e));
            }
        });
        if entries.is_empty() {
            continue;
        }
        normalise_group(&mut entries, named);
        by_src.keys.push(x);
        for &(y, e) in &entries {
            by_src.far.push(y);
            by_src.edges.push(e);
        }
        by_src.offsets.push(by_src.far.len() as u32);
    }
    let by_dst = by_src.transposed();
    EdgeCandidates { by_src, by_dst }
}

/// Collects the edge candidates of every relationship of `query` on the host, given the candidate
/// arrays (`cands`) and flags (`flags`) of each pattern node (named relationships edge by edge).
pub fn collect_all_edge_candidates(
    topo: &Topo<'_>,
    query: &BoundQuery,
    cands: &[Vec<u32>],
    flags: &[Vec<bool>],
) -> Vec<EdgeCandidates> {
    query
        .pattern
        .rels
        .iter()
        .map(|r| collect_edge_candidates(topo, r, &cands[r.src], &flags[r.dst], false))
        .collect()
}

/// How data nodes may repeat in a match.
#[derive(Debug, Clone, Copy)]
pub enum Repeat<'a> {
    /// Node-injective.
    Injective,
    /// Any repetition.
    Free,
    /// On a compressed graph: a hyper-node can take at most `capacity[x]` pattern nodes (the size
    /// of its mapping list), which any injective match of the original graph respects.
    Capacity(&'a [u32]),
}

impl Repeat<'_> {
    /// The policy of `semantics` on an uncompressed graph.
    pub fn of(semantics: Semantics) -> Repeat<'static> {
        match semantics {
            Semantics::Isomorphism => Repeat::Injective,
            Semantics::Homomorphism | Semantics::Cypher => Repeat::Free,
        }
    }
}

/// Where the join evaluates conjuncts (absent on a compressed graph, whose nodes carry no
/// properties: the expansion evaluates them).
#[derive(Clone, Copy)]
pub struct Conjuncts<'a> {
    /// The model the variables bind into.
    pub model: &'a Model,
    /// Evaluates `EXISTS` sub-patterns.
    pub oracle: &'a (dyn ExistsOracle + Sync),
}

/// Combines edge candidates into full matches.
pub struct Joiner<'a> {
    /// The query.
    pub query: &'a BoundQuery,
    /// The plan.
    pub plan: &'a GpsPlan,
    /// Final candidate arrays per pattern node.
    pub cands: &'a [Vec<u32>],
    /// Edge candidates per relationship.
    pub edges: &'a [EdgeCandidates],
    /// Repetition policy.
    pub repeat: Repeat<'a>,
    /// Treat every relationship as anonymous (compressed graphs: bindings are node tuples).
    pub all_anonymous: bool,
    /// Conjunct evaluation, when the graph is the data graph.
    pub conjuncts: Option<Conjuncts<'a>>,
    /// Stop conditions.
    pub control: &'a Control,
}

/// A receiver of complete matches: `(nodes, rels)`; false stops the search.
pub type Emit<'e> = &'e mut dyn FnMut(&[u32], &[u32]) -> bool;

impl Joiner<'_> {
    fn width(&self) -> (usize, usize) {
        (
            self.query.pattern.nodes.len(),
            self.query.pattern.rels.len(),
        )
    }

    /// Runs the join over the first node's candidates in parallel chunks of
    /// [`crate::exec::control::CHUNK`], one sink per chunk, returned in candidate order (one sink
    /// for a pattern without nodes).
    pub fn run_parallel<S, F>(&self, make_sink: F) -> Vec<S>
    where
        S: Sink + Send,
        F: Fn() -> S + Sync + Send,
    {
        let run_chunk = |chunk: &[u32]| {
            let mut sink = make_sink();
            self.run(chunk, &mut |n, r| sink.emit(n, r));
            sink
        };
        let Some(&first) = self.plan.order.first() else {
            return vec![run_chunk(&[])];
        };
        self.cands[first]
            .par_chunks(crate::exec::control::CHUNK)
            .map(run_chunk)
            .collect()
    }

    /// Runs the join for the first node's candidates `firsts` (a chunk of `cands[order[0]]`).
    /// Returns false when stopped.
    pub fn run(&self, firsts: &[u32], emit: Emit<'_>) -> bool {
        let (k, r) = self.width();
        if self.plan.order.is_empty() {
            return self.filters_hold(&self.plan.attribute_filters, &[], &[]) && emit(&[], &[]);
        }
        let mut seed = vec![u32::MAX; k + r];
        let mut rows = Vec::with_capacity(BATCH_ROWS * (k + r));
        for chunk in firsts.chunks(BATCH_ROWS) {
            rows.clear();
            for &v in chunk {
                self.extend_row(0, &mut seed, Some(v), &mut rows);
            }
            if !self.level(1, &rows, emit) {
                return false;
            }
        }
        true
    }

    fn level(&self, level: usize, rows: &[u32], emit: Emit<'_>) -> bool {
        let (k, r) = self.width();
        let w = k + r;
        if rows.is_empty() {
            return true;
        }
        if !self.control.check_deadline() {
            return false;
        }
        if level == self.plan.steps.len() {
            for row in rows.chunks(w) {
                let (nodes, rels) = row.split_at(k);
                if !self.filters_hold(&self.plan.attribute_filters, nodes, rels) {
                    continue;
                }
                if !emit(nodes, rels) {
                    return false;
                }
            }
            return true;
        }
        let mut next = Vec::with_capacity(BATCH_ROWS * w);
        let mut row = vec![u32::MAX; w];
        for src in rows.chunks(w) {
            row.copy_from_slice(src);
            self.extend_row(level, &mut row, None, &mut next);
            if next.len() >= BATCH_ROWS * w {
                if !self.level(level + 1, &next, emit) {
                    return false;
                }
                next.clear();
            }
        }
        self.level(level + 1, &next, emit)
    }

    /// True when data node `v` may be bound to one more pattern node of `nodes`.
    #[inline]
    fn may_repeat(&self, nodes: &[u32], v: u32) -> bool {
        match self.repeat {
            Repeat::Free => true,
            Repeat::Injective => !nodes.contains(&v),
            Repeat::Capacity(cap) => {
                (nodes.iter().filter(|&&x| x == v).count() as u32) < cap[v as usize]
            }
        }
    }

    /// Extends `row` at step `level` (binding `steps[level].node`), pushing complete rows of this
    /// level to `out`. `only` restricts the new node to one data node (the first step's chunk).
    fn extend_row(&self, level: usize, row: &mut [u32], only: Option<u32>, out: &mut Vec<u32>) {
        let (k, _) = self.width();
        let step = &self.plan.steps[level];
        let w = step.node;
        let pattern = &self.query.pattern;
        // The expansion: the relationship to an earlier node with the fewest edge candidates.
        let mut expand: Option<(usize, &[u32], &[u32])> = None;
        if only.is_none() {
            for &ri in &step.rels {
                let rel = &pattern.rels[ri];
                if rel.src == rel.dst {
                    continue;
                }
                let (far, edges) = if rel.dst == w {
                    self.edges[ri].by_src.group(row[rel.src])
                } else {
                    self.edges[ri].by_dst.group(row[rel.dst])
                };
                if expand.is_none_or(|(_, f, _)| far.len() < f.len()) {
                    expand = Some((ri, far, edges));
                }
            }
        }
        let all: &[u32] = match only {
            Some(ref v) => std::slice::from_ref(v),
            None => &self.cands[w],
        };
        let (exp_rel, fars, edges) = match expand {
            Some((ri, f, e)) => (Some(ri), f, e),
            None => (None, all, all),
        };
        let mut prev = u32::MAX;
        for (i, &y) in fars.iter().enumerate() {
            let named_expand = exp_rel.is_some_and(|ri| self.is_named(ri));
            if !named_expand && y == prev {
                continue; // anonymous: one binding per node
            }
            prev = y;
            if !self.may_repeat(&row[..k], y) {
                continue;
            }
            row[w] = y;
            if let Some(ri) = exp_rel {
                if self.is_named(ri) {
                    row[k + ri] = edges[i];
                }
            }
            self.check_rels(level, 0, exp_rel, row, out);
            row[w] = u32::MAX;
        }
    }

    fn is_named(&self, ri: usize) -> bool {
        !self.all_anonymous && self.query.pattern.rels[ri].named
    }

    /// Checks step `level`'s relationships from the `c`-th on (except the expansion), enumerating
    /// named ones, then the step's conjuncts; pushes surviving rows.
    fn check_rels(
        &self,
        level: usize,
        c: usize,
        exp_rel: Option<usize>,
        row: &mut [u32],
        out: &mut Vec<u32>,
    ) {
        let (k, _) = self.width();
        let step = &self.plan.steps[level];
        let Some(&ri) = step.rels.get(c) else {
            let (nodes, rels) = row.split_at(k);
            if self.filters_hold(&step.filters, nodes, rels) {
                out.extend_from_slice(row);
            }
            return;
        };
        if Some(ri) == exp_rel {
            return self.check_rels(level, c + 1, exp_rel, row, out);
        }
        let rel = &self.query.pattern.rels[ri];
        let (a, b) = (row[rel.src], row[rel.dst]);
        let edges = self.edges[ri].by_src.between(a, b);
        if edges.is_empty() {
            return;
        }
        if !self.is_named(ri) {
            return self.check_rels(level, c + 1, exp_rel, row, out);
        }
        for &e in edges {
            row[k + ri] = e;
            self.check_rels(level, c + 1, exp_rel, row, out);
        }
        row[k + ri] = u32::MAX;
    }

    fn filters_hold(&self, filters: &[usize], nodes: &[u32], rels: &[u32]) -> bool {
        if filters.is_empty() {
            return true;
        }
        let Some(c) = self.conjuncts else {
            return true;
        };
        let env = Env {
            locals: &[],
            model: c.model,
            nodes,
            rels,
            row: &[],
            exists: Some(c.oracle),
        };
        filters.iter().all(|&f| env.holds(&self.query.filter[f]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_groups_transpose_and_look_up_pairs() {
        // 1 -> {2 (e7), 2 (e8), 3 (e9)}, 4 -> {2 (e1)}
        let g = EdgeGroups::from_parts(
            vec![1, 4],
            vec![0, 3, 4],
            vec![2, 2, 3, 2],
            vec![7, 8, 9, 1],
        );
        assert_eq!(g.between(1, 2), &[7, 8]);
        assert_eq!(g.between(1, 3), &[9]);
        assert!(g.between(1, 4).is_empty());
        assert!(g.between(5, 2).is_empty());
        let t = g.transposed();
        assert_eq!(t.keys, vec![2, 3]);
        assert_eq!(t.group(2), (&[1u32, 1, 4][..], &[7u32, 8, 1][..]));
        assert_eq!(t.between(3, 1), &[9]);
        let mut entries = vec![(5, 2), (3, 1), (5, 1), (3, 1)];
        normalise_group(&mut entries, true);
        assert_eq!(entries, vec![(3, 1), (5, 1), (5, 2)]);
        normalise_group(&mut entries, false);
        assert_eq!(entries, vec![(3, u32::MAX), (5, u32::MAX)]);
    }
}
