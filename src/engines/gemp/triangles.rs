//! Co-occurrence triangles: the factorised plan of a cycle that alternates between three kept
//! nodes and three eliminated middle nodes (the co-star cycle `p1-t1-p2-t2-p3-t3-p1`, the co-star
//! triangle), run as weighted triangle listing instead of a search.
//!
//! Let `P` be the kept nodes' candidates and `M` the middle nodes' (the same set at every
//! position, walked along the same relationship types and direction). The weight of a kept
//! triple `(a, b, c)` under node-injectivity is the number of distinct middle triples around it:
//! with `c_xy = |N(x) ∩ N(y) ∩ M|` and `T = |N(a) ∩ N(b) ∩ N(c) ∩ M|`,
//!
//! ```text
//! w(a, b, c) = c_ab · c_bc · c_ca − T · (c_ab + c_bc + c_ca) + 2 · T
//! ```
//!
//! (inclusion–exclusion over the three middle sets, whose pairwise and triple intersections
//! are all `N(a) ∩ N(b) ∩ N(c)`). Only triples whose three pairs co-occur can have a non-zero
//! weight: the triangles of the *co-occurrence graph* over `P` (an edge `x–y` weighted `c_xy`
//! when `x` and `y` share a middle node). So the run:
//!
//! 1. builds the co-occurrence graph once, each edge oriented towards the higher *rank* (number of
//!    two-hop paths, then id — the degree ordering of triangle listing, which keeps every list
//!    short): for every `x` in `P`, every higher-ranked `y` two hops away through `M` with `c_xy`
//!    and one *witness* middle node they share (a dense per-thread counter, reset only where
//!    touched);
//! 2. lists every triangle once, at its lowest-ranked node `a`: `a`'s list is marked in a dense
//!    array, and the list of each `b` in it is probed against the marks;
//! 3. gets `T` without intersecting lists in the common case: when a pair shares exactly one
//!    middle node, `T` is 1 if that node is the other pair's witness (when that pair also shares
//!    one) or is adjacent to the third node, else 0; only triples whose three pairs all share two
//!    or more middle nodes intersect the three neighbour lists.
//!
//! The triangle's nodes, sorted by id, are bound along the query's `id(…) < id(…)` chain (the triangle
//! query's own, or the symmetry-breaking conditions of a pure count, see
//! [`symmetry`](super::symmetry)), so each triangle is one kept binding, pushed with its weight.

use rayon::prelude::*;

use super::factorised::{per_thread, this_thread, walk, FactorPlan, Projected};
use crate::exec::candidates::{CandidateSet, Semantics};
use crate::exec::eval::ExistsOracle;
use crate::exec::plan::Dir;
use crate::exec::results::{Projector, RowSink};
use crate::exec::Control;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, NodeSlot};

/// Kept positions per parallel task.
const CHUNK: usize = 64;

/// The recognised shape: which kept slot takes the smallest, middle and largest id (the
/// co-occurrence graph is built from the plan's first eliminated node and its first link; all
/// three are alike).
#[derive(Debug, Clone)]
pub struct TriangleShape {
    /// Kept slots in increasing id order.
    pub order: [NodeSlot; 3],
}

/// Recognises the shape in a factorised plan: three kept nodes with equal candidate sets, bound
/// in a total `id` order with no other condition between them; three eliminated nodes with equal
/// candidate sets disjoint from the kept ones, each linking two different kept nodes, one per
/// pair, all along the same relationship types and direction; node-injective semantics.
pub fn recognise(
    fp: &FactorPlan,
    query: &BoundQuery,
    cands: &[CandidateSet],
) -> Option<TriangleShape> {
    if fp.semantics() != Semantics::Isomorphism || fp.has_collisions() {
        return None;
    }
    let p = &query.pattern;
    if fp.steps.len() != 3 || fp.eliminated.len() != 3 || p.nodes.len() != 6 || p.rels.len() != 6 {
        return None;
    }
    if fp.steps.iter().any(|s| !s.plain()) {
        return None;
    }
    let kept: Vec<NodeSlot> = fp.steps.iter().map(|s| s.node).collect();
    let first_link = fp.eliminated.first()?.links.first()?;
    let mut pairs = Vec::new();
    for e in &fp.eliminated {
        if e.links.len() != 2 || e.links[0].kept == e.links[1].kept {
            return None;
        }
        if cands[e.slot].nodes != cands[fp.eliminated[0].slot].nodes {
            return None;
        }
        for l in &e.links {
            if !l.same_walk(first_link) {
                return None;
            }
        }
        let mut pair = [e.links[0].kept, e.links[1].kept];
        pair.sort_unstable();
        pairs.push(pair);
    }
    pairs.sort_unstable();
    pairs.dedup();
    if pairs.len() != 3 || kept.iter().any(|&k| cands[k].nodes != cands[kept[0]].nodes) {
        return None;
    }
    // A total id order: `o0 < o1 < o2` stated (directly), and no condition against it.
    let before = fp.id_orders();
    let [x, y, z] = [kept[0], kept[1], kept[2]];
    let order = [
        [x, y, z],
        [x, z, y],
        [y, x, z],
        [y, z, x],
        [z, x, y],
        [z, y, x],
    ]
    .into_iter()
    .find(|o| {
        let rank = |s: NodeSlot| o.iter().position(|&q| q == s);
        before.contains(&(o[0], o[1]))
            && before.contains(&(o[1], o[2]))
            && before.iter().all(|&(u, v)| rank(u) < rank(v))
    })?;
    Some(TriangleShape { order })
}

