//! GpSense's filtering phase on the host (paper Algorithm 1, lines 2–7): candidate initialisation
//! into one boolean array per query node, stream compaction into candidate arrays, neighbour
//! filtering along the visiting order using both the out- and the in-CSR, and refinement rounds in
//! reversed order.
//!
//! Filtering only ever removes data nodes that cannot take part in any match, so the join that
//! follows is exact whatever the number of rounds.

pub use crate::exec::candidates::degree_ok;
use crate::exec::candidates::{degree_needs, labels_match, Semantics};
use crate::exec::eval::Env;
use crate::model::{Adjacency, Model, ANY_TYPE};
use crate::pattern::ir::{BoundQuery, NodeSlot, Pattern, RelVar};

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
        locals: &[],
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

/// One neighbour-filtering step: the candidates of pattern node `to` keep only the data nodes with a
/// `rel` edge to a candidate of `from` (`from_src`: `from` is the relationship's source).
#[derive(Debug, Clone, Copy)]
pub struct FilterStep<'q> {
    /// The node whose candidates filter.
    pub from: usize,
    /// The node whose candidates are filtered.
    pub to: usize,
    /// The relationship between them.
    pub rel: &'q RelVar,
    /// Whether `from` is `rel`'s source.
    pub from_src: bool,
}

/// The steps of the first pass along `order`: each node filters its neighbours that come later
/// (self loops are handled by [`self_loops`]).
pub fn forward_steps<'q>(pattern: &'q Pattern, order: &[usize]) -> Vec<FilterStep<'q>> {
    let mut visited = vec![false; pattern.nodes.len()];
    let mut steps = Vec::new();
    for &u in order {
        visited[u] = true;
        steps.extend(
            neighbour_steps(pattern, u)
                .filter(|&(w, _)| !visited[w])
                .map(|(w, rel)| FilterStep {
                    from: u,
                    to: w,
                    rel,
                    from_src: rel.src == u,
                }),
        );
    }
    steps
}

/// The steps of one refinement round, in reversed `order`: every node is filtered by all its
/// neighbours.
pub fn refinement_steps<'q>(pattern: &'q Pattern, order: &[usize]) -> Vec<FilterStep<'q>> {
    order
        .iter()
        .rev()
        .flat_map(|&u| {
            neighbour_steps(pattern, u).map(move |(w, rel)| FilterStep {
                from: w,
                to: u,
                rel,
                from_src: rel.src == w,
            })
        })
        .collect()
}

/// The other end of every relationship at `u` (self loops left out), with the relationship.
fn neighbour_steps(pattern: &Pattern, u: usize) -> impl Iterator<Item = (usize, &RelVar)> {
    pattern
        .rels
        .iter()
        .filter(move |r| r.src != r.dst && (r.src == u || r.dst == u))
        .map(move |r| (if r.src == u { r.dst } else { r.src }, r))
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
    self_loops(topo, query, flags);
    // The candidates of a step's `from` node, compacted once per node of the first pass (a node's
    // own flags do not change while it filters its later neighbours).
    let mut from: (usize, Vec<u32>) = (usize::MAX, Vec::new());
    for step in forward_steps(&query.pattern, &plan.order) {
        if from.0 != step.from {
            from = (step.from, compact(&flags[step.from]));
        }
        filter_neighbours(topo, &from.1, step.rel, step.from_src, &mut flags[step.to]);
    }
    let round = refinement_steps(&query.pattern, &plan.order);
    for _ in 0..config.refine_rounds {
        let mut removed = 0;
        for step in &round {
            let cands = compact(&flags[step.from]);
            removed +=
                filter_neighbours(topo, &cands, step.rel, step.from_src, &mut flags[step.to]);
        }
        if removed == 0 {
            break;
        }
    }
    flags.iter().map(|f| compact(f)).collect()
}
