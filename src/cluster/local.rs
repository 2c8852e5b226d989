//! What one process holds: the parts of the set its workers own (part `p` belongs to worker
//! `p mod workers`), and the small routines every worker runs against them (the owner of a node,
//! a vertex's neighbour lists, the checks of a vertex where its node lives).
//!
//! Nodes travel by global id; a part holds its nodes by local index ([`Part`]): [`Local::at`]
//! finds the part holding a node and the node's local index there, and the routines below take
//! both (the local index reads the part's arrays, the global id is what lists and matches name).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::plan::{BackEdge, PlacedRel, Vertex};
use crate::exec::eval::{Env, Val};
use crate::exec::plan::Dir;
use crate::model::part::Part;
use crate::model::partition::owner;
use crate::model::{Adjacency, Model, ANY_TYPE};
use crate::pattern::ir::{BoundQuery, Expr, NULL_ID};

/// A value that travels between workers (the model's [`crate::model::Value`] is untagged for JSON,
/// which a binary encoding cannot read back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Wire {
    /// Null.
    Null,
    /// Boolean.
    Bool(bool),
    /// Integer.
    Int(i64),
    /// Float.
    Float(f64),
    /// String (a list or map is sent as its text).
    Str(String),
}

impl Wire {
    /// The wire form of an evaluated value.
    pub fn of(v: &Val<'_>) -> Wire {
        match v {
            Val::Null => Wire::Null,
            Val::Bool(b) => Wire::Bool(*b),
            Val::Int(i) => Wire::Int(*i),
            Val::Float(f) => Wire::Float(*f),
            Val::Str(s) => Wire::Str(s.to_string()),
            Val::Node(n) | Val::Rel(n) => Wire::Int(i64::from(*n)),
            other => Wire::Str(format!("{other:?}")),
        }
    }

    /// Back to a value.
    pub fn val(&self) -> Val<'static> {
        match self {
            Wire::Null => Val::Null,
            Wire::Bool(b) => Val::Bool(*b),
            Wire::Int(i) => Val::Int(*i),
            Wire::Float(f) => Val::Float(*f),
            Wire::Str(s) => Val::Str(s.clone().into()),
        }
    }
}

/// The parts a process loaded, by part index (`None`: another process's).
#[derive(Debug)]
pub struct Local {
    /// Parts by index.
    pub parts: Vec<Option<Arc<Part>>>,
    /// Workers in the whole cluster.
    pub workers: usize,
    /// A model without nodes, for the conjuncts that read nodes only through `id()` (evaluated on
    /// global ids, which index no part's arrays).
    pub ids_only: Model,
    /// The whole model's node count (global ids are below it).
    pub global_nodes: u64,
}

impl Local {
    /// The part count.
    pub fn part_count(&self) -> u32 {
        self.parts.len() as u32
    }

    /// The worker owning `node`'s part.
    pub fn worker_of(&self, node: u32) -> u64 {
        (owner(node, self.part_count()) as usize % self.workers.max(1)) as u64
    }

    /// The part holding global node `node`'s data and the node's local index there, when this
    /// process loaded that part (and the part holds the node).
    pub fn at(&self, node: u32) -> Option<(&Part, u32)> {
        let part = self
            .parts
            .get(owner(node, self.part_count()) as usize)?
            .as_deref()?;
        Some((part, part.local(node)?))
    }

    /// The parts of worker `w`.
    pub fn parts_of(&self, w: usize) -> impl Iterator<Item = &Part> {
        self.parts.iter().enumerate().filter_map(move |(i, m)| {
            (i % self.workers.max(1) == w).then_some(())?;
            m.as_deref()
        })
    }
}

/// The sorted, distinct neighbours (global ids) of the node of local index `node` in `part`
/// along `back`.
pub fn neighbours(part: &Part, node: u32, back: &BackEdge) -> Vec<u32> {
    let mut out = neighbours_with_repeats(part, node, back);
    out.dedup();
    out
}

