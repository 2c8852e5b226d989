//! Random labelled multigraphs straight into a [`Model`]: `nodes` nodes with one of `labels` labels
//! (Zipf-distributed), `edges` edges with one of `types` types between nodes chosen with a
//! power-law preference (a few hubs, many leaves). Deterministic per seed. Used for benchmarks at
//! sizes where going through text files would only measure the parser (e.g. snapshot open time at
//! 100M edges) and for differential tests on generated graphs.

use super::rng::{mix64, AliasTable, Rng, SplitMix64};
use crate::error::{Error, Result};
use crate::model::{Model, ModelBuilder, ValueRef};

/// Shape of a random graph.
#[derive(Debug, Clone)]
pub struct GraphGenConfig {
    /// Number of nodes.
    pub nodes: u64,
    /// Number of edges.
    pub edges: u64,
    /// Number of distinct labels (`L0`, `L1`, …), Zipf-distributed.
    pub labels: u32,
    /// Number of relationship types (`T0`, `T1`, …), Zipf-distributed.
    pub types: u32,
    /// Seed.
    pub seed: u64,
    /// Give every node an int property `value` in 0..1000.
    pub with_values: bool,
}

impl Default for GraphGenConfig {
    fn default() -> Self {
        GraphGenConfig {
            nodes: 10_000,
            edges: 50_000,
            labels: 8,
            types: 4,
            seed: 1,
            with_values: true,
        }
    }
}

/// Builds the random graph.
pub fn generate_graph(c: &GraphGenConfig) -> Result<Model> {
    if c.nodes == 0
        || c.nodes > crate::model::MAX_ELEMENTS as u64
        || c.edges > crate::model::MAX_ELEMENTS as u64
    {
        return Err(Error::InvalidArgument(format!(
            "a random graph needs 1..={} nodes and at most as many edges",
            crate::model::MAX_ELEMENTS
        )));
    }
    if c.labels == 0 || c.types == 0 {
        return Err(Error::InvalidArgument(
            "labels and types must be at least 1".into(),
        ));
    }
    let mut b = ModelBuilder::new();
    let labels: Vec<u32> = (0..c.labels).map(|i| b.label(&format!("L{i}"))).collect();
    let types: Vec<u32> = (0..c.types).map(|i| b.rel_type(&format!("T{i}"))).collect();
    let value = b.node_property("value");
    let zipf = |n: u32| {
        let w: Vec<f64> = (1..=n).map(|i| 1.0 / i as f64).collect();
        AliasTable::new(&w)
    };
    let (label_pick, type_pick) = match (zipf(c.labels), zipf(c.types)) {
        (Some(l), Some(t)) => (l, t),
        _ => return Err(Error::InvalidArgument("bad label or type count".into())),
    };
    let mut rng = SplitMix64::new(mix64(c.seed));
    let mut key = String::new();
    for i in 0..c.nodes {
        key.clear();
        key.push_str(&i.to_string());
        let (n, _) = b.ensure_node(&key);
        b.add_label(n, labels[label_pick.sample(&mut rng)]);
        if c.with_values {
            b.set_node_property(n, value, ValueRef::Int(rng.below(1000) as i64))?;
        }
    }
    // Endpoints: n·u² for uniform u puts P(id < k) = √(k/n): hubs of degree ~ edges/√n, long tail.
    let n = c.nodes as f64;
    let pick = |rng: &mut SplitMix64| -> u32 { (n * rng.next_f64().powi(2)).min(n - 1.0) as u32 };
    for _ in 0..c.edges {
        let s = pick(&mut rng);
        let d = pick(&mut rng);
        // Scatter hubs over the id space so that hubs of every label exist.
        let scatter = |x: u32| ((x as u64).wrapping_mul(0x9E37_79B9) % c.nodes) as u32;
        b.add_edge(scatter(s), scatter(d), types[type_pick.sample(&mut rng)])?;
    }
    b.freeze()
}
