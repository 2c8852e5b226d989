//! GpSense's filtering phase on the host (paper Algorithm 1, lines 2–7): candidate initialisation
//! into one boolean array per query node, stream compaction into candidate arrays, neighbour
//! filtering along the visiting order using both the out- and the in-CSR, and refinement rounds in
//! reversed order.
//!
//! Filtering only ever removes data nodes that cannot take part in any match, so the join that
//! follows is exact whatever the number of rounds.

use crate::matcher::candidates::{degree_needs, labels_match, typed_degree, Semantics};
use crate::model::{Adjacency, Model, ANY_TYPE};
use crate::pattern::eval::Env;
use crate::pattern::ir::{BoundQuery, NodeSlot, RelVar};

use super::plan::GpsPlan;

/// The topology a filter or join runs over: the data graph, or a compressed (weighted) graph.
#[derive(Debug, Clone, Copy)]
pub struct Topo<'a> {
    /// Outgoing adjacency, sorted by (type, neighbour) per node.
    pub out: &'a Adjacency,
    /// Incoming adjacency, sorted by (type, neighbour) per node.
    pub inc: &'a Adjacency,
    /// Number of nodes.
    pub nodes: usize,
}

impl<'a> Topo<'a> {
    /// The data graph of `model`.
    pub fn of_model(model: &'a Model) -> Self {
        Topo {
            out: model.out(),
            inc: model.inc(),
            nodes: model.node_count(),
        }
    }

    /// Calls `f(neighbour, edge_id)` for every edge of `rel`'s types leaving the `from` end of `rel`
    /// at data node `v` (`from_src`: the relationship's source end is bound to `v`), in both
    /// directions when `rel` is undirected.
    #[inline]
    pub fn for_each_neighbour(
        &self,
        v: u32,
        rel: &RelVar,
        from_src: bool,
        mut f: impl FnMut(u32, u32),
    ) {
        let types: &[u32] = if rel.types.is_empty() {
            &[ANY_TYPE]
        } else {
            &rel.types
        };
        let (forward, backward) = if rel.undirected {
            (true, true)
        } else {
            (from_src, !from_src)
        };
        for &t in types {
            if forward {
                for p in self.out.range_of_type(v, t) {
                    f(self.out.neighbors[p], self.out.edge_id_at(p));
                }
            }
            if backward {
                for p in self.inc.range_of_type(v, t) {
                    f(self.inc.neighbors[p], self.inc.edge_id_at(p));
                }
            }
        }
    }

    /// True when some edge of `rel`'s types goes `a -> b` (or either way when undirected).
    pub fn has_rel_edge(&self, a: u32, b: u32, rel: &RelVar) -> bool {
        let types: &[u32] = if rel.types.is_empty() {
            &[ANY_TYPE]
        } else {
            &rel.types
        };
        types
            .iter()
            .any(|&t| self.out.has_edge(a, b, t) || (rel.undirected && self.out.has_edge(b, a, t)))
    }
}

/// Candidate initialisation (GpSense Definition 3, with the default engine's per-type and
/// per-direction degree test) for one pattern node on the data graph: label test, degree test and
/// the node's unary conjuncts. Returns one flag per data node.
pub fn init_flags(
    model: &Model,
    query: &BoundQuery,
    unary: &[usize],
    slot: NodeSlot,
    semantics: Semantics,
) -> Vec<bool> {
    let n = model.node_count();
    let mut flags = vec![false; n];
    let needs = degree_needs(&query.pattern, slot);
    let labels = &query.pattern.nodes[slot].labels;
    let mut nodes_buf = vec![u32::MAX; query.pattern.nodes.len()];
    for (v, flag) in flags.iter_mut().enumerate() {
        let v = v as u32;
        *flag = labels_match(model, v, labels)
            && degree_ok(model, v, &needs, semantics)
            && unary_ok(model, query, unary, slot, v, &mut nodes_buf);
    }
    flags
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
            Some(out) => typed_degree(model, v, types, *out),
            None => typed_degree(model, v, types, true) + typed_degree(model, v, types, false),
        };
        have >= need
    })
}

