//! HPRD (Sun & Luo's subgraph-matching benchmark): every query gives exactly the published number of
//! embeddings. Skips with a message when ../shared/data/hprd is absent.

use crate::common;
use common::hprd_dir;

use std::time::Instant;

use gemp::engines::gemp::execute;
use gemp::exec::MatchOptions;
use gemp::io::{subgraph_bench, LoadOptions, LoadReport};
use gemp::pattern::bench_query;

#[test]
fn all_hprd_queries_give_the_published_counts() {
    let Some(dir) = hprd_dir("all_hprd_queries_give_the_published_counts") else {
        return;
    };
    let opts = LoadOptions::default();
    let (model, _) = subgraph_bench::load(&dir.join("HPRD.graph"), &opts).unwrap();
    assert_eq!(model.node_count(), 9460);
    assert_eq!(model.edge_count(), 2 * 34998);
    let expected = std::fs::read_to_string(dir.join("expected_counts.txt")).unwrap();
    let mut checked = 0;
    let mut slowest = (0.0f64, String::new());
    for line in expected.lines().filter(|l| !l.trim().is_empty()) {
        let (name, count) = line.split_once(':').unwrap();
        let count: u64 = count.trim().parse().unwrap();
        let g = subgraph_bench::parse(
            &dir.join(format!("queries/{name}.graph")),
            &opts,
            &mut LoadReport::default(),
        )
        .unwrap();
        let q = bench_query::bind(&g, &model);
        let start = Instant::now();
        let out = execute(
            &model,
            &q,
            &MatchOptions {
                count_only: true,
                ..Default::default()
            },
        )
        .unwrap();
        let secs = start.elapsed().as_secs_f64();
        if secs > slowest.0 {
            slowest = (secs, name.to_owned());
        }
        assert_eq!(out.count, count, "{name}");
        assert!(!out.partial);
        checked += 1;
    }
    assert_eq!(checked, 100);
    eprintln!("slowest query: {} in {:.3}s", slowest.1, slowest.0);
}