/// The neighbours (global ids) of the node of local index `node` in `part` along `back`, sorted,
/// each as often as an edge joins them: once per edge (a neighbour joined by edges in both
/// directions of an undirected `back` once per edge, a self-loop once).
pub fn neighbours_with_repeats(part: &Part, node: u32, back: &BackEdge) -> Vec<u32> {
    let mut out = Vec::new();
    let mut add = |adj: &Adjacency, skip: Option<u32>| {
        let mut take = |list: &[u32]| match skip {
            Some(me) => out.extend(list.iter().copied().filter(|&c| c != me)),
            None => out.extend_from_slice(list),
        };
        if back.types.is_empty() {
            take(&adj.neighbors[adj.range_of_type(node, ANY_TYPE)]);
        } else {
            for &t in &back.types {
                take(adj.neighbors_of_type(node, t));
            }
        }
    };
    match back.dir {
        Dir::Out => add(part.out(), None),
        Dir::In => add(part.inc(), None),
        Dir::Both => {
            add(part.out(), None);
            // A self-loop is in both lists: once, from the out-list.
            add(part.inc(), part.global(node));
        }
    }
    out.sort_unstable();
    out
}

/// Calls `visit` with each list of the node of local index `node` in `part` along `back` (one per
/// named type and direction; each sorted by neighbour when a type is named), without copying.
pub fn visit_lists(part: &Part, node: u32, back: &BackEdge, visit: &mut dyn FnMut(&[u32])) {
    let mut add = |adj: &Adjacency| {
        if back.types.is_empty() {
            visit(&adj.neighbors[adj.range_of_type(node, ANY_TYPE)]);
        } else {
            for &t in &back.types {
                visit(adj.neighbors_of_type(node, t));
            }
        }
    };
    match back.dir {
        Dir::Out => add(part.out()),
        Dir::In => add(part.inc()),
        Dir::Both => {
            add(part.out());
            add(part.inc());
        }
    }
}

/// The length of the lists of the node of local index `node` in `part` along `back` with
/// repeats (parallel edges, and a neighbour on both sides of an undirected edge): BiGJoin's
/// count, an upper bound of [`neighbours`]'s length that is zero exactly when it is empty, read
/// without copying a list.
pub fn list_len(part: &Part, node: u32, back: &BackEdge) -> u64 {
    let len = |adj: &Adjacency| -> usize {
        if back.types.is_empty() {
            adj.range(node).len()
        } else {
            back.types
                .iter()
                .map(|&t| adj.range_of_type(node, t).len())
                .sum()
        }
    };
    let n = match back.dir {
        Dir::Out => len(part.out()),
        Dir::In => len(part.inc()),
        Dir::Both => len(part.out()) + len(part.inc()),
    };
    n as u64
}

/// Under Cypher semantics, the number of ways the relationships bound with position `pos` bind
/// edges, given the nodes `nodes` (global ids at positions `0..=pos`, the last one `nodes[pos]`,
/// of local index `local` in `part`, which holds its lists): relationships are grouped by clause and by the pair of nodes their ends bind,
/// and each group counts its injective choices of edges between that pair (parallel edges
/// multiply a match; two relationships of one clause never bind the same edge). A group that
/// also holds relationships bound earlier (a node bound twice) was counted then: its earlier
/// count must be divided out of the match's weight. Returns (factor, divisor) for the weight
/// (`weight * factor / divisor`, exact: the divisor is a factor of the weight); factor zero: no
/// way (the candidate is dropped).
pub fn edge_ways(
    part: &Part,
    local: u32,
    rels: &[PlacedRel],
    nodes: &[u32],
    pos: usize,
) -> (u64, u64) {
    let c = nodes[pos];
    edge_ways_by(rels, nodes, pos, |other| {
        edges_between(part, local, c, other)
    })
}

/// [`edge_ways`] read from the other end: `part` holds the lists of the node of local index
/// `local`, global id `other`, which must be the bound end of every relationship bound with
/// position `pos` (a vertex with one back-edge and no self-loop). The same classes of edges are
/// read from `other`'s lists instead of the candidate's, so a candidate can be weighed where it
/// was proposed.
pub fn edge_ways_seen_from(
    part: &Part,
    local: u32,
    other: u32,
    rels: &[PlacedRel],
    nodes: &[u32],
    pos: usize,
) -> (u64, u64) {
    let c = nodes[pos];
    edge_ways_by(rels, nodes, pos, |o| {
        debug_assert_eq!(o, other, "a relationship of the vertex ends elsewhere");
        edges_between(part, local, other, c)
    })
}

