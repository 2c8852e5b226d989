//! [`Delta`]: the changes one statement makes to a frozen [`Model`], kept beside it (the model is
//! never modified): created nodes and edges, deleted ones, changed property values and labels.
//!
//! Reads through the delta ([`Delta::node_labels`], [`Delta::node_property`], …) see the model as
//! the changes so far left it; [`super::compact()`] folds model and delta into a new frozen model.

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::{HashMap, HashSet};

use crate::model::{Model, Value, NO_LABEL};

/// A node of the model being changed: one of the frozen model's, or one the delta created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeId {
    /// A node of the frozen model (its id there).
    Base(u32),
    /// The `i`-th node the delta created.
    New(u32),
}

/// A relationship of the model being changed: one of the frozen model's, or one the delta created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeId {
    /// An edge of the frozen model (its id there).
    Base(u32),
    /// The `i`-th edge the delta created.
    New(u32),
}

/// A node the delta created.
#[derive(Debug, Clone, Default)]
pub struct NewNode {
    /// Its labels, the first one primary.
    pub labels: Vec<String>,
    /// Its properties (never null).
    pub props: BTreeMap<String, Value>,
    /// Deleted again by the same delta.
    pub deleted: bool,
}

/// A relationship the delta created.
#[derive(Debug, Clone)]
pub struct NewEdge {
    /// Source node.
    pub src: NodeId,
    /// Target node.
    pub dst: NodeId,
    /// Relationship type.
    pub rel_type: String,
    /// Its properties (never null).
    pub props: BTreeMap<String, Value>,
    /// Deleted again by the same delta.
    pub deleted: bool,
}

/// Changes over a frozen model. Every mutator returns whether it changed anything (setting the
/// value a property already has, adding a label a node has, deleting twice: no change).
#[derive(Debug, Default)]
pub struct Delta {
    pub(crate) new_nodes: Vec<NewNode>,
    pub(crate) new_edges: Vec<NewEdge>,
    /// New edges by end node, so that a node's relationships are found without a scan.
    new_edges_at: HashMap<NodeId, Vec<u32>>,
    pub(crate) deleted_nodes: HashSet<u32>,
    pub(crate) deleted_edges: HashSet<u32>,
    /// Changed properties of frozen nodes; `Value::Null` is a removed property.
    pub(crate) node_props: HashMap<u32, BTreeMap<String, Value>>,
    /// Changed properties of frozen edges; `Value::Null` is a removed property.
    pub(crate) edge_props: HashMap<u32, BTreeMap<String, Value>>,
    pub(crate) labels_added: HashMap<u32, BTreeSet<String>>,
    pub(crate) labels_removed: HashMap<u32, BTreeSet<String>>,
}

impl Delta {
    /// An empty delta.
    pub fn new() -> Self {
        Delta::default()
    }

    /// True when the delta changes nothing.
    pub fn is_empty(&self) -> bool {
        self.new_nodes.is_empty()
            && self.new_edges.is_empty()
            && self.deleted_nodes.is_empty()
            && self.deleted_edges.is_empty()
            && self.node_props.values().all(BTreeMap::is_empty)
            && self.edge_props.values().all(BTreeMap::is_empty)
            && self.labels_added.values().all(BTreeSet::is_empty)
            && self.labels_removed.values().all(BTreeSet::is_empty)
    }

    /// The nodes the delta created (deleted ones included, flagged).
    pub fn new_nodes(&self) -> &[NewNode] {
        &self.new_nodes
    }

    /// The relationships the delta created (deleted ones included, flagged).
    pub fn new_edges(&self) -> &[NewEdge] {
        &self.new_edges
    }

    // ----- reading through the delta -----

    /// True when `node` exists and was not deleted.
    pub fn node_alive(&self, model: &Model, node: NodeId) -> bool {
        match node {
            NodeId::Base(n) => {
                (n as usize) < model.node_count() && !self.deleted_nodes.contains(&n)
            }
            NodeId::New(i) => self.new_nodes.get(i as usize).is_some_and(|n| !n.deleted),
        }
    }