/// True when data node `v` satisfies the unary conjuncts `unary` of `slot`.
pub fn unary_ok(
    model: &Model,
    query: &BoundQuery,
    unary: &[usize],
    slot: NodeSlot,
    v: u32,
    nodes_buf: &mut [u32],
) -> bool {
    if unary.is_empty() {
        return true;
    }
    nodes_buf[slot] = v;
    let env = Env {
        model,
        nodes: nodes_buf,
        rels: &[],
        row: &[],
        exists: None,
    };
    unary.iter().all(|&i| env.holds(&query.filter[i]))
}

/// Stream compaction: the indices of the set flags, ascending.
pub fn compact(flags: &[bool]) -> Vec<u32> {
    flags
        .iter()
        .enumerate()
        .filter_map(|(i, &f)| f.then_some(i as u32))
        .collect()
}

/// Neighbour filtering of one relationship: clears `flags_to[y]` for every `y` that no candidate in
/// `from` reaches along `rel` (`from_src`: `from` holds candidates of `rel`'s source end).
pub fn filter_neighbours(
    topo: &Topo<'_>,
    from: &[u32],
    rel: &RelVar,
    from_src: bool,
    flags_to: &mut [bool],
) -> usize {
    let mut reached = vec![false; flags_to.len()];
    for &v in from {
        topo.for_each_neighbour(v, rel, from_src, |y, _| reached[y as usize] = true);
    }
    let mut removed = 0;
    for (f, r) in flags_to.iter_mut().zip(&reached) {
        if *f && !r {
            *f = false;
            removed += 1;
        }
    }
    removed
}

/// How the filter runs.
#[derive(Debug, Clone, Copy)]
pub struct FilterConfig {
    /// Refinement rounds after the first pass, each in reversed visiting order (the paper's best
    /// variant is 1). A round that removes nothing ends refinement early.
    pub refine_rounds: usize,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig { refine_rounds: 1 }
    }
}

/// Self loops: a candidate of a node with a pattern self loop needs a loop edge of the
/// relationship's types.
pub fn self_loops(topo: &Topo<'_>, query: &BoundQuery, flags: &mut [Vec<bool>]) {
    for r in query.pattern.rels.iter().filter(|r| r.src == r.dst) {
        for (v, f) in flags[r.src].iter_mut().enumerate() {
            if *f && !topo.has_rel_edge(v as u32, v as u32, r) {
                *f = false;
            }
        }
    }
}

/// Runs neighbour filtering and refinement over initial `flags` (one array per pattern node);
/// returns the compacted candidate arrays.
pub fn refine(
    topo: &Topo<'_>,
    query: &BoundQuery,
    plan: &GpsPlan,
    flags: &mut [Vec<bool>],
    config: FilterConfig,
) -> Vec<Vec<u32>> {
    let pattern = &query.pattern;
    self_loops(topo, query, flags);
    // First pass along the order: each node filters its neighbours that come later.
    let mut visited = vec![false; pattern.nodes.len()];
    for &u in &plan.order {
        visited[u] = true;
        let cands = compact(&flags[u]);
        for r in &pattern.rels {
            if r.src == r.dst {
                continue;
            }
            let (w, from_src) = if r.src == u {
                (r.dst, true)
            } else if r.dst == u {
                (r.src, false)
            } else {
                continue;
            };
            if !visited[w] {
                filter_neighbours(topo, &cands, r, from_src, &mut flags[w]);
            }
        }
    }
    // Refinement rounds in reversed order: every node is filtered by all its neighbours.
    for _ in 0..config.refine_rounds {
        let mut removed = 0;
        for &u in plan.order.iter().rev() {
            for r in &pattern.rels {
                if r.src == r.dst {
                    continue;
                }
                let (w, from_src) = if r.src == u {
                    (r.dst, false)
                } else if r.dst == u {
                    (r.src, true)
                } else {
                    continue;
                };
                let cands = compact(&flags[w]);
                removed += filter_neighbours(topo, &cands, r, from_src, &mut flags[u]);
            }
        }
        if removed == 0 {
            break;
        }
    }
    flags.iter().map(|f| compact(f)).collect()
}