/// The common part of [`edge_ways`] and [`edge_ways_seen_from`]: `between(other)` gives the edges
/// between the candidate and `other`.
fn edge_ways_by(
    rels: &[PlacedRel],
    nodes: &[u32],
    pos: usize,
    between: impl Fn(u32) -> Vec<((u32, u32), u64)>,
) -> (u64, u64) {
    let c = nodes[pos];
    let mut done: Vec<(usize, u32)> = Vec::new();
    let (mut ways, mut div) = (1u64, 1u64);
    for r in rels.iter().filter(|r| r.last() == pos) {
        let other = if r.src == pos {
            nodes[r.dst]
        } else {
            nodes[r.src]
        };
        if done.contains(&(r.clause, other)) {
            continue;
        }
        done.push((r.clause, other));
        // Every relationship of the clause between `c` and `other`, bound by now.
        let pair = |x: &&PlacedRel| {
            x.clause == r.clause
                && x.last() <= pos
                && ((nodes[x.src] == c && nodes[x.dst] == other)
                    || (nodes[x.src] == other && nodes[x.dst] == c))
        };
        let group: Vec<&PlacedRel> = rels.iter().filter(pair).collect();
        let edges = between(other);
        let now = injective_choices(&group, &edges, nodes, c);
        if now == 0 {
            return (0, 1);
        }
        let before: Vec<&PlacedRel> = group.iter().copied().filter(|x| x.last() < pos).collect();
        if !before.is_empty() {
            div = div.saturating_mul(injective_choices(&before, &edges, nodes, c).max(1));
        }
        ways = ways.saturating_mul(now);
    }
    (ways, div)
}

/// `weight` times the (factor, divisor) of [`edge_ways`].
pub fn reweigh(weight: u64, (factor, divisor): (u64, u64)) -> u64 {
    let w = u128::from(weight) * u128::from(factor) / u128::from(divisor.max(1));
    u64::try_from(w).unwrap_or(u64::MAX)
}

/// The edges between `me` (global id; local index `local` in `part`, whose lists are read) and
/// `far` as (type, source) classes with their multiplicities (a self-loop once). The classes do
/// not depend on which end's lists are read: `edges_between(p, x, a, b)` over `a`'s lists equals
/// `edges_between(q, y, b, a)` over `b`'s.
fn edges_between(part: &Part, local: u32, me: u32, far: u32) -> Vec<((u32, u32), u64)> {
    let mut out: Vec<((u32, u32), u64)> = Vec::new();
    let mut add = |key: (u32, u32)| match out.iter_mut().find(|(k, _)| *k == key) {
        Some((_, n)) => *n += 1,
        None => out.push((key, 1)),
    };
    let o = part.out();
    for p in o.range(local) {
        if o.neighbors[p] == far {
            add((o.types[p], me));
        }
    }
    if far != me {
        let i = part.inc();
        for p in i.range(local) {
            if i.neighbors[p] == far {
                add((i.types[p], far));
            }
        }
    }
    out
}

/// The number of ways to give each relationship of `group` its own edge of `edges` (classes of
/// (type, source) with multiplicities) that it can bind, its ends bound as `nodes` says.
fn injective_choices(
    group: &[&PlacedRel],
    edges: &[((u32, u32), u64)],
    nodes: &[u32],
    c: u32,
) -> u64 {
    fn go(
        group: &[&PlacedRel],
        left: &mut [u64],
        edges: &[((u32, u32), u64)],
        nodes: &[u32],
        c: u32,
    ) -> u64 {
        let Some((r, rest)) = group.split_first() else {
            return 1;
        };
        let mut total = 0u64;
        for (k, &((t, source), _)) in edges.iter().enumerate() {
            let fits = r.allows(t)
                && (r.undirected || nodes[r.src] == source)
                && left[k] > 0
                && (nodes[r.src] == c || nodes[r.dst] == c);
            if fits {
                let n = left[k];
                left[k] -= 1;
                total = total.saturating_add(n.saturating_mul(go(rest, left, edges, nodes, c)));
                left[k] += 1;
            }
        }
        total
    }
    let mut left: Vec<u64> = edges.iter().map(|(_, n)| *n).collect();
    go(group, &mut left, edges, nodes, c)
}