/// An edge `x–y` (`y > x`) of the co-occurrence graph.
#[derive(Debug, Clone, Copy)]
struct Pair {
    /// Position of `y` in the kept candidates.
    to: u32,
    /// Middle nodes `x` and `y` share.
    shared: u32,
    /// One of them.
    witness: u32,
}

/// The co-occurrence graph over the kept candidates, by position.
struct CoGraph {
    offsets: Vec<u64>,
    pairs: Vec<Pair>,
}

impl CoGraph {
    fn of(&self, pos: usize) -> &[Pair] {
        &self.pairs[self.offsets[pos] as usize..self.offsets[pos + 1] as usize]
    }
}

/// Per-thread state of the co-occurrence build.
struct Counter {
    /// Per node: middle nodes it shares with the current kept node.
    count: Vec<u32>,
    /// Per node: the first middle node it was reached through.
    witness: Vec<u32>,
    touched: Vec<u32>,
    middles: Vec<u32>,
}

/// Per-worker neighbour lists of the triple's nodes (middle nodes, sorted), each kept while its
/// node stays the same.
struct Lists {
    of: [Vec<u32>; 3],
    node: [u32; 3],
}

impl Lists {
    fn new() -> Self {
        Lists {
            of: [Vec::new(), Vec::new(), Vec::new()],
            node: [u32::MAX; 3],
        }
    }
}

/// Runs a recognised plan: returns one sink per parallel task, in kept-position order.
#[allow(clippy::too_many_arguments)]
pub fn run<'q, 'm>(
    model: &'m Model,
    query: &BoundQuery,
    fp: &FactorPlan,
    shape: &TriangleShape,
    cands: &[CandidateSet],
    control: &Control,
    projector: &'q Projector<'q>,
    next: Option<&'q Projector<'q>>,
    oracle: &'q (dyn ExistsOracle + Sync),
) -> Vec<RowSink<'q, 'm>> {
    let e = &fp.eliminated[0];
    let link = &e.links[0];
    let kept = &cands[link.kept];
    let mids = &cands[e.slot];
    let walker = Walker {
        model,
        types: &link.types,
        dir: link.dir,
        mids,
    };
    let start = std::time::Instant::now();
    let proj = Projected::build(model, mids, link, kept);
    let projected = start.elapsed();
    let graph = CoGraph::build(model, &kept.nodes, &proj, &walker, control);
    log::debug!(
        "triangle listing: middle lists {projected:.1?}, co-occurrence graph of {} pairs over {} nodes {:.1?}",
        graph.pairs.len(),
        kept.nodes.len(),
        start.elapsed() - projected
    );
    let k = query.pattern.nodes.len();
    let positions: Vec<u32> = (0..kept.nodes.len() as u32).collect();
    let states = per_thread::<Lister>();
    let sinks = positions
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut sink = fp.sink(model, projector, next, oracle);
            let mut guard = this_thread(&states);
            let st = guard.get_or_insert_with(|| Lister {
                mark: vec![0; kept.nodes.len()],
                at: vec![0; kept.nodes.len()],
                lists: Lists::new(),
                nodes: vec![u32::MAX; k],
            });
            for &a in chunk {
                if !control.check_deadline() || control.stopped() {
                    break;
                }
                if !st.triangles_at(a, &graph, &kept.nodes, &walker, shape, &mut sink) {
                    control.stop();
                    break;
                }
            }
            sink
        })
        .collect();
    sinks
}

