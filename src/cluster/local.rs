//! What one process holds: the parts of the set its workers own (part `p` belongs to worker
//! `p mod workers`), and the small routines every worker runs against them (the owner of a node,
//! a vertex's neighbour lists, the checks of a vertex where its node lives).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::plan::{BackEdge, Vertex};
use crate::exec::eval::{Env, Val};
use crate::exec::plan::Dir;
use crate::model::partition::owner;
use crate::model::{Adjacency, Model, ANY_TYPE};
use crate::pattern::ir::{BoundQuery, NULL_ID};

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
    /// Part models by index.
    pub parts: Vec<Option<Arc<Model>>>,
    /// Workers in the whole cluster.
    pub workers: usize,
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

    /// The part holding `node`'s data, when this process loaded it.
    pub fn model_of(&self, node: u32) -> Option<&Model> {
        self.parts
            .get(owner(node, self.part_count()) as usize)?
            .as_deref()
    }

    /// The parts of worker `w` (index and model).
    pub fn parts_of(&self, w: usize) -> impl Iterator<Item = (u32, &Model)> {
        self.parts.iter().enumerate().filter_map(move |(i, m)| {
            (i % self.workers.max(1) == w).then_some(())?;
            Some((i as u32, m.as_deref()?))
        })
    }
}

/// The sorted, distinct neighbours of `node` along `back` (`model` holds `node`'s lists).
pub fn neighbours(model: &Model, node: u32, back: &BackEdge) -> Vec<u32> {
    let mut out = Vec::new();
    let mut add = |adj: &Adjacency| {
        if back.types.is_empty() {
            out.extend_from_slice(&adj.neighbors[adj.range_of_type(node, ANY_TYPE)]);
        } else {
            for &t in &back.types {
                out.extend_from_slice(adj.neighbors_of_type(node, t));
            }
        }
    };
    match back.dir {
        Dir::Out => add(model.out()),
        Dir::In => add(model.inc()),
        Dir::Both => {
            add(model.out());
            add(model.inc());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
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

/// True when `node` passes `vertex`'s labels, self-loops and conjuncts (`model` holds its data).
pub fn accepts(
    model: &Model,
    query: &BoundQuery,
    vertex: &Vertex,
    slots: usize,
    node: u32,
) -> bool {
    if !vertex
        .labels
        .iter()
        .all(|any| any.iter().any(|&l| model.has_label(node, l)))
    {
        return false;
    }
    let loops_ok = vertex.loops.iter().all(|types| {
        if types.is_empty() {
            model.out().has_edge(node, node, ANY_TYPE)
        } else {
            types.iter().any(|&t| model.out().has_edge(node, node, t))
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

/// True when the id-only conjuncts `vertex` ends hold for the partial match `prefix` (nodes in
/// plan order, slots `slot_at`) extended by `node`.
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

/// The values of `vertex`'s returned items at `node` (item index, value).
pub fn items(
    model: &Model,
    query: &BoundQuery,
    vertex: &Vertex,
    slots: usize,
    node: u32,
) -> Vec<(u32, Wire)> {
    let Some(proj) = query.stages.first() else {
        return Vec::new();
    };
    let nodes = binding(slots, vertex.slot, node);
    let env = env(model, &nodes);
    vertex
        .items
        .iter()
        .filter_map(|&k| Some((k as u32, Wire::of(&env.eval(&proj.items.get(k)?.expr)))))
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
