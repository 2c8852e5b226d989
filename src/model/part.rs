//! One part of a partitioned model, sized to the nodes it owns.
//!
//! A [`Part`] holds the nodes part `index` of `parts` owns (node `v` belongs to part
//! [`super::partition::owner`]`(v, parts)`), numbered by **local index**: the rank of the node's
//! global id among the owned ids, which are kept sorted ([`Part::ids`]), so the global → local map
//! is a binary search over them ([`Part::local`]) and costs no memory beyond that list. Everything
//! indexed by node is sized to the owned nodes:
//!
//! - [`Part::nodes`]: a [`Model`] over the owned nodes by local index with their labels, keys,
//!   label index and property columns, and the whole model's labels, relationship types, property
//!   groups (some possibly empty) and string dictionaries (the shared schema a query binds
//!   against); it has no edges, and its `id()` of a node is the global id ([`Model::node_id`]);
//! - [`Part::out`] and [`Part::inc`]: the owned nodes' complete out- and in-lists as CSRs over the
//!   local index whose entries name neighbours by **global** id, each list sorted by (type,
//!   neighbour) as in the whole model. Edge ids and edge properties are not kept (the distributed
//!   plan refuses named relationships).
//!
//! [`Part::new`] checks every invariant the cluster's readers rely on (owned ids strictly
//! increasing, below the whole model's node count and owned by this part; offsets monotone and
//! sized to the owned nodes; neighbours and types in range; lists sorted), so a part read from a
//! file ([`super::snapshot::open_part`]) is either valid or an error.

use std::sync::Arc;

use super::partition::owner;
use super::{Adjacency, Model};
use crate::error::{Error, Result};

/// One part of a partitioned model: see the module documentation.
#[derive(Debug)]
pub struct Part {
    index: u32,
    parts: u32,
    global_nodes: u64,
    nodes: Arc<Model>,
    out: Adjacency,
    inc: Adjacency,
}

impl Part {
    /// Assembles part `index` of `parts` of a model of `global_nodes` nodes from its node model
    /// (whose [`Model::node_ids`] are the owned global ids) and its out- and in-CSRs over the local
    /// index; an error names the first broken invariant.
    pub fn new(
        index: u32,
        parts: u32,
        global_nodes: u64,
        nodes: Model,
        out: Adjacency,
        inc: Adjacency,
    ) -> Result<Part> {
        let bad =
            |message: String| Err(Error::Model(format!("part {index} of {parts}: {message}")));
        if parts == 0 || index >= parts {
            return bad("the index must be below the part count (at least 1)".into());
        }
        if global_nodes > u64::from(u32::MAX) {
            return bad(format!("{global_nodes} nodes exceed the id space"));
        }
        let Some(ids) = nodes.node_ids() else {
            return bad("the node model lacks the global ids of its nodes".into());
        };
        if nodes.edge_count() != 0 {
            return bad("the node model holds edges".into());
        }
        if let Some(w) = ids.windows(2).position(|w| w[0] >= w[1]) {
            return bad(format!(
                "global node ids not increasing at local node {}",
                w + 1
            ));
        }
        if let Some(&v) = ids.iter().find(|&&v| u64::from(v) >= global_nodes) {
            return bad(format!(
                "node {v} is beyond the model's {global_nodes} nodes"
            ));
        }
        if let Some(&v) = ids.iter().find(|&&v| owner(v, parts) != index) {
            return bad(format!("node {v} belongs to part {}", owner(v, parts)));
        }
        let types = nodes.rel_types().len();
        for (adj, what) in [(&out, "out-lists"), (&inc, "in-lists")] {
            if let Err(message) = check_adjacency(adj, ids.len(), global_nodes, types) {
                return bad(format!("{what}: {message}"));
            }
        }
        Ok(Part {
            index,
            parts,
            global_nodes,
            nodes: Arc::new(nodes),
            out,
            inc,
        })
    }

    /// This part's index.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The number of parts of its set.
    pub fn parts(&self) -> u32 {
        self.parts
    }

    /// The whole model's node count.
    pub fn global_nodes(&self) -> u64 {
        self.global_nodes
    }

    /// The owned nodes' data by local index, with the shared schema (see the module docs).
    pub fn nodes(&self) -> &Arc<Model> {
        &self.nodes
    }

    /// The owned nodes' global ids, strictly increasing (local index → global id).
    pub fn ids(&self) -> &[u32] {
        self.nodes.node_ids().unwrap_or(&[])
    }

    /// The number of owned nodes.
    pub fn owned_count(&self) -> usize {
        self.nodes.node_count()
    }

    /// The local index of global node `v`, when this part owns it (a binary search).
    pub fn local(&self, v: u32) -> Option<u32> {
        self.ids().binary_search(&v).ok().map(|i| i as u32)
    }

    /// The global id of local node `local` (`local` below [`Part::owned_count`]).
    pub fn global(&self, local: u32) -> Option<u32> {
        self.ids().get(local as usize).copied()
    }

    /// The owned nodes' out-lists (by local index; neighbours by global id).
    pub fn out(&self) -> &Adjacency {
        &self.out
    }

    /// The owned nodes' in-lists (by local index; neighbours by global id).
    pub fn inc(&self) -> &Adjacency {
        &self.inc
    }

    /// The edges this part stores: those with an owned end, each once (an edge between two owned
    /// nodes is in an out-list and an in-list).
    pub fn edge_count(&self) -> usize {
        let inner = (0..self.owned_count() as u32)
            .map(|l| {
                self.inc
                    .neighbors_of(l)
                    .iter()
                    .filter(|&&s| owner(s, self.parts) == self.index)
                    .count()
            })
            .sum::<usize>();
        self.out.neighbors.len() + self.inc.neighbors.len() - inner
    }
}

/// Checks one direction of a part's adjacency: `n + 1` monotone offsets from 0 to the entry
/// count, as many types as neighbours, no edge ids, neighbours below `global_nodes`, types below
/// `types`, each list sorted by (type, neighbour).
fn check_adjacency(
    adj: &Adjacency,
    n: usize,
    global_nodes: u64,
    types: usize,
) -> std::result::Result<(), String> {
    let offsets: &[u32] = &adj.offsets;
    if offsets.len() != n + 1 {
        return Err(format!("{} offsets for {n} nodes", offsets.len()));
    }
    if offsets.first() != Some(&0)
        || offsets.windows(2).any(|w| w[0] > w[1])
        || offsets.last().map(|&e| e as usize) != Some(adj.neighbors.len())
    {
        return Err("offsets not monotone from 0 to the entry count".into());
    }
    if adj.types.len() != adj.neighbors.len() || !adj.edge_ids.is_empty() {
        return Err("adjacency arrays differ in length".into());
    }
    if let Some(&v) = adj
        .neighbors
        .iter()
        .find(|&&v| u64::from(v) >= global_nodes)
    {
        return Err(format!("neighbour {v} is beyond the model's nodes"));
    }
    if let Some(&t) = adj.types.iter().find(|&&t| t as usize >= types) {
        return Err(format!("relationship type id {t} out of range"));
    }
    for (l, w) in offsets.windows(2).enumerate() {
        let range = w[0] as usize..w[1] as usize;
        let (ts, ns) = (&adj.types[range.clone()], &adj.neighbors[range]);
        if (1..ts.len()).any(|i| (ts[i - 1], ns[i - 1]) > (ts[i], ns[i])) {
            return Err(format!("the list of local node {l} is not sorted"));
        }
    }
    Ok(())
}
