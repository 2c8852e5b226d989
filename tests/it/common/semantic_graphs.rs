//! Small random semantic graphs and the similarity model they are compared under, shared by the
//! A* and AMonG tests.

use std::path::Path;

use gemp::similarity::{SemanticGraph, SimilarityModel};
use serde_json::json;

use super::Rng;

/// Node types A (linear measure on `v`) and B (equality on `v`), edge type X (equality on `w`);
/// W and Y have no entry.
pub fn model() -> SimilarityModel {
    SimilarityModel::from_json(
        &json!({"types": {
            "A": {"measure": "object", "attributes": {"v": {"measure": "linear", "max_distance": 3}}},
            "B": {"measure": "object", "attributes": {"v": {"measure": "equality"}}},
            "X": {"measure": "object", "attributes": {"w": {"measure": "equality"}}}}}),
        Path::new("."),
    )
    .unwrap()
}

/// A random graph: up to `max_nodes` nodes of types A, B (and sometimes one W), edges X / Y with
/// random ends (parallel edges and loops included). With `missing_descriptions`, about one node in
/// five has no description.
pub fn random_graph(
    rng: &mut Rng,
    name: &str,
    max_nodes: usize,
    max_edges: usize,
    missing_descriptions: bool,
) -> SemanticGraph {
    let mut g = SemanticGraph::new(name);
    let nodes = 1 + rng.below(max_nodes);
    for i in 0..nodes {
        let kind = ["A", "B", "W"][rng.below(if i == 0 { 3 } else { 2 })];
        let desc = if !missing_descriptions || rng.chance(80) {
            json!({"v": rng.below(4)})
        } else {
            json!({})
        };
        g.add_node(format!("n{i}"), kind, desc);
    }
    for _ in 0..rng.below(max_edges + 1) {
        let (s, t) = (rng.below(nodes), rng.below(nodes));
        let kind = if rng.chance(60) { "X" } else { "Y" };
        g.add_edge(s, t, kind, json!({"w": rng.below(2)})).unwrap();
    }
    g
}
