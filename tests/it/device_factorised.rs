//! The OpenCL factorised-counting kernel (`cl/factorised.cl`) against brute force and the host:
//! random labelled multigraphs × random connected patterns × grouped queries under both
//! semantics, with row buffers of a few rows (overflow rounds) and scratch regions of a few words
//! (passes with larger scratch, pivots handed to the host); the peer benchmark's grouped IMDb queries on the bundled sample
//! and the TTC 2014 case's couples and 3-cliques against its closed form.
//!
//! Every test skips with a message (and passes) when the machine has no OpenCL platform.

#![cfg(feature = "opencl")]

use crate::common;
use common::grouped_queries::{check_grouped_queries, pattern};
use common::random_graphs::{build, graph};
use common::{gpu, sample_model};

use gemp::engines::gemp::device::{DeviceConfig, DeviceMatcher};
use gemp::engines::gemp::execute;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::Model;
use gemp::pattern::{compile, Params};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use std::sync::atomic::{AtomicUsize, Ordering};

fn config(row_words: usize, region_words: usize) -> DeviceConfig {
    DeviceConfig {
        result_buffer_words: row_words,
        factorised_region_words: region_words,
        ..Default::default()
    }
}

/// Device = brute force (and so = host) on every grouped query shape, with tiny buffers; most
/// runs take the factorised kernel (the rest are plans it leaves to the enumerating pipeline:
/// nothing to eliminate, or unlabelled kept and eliminated nodes whose candidates overlap).
#[test]
fn device_grouped_queries_equal_brute_force() {
    let Some(gpu) = gpu("device_grouped_queries_equal_brute_force") else {
        return;
    };
    let (runs, factorised) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // GEMP_DEVICE_CASES=N runs more cases (200 by default).
    let cases = std::env::var("GEMP_DEVICE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut runner = TestRunner::new(ProptestConfig::with_cases(cases));
    let cases = (
        graph(7, 18),
        pattern(),
        any::<bool>(),
        1usize..40,
        prop::sample::select(vec![1usize, 3, 16, 300, 1 << 22]),
    );
    runner
        .run(&cases, |(g, p, homo, row_words, region_words)| {
            let m = build(&g);
            let sem = if homo {
                Semantics::Homomorphism
            } else {
                Semantics::Isomorphism
            };
            let opts = MatchOptions {
                semantics: sem,
                ..Default::default()
            };
            let dm = DeviceMatcher::new(gpu.clone(), &m, config(row_words, region_words)).unwrap();
            check_grouped_queries(&m, &p, sem, |q| {
                let (out, t) = dm.execute_timed(q, &opts).unwrap();
                runs.fetch_add(1, Ordering::Relaxed);
                if t.factorised {
                    factorised.fetch_add(1, Ordering::Relaxed);
                }
                out
            })
        })
        .unwrap();
    let (runs, factorised) = (runs.into_inner(), factorised.into_inner());
    eprintln!("{factorised} of {runs} runs took the factorised kernel");
    assert!(
        factorised * 4 > runs,
        "only {factorised} of {runs} runs took the factorised kernel"
    );
}

/// Runs `file` of `benches/peers/` on the host and the device: equal rows, and the device ran
/// it as factorised counting.
fn same_on_device(m: &Model, dm: &DeviceMatcher<'_>, src: &str) {
    let q = compile(src, m, &Params::new()).unwrap();
    let opts = MatchOptions::default();
    let host = execute(m, &q, &opts).unwrap();
    let (dev, t) = dm.execute_timed(&q, &opts).unwrap();
    assert!(t.factorised, "not run as factorised counting:\n{src}");
    let explained = gemp::engines::gemp::explain::device_execution(m, &q, &opts);
    assert!(
        explained.contains("factorised counting on the device"),
        "{explained}"
    );
    assert_eq!(dev.columns, host.columns);
    assert_eq!(dev.rows, host.rows, "{src}");
}

fn peer_query(name: &str) -> String {
    std::fs::read_to_string(
        common::root()
            .join("benches/peers")
            .join(format!("{name}.gemp.cypher")),
    )
    .unwrap()
}

#[test]
fn peer_queries_on_the_sample_equal_the_host() {
    let Some(gpu) = gpu("peer_queries_on_the_sample_equal_the_host") else {
        return;
    };
    let m = sample_model();
    for (rows, region) in [(1 << 20, 4096), (7, 2)] {
        let dm = DeviceMatcher::new(gpu.clone(), m, config(rows, region)).unwrap();
        for name in [
            "couples",
            "three-cliques",
            "costar-triangle",
            "costar-cycle",
        ] {
            same_on_device(m, &dm, &peer_query(name));
        }
        // Grouped rows come back (no count-only shortcut): per pair of co-stars.
        same_on_device(
            m,
            &dm,
            "MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person) \
             WHERE id(p1) < id(p2) WITH p1, p2, count(t) AS n WHERE n >= 2 \
             RETURN id(p1) AS a, id(p2) AS b, n ORDER BY a, b",
        );
    }
}

/// TTC 2014's synthetic model of N blocks has exactly 3N couples sharing 15N movies in all and
/// N 3-cliques sharing 5N (the case description's closed form).
#[test]
fn ttc14_couples_and_cliques_match_the_closed_form() {
    let Some(gpu) = gpu("ttc14_couples_and_cliques_match_the_closed_form") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let blocks = 40;
    let data = common::generate_ttc14(dir.path(), blocks);
    let snap = common::load_snapshot(dir.path(), &data);
    let m = gemp::model::snapshot::open(&snap).unwrap();
    let dm = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    let opts = MatchOptions::default();
    for (name, groups, total) in [
        ("couples", 3 * blocks, 15 * blocks),
        ("three-cliques", blocks, 5 * blocks),
    ] {
        let q = compile(&peer_query(name), &m, &Params::new()).unwrap();
        let (out, t) = dm.execute_timed(&q, &opts).unwrap();
        assert!(t.factorised, "{name}");
        let row: Vec<String> = out.rows[0].iter().map(|v| v.to_string()).collect();
        assert_eq!(row, vec![groups.to_string(), total.to_string()], "{name}");
    }
}

/// The co-star cycle over random bipartite multigraphs (persons `L0`, titles `L1`): its pure
/// count (symmetry-reduced) and its id-chained count and distinct triples run as device
/// triangle listing and equal the host (which `tests/factorised.rs` holds to brute force).
#[test]
fn device_costar_cycles_equal_the_host() {
    use common::grouped_queries::{bipartite, bipartite_model, chained_costar_cycle, costar_cycle};
    let Some(gpu) = gpu("device_costar_cycles_equal_the_host") else {
        return;
    };
    let cases = (
        bipartite(9, 8, 50),
        prop::sample::select(vec![vec![], vec![0u8], vec![0u8, 1]]),
        1usize..30,
    );
    let mut runner = TestRunner::new(ProptestConfig::with_cases(150));
    runner
        .run(&cases, |((np, nt, edges), types, row_words)| {
            let m = bipartite_model(np, nt, &edges);
            let dm = DeviceMatcher::new(gpu.clone(), &m, config(row_words, 1 << 22)).unwrap();
            let opts = MatchOptions::default();
            for q in [costar_cycle(&m, &types), chained_costar_cycle(&m, &types)] {
                let host = execute(&m, &q, &opts).unwrap();
                let (dev, t) = dm.execute_timed(&q, &opts).unwrap();
                prop_assert_eq!(&dev.rows, &host.rows);
                prop_assert!(t.factorised);
            }
            Ok(())
        })
        .unwrap();
}
