//! Existence checks every engine shares: whether an edge joins two nodes, the edges between them,
//! and `EXISTS { … }` sub-patterns matched on the data graph ([`ModelOracle`]).

use crate::exec::candidates::{labels_match, Semantics};
use crate::exec::eval::{Env, ExistsOracle};
use crate::model::{Model, ANY_TYPE};
use crate::pattern::ir::{Pattern, RelSlot, RelVar, SubPattern};

/// True when an edge of one of `r`'s types goes `a -> b` (or either way when undirected).
pub fn edge_exists(model: &Model, a: u32, b: u32, r: &RelVar) -> bool {
    let types: &[u32] = if r.types.is_empty() {
        &[ANY_TYPE]
    } else {
        &r.types
    };
    types
        .iter()
        .any(|&t| model.out().has_edge(a, b, t) || (r.undirected && model.out().has_edge(b, a, t)))
}

/// Pushes the ids of the edges `a -> b` matching `r` (both ways when undirected) to `out`.
pub fn edges_between(model: &Model, a: u32, b: u32, r: &RelVar, out: &mut Vec<u32>) {
    out.clear();
    let types: &[u32] = if r.types.is_empty() {
        &[ANY_TYPE]
    } else {
        &r.types
    };
    let out_adj = model.out();
    let mut push = |x: u32, y: u32| {
        for &t in types {
            for p in out_adj.range_of_type(x, t) {
                if out_adj.neighbors[p] == y {
                    out.push(p as u32);
                }
            }
        }
    };
    push(a, b);
    if r.undirected && a != b {
        push(b, a);
    }
    out.sort_unstable();
    out.dedup();
}

/// Evaluates `EXISTS` sub-patterns on the data graph, as every engine does (what a join that is
/// not an [`Enumerator`] hands its result sinks).
#[derive(Debug, Clone, Copy)]
pub struct ModelOracle<'m> {
    /// The model sub-patterns are matched in.
    pub model: &'m Model,
    /// The semantics they are matched under.
    pub semantics: Semantics,
}

impl ExistsOracle for ModelOracle<'_> {
    fn exists(&self, sub: &SubPattern, nodes: &[u32], _rels: &[u32]) -> bool {
        sub_pattern_exists(self.model, sub, nodes, self.semantics, self)
    }
}

/// True when `sub` has a match whose anchored nodes are the outer binding's. The sub-pattern's own
/// nodes follow `semantics` among themselves and with its anchors; they may coincide with outer
/// nodes the sub-pattern does not mention (as in Cypher's `EXISTS`).
pub fn sub_pattern_exists(
    model: &Model,
    sub: &SubPattern,
    outer: &[u32],
    semantics: Semantics,
    oracle: &dyn ExistsOracle,
) -> bool {
    let p = &sub.pattern;
    let mut nodes = vec![u32::MAX; p.nodes.len()];
    for &(o, s) in &sub.anchors {
        let (Some(&v), Some(slot)) = (outer.get(o), nodes.get_mut(s)) else {
            return false;
        };
        *slot = v;
    }
    for (s, &v) in nodes.iter().enumerate() {
        if v != u32::MAX && !labels_match(model, v, &p.nodes[s].labels) {
            return false;
        }
    }
    let mut rels = vec![u32::MAX; p.rels.len()];
    let ctx = SubSearch {
        model,
        sub,
        semantics,
        oracle,
    };
    ctx.search(&mut nodes, &mut rels)
}

struct SubSearch<'a> {
    model: &'a Model,
    sub: &'a SubPattern,
    semantics: Semantics,
    oracle: &'a dyn ExistsOracle,
}

impl SubSearch<'_> {
    fn pattern(&self) -> &Pattern {
        &self.sub.pattern
    }

    /// Cypher semantics: true when edge `e` is bound to another relationship of `rel`'s clause.
    fn edge_taken(&self, rel: RelSlot, e: u32, rels: &[u32]) -> bool {
        let p = self.pattern();
        self.semantics.distinct_edges()
            && rels
                .iter()
                .enumerate()
                .any(|(o, &bound)| o != rel && bound == e && p.rels[o].clause == p.rels[rel].clause)
    }

    fn search(&self, nodes: &mut Vec<u32>, rels: &mut Vec<u32>) -> bool {
        let p = self.pattern();
        // Bind relationships whose both ends are bound.
        if let Some(ri) = (0..p.rels.len()).find(|&ri| {
            rels[ri] == u32::MAX
                && nodes[p.rels[ri].src] != u32::MAX
                && nodes[p.rels[ri].dst] != u32::MAX
        }) {
            let r = &p.rels[ri];
            let mut edges = Vec::new();
            edges_between(self.model, nodes[r.src], nodes[r.dst], r, &mut edges);
            for e in edges {
                if self.edge_taken(ri, e, rels) {
                    continue;
                }
                rels[ri] = e;
                if self.search(nodes, rels) {
                    rels[ri] = u32::MAX;
                    return true;
                }
            }
            rels[ri] = u32::MAX;
            return false;
        }
        // Expand along a relationship with one bound end.
        let expand = (0..p.rels.len()).find(|&ri| {
            let r = &p.rels[ri];
            rels[ri] == u32::MAX && ((nodes[r.src] == u32::MAX) != (nodes[r.dst] == u32::MAX))
        });
        if let Some(ri) = expand {
            let r = &p.rels[ri];
            let (from, to, forward) = if nodes[r.src] != u32::MAX {
                (nodes[r.src], r.dst, true)
            } else {
                (nodes[r.dst], r.src, false)
            };
            let types: &[u32] = if r.types.is_empty() {
                &[ANY_TYPE]
            } else {
                &r.types
            };
            let mut cands: Vec<(u32, u32)> = Vec::new();
            for (adj, ok) in [
                (self.model.out(), forward || r.undirected),
                (self.model.inc(), !forward || r.undirected),
            ] {
                if !ok {
                    continue;
                }
                for &t in types {
                    for pos in adj.range_of_type(from, t) {
                        cands.push((adj.neighbors[pos], adj.edge_id_at(pos)));
                    }
                }
            }
            for (v, e) in cands {
                if !labels_match(self.model, v, &p.nodes[to].labels) || self.edge_taken(ri, e, rels)
                {
                    continue;
                }
                if self.semantics == Semantics::Isomorphism && nodes.contains(&v) {
                    continue;
                }
                nodes[to] = v;
                rels[ri] = e;
                let found = self.search(nodes, rels);
                nodes[to] = u32::MAX;
                rels[ri] = u32::MAX;
                if found {
                    return true;
                }
            }
            return false;
        }
        // A disconnected unbound node: scan.
        if let Some(s) = (0..p.nodes.len()).find(|&s| nodes[s] == u32::MAX) {
            for v in 0..self.model.node_count() as u32 {
                if !labels_match(self.model, v, &p.nodes[s].labels)
                    || (self.semantics == Semantics::Isomorphism && nodes.contains(&v))
                {
                    continue;
                }
                nodes[s] = v;
                let found = self.search(nodes, rels);
                nodes[s] = u32::MAX;
                if found {
                    return true;
                }
            }
            return false;
        }
        let env = Env {
            locals: &[],
            model: self.model,
            nodes,
            rels,
            row: &[],
            exists: Some(self.oracle),
        };
        self.sub.filter.iter().all(|f| env.holds(f))
    }
}
