//! TruST on OpenCL (PoCL in CI) against the host: identical similarity and one-hop tables,
//! identical search results and level statistics (deduplication included), on random graphs,
//! exhaustive (unbounded) searches and the paper's generated instances.
#![cfg(feature = "opencl")]

use crate::common;

use gemp::trust::device::{device_tables, run_device};
use gemp::trust::generate::{generate, TrustGenConfig};
use gemp::trust::one_hop::one_hop_table;
use gemp::trust::similarity::similarity_table;
use gemp::trust::{run_host, SearchParams, TrustGraph, TrustParams};

const WORDS: &[&str] = &[
    "cat", "cut", "cart", "dog", "dig", "", "catalog", "a", "ça", "naïve",
];

fn random_graph(rng: &mut common::Rng, n: usize, edge_percent: usize) -> TrustGraph {
    let values: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
    let mut edges = Vec::new();
    for a in 0..n as u32 {
        for b in a + 1..n as u32 {
            if rng.chance(edge_percent) {
                edges.push((a, b));
            }
        }
    }
    TrustGraph::from_parts(&values, &edges).unwrap()
}

fn params(k0: usize, beam: usize, depth: Option<usize>, top: usize) -> TrustParams {
    TrustParams {
        search: SearchParams { k0, beam, depth },
        top,
    }
}

fn assert_same(gpu: &gemp::gpu::Gpu, t: &TrustGraph, d: &TrustGraph, p: &TrustParams) -> usize {
    let host = run_host(t, d, p).unwrap();
    let dev = run_device(gpu, t, d, p).unwrap();
    assert_eq!(dev.matchings, host.matchings);
    assert_eq!(dev.levels, host.levels);
    host.levels.iter().map(|l| l.duplicates).sum()
}

#[test]
fn tables_equal_the_host() {
    let Some(gpu) = common::gpu("tables_equal_the_host") else {
        return;
    };
    let mut rng = common::Rng(11);
    for _ in 0..6 {
        let tn = 1 + rng.below(6);
        let dn = 1 + rng.below(40);
        let t = random_graph(&mut rng, tn, 60);
        // Dense data graphs make high degrees and colliding row maxima (the Hungarian path).
        let dp = 10 + rng.below(80);
        let d = random_graph(&mut rng, dn, dp);
        let s = similarity_table(&t, &d);
        let oh = one_hop_table(&t, &d, &s);
        assert_eq!(device_tables(&gpu, &t, &d).unwrap(), (s, oh));
    }
}

#[test]
fn searches_equal_the_host_with_dedup() {
    let Some(gpu) = common::gpu("searches_equal_the_host_with_dedup") else {
        return;
    };
    let mut rng = common::Rng(5);
    let mut duplicates = 0;
    for round in 0..12 {
        let (tn, dn, dp) = (2 + rng.below(4), 5 + rng.below(25), 20 + rng.below(50));
        let t = random_graph(&mut rng, tn, 70);
        let d = random_graph(&mut rng, dn, dp);
        let p = if round % 3 == 0 {
            params(usize::MAX, usize::MAX, None, usize::MAX)
        } else {
            params(1 + rng.below(20), 1 + rng.below(30), None, 10)
        };
        duplicates += assert_same(&gpu, &t, &d, &p);
    }
    assert!(duplicates > 0, "the cases must exercise deduplication");
}

#[test]
fn disconnected_template_and_partial_depth_equal_the_host() {
    let Some(gpu) = common::gpu("disconnected_template_and_partial_depth_equal_the_host") else {
        return;
    };
    let t = TrustGraph::from_parts(&["cat", "dog", "cut"], &[(0, 2)]).unwrap();
    let mut rng = common::Rng(9);
    let d = random_graph(&mut rng, 12, 30);
    assert_same(&gpu, &t, &d, &params(8, 16, None, 5));
    assert_same(&gpu, &t, &d, &params(8, 16, Some(2), 5));
    let empty = TrustGraph::from_parts::<&str>(&[], &[]).unwrap();
    assert!(run_device(&gpu, &t, &empty, &params(8, 16, None, 5))
        .unwrap()
        .matchings
        .is_empty());
}

#[test]
fn generated_instances_equal_the_host() {
    let Some(gpu) = common::gpu("generated_instances_equal_the_host") else {
        return;
    };
    for (seed, (dn, de, tn, te)) in [
        (1, (400, 1000, 6, 10)),
        (2, (1000, 4000, 7, 20)),
        (3, (40, 80, 4, 6)),
    ] {
        let inst = generate(&TrustGenConfig {
            data_nodes: dn,
            data_edges: de,
            template_nodes: tn,
            template_edges: te,
            seed,
            ..Default::default()
        })
        .unwrap();
        let (t, _) = TrustGraph::from_model(&inst.template, "value").unwrap();
        let (d, _) = TrustGraph::from_model(&inst.data, "value").unwrap();
        let p = TrustParams {
            top: 20,
            ..TrustParams::default()
        };
        assert_same(&gpu, &t, &d, &p);
        let dev = run_device(&gpu, &t, &d, &p).unwrap();
        assert_eq!(
            dev.matchings[0].mapping(),
            inst.planted_mapping(&t, &d).unwrap()
        );
    }
}

#[test]
fn high_degree_tables_equal_the_host() {
    let Some(gpu) = common::gpu("high_degree_tables_equal_the_host") else {
        return;
    };
    let mut tv = vec!["c"];
    tv.extend(std::iter::repeat_n("ab", 90));
    let te: Vec<(u32, u32)> = (1..=90).map(|l| (0, l)).collect();
    let mut dv = vec!["c", "ab"];
    dv.extend(std::iter::repeat_n("ac", 119));
    let de: Vec<(u32, u32)> = (1..=120).map(|l| (0, l)).collect();
    let t = TrustGraph::from_parts(&tv, &te).unwrap();
    let d = TrustGraph::from_parts(&dv, &de).unwrap();
    let (s, oh) = device_tables(&gpu, &t, &d).unwrap();
    // W = ⌊(65536 + 89 · 32768) / 90⌋ = 33132; OH = ⌊(65536 + 33132) / 2⌋ = 49334.
    assert_eq!(oh[0], 49334);
    let host_s = similarity_table(&t, &d);
    assert_eq!(oh, one_hop_table(&t, &d, &host_s));
    assert_eq!(s, host_s);
}
