//! The random graph generator: exact sizes, determinism per seed, every label and type present.

use gemp::generate::{generate_graph, GraphGenConfig};
use gemp::model::snapshot;

fn fingerprint(m: &gemp::model::Model) -> Vec<(u32, u32, u32)> {
    (0..m.node_count() as u32)
        .flat_map(|n| m.out().range(n).map(move |p| (n, p as u32)))
        .map(|(n, p)| (n, m.out().neighbors[p as usize], m.out().types[p as usize]))
        .collect()
}

#[test]
fn sizes_determinism_and_shape() {
    let c = GraphGenConfig {
        nodes: 5000,
        edges: 40_000,
        labels: 5,
        types: 3,
        seed: 9,
        with_values: true,
    };
    let a = generate_graph(&c).unwrap();
    let b = generate_graph(&c).unwrap();
    assert_eq!(a.node_count(), 5000);
    assert_eq!(a.edge_count(), 40_000);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    let other = generate_graph(&GraphGenConfig {
        seed: 10,
        ..c.clone()
    })
    .unwrap();
    assert_ne!(fingerprint(&a), fingerprint(&other));
    let schema = a.schema();
    assert_eq!(schema.labels.len(), 5);
    assert!(schema.labels.iter().all(|l| l.count > 0));
    assert!(schema.rel_types.iter().all(|t| t.count > 0));
    // Zipf: the most frequent label clearly dominates the rarest; hubs exist.
    assert!(schema.labels[0].count > 2 * schema.labels[4].count);
    assert!(schema.out_degree.max > 10 * schema.out_degree.median.max(1));
    // Round-trips through a snapshot.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.gemp");
    snapshot::write(&a, &path).unwrap();
    assert_eq!(
        fingerprint(&snapshot::open(&path).unwrap()),
        fingerprint(&a)
    );
}

#[test]
fn bad_configs_are_errors() {
    assert!(generate_graph(&GraphGenConfig {
        nodes: 0,
        ..Default::default()
    })
    .is_err());
    assert!(generate_graph(&GraphGenConfig {
        labels: 0,
        ..Default::default()
    })
    .is_err());
    assert!(generate_graph(&GraphGenConfig {
        types: 0,
        ..Default::default()
    })
    .is_err());
}