/// `cands` ∩ `list` (both sorted), in place.
pub fn intersect(cands: &mut Vec<u32>, list: &[u32]) {
    let mut j = 0;
    cands.retain(|&c| {
        while j < list.len() && list[j] < c {
            j += 1;
        }
        j < list.len() && list[j] == c
    });
}

/// True when the node of local index `node` in `part` passes `vertex`'s labels, self-loops and
/// conjuncts.
pub fn accepts(part: &Part, query: &BoundQuery, vertex: &Vertex, slots: usize, node: u32) -> bool {
    let model = part.nodes();
    if !vertex
        .labels
        .iter()
        .all(|any| any.iter().any(|&l| model.has_label(node, l)))
    {
        return false;
    }
    let Some(global) = part.global(node) else {
        return false;
    };
    let loops_ok = vertex.loops.iter().all(|types| {
        if types.is_empty() {
            part.out().has_edge(node, global, ANY_TYPE)
        } else {
            types.iter().any(|&t| part.out().has_edge(node, global, t))
        }
    });
    if !loops_ok {
        return false;
    }
    if vertex.filters.is_empty() {
        return true;
    }
    let nodes = binding(slots, vertex.slot, node);
    let env = env(model, &nodes);
    vertex
        .filters
        .iter()
        .all(|&f| query.filter.get(f).is_some_and(|e| env.holds(e)))
}

/// True when the id-only conjuncts `vertex` ends hold for the partial match `prefix` (global
/// ids in plan order, slots `slot_at`) extended by global node `node` (`model`: one without
/// nodes, [`Local::ids_only`]: these conjuncts read only the ids).
pub fn ids_hold(
    model: &Model,
    query: &BoundQuery,
    vertex: &Vertex,
    slot_at: &[usize],
    prefix: &[u32],
    node: u32,
) -> bool {
    if vertex.id_filters.is_empty() {
        return true;
    }
    let mut nodes = vec![NULL_ID; slot_at.len()];
    for (&slot, &v) in slot_at.iter().zip(prefix.iter().chain([&node])) {
        if let Some(s) = nodes.get_mut(slot) {
            *s = v;
        }
    }
    let env = env(model, &nodes);
    vertex
        .id_filters
        .iter()
        .all(|&f| query.filter.get(f).is_some_and(|e| env.holds(e)))
}

/// The values of `vertex`'s returned items at the node of local index `node` in `part` (item
/// index, value).
pub fn items(
    part: &Part,
    query: &BoundQuery,
    vertex: &Vertex,
    slots: usize,
    node: u32,
) -> Vec<(u32, Wire)> {
    let Some(proj) = query.stages.first() else {
        return Vec::new();
    };
    if vertex.items.is_empty() {
        return Vec::new();
    }
    let nodes = binding(slots, vertex.slot, node);
    let env = env(part.nodes(), &nodes);
    vertex
        .items
        .iter()
        .filter_map(|&k| {
            // An aggregate's argument (process 0 aggregates it).
            let e = match &proj.items.get(k)?.expr {
                Expr::Aggregate { arg: Some(arg), .. } => &**arg,
                e => e,
            };
            Some((k as u32, Wire::of(&env.eval(e))))
        })
        .collect()
}

fn binding(slots: usize, slot: usize, node: u32) -> Vec<u32> {
    let mut nodes = vec![NULL_ID; slots];
    if let Some(s) = nodes.get_mut(slot) {
        *s = node;
    }
    nodes
}

fn env<'a>(model: &'a Model, nodes: &'a [u32]) -> Env<'a, 'a> {
    Env {
        model,
        nodes,
        rels: &[],
        row: &[],
        exists: None,
        locals: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersection_keeps_common_ids() {
        let mut c = vec![1, 3, 5, 7, 9];
        intersect(&mut c, &[2, 3, 4, 9, 10]);
        assert_eq!(c, vec![3, 9]);
        intersect(&mut c, &[]);
        assert!(c.is_empty());
    }

    #[test]
    fn wire_values_round_trip() {
        for v in [Val::Null, Val::Int(-3), Val::Float(1.5), Val::Bool(true)] {
            assert_eq!(Wire::of(&v).val(), v);
        }
        assert_eq!(Wire::of(&Val::Str("x".into())).val(), Val::Str("x".into()));
    }
}
