//! One part of a partitioned model, sized to the nodes it owns.
//!
//! A [`Part`] holds the nodes part `index` of `parts` owns (node `v` belongs to part
//! [`super::partition::owner`]`(v, parts)`), numbered by **local index**: the rank of the node's
//! global id among the owned ids, which are kept sorted ([`Part::ids`]). The global → local map
//! ([`Part::local`]) reads a rank index built on open: one bit per node of the whole model (owned
//! or not) and the count of owned nodes before every 64-bit word, 1.5 bits per global node (3.75 MB
//! for 20 million nodes), so a lookup is two reads instead of a binary search. Everything else
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

use rayon::prelude::*;

use super::partition::owner;
use super::validate::{largest_id, unsorted_list};
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
    rank: RankIndex,
}

/// The owned nodes as one bit per global id, with the number of owned nodes before each word: a
/// global id's local index is that count plus the set bits below it in its word.
#[derive(Debug)]
struct RankIndex {
    bits: Vec<u64>,
    before: Vec<u32>,
}

impl RankIndex {
    /// The index of `ids` (strictly increasing, each below `global_nodes`).
    fn new(ids: &[u32], global_nodes: u64) -> RankIndex {
        let words = (global_nodes as usize).div_ceil(64);
        let mut bits = vec![0u64; words];
        for &v in ids {
            bits[v as usize / 64] |= 1u64 << (v % 64);
        }
        let mut before = Vec::with_capacity(words);
        let mut seen = 0u32;
        for &w in &bits {
            before.push(seen);
            seen += w.count_ones();
        }
        RankIndex { bits, before }
    }

    /// The rank of `v` among the owned ids, when owned.
    fn rank(&self, v: u32) -> Option<u32> {
        let word = v as usize / 64;
        let w = *self.bits.get(word)?;
        let bit = 1u64 << (v % 64);
        (w & bit != 0).then(|| self.before[word] + (w & (bit - 1)).count_ones())
    }
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
        let all_owned = ids
            .par_chunks(1 << 16)
            .all(|chunk| chunk.iter().all(|&v| owner(v, parts) == index));
        let foreign = (!all_owned)
            .then(|| ids.iter().find(|&&v| owner(v, parts) != index))
            .flatten();
        if let Some(&v) = foreign {
            return bad(format!("node {v} belongs to part {}", owner(v, parts)));
        }
        let types = nodes.rel_types().len();
        let (out_ok, inc_ok) = rayon::join(
            || check_adjacency(&out, ids.len(), global_nodes, types),
            || check_adjacency(&inc, ids.len(), global_nodes, types),
        );
        for (checked, what) in [(out_ok, "out-lists"), (inc_ok, "in-lists")] {
            if let Err(message) = checked {
                return bad(format!("{what}: {message}"));
            }
        }
        let rank = RankIndex::new(ids, global_nodes);
        Ok(Part {
            index,
            parts,
            global_nodes,
            nodes: Arc::new(nodes),
            out,
            inc,
            rank,
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

    /// The local index of global node `v`, when this part owns it (two reads of the rank index).
    pub fn local(&self, v: u32) -> Option<u32> {
        self.rank.rank(v)
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
    // The passes over the entries run on all cores (a part of 10⁸ edges is read in seconds): a
    // vectorised maximum first, the offending entry searched only when there is one.
    if u64::from(largest_id(&adj.neighbors)) >= global_nodes && !adj.neighbors.is_empty() {
        let v = adj
            .neighbors
            .iter()
            .find(|&&v| u64::from(v) >= global_nodes);
        return Err(format!(
            "neighbour {} is beyond the model's nodes",
            v.copied().unwrap_or_default()
        ));
    }
    if largest_id(&adj.types) as usize >= types && !adj.types.is_empty() {
        let t = adj.types.iter().find(|&&t| t as usize >= types);
        return Err(format!(
            "relationship type id {} out of range",
            t.copied().unwrap_or_default()
        ));
    }
    if let Some(l) = unsorted_list(adj, n) {
        return Err(format!("the list of local node {l} is not sorted"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::RankIndex;

    #[test]
    fn the_rank_index_agrees_with_a_binary_search() {
        // Every third id and a run across a word boundary, over 300 global ids.
        let mut ids: Vec<u32> = (0..300).filter(|v| v % 3 == 0).collect();
        ids.extend(120..135);
        ids.sort_unstable();
        ids.dedup();
        let index = RankIndex::new(&ids, 300);
        for v in 0..400u32 {
            let expected = ids.binary_search(&v).ok().map(|i| i as u32);
            assert_eq!(index.rank(v), expected, "node {v}");
        }
        assert_eq!(RankIndex::new(&[], 0).rank(0), None);
    }
}
