//! Semantic graphs (NEST, Bergmann & Gil): typed nodes and edges, each with a semantic description
//! (a JSON-like property map, possibly nested).
//!
//! The type of a node is its first label (`Workflow`, `Task`, `Data` in NEST workflows); the type of
//! an edge is its relationship type (`PART_OF`, `CONTROL_FLOW`, `DATA_FLOW`). Types are plain
//! strings, so any typed graph (e.g. the examples of the papers) fits.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::model::{Model, ValueRef};

/// NEST node type of workflow nodes.
pub const WORKFLOW: &str = "Workflow";
/// NEST node type of task nodes.
pub const TASK: &str = "Task";
/// NEST node type of data nodes.
pub const DATA: &str = "Data";
/// NEST edge type linking every task and data node to the workflow node.
pub const PART_OF: &str = "PART_OF";
/// NEST edge type of the execution order between tasks.
pub const CONTROL_FLOW: &str = "CONTROL_FLOW";
/// NEST edge type between a task and the data it consumes or produces.
pub const DATA_FLOW: &str = "DATA_FLOW";

/// One node: its external id, type and semantic description.
#[derive(Debug, Clone, PartialEq)]
pub struct SemanticNode {
    /// The id from the input file (unique within the graph).
    pub id: String,
    /// The node type (first label; empty when the node has none).
    pub kind: String,
    /// The semantic description: a property map (`Value::Object`).
    pub description: Value,
}

/// One directed edge between two nodes of the same graph.
#[derive(Debug, Clone, PartialEq)]
pub struct SemanticEdge {
    /// Index of the left (source) node in [`SemanticGraph::nodes`].
    pub source: usize,
    /// Index of the right (target) node.
    pub target: usize,
    /// The edge type.
    pub kind: String,
    /// The semantic description: a property map (`Value::Object`).
    pub description: Value,
}

/// A semantic graph `G = (N, E, S, T)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SemanticGraph {
    /// The graph's name (the case name in a case base, the file stem otherwise).
    pub name: String,
    /// The nodes `N` with types `T` and descriptions `S`.
    pub nodes: Vec<SemanticNode>,
    /// The edges `E ⊆ N × N` with types and descriptions.
    pub edges: Vec<SemanticEdge>,
}

impl SemanticGraph {
    /// An empty graph called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        SemanticGraph {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Adds a node and returns its index. `description` must be an object (or null for none).
    pub fn add_node(
        &mut self,
        id: impl Into<String>,
        kind: impl Into<String>,
        description: Value,
    ) -> usize {
        self.nodes.push(SemanticNode {
            id: id.into(),
            kind: kind.into(),
            description: normalise(description),
        });
        self.nodes.len() - 1
    }

    /// Adds an edge between existing nodes and returns its index; an out-of-range node is an error.
    pub fn add_edge(
        &mut self,
        source: usize,
        target: usize,
        kind: impl Into<String>,
        description: Value,
    ) -> Result<usize> {
        if source >= self.nodes.len() || target >= self.nodes.len() {
            return Err(Error::InvalidArgument(format!(
                "graph `{}`: edge {source} -> {target} names a node that does not exist ({} nodes)",
                self.name,
                self.nodes.len()
            )));
        }
        self.edges.push(SemanticEdge {
            source,
            target,
            kind: kind.into(),
            description: normalise(description),
        });
        Ok(self.edges.len() - 1)
    }

    /// Number of graph elements `|N| + |E|`.
    pub fn size(&self) -> usize {
        self.nodes.len() + self.edges.len()
    }

    /// The index of the node with external id `id`.
    pub fn node_index(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// Number of nodes of type `kind`.
    pub fn count_nodes(&self, kind: &str) -> usize {
        self.nodes.iter().filter(|n| n.kind == kind).count()
    }

    /// Number of edges of type `kind`.
    pub fn count_edges(&self, kind: &str) -> usize {
        self.edges.iter().filter(|e| e.kind == kind).count()
    }

    /// Builds a semantic graph from a shared [`Model`]: node type = first label, description = the
    /// node's non-null properties; edge type = relationship type, description = its properties.
    pub fn from_model(model: &Model, name: impl Into<String>) -> Result<Self> {
        let mut g = SemanticGraph::new(name);
        let labels = model.labels();
        for node in 0..model.node_count() as u32 {
            let kind = model
                .node_labels(node)
                .first()
                .and_then(|&l| labels.name(l))
                .unwrap_or("")
                .to_string();
            let mut props = Map::new();
            if let Some(group) = model.group_of(node) {
                for column in &group.columns {
                    let v = column.get((node - group.start) as usize);
                    if !matches!(v, ValueRef::Null) {
                        props.insert(column.name.clone(), to_json(v));
                    }
                }
            }
            let id = model
                .node_key(node)
                .map_or_else(|| node.to_string(), str::to_string);
            g.add_node(id, kind, Value::Object(props));
        }
        let types = model.rel_types();
        for edge in 0..model.edge_count() as u32 {
            let (Some(src), Some((dst, ty))) = (model.edge_source(edge), model.edge_target(edge))
            else {
                return Err(Error::Model(format!("edge {edge} has no endpoints")));
            };
            let mut props = Map::new();
            for column in model.edge_columns() {
                let v = column.get(edge as usize);
                if !matches!(v, ValueRef::Null) {
                    props.insert(column.name.clone(), to_json(v));
                }
            }
            let kind = types.name(ty).unwrap_or("").to_string();
            g.add_edge(src as usize, dst as usize, kind, Value::Object(props))?;
        }
        Ok(g)
    }
}

/// Null descriptions become empty objects; anything else is kept.
fn normalise(description: Value) -> Value {
    match description {
        Value::Null => Value::Object(Map::new()),
        other => other,
    }
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Bool(b) => Value::Bool(b),
        ValueRef::Int(i) => Value::from(i),
        ValueRef::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Str(s) => Value::String(s.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    #[test]
    fn builds_from_the_shared_model() {
        let mut b = ModelBuilder::new();
        let w = b.add_node("w", &[WORKFLOW]);
        let t = b.add_node("t", &[TASK]);
        let name = b.node_property("name");
        b.set_node_property(t, name, ValueRef::Str("cut")).unwrap();
        let part_of = b.rel_type(PART_OF);
        b.add_edge(t, w, part_of).unwrap();
        let model = b.freeze().unwrap();
        let g = SemanticGraph::from_model(&model, "m").unwrap();
        assert_eq!(g.nodes.len(), 2);
        let ti = g.node_index("t").unwrap();
        let wi = g.node_index("w").unwrap();
        assert_eq!(g.nodes[ti].kind, TASK);
        assert_eq!(g.nodes[ti].description, serde_json::json!({"name": "cut"}));
        assert_eq!(g.nodes[wi].description, serde_json::json!({}));
        assert_eq!(g.edges.len(), 1);
        assert_eq!((g.edges[0].source, g.edges[0].target), (ti, wi));
        assert_eq!(g.edges[0].kind, PART_OF);
        assert!(g.clone().add_edge(0, 9, "X", Value::Null).is_err());
    }
}
