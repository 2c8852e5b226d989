//! Stage 1 of matching — *filter candidates*: for every pattern node, the data nodes that can bind
//! it, from labels, degree per (type, direction) and the unary predicates the planner pushes down.
//! Kept as a sorted list (what the pivot scan and the device upload use) plus a bitset (what the
//! enumerator probes).

use rayon::prelude::*;

use crate::exec::column_filter::{Cursor, StrColumnTest};
use crate::exec::eval::Env;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, Expr, NodeSlot, Pattern};
pub use crate::pattern::Semantics;

/// The candidate set of one pattern node.
#[derive(Debug, Clone, Default)]
pub struct CandidateSet {
    /// Sorted candidate node ids.
    pub nodes: Vec<u32>,
    bits: Vec<u64>,
}

impl CandidateSet {
    /// The set of `nodes` (sorted, distinct) in a model of `n` nodes.
    pub fn from_sorted(nodes: Vec<u32>, n: usize) -> Self {
        let mut bits = vec![0u64; n.div_ceil(64)];
        for &v in &nodes {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        CandidateSet { nodes, bits }
    }

    /// Membership test.
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.bits
            .get(v as usize / 64)
            .is_some_and(|w| w & (1 << (v % 64)) != 0)
    }

    /// Number of candidates.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no node can bind.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Sum of degrees of `node` over `types` (empty = all) in the out (`out = true`) or in direction.
pub fn typed_degree(model: &Model, node: u32, types: &[u32], out: bool) -> usize {
    let adj = if out { model.out() } else { model.inc() };
    if types.is_empty() {
        return adj.degree(node);
    }
    let r = adj.range(node);
    if r.len() <= 16 {
        // Short lists: one scan beats a binary search per type.
        return adj.types[r].iter().filter(|t| types.contains(t)).count();
    }
    types
        .iter()
        .map(|&t| adj.range_of_type(node, t).len())
        .sum()
}

/// [`typed_degree`] counted only up to `cap`: `min(degree, cap)`. A degree test (`>= cap`) stops
/// at the cap-th edge instead of scanning the whole list (a need of one is met by the first
/// matching edge).
#[inline]
pub fn typed_degree_capped(
    model: &Model,
    node: u32,
    types: &[u32],
    out: bool,
    cap: usize,
) -> usize {
    if cap == 0 {
        return 0;
    }
    let adj = if out { model.out() } else { model.inc() };
    let r = adj.range(node);
    // Untyped, no longer than the cap, or long (searched per type): the full degree is as cheap.
    if types.is_empty() || r.len() <= cap || r.len() > 16 {
        return typed_degree(model, node, types, out).min(cap);
    }
    let mut n = 0;
    for t in &adj.types[r] {
        if types.contains(t) {
            n += 1;
            if n == cap {
                break;
            }
        }
    }
    n
}

/// True when `node` satisfies the label constraint (every group has one of its labels).
pub fn labels_match(model: &Model, node: u32, labels: &[Vec<u32>]) -> bool {
    labels
        .iter()
        .all(|group| group.iter().any(|&l| model.has_label(node, l)))
}

/// Computes the candidate set of every pattern node of `pattern`, applying `unary[slot]` conjuncts
/// of `filter` (expressions over that one slot).
pub fn filter_candidates(
    model: &Model,
    pattern: &Pattern,
    filter: &[Expr],
    unary: &[Vec<usize>],
    semantics: Semantics,
) -> Vec<CandidateSet> {
    filter_candidates_within(model, pattern, filter, unary, semantics, None)
}

/// [`filter_candidates`] among the nodes of `within` only (sorted, distinct) when given: what a
/// seeded search ([`super::execute_seeded`]) needs, whose matches all lie near the seeds, so that
/// its cost follows the neighbourhood and not the model.
pub fn filter_candidates_within(
    model: &Model,
    pattern: &Pattern,
    filter: &[Expr],
    unary: &[Vec<usize>],
    semantics: Semantics,
    within: Option<&[u32]>,
) -> Vec<CandidateSet> {
    let k = pattern.nodes.len();
    let conjuncts = |slot: NodeSlot| unary.get(slot).map_or(&[][..], |v| &v[..]);
    // Nodes without unary conjuncts first: a node with the same labels and degree needs reuses
    // their candidates — as they are (p1 and p2 of a co-star pair), or as the base its own unary
    // conjuncts filter (a1 of four actors, with its `CONTAINS 'Jack'`).
    let mut order: Vec<NodeSlot> = (0..k).collect();
    order.sort_by_key(|&s| !conjuncts(s).is_empty());
    let needs: Vec<_> = (0..k).map(|s| degree_needs(pattern, s)).collect();
    let mut sets: Vec<Option<CandidateSet>> = vec![None; k];
    for slot in order {
        let twin = (0..k).find(|&o| {
            sets[o].is_some()
                && conjuncts(o).is_empty()
                && pattern.nodes[o].labels == pattern.nodes[slot].labels
                && needs[o] == needs[slot]
        });
        let known = twin.and_then(|o| sets[o].as_ref());
        if let (Some(set), true) = (known, conjuncts(slot).is_empty()) {
            sets[slot] = Some(set.clone());
            continue;
        }
        let known = known.map(|set| &set.nodes[..]);
        let nodes = candidates_of(
            model,
            pattern,
            filter,
            conjuncts(slot),
            slot,
            semantics,
            known,
            within,
        );
        sets[slot] = Some(CandidateSet::from_sorted(nodes, model.node_count()));
    }
    sets.into_iter().map(Option::unwrap_or_default).collect()
}

/// The degree test of Definition 3 for data node `v` against `needs` ([`degree_needs`]).
pub fn degree_ok(
    model: &Model,
    v: u32,
    needs: &[(Vec<u32>, Option<bool>, usize)],
    semantics: Semantics,
) -> bool {
    needs.iter().all(|(types, dir, count)| {
        let need = if semantics == Semantics::Isomorphism {
            *count
        } else {
            1
        };
        let have = match dir {
            Some(out) => typed_degree_capped(model, v, types, *out, need),
            None => {
                let o = typed_degree_capped(model, v, types, true, need);
                o + typed_degree_capped(model, v, types, false, need - o)
            }
        };
        have >= need
    })
}

/// The degree requirements of one pattern node: (types, out?, how many distinct neighbouring
/// pattern nodes need such an edge). Counting neighbours, not pattern edges, keeps this a necessary
/// condition: two anonymous pattern edges to the same node can both be satisfied by one data edge.
/// Direction `Some(true)` = out, `Some(false)` = in, `None` = either (undirected).
pub fn degree_needs(pattern: &Pattern, slot: NodeSlot) -> Vec<(Vec<u32>, Option<bool>, usize)> {
    let mut seen: Vec<(Vec<u32>, Option<bool>, NodeSlot)> = Vec::new();
    let mut needs: Vec<(Vec<u32>, Option<bool>, usize)> = Vec::new();
    for r in &pattern.rels {
        if r.src == r.dst {
            continue; // self loops are checked directly
        }
        let dir = if r.undirected {
            None
        } else if r.src == slot {
            Some(true)
        } else if r.dst == slot {
            Some(false)
        } else {
            continue;
        };
        if r.undirected && r.src != slot && r.dst != slot {
            continue;
        }
        let mut types = r.types.clone();
        types.sort_unstable();
        let other = if r.src == slot { r.dst } else { r.src };
        if seen
            .iter()
            .any(|(t, d, o)| *t == types && *d == dir && *o == other)
        {
            continue;
        }
        seen.push((types.clone(), dir, other));
        match needs.iter_mut().find(|(t, d, _)| *t == types && *d == dir) {
            Some(n) => n.2 += 1,
            None => needs.push((types, dir, 1)),
        }
    }
    needs
}

/// The candidates of pattern node `slot`: from `known` (a twin's candidates) when given, else from
/// the base label group (among `within` when given), kept when labels, degrees and `unary` hold.
#[allow(clippy::too_many_arguments)] // one filter's inputs; grouping them would only rename them
fn candidates_of(
    model: &Model,
    pattern: &Pattern,
    filter: &[Expr],
    unary: &[usize],
    slot: NodeSlot,
    semantics: Semantics,
    known: Option<&[u32]>,
    within: Option<&[u32]>,
) -> Vec<u32> {
    let var = &pattern.nodes[slot];
    // Base: the rarest label group's nodes, or every node.
    // Base: the rarest label group's nodes (borrowed when the group is one label), or every node.
    let group = var
        .labels
        .iter()
        .min_by_key(|g| g.iter().map(|&l| model.label_count(l)).sum::<usize>());
    let owned: Vec<u32>;
    let base: &[u32] = match (known, group) {
        // Candidates of a node with the same labels and degree needs: only `unary` is left.
        (Some(nodes), _) => nodes,
        // A seeded search: the neighbourhood's nodes of the base group.
        (None, group) if within.is_some() => {
            let nodes = within.unwrap_or(&[]);
            owned = match group {
                Some(g) => nodes
                    .iter()
                    .copied()
                    .filter(|&v| g.iter().any(|&l| model.has_label(v, l)))
                    .collect(),
                None => nodes.to_vec(),
            };
            &owned
        }
        (None, Some(g)) if g.len() == 1 => model.nodes_with_label(g[0]),
        (None, Some(g)) => {
            let mut v: Vec<u32> = g
                .iter()
                .flat_map(|&l| model.nodes_with_label(l).iter().copied())
                .collect();
            v.sort_unstable();
            v.dedup();
            owned = v;
            &owned
        }
        (None, None) => {
            owned = (0..model.node_count() as u32).collect();
            &owned
        }
    };
    // The base group needs no label test; other groups do.
    let other_labels: Vec<Vec<u32>> = var
        .labels
        .iter()
        .filter(|g| known.is_none() && !group.is_some_and(|b| std::ptr::eq(*g, b)))
        .cloned()
        .collect();
    let needs = if known.is_some() {
        Vec::new()
    } else {
        degree_needs(pattern, slot)
    };
    // String predicates on one property are tested on the column; the rest by the evaluator.
    let (column_tests, unary): (Vec<_>, Vec<usize>) = {
        let mut tests = Vec::new();
        let mut rest = Vec::new();
        for &i in unary {
            match StrColumnTest::of(model, &filter[i], slot) {
                Some(mut t) => {
                    // Many nodes to test: one search over the column beats one per node.
                    if base.len() >= 4096 {
                        t.index_rows(model);
                    }
                    tests.push(t)
                }
                None => rest.push(i),
            }
        }
        (tests, rest)
    };
    // The tests after the degree test (made for a whole chunk at once, below).
    let more_tests = !other_labels.is_empty() || !column_tests.is_empty() || !unary.is_empty();
    let keep = |v: u32, nodes_buf: &mut Vec<u32>, cursors: &mut [Cursor]| {
        if !other_labels.is_empty() && !labels_match(model, v, &other_labels) {
            return false;
        }
        if !column_tests
            .iter()
            .zip(cursors.iter_mut())
            .all(|(t, c)| t.holds(model, c, v))
        {
            return false;
        }
        if unary.is_empty() {
            return true;
        }
        nodes_buf[slot] = v;
        let env = Env {
            locals: &[],
            model,
            nodes: nodes_buf,
            rels: &[],
            row: &[],
            exists: None,
        };
        unary.iter().all(|&i| env.holds(&filter[i]))
    };
    // Large bases are filtered on all cores, in chunks that keep the order.
    base.par_chunks(1 << 14)
        .map(|chunk| {
            let mut nodes_buf = vec![0u32; pattern.nodes.len()];
            let mut cursors: Vec<Cursor> = column_tests.iter().map(|_| Cursor::default()).collect();
            let degrees = degree_test_chunk(model, chunk, &needs, semantics);
            // The degree test's survivors, compacted without a branch per node (about half of
            // the nodes pass a typical test, so the branch would be mispredicted half the time).
            let mut kept = vec![0u32; chunk.len()];
            let mut n = 0;
            for (&v, ok) in chunk.iter().zip(degrees) {
                kept[n] = v;
                n += ok as usize;
            }
            kept.truncate(n);
            if more_tests {
                kept.retain(|&v| keep(v, &mut nodes_buf, &mut cursors));
            }
            kept
        })
        .collect::<Vec<Vec<u32>>>()
        .concat()
}

/// [`degree_ok`] for every node of `chunk` (sorted ascending), in pieces of 1024 nodes. A piece
/// whose ids lie close together (spanning under three times as many ids as it has nodes) is tested
/// without a loop per node list, whose variable lengths cost a mispredicted branch per node: one
/// pass over the edges of the piece's id span counts running matches of each need's types, and a
/// node's count is the difference at its list's two ends. Sparser pieces test node by node.
pub(crate) fn degree_test_chunk(
    model: &Model,
    chunk: &[u32],
    needs: &[(Vec<u32>, Option<bool>, usize)],
    semantics: Semantics,
) -> Vec<bool> {
    let mut ok = vec![true; chunk.len()];
    if needs.is_empty() {
        return ok;
    }
    // Pieces small enough that the scratch stays in the cache and on the heap (large fresh
    // allocations are fresh pages, each a page fault on first touch).
    const PIECE: usize = 1024;
    let mut running: Vec<u32> = Vec::new();
    let mut have: Vec<u32> = Vec::with_capacity(PIECE);
    for (piece, flags) in chunk.chunks(PIECE).zip(ok.chunks_mut(PIECE)) {
        let (Some(&first), Some(&last)) = (piece.first(), piece.last()) else {
            continue;
        };
        if ((last - first) as usize) >= 3 * piece.len() {
            for (flag, &v) in flags.iter_mut().zip(piece) {
                *flag = degree_ok(model, v, needs, semantics);
            }
            continue;
        }
        for (types, dir, count) in needs {
            let need = if semantics == Semantics::Isomorphism {
                *count as u32
            } else {
                1
            };
            have.clear();
            have.resize(piece.len(), 0);
            for out in [true, false] {
                if dir.is_some_and(|d| d != out) {
                    continue;
                }
                let adj = if out { model.out() } else { model.inc() };
                span_counts(adj, piece, first, last, types, &mut running, &mut have);
            }
            for (flag, h) in flags.iter_mut().zip(&have) {
                *flag &= *h >= need;
            }
        }
    }
    ok
}

/// Adds to `have[i]` the number of edges of `types` (every type when empty) in `adj`'s list of
/// `chunk[i]`, for a chunk (sorted ascending) whose ids run from `first` to `last`. `running` is
/// scratch. Offsets are non-decreasing (a snapshot is validated so on opening).
fn span_counts(
    adj: &crate::model::Adjacency,
    chunk: &[u32],
    first: u32,
    last: u32,
    types: &[u32],
    running: &mut Vec<u32>,
    have: &mut [u32],
) {
    let (lo, hi) = (first as usize, last as usize + 1);
    let Some(window) = adj.offsets.get(lo..=hi) else {
        return; // ids past the model: no edges
    };
    let start = window[0];
    // Each node's list as positions into the span.
    let ends = |v: u32| {
        let i = (v - first) as usize;
        (
            (window[i] - start) as usize,
            (window[i + 1] - start) as usize,
        )
    };
    if types.is_empty() {
        for (h, &v) in have.iter_mut().zip(chunk) {
            let (a, b) = ends(v);
            *h += (b - a) as u32;
        }
        return;
    }
    let Some(edge_types) = adj.types.get(start as usize..window[hi - lo] as usize) else {
        return;
    };
    // The running count over the span, one entry per edge plus one: one or two wanted types (the
    // usual case) compared directly, more through a table.
    running.clear();
    running.resize(edge_types.len() + 1, 0);
    fn fill(running: &mut [u32], edge_types: &[u32], is_wanted: impl Fn(u32) -> bool) {
        let mut sum = 0u32;
        for (slot, &t) in running[1..].iter_mut().zip(edge_types) {
            sum += is_wanted(t) as u32;
            *slot = sum;
        }
    }
    match *types {
        [a] => fill(running, edge_types, |t| t == a),
        [a, b] => fill(running, edge_types, |t| t == a || t == b),
        _ => {
            let max_type = types.iter().copied().max().unwrap_or(0) as usize;
            let mut wanted = vec![false; max_type + 1];
            for &t in types {
                wanted[t as usize] = true;
            }
            fill(running, edge_types, |t| {
                wanted.get(t as usize).copied().unwrap_or(false)
            })
        }
    }
    for (h, &v) in have.iter_mut().zip(chunk) {
        let (a, b) = ends(v);
        *h += running[b] - running[a];
    }
}

/// Candidate filtering for a whole query using the planner's classification of conjuncts.
pub fn for_query(
    model: &Model,
    query: &BoundQuery,
    unary: &[Vec<usize>],
    semantics: Semantics,
) -> Vec<CandidateSet> {
    filter_candidates(model, &query.pattern, &query.filter, unary, semantics)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    /// `n` nodes; node i gets i * 7 % 23 edges (0..=22: short and long lists) of the relationship
    /// types `type_names` in turn, with parallel edges and a self-loop on some. Returns the model,
    /// its nodes and its type numbers.
    fn mixed_degree_model(n: usize, type_names: &[&str]) -> (Model, Vec<u32>, Vec<u32>) {
        let mut b = ModelBuilder::new();
        let types: Vec<u32> = type_names.iter().map(|t| b.rel_type(t)).collect();
        let nodes: Vec<u32> = (0..n).map(|i| b.add_node(&i.to_string(), &["N"])).collect();
        for (i, &v) in nodes.iter().enumerate() {
            for j in 0..(i * 7 % 23) {
                let to = nodes[(i * 3 + j * 5) % nodes.len()];
                b.add_edge(v, to, types[(i + j) % types.len()]).unwrap();
            }
        }
        (b.freeze().unwrap(), nodes, types)
    }

    /// The capped degree is the full degree cut at the cap, for short lists (scanned) and long
    /// ones (searched per type), every direction, type set and cap.
    #[test]
    fn capped_degree_is_the_degree_cut_at_the_cap() {
        let (m, nodes, types) = mixed_degree_model(40, &["A", "B", "C"]);
        let sets: [&[u32]; 5] = [
            &[],
            &types[..1],
            &types[1..2],
            &types[..2],
            &[types[0], types[2]],
        ];
        for &v in &nodes {
            for set in sets {
                for out in [true, false] {
                    let full = typed_degree(&m, v, set, out);
                    for cap in 0..25 {
                        assert_eq!(
                            typed_degree_capped(&m, v, set, out, cap),
                            full.min(cap),
                            "node {v}, types {set:?}, out {out}, cap {cap}"
                        );
                    }
                }
            }
        }
    }

    /// The chunk-wide degree test equals [`degree_ok`] node by node: dense chunks (the running
    /// count over the span) and sparse ones, every direction (undirected sums both), type set,
    /// need count and semantics, on a model with short and long lists, parallel edges and
    /// self-loops.
    #[test]
    fn chunk_degree_test_equals_the_node_by_node_test() {
        let (m, nodes, types) = mixed_degree_model(60, &["A", "B", "C", "D"]);
        let sets: [Vec<u32>; 5] = [
            vec![],
            vec![types[0]],
            vec![types[1], types[3]],
            vec![types[0], types[1], types[2]],
            vec![types[2]],
        ];
        let dense: Vec<u32> = nodes[5..45].to_vec();
        let sparse: Vec<u32> = nodes.iter().copied().step_by(7).collect();
        let odd: Vec<u32> = nodes.iter().copied().filter(|v| v % 3 != 1).collect();
        for chunk in [&dense, &sparse, &odd, &nodes] {
            for (i, a) in sets.iter().enumerate() {
                for dir in [Some(true), Some(false), None] {
                    for count in 1..4 {
                        let second = &sets[(i + 2) % sets.len()];
                        let needs = vec![
                            (a.clone(), dir, count),
                            (second.clone(), Some(false), 1 + count % 2),
                        ];
                        for semantics in [Semantics::Isomorphism, Semantics::Homomorphism] {
                            let batch = degree_test_chunk(&m, chunk, &needs, semantics);
                            for (&v, ok) in chunk.iter().zip(batch) {
                                assert_eq!(
                                    ok,
                                    degree_ok(&m, v, &needs, semantics),
                                    "node {v}, needs {needs:?}, {semantics:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
