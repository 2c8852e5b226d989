//! Random small labelled multigraphs and pattern skeletons for the differential property tests
//! (host matcher vs brute force, device vs host, GpSense vs GEMP).

use gemp::model::{Model, ModelBuilder};
use gemp::pattern::ir::{NodeVar, Pattern, RelVar};
use proptest::prelude::*;

/// A multigraph: node `i` has label `L{labels[i]}`; edges `(src, dst, t)` have type `T{t}`
/// (self-loops and parallel edges included).
#[derive(Debug, Clone)]
pub struct G {
    /// Each node's label number (0 or 1).
    pub labels: Vec<u8>,
    /// Edges as (source, target, type number 0 or 1).
    pub edges: Vec<(usize, usize, u8)>,
}

/// Graphs of 2 to `max_nodes - 1` nodes and fewer than `max_edges` edges.
pub fn graph(max_nodes: usize, max_edges: usize) -> impl Strategy<Value = G> {
    (2usize..max_nodes).prop_flat_map(move |n| {
        (
            prop::collection::vec(0u8..2, n),
            prop::collection::vec((0..n, 0..n, 0u8..2), 0..max_edges),
        )
            .prop_map(|(labels, edges)| G { labels, edges })
    })
}

/// Adds `g` to `b` (labels `L0`, `L1` and types `T0`, `T1` always exist; node keys are the node
/// numbers); returns the node ids.
pub fn add_graph(b: &mut ModelBuilder, g: &G) -> Vec<u32> {
    let t: Vec<u32> = (0..2).map(|i| b.rel_type(&format!("T{i}"))).collect();
    b.label("L0");
    b.label("L1");
    let ids: Vec<u32> = g
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| b.add_node(&format!("{i}"), &[&format!("L{l}")]))
        .collect();
    for &(u, v, ty) in &g.edges {
        b.add_edge(ids[u], ids[v], t[ty as usize]).unwrap();
    }
    ids
}

/// The model of `g`.
pub fn build(g: &G) -> Model {
    let mut b = ModelBuilder::new();
    add_graph(&mut b, g);
    b.freeze().unwrap()
}

/// The model of `g` whose nodes carry an integer `v` (position mod 3) and a string `s` (`alpha`
/// at even positions, `beta` at odd ones), for unary and string conjuncts.
pub fn build_with_properties(g: &G) -> Model {
    let mut b = ModelBuilder::new();
    let ids = add_graph(&mut b, g);
    let v = b.node_property("v");
    let s = b.node_property("s");
    for (i, &id) in ids.iter().enumerate() {
        b.set_node_property(id, v, gemp::model::ValueRef::Int(i as i64 % 3))
            .unwrap();
        let name = if i % 2 == 0 { "alpha" } else { "beta" };
        b.set_node_property(id, s, gemp::model::ValueRef::Str(name))
            .unwrap();
    }
    b.freeze().unwrap()
}

/// One pattern relationship: source and target node, allowed type numbers (empty = any type),
/// undirected, named.
pub type RelSpec = (usize, usize, Vec<u8>, bool, bool);

/// The pattern over `m`: node `i` is `n{i}`, with label `L{l}` when given; relationship `i` is
/// `r{i}`, typed by `T{t}` for each listed `t`.
pub fn pattern_vars(m: &Model, labels: &[Option<u8>], rels: &[RelSpec]) -> Pattern {
    let label = |l: u8| m.labels().get(&format!("L{l}")).unwrap();
    let ty = |t: u8| m.rel_types().get(&format!("T{t}")).unwrap();
    Pattern {
        nodes: labels
            .iter()
            .enumerate()
            .map(|(i, l)| NodeVar {
                name: format!("n{i}"),
                named: true,
                labels: l.map(|l| vec![vec![label(l)]]).unwrap_or_default(),
            })
            .collect(),
        rels: rels
            .iter()
            .enumerate()
            .map(|(i, (s, d, types, undirected, named))| RelVar {
                name: format!("r{i}"),
                named: *named,
                src: *s,
                dst: *d,
                types: types.iter().map(|&t| ty(t)).collect(),
                undirected: *undirected,
                clause: 0,
            })
            .collect(),
    }
}

/// A relationship of a random pattern: source, target, type number (`None` = any), undirected,
/// named.
pub type RandomRel = (usize, usize, Option<u8>, bool, bool);

/// Up to four random relationships between `k` pattern nodes (a quarter of them named).
pub fn random_rels(k: usize) -> impl Strategy<Value = Vec<RandomRel>> {
    prop::collection::vec(
        (
            0..k,
            0..k,
            prop::option::of(0u8..2),
            any::<bool>(),
            prop::bool::weighted(0.25),
        ),
        0..5,
    )
}

/// [`RandomRel`]s as [`RelSpec`]s.
pub fn rel_specs(rels: &[RandomRel]) -> Vec<RelSpec> {
    rels.iter()
        .map(|&(s, d, t, undirected, named)| (s, d, t.into_iter().collect(), undirected, named))
        .collect()
}