/// Per-thread state of the triangle listing.
struct Lister {
    /// `mark[y] == a + 1` when `a → y` is an edge of the current node `a`…
    mark: Vec<u32>,
    /// …and `at[y]` its index in `a`'s list.
    at: Vec<u32>,
    lists: Lists,
    nodes: Vec<u32>,
}

impl Lister {
    /// Lists the triangles whose lowest-ranked node is `a` (a position) and pushes each with its
    /// weight; false when the sink wants no more.
    fn triangles_at(
        &mut self,
        a: u32,
        graph: &CoGraph,
        kept: &[u32],
        walker: &Walker<'_>,
        shape: &TriangleShape,
        sink: &mut RowSink<'_, '_>,
    ) -> bool {
        let la = graph.of(a as usize);
        let stamp = a + 1;
        for (i, ab) in la.iter().enumerate() {
            self.mark[ab.to as usize] = stamp;
            self.at[ab.to as usize] = i as u32;
        }
        for ab in la {
            for bc in graph.of(ab.to as usize) {
                if self.mark[bc.to as usize] != stamp {
                    continue;
                }
                let ac = la[self.at[bc.to as usize] as usize];
                let triple = [kept[a as usize], kept[ab.to as usize], kept[bc.to as usize]];
                let common = shared_by_all(ab, bc, &ac, &triple, walker, &mut self.lists);
                let weight = weight(ab.shared, bc.shared, ac.shared, common);
                if weight == 0 {
                    continue;
                }
                // The kept slots take the triple's nodes in increasing id order.
                let mut sorted = triple;
                sorted.sort_unstable();
                for (slot, v) in shape.order.iter().zip(sorted) {
                    self.nodes[*slot] = v;
                }
                if !sink.push_weighted(&self.nodes, weight) {
                    return false;
                }
            }
        }
        true
    }
}

/// Walks from a kept node to its middle nodes.
struct Walker<'a> {
    model: &'a Model,
    types: &'a [u32],
    dir: Dir,
    mids: &'a CandidateSet,
}

impl Walker<'_> {
    /// The middle nodes adjacent to `v`, sorted and distinct, into `out`.
    fn middles(&self, v: u32, out: &mut Vec<u32>) {
        out.clear();
        walk(self.model, v, self.types, self.dir, |t| {
            if self.mids.contains(t) {
                out.push(t);
            }
        });
        out.sort_unstable();
        out.dedup();
    }

    /// Calls `f` for every middle node adjacent to `v` (repeats possible).
    fn each_middle(&self, v: u32, mut f: impl FnMut(u32)) {
        walk(self.model, v, self.types, self.dir, |t| {
            if self.mids.contains(t) {
                f(t);
            }
        });
    }

    /// Makes `lists.of[i]` the middle nodes of `v`.
    fn list<'l>(&self, lists: &'l mut Lists, i: usize, v: u32) -> &'l [u32] {
        if lists.node[i] != v {
            lists.node[i] = v;
            self.middles(v, &mut lists.of[i]);
        }
        &lists.of[i]
    }
}

/// `T = |N(a) ∩ N(b) ∩ N(c) ∩ M|` for the triple `[a, b, c]` with pair edges `ab`, `bc`, `ac`:
/// from the witnesses when a pair shares one middle node, else by intersecting the lists.
fn shared_by_all(
    ab: &Pair,
    bc: &Pair,
    ac: &Pair,
    triple: &[u32; 3],
    walker: &Walker<'_>,
    lists: &mut Lists,
) -> u64 {
    // A pair sharing one middle node `t`: T is 1 exactly when `t` is adjacent to the third node.
    let single = [(ab, 2usize), (bc, 0), (ac, 1)];
    if let Some(&(one, third)) = single.iter().find(|(p, _)| p.shared == 1) {
        // Another pair sharing one node decides it by comparing witnesses.
        if let Some((other, _)) = single.iter().find(|(p, t)| *t != third && p.shared == 1) {
            return u64::from(other.witness == one.witness);
        }
        let list = walker.list(lists, third, triple[third]);
        return u64::from(list.binary_search(&one.witness).is_ok());
    }
    for (i, &v) in triple.iter().enumerate() {
        walker.list(lists, i, v);
    }
    let [a, b, c] = &lists.of;
    let (small, x, y) = if a.len() <= b.len() && a.len() <= c.len() {
        (a, b, c)
    } else if b.len() <= c.len() {
        (b, a, c)
    } else {
        (c, a, b)
    };
    small
        .iter()
        .filter(|t| x.binary_search(t).is_ok() && y.binary_search(t).is_ok())
        .count() as u64
}

