//! [`Touched`]: which nodes a transformation changed, by key — what incremental re-checking
//! ([`crate::api::LiveQuery`]) starts from.
//!
//! A node is touched when it was created or deleted, a property or label of it changed, or a
//! relationship at it was created, deleted or had a property changed. Nodes are named by their
//! keys, which survive compaction (node ids do not); created nodes by the `new:<n>` keys that
//! [`super::compact::compact_keyed`] gave them.

use hashbrown::HashSet;

use super::delta::{Delta, EdgeId, NodeId};
use crate::model::Model;

/// The keys of the nodes changes touched (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    keys: HashSet<String>,
}

impl Touched {
    /// Nothing touched.
    pub fn new() -> Self {
        Touched::default()
    }

    /// True when no node was touched.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// How many nodes were touched.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the node with `key` was touched.
    pub fn contains(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// The touched keys, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.keys.iter().map(String::as_str)
    }

    /// Adds `other`'s keys.
    pub fn extend(&mut self, other: &Touched) {
        self.keys.extend(other.keys.iter().cloned());
    }

    /// Adds what `delta` touches in `model`; `created` are the keys its created nodes got in the
    /// compacted model (as [`super::compact::compact_keyed`] returns them).
    pub fn record(&mut self, model: &Model, delta: &Delta, created: &[String]) {
        let key = |n: u32| model.node_key(n).unwrap_or("").to_owned();
        let mut nodes: Vec<u32> = Vec::new();
        nodes.extend(delta.deleted_nodes.iter().copied());
        nodes.extend(
            delta
                .node_props
                .iter()
                .filter(|(_, p)| !p.is_empty())
                .map(|(&n, _)| n),
        );
        nodes.extend(
            delta
                .labels_added
                .iter()
                .chain(&delta.labels_removed)
                .filter(|(_, l)| !l.is_empty())
                .map(|(&n, _)| n),
        );
        let changed_edges = delta.deleted_edges.iter().copied().chain(
            delta
                .edge_props
                .iter()
                .filter(|(_, p)| !p.is_empty())
                .map(|(&e, _)| e),
        );
        for e in changed_edges {
            if let Some((NodeId::Base(s), NodeId::Base(d), _)) =
                delta.edge_ends(model, EdgeId::Base(e))
            {
                nodes.extend([s, d]);
            }
        }
        // Ends of created relationships that are frozen nodes (created ends are in `created`).
        for edge in delta.new_edges().iter().filter(|e| !e.deleted) {
            for end in [edge.src, edge.dst] {
                if let NodeId::Base(n) = end {
                    nodes.push(n);
                }
            }
        }
        self.keys.extend(nodes.into_iter().map(key));
        self.keys.extend(created.iter().cloned());
    }
}