    /// True when `edge` exists and was not deleted (by itself or with an end node).
    pub fn edge_alive(&self, model: &Model, edge: EdgeId) -> bool {
        match edge {
            EdgeId::Base(e) => {
                !self.deleted_edges.contains(&e)
                    && match (model.edge_source(e), model.edge_target(e)) {
                        (Some(s), Some((d, _))) => {
                            self.node_alive(model, NodeId::Base(s))
                                && self.node_alive(model, NodeId::Base(d))
                        }
                        _ => false,
                    }
            }
            EdgeId::New(i) => self.new_edges.get(i as usize).is_some_and(|e| !e.deleted),
        }
    }

    /// The labels of `node`: the frozen ones in label-id order (its primary label first), less
    /// removed ones, then added ones.
    pub fn node_labels(&self, model: &Model, node: NodeId) -> Vec<String> {
        match node {
            NodeId::Base(n) => {
                let removed = self.labels_removed.get(&n);
                let primary = model.group_of(n).map_or(NO_LABEL, |g| g.label);
                let mut ids: Vec<u32> = model.node_labels(n).to_vec();
                ids.sort_by_key(|&l| (l != primary, l));
                let mut out: Vec<String> = ids
                    .iter()
                    .filter_map(|&l| model.labels().name(l))
                    .filter(|l| !removed.is_some_and(|r| r.contains(*l)))
                    .map(str::to_owned)
                    .collect();
                if let Some(added) = self.labels_added.get(&n) {
                    out.extend(
                        added
                            .iter()
                            .filter(|l| !out.contains(l))
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                }
                out
            }
            NodeId::New(i) => self
                .new_nodes
                .get(i as usize)
                .map(|n| n.labels.clone())
                .unwrap_or_default(),
        }
    }

    /// True when `node` carries `label`.
    pub fn has_label(&self, model: &Model, node: NodeId, label: &str) -> bool {
        self.node_labels(model, node).iter().any(|l| l == label)
    }

    /// Property `key` of `node` (null when absent).
    pub fn node_property(&self, model: &Model, node: NodeId, key: &str) -> Value {
        match node {
            NodeId::Base(n) => match self.node_props.get(&n).and_then(|p| p.get(key)) {
                Some(v) => v.clone(),
                None => model.node_property(n, key).to_owned(),
            },
            NodeId::New(i) => self
                .new_nodes
                .get(i as usize)
                .and_then(|n| n.props.get(key).cloned())
                .unwrap_or(Value::Null),
        }
    }

    /// Property `key` of `edge` (null when absent).
    pub fn edge_property(&self, model: &Model, edge: EdgeId, key: &str) -> Value {
        match edge {
            EdgeId::Base(e) => match self.edge_props.get(&e).and_then(|p| p.get(key)) {
                Some(v) => v.clone(),
                None => model.edge_property(e, key).to_owned(),
            },
            EdgeId::New(i) => self
                .new_edges
                .get(i as usize)
                .and_then(|e| e.props.get(key).cloned())
                .unwrap_or(Value::Null),
        }
    }

    /// Source, target and type of `edge` (`None` for an id that does not exist).
    pub fn edge_ends(&self, model: &Model, edge: EdgeId) -> Option<(NodeId, NodeId, String)> {
        match edge {
            EdgeId::Base(e) => {
                let src = model.edge_source(e)?;
                let (dst, ty) = model.edge_target(e)?;
                let name = model.rel_types().name(ty)?.to_owned();
                Some((NodeId::Base(src), NodeId::Base(dst), name))
            }
            EdgeId::New(i) => {
                let e = self.new_edges.get(i as usize)?;
                Some((e.src, e.dst, e.rel_type.clone()))
            }
        }
    }

    /// The live relationships touching `node`, each once (a loop too).
    pub fn incident_edges(&self, model: &Model, node: NodeId) -> Vec<EdgeId> {
        let mut out = Vec::new();
        if let NodeId::Base(n) = node {
            if (n as usize) < model.node_count() {
                out.extend(model.out().range(n).map(|p| EdgeId::Base(p as u32)));
                let inc = model.inc();
                out.extend(
                    inc.range(n)
                        .map(|p| EdgeId::Base(inc.edge_id_at(p)))
                        .filter(
                            |e| !matches!(e, EdgeId::Base(id) if model.edge_source(*id) == Some(n)),
                        ),
                );
            }
        }
        if let Some(list) = self.new_edges_at.get(&node) {
            out.extend(list.iter().map(|&i| EdgeId::New(i)));
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&e| match e {
            EdgeId::Base(id) => !self.deleted_edges.contains(&id),
            EdgeId::New(i) => !self.new_edges[i as usize].deleted,
        });
        out
    }

    // ----- changing -----

    /// Creates a node with `labels` (first primary) and `props` (nulls dropped).
    pub fn create_node(&mut self, labels: Vec<String>, props: BTreeMap<String, Value>) -> NodeId {
        let mut unique: Vec<String> = Vec::with_capacity(labels.len());
        for l in labels {
            if !unique.contains(&l) {
                unique.push(l);
            }
        }
        self.new_nodes.push(NewNode {
            labels: unique,
            props: props
                .into_iter()
                .filter(|(_, v)| !matches!(v, Value::Null))
                .collect(),
            deleted: false,
        });
        NodeId::New(self.new_nodes.len() as u32 - 1)
    }

    /// Creates a relationship `src -[rel_type]-> dst` with `props` (nulls dropped).
    pub fn create_edge(
        &mut self,
        src: NodeId,
        dst: NodeId,
        rel_type: String,
        props: BTreeMap<String, Value>,
    ) -> EdgeId {
        let i = self.new_edges.len() as u32;
        self.new_edges.push(NewEdge {
            src,
            dst,
            rel_type,
            props: props
                .into_iter()
                .filter(|(_, v)| !matches!(v, Value::Null))
                .collect(),
            deleted: false,
        });
        self.new_edges_at.entry(src).or_default().push(i);
        if dst != src {
            self.new_edges_at.entry(dst).or_default().push(i);
        }
        EdgeId::New(i)
    }

    /// Sets (or, with null, removes) property `key` of `node`.
    pub fn set_node_property(
        &mut self,
        model: &Model,
        node: NodeId,
        key: &str,
        value: Value,
    ) -> bool {
        if self.node_property(model, node, key) == value {
            return false;
        }
        match node {
            NodeId::Base(n) => {
                self.node_props
                    .entry(n)
                    .or_default()
                    .insert(key.to_owned(), value);
            }
            NodeId::New(i) => {
                if let Some(n) = self.new_nodes.get_mut(i as usize) {
                    set_or_remove(&mut n.props, key, value);
                }
            }
        }
        true
    }

    /// Sets (or, with null, removes) property `key` of `edge`.
    pub fn set_edge_property(
        &mut self,
        model: &Model,
        edge: EdgeId,
        key: &str,
        value: Value,
    ) -> bool {
        if self.edge_property(model, edge, key) == value {
            return false;
        }
        match edge {
            EdgeId::Base(e) => {
                self.edge_props
                    .entry(e)
                    .or_default()
                    .insert(key.to_owned(), value);
            }
            EdgeId::New(i) => {
                if let Some(e) = self.new_edges.get_mut(i as usize) {
                    set_or_remove(&mut e.props, key, value);
                }
            }
        }
        true
    }

    /// Adds `label` to `node`.
    pub fn add_label(&mut self, model: &Model, node: NodeId, label: &str) -> bool {
        if self.has_label(model, node, label) {
            return false;
        }
        match node {
            NodeId::Base(n) => {
                let removed = self.labels_removed.entry(n).or_default();
                if !removed.remove(label) {
                    self.labels_added
                        .entry(n)
                        .or_default()
                        .insert(label.to_owned());
                }
            }
            NodeId::New(i) => {
                if let Some(n) = self.new_nodes.get_mut(i as usize) {
                    n.labels.push(label.to_owned());
                }
            }
        }
        true
    }

    /// Removes `label` from `node`.
    pub fn remove_label(&mut self, model: &Model, node: NodeId, label: &str) -> bool {
        if !self.has_label(model, node, label) {
            return false;
        }
        match node {
            NodeId::Base(n) => {
                let added = self.labels_added.entry(n).or_default();
                if !added.remove(label) {
                    self.labels_removed
                        .entry(n)
                        .or_default()
                        .insert(label.to_owned());
                }
            }
            NodeId::New(i) => {
                if let Some(n) = self.new_nodes.get_mut(i as usize) {
                    n.labels.retain(|l| l != label);
                }
            }
        }
        true
    }

    /// Deletes `node` (its relationships are not touched: see [`Delta::incident_edges`]).
    pub fn delete_node(&mut self, model: &Model, node: NodeId) -> bool {
        if !self.node_alive(model, node) {
            return false;
        }
        match node {
            NodeId::Base(n) => {
                self.deleted_nodes.insert(n);
            }
            NodeId::New(i) => self.new_nodes[i as usize].deleted = true,
        }
        true
    }

    /// Deletes `edge`.
    pub fn delete_edge(&mut self, model: &Model, edge: EdgeId) -> bool {
        if !self.edge_alive(model, edge) {
            return false;
        }
        match edge {
            EdgeId::Base(e) => {
                self.deleted_edges.insert(e);
            }
            EdgeId::New(i) => self.new_edges[i as usize].deleted = true,
        }
        true
    }
}

fn set_or_remove(props: &mut BTreeMap<String, Value>, key: &str, value: Value) {
    if matches!(value, Value::Null) {
        props.remove(key);
    } else {
        props.insert(key.to_owned(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelBuilder, ValueRef};

    /// a:A -R-> b:B, a.x = 1.
    fn model() -> Model {
        let mut b = ModelBuilder::new();
        let a = b.add_node("a", &["A"]);
        let bb = b.add_node("b", &["B"]);
        let r = b.rel_type("R");
        b.add_edge(a, bb, r).unwrap();
        let x = b.node_property("x");
        b.set_node_property(a, x, ValueRef::Int(1)).unwrap();
        b.freeze().unwrap()
    }

    #[test]
    fn reads_see_the_changes_and_repeated_changes_count_once() {
        let m = model();
        let a = NodeId::Base(m.node_by_key("a").unwrap());
        let mut d = Delta::new();
        assert!(d.is_empty());
        assert!(!d.set_node_property(&m, a, "x", Value::Int(1)));
        assert!(d.set_node_property(&m, a, "x", Value::Int(2)));
        assert_eq!(d.node_property(&m, a, "x"), Value::Int(2));
        assert!(d.set_node_property(&m, a, "x", Value::Null));
        assert_eq!(d.node_property(&m, a, "x"), Value::Null);
        assert!(d.add_label(&m, a, "Z"));
        assert!(!d.add_label(&m, a, "Z"));
        assert!(d.remove_label(&m, a, "A"));
        assert_eq!(d.node_labels(&m, a), vec!["Z".to_string()]);
        // Adding back a removed label undoes the removal.
        assert!(d.add_label(&m, a, "A"));
        assert_eq!(d.node_labels(&m, a), vec!["A".to_string(), "Z".to_string()]);
        assert!(!d.is_empty());
    }

    #[test]
    fn incident_edges_follow_creations_and_deletions() {
        let m = model();
        let a = NodeId::Base(m.node_by_key("a").unwrap());
        let b = NodeId::Base(m.node_by_key("b").unwrap());
        let mut d = Delta::new();
        assert_eq!(d.incident_edges(&m, b), vec![EdgeId::Base(0)]);
        let n = d.create_node(vec!["C".into(), "C".into()], BTreeMap::new());
        assert_eq!(d.node_labels(&m, n), vec!["C".to_string()]);
        let e = d.create_edge(n, b, "S".into(), BTreeMap::new());
        let looped = d.create_edge(a, a, "L".into(), BTreeMap::new());
        assert_eq!(d.incident_edges(&m, b), vec![EdgeId::Base(0), e]);
        assert_eq!(d.incident_edges(&m, a), vec![EdgeId::Base(0), looped]);
        assert!(d.delete_edge(&m, EdgeId::Base(0)));
        assert!(!d.delete_edge(&m, EdgeId::Base(0)));
        assert_eq!(d.incident_edges(&m, b), vec![e]);
        assert!(d.delete_node(&m, n));
        assert!(!d.delete_node(&m, n));
        assert!(!d.node_alive(&m, n));
        assert_eq!(
            d.edge_ends(&m, e),
            Some((n, b, "S".to_string())),
            "ends stay readable"
        );
    }
}