/// The number of distinct middle triples around a kept triple whose pairs share `ab`, `bc`, `ca`
/// middle nodes, `t` of them shared by all three.
fn weight(ab: u32, bc: u32, ca: u32, t: u64) -> u64 {
    let (ab, bc, ca, t) = (ab as i128, bc as i128, ca as i128, t as i128);
    let w = ab * bc * ca - t * (ab + bc + ca) + 2 * t;
    w.clamp(0, u64::MAX as i128) as u64
}

impl CoGraph {
    /// For every kept node (by position), the higher-ranked kept nodes sharing a middle node
    /// with it.
    fn build(
        model: &Model,
        kept: &[u32],
        proj: &Projected,
        walker: &Walker<'_>,
        control: &Control,
    ) -> Self {
        let n = model.node_count();
        let mut pos_of = vec![u32::MAX; n];
        for (i, &v) in kept.iter().enumerate() {
            pos_of[v as usize] = i as u32;
        }
        let positions: Vec<u32> = (0..kept.len() as u32).collect();
        // Edges point from lower to higher rank: (two-hop paths, id). Every triangle is then
        // listed once, at its lowest-ranked node, and no node's list is longer than about the
        // square root of twice the number of pairs (the degree ordering of triangle listing).
        let paths: Vec<u64> = kept
            .par_iter()
            .map(|&v| {
                let mut n = 0u64;
                walker.each_middle(v, |t| n += proj.get(t).len() as u64);
                n
            })
            .collect();
        let mut rank = vec![(u64::MAX, u32::MAX); n];
        for (&v, &p) in kept.iter().zip(&paths) {
            rank[v as usize] = (p, v);
        }
        // Per task: each position's list length, and the lists one after another; one dense
        // counter per pool thread (as long as the model), reset only where touched.
        let states = per_thread::<Counter>();
        let parts: Vec<(Vec<u32>, Vec<Pair>)> = positions
            .par_chunks(1024)
            .map(|chunk| {
                let mut guard = this_thread(&states);
                let st = guard.get_or_insert_with(|| Counter {
                    count: vec![0; n],
                    witness: vec![0; n],
                    touched: Vec::new(),
                    middles: Vec::new(),
                });
                let mut lens = Vec::with_capacity(chunk.len());
                let mut pairs = Vec::new();
                for &x in chunk {
                    if control.stopped() {
                        lens.push(0);
                        continue;
                    }
                    let vx = kept[x as usize];
                    walker.middles(vx, &mut st.middles);
                    st.touched.clear();
                    let rx = rank[vx as usize];
                    for &t in &st.middles {
                        for &y in proj.get(t) {
                            if rank[y as usize] <= rx {
                                continue;
                            }
                            let c = &mut st.count[y as usize];
                            if *c == 0 {
                                st.touched.push(y);
                                st.witness[y as usize] = t;
                            }
                            *c += 1;
                        }
                    }
                    // Sorted by position (= by id): lists are probed, not merged, but sorted
                    // lists keep memory access in order.
                    st.touched.sort_unstable();
                    lens.push(st.touched.len() as u32);
                    for &y in &st.touched {
                        pairs.push(Pair {
                            to: pos_of[y as usize],
                            shared: st.count[y as usize],
                            witness: st.witness[y as usize],
                        });
                        st.count[y as usize] = 0;
                    }
                }
                (lens, pairs)
            })
            .collect();
        let mut offsets = Vec::with_capacity(kept.len() + 1);
        offsets.push(0u64);
        let mut all = Vec::new();
        for (lens, part) in parts {
            for l in lens {
                let last = *offsets.last().unwrap_or(&0);
                offsets.push(last + u64::from(l));
            }
            all.extend(part);
        }
        CoGraph {
            offsets,
            pairs: all,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::weight;

    #[test]
    fn weight_counts_distinct_middle_triples() {
        // Three pairs sharing one node each, the same one: no distinct triple.
        assert_eq!(weight(1, 1, 1, 1), 0);
        // Three different single nodes: one triple.
        assert_eq!(weight(1, 1, 1, 0), 1);
        // a, b, c all in {t1, t2}, a and b also in t3 (the hand count of tests/factorised.rs:
        // 2 per ordered triple): ab = 3, bc = 2, ca = 2, T = 2 → 12 − 2·7 + 4 = 2.
        assert_eq!(weight(3, 2, 2, 2), 2);
    }
}
