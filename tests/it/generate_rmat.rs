//! The R-MAT (Graph500 Kronecker) generator: hand-checkable degenerate matrices, the self-loop and
//! duplicate policy, determinism per seed (whatever the thread count), labels, the CLI.

use crate::common;
use gemp::generate::rmat::{generate_rmat, rmat_label, rmat_pairs, RmatConfig};
use gemp::model::{snapshot, Model};

/// Every stored edge as (source key, target key): keys are the generated ids.
fn edges_by_key(m: &Model) -> Vec<(u32, u32)> {
    let key = |n: u32| -> u32 { m.node_key(n).expect("a key").parse().expect("numeric key") };
    let mut e: Vec<(u32, u32)> = (0..m.node_count() as u32)
        .flat_map(|n| m.out().range(n).map(move |p| (n, m.out().neighbors[p])))
        .map(|(s, d)| (key(s), key(d)))
        .collect();
    e.sort_unstable();
    e
}

#[test]
fn a_matrix_all_in_one_quadrant_gives_hand_computed_graphs() {
    // a = 1: every edge descends to (0, 0) — a self-loop, dropped: no edge at all.
    let all_a = RmatConfig {
        scale: 5,
        edge_factor: 4,
        a: 1.0,
        b: 0.0,
        c: 0.0,
        ..Default::default()
    };
    let m = generate_rmat(&all_a).unwrap();
    assert_eq!(m.node_count(), 32);
    assert_eq!(m.edge_count(), 0);
    // b = 1: every edge is (0, 31) before scrambling: 128 copies of one pair, kept once.
    let all_b = RmatConfig {
        b: 1.0,
        a: 0.0,
        ..all_a.clone()
    };
    assert_eq!(all_b.generated_edges(), 128);
    let m = generate_rmat(&all_b).unwrap();
    assert_eq!(m.node_count(), 32);
    assert_eq!(m.edge_count(), 1);
    let e = edges_by_key(&m);
    assert!(e[0].0 < e[0].1, "stored from the lower key to the higher");
    // c = 1 generates (31, 0), the same pair reversed: the same single edge.
    let all_c = RmatConfig {
        c: 1.0,
        a: 0.0,
        ..all_a
    };
    assert_eq!(edges_by_key(&generate_rmat(&all_c).unwrap()), e);
}

#[test]
fn graph500_graphs_are_simple_skewed_and_deterministic() {
    let c = RmatConfig {
        scale: 10,
        edge_factor: 8,
        labels: 3,
        seed: 5,
        ..Default::default()
    };
    let m = generate_rmat(&c).unwrap();
    assert_eq!(m.node_count(), 1024);
    let e = edges_by_key(&m);
    // At most the generated edges; no self-loop; every pair once, stored low → high.
    assert!(e.len() <= 8192 && e.len() > 4096, "{} edges", e.len());
    assert!(e.iter().all(|&(u, v)| u < v));
    assert!(e.windows(2).all(|w| w[0] != w[1]));
    assert_eq!(e, rmat_pairs(&c).unwrap());
    // Skew: the largest degree far above the median.
    let mut degree = vec![0u32; 1024];
    for &(u, v) in &e {
        degree[u as usize] += 1;
        degree[v as usize] += 1;
    }
    let mut sorted = degree.clone();
    sorted.sort_unstable();
    assert!(
        sorted[1023] > 10 * sorted[512].max(1),
        "{:?}",
        &sorted[1000..]
    );
    // The same graph on one thread; another with another seed.
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(one.install(|| rmat_pairs(&c).unwrap()), e);
    let other = RmatConfig {
        seed: 6,
        ..c.clone()
    };
    assert_ne!(rmat_pairs(&other).unwrap(), e);
    // Labels: each node's label is its stream's; all three present.
    let schema = m.schema();
    assert_eq!(schema.labels.len(), 3);
    assert_eq!(schema.labels.iter().map(|l| l.count).sum::<usize>(), 1024);
    for n in 0..m.node_count() as u32 {
        let k: u32 = m.node_key(n).unwrap().parse().unwrap();
        let want = m.labels().get(&format!("L{}", rmat_label(&c, k)));
        assert_eq!(m.node_labels(n), &[want.unwrap()], "node {k}");
    }
}

#[test]
fn bad_parameters_are_errors() {
    for c in [
        RmatConfig {
            scale: 32,
            ..Default::default()
        },
        RmatConfig {
            labels: 0,
            ..Default::default()
        },
        RmatConfig {
            a: 0.9,
            b: 0.2,
            ..Default::default()
        },
    ] {
        assert!(generate_rmat(&c).is_err(), "{c:?}");
    }
}

#[test]
fn cli_writes_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.gemp");
    let o = common::gemp(&[
        "generate",
        "rmat",
        "--scale",
        "6",
        "--edge-factor",
        "4",
        "--labels",
        "2",
        "--seed",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = snapshot::open(&out).unwrap();
    assert_eq!(m.node_count(), 64);
    let c = RmatConfig {
        scale: 6,
        edge_factor: 4,
        labels: 2,
        seed: 3,
        ..Default::default()
    };
    assert_eq!(edges_by_key(&m), rmat_pairs(&c).unwrap());
}
