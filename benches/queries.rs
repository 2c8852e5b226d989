//! The example queries on a generated IMDb-like graph (100k persons, 70k titles, ~420k credits),
//! host backend on all cores vs. the same query on a one-thread pool (the baseline, same run).
//!
//! `cargo bench --bench queries` (set GEMP_BENCH_PERSONS / GEMP_BENCH_TITLES to scale).

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gemp::io::generate::{generate_imdb, ImdbGenConfig};
use gemp::io::{Format, LoadOptions};
use gemp::matcher::{execute, MatchOptions};
use gemp::model::{Model, Value};
use gemp::pattern::{compile, Params};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn model() -> Model {
    let dir = std::env::temp_dir().join("gemp-bench-queries");
    let config = ImdbGenConfig {
        titles: env_u64("GEMP_BENCH_TITLES", 70_000),
        persons: env_u64("GEMP_BENCH_PERSONS", 100_000),
        seed: 11,
        ..Default::default()
    };
    generate_imdb(&config, &dir).expect("generate");
    let (m, _) = gemp::io::load(&[dir], Format::ImdbTsv, &LoadOptions::default()).expect("load");
    m
}

fn bench(c: &mut Criterion) {
    let m = model();
    eprintln!("model: {} nodes, {} edges", m.node_count(), m.edge_count());
    let mut params = Params::new();
    params.insert("year".into(), Value::Int(2000));
    let queries = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/queries");
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut group = c.benchmark_group("queries");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    let mut names: Vec<_> = std::fs::read_dir(&queries)
        .expect("queries")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cypher"))
        .collect();
    names.sort();
    for path in names {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).expect("read");
        let q = compile(&source, &m, &params).expect("compile");
        let opts = MatchOptions::default();
        let rows = execute(&m, &q, &opts).expect("run").count;
        eprintln!("{name}: {rows} rows");
        group.bench_with_input(BenchmarkId::new("host-all-cores", &name), &q, |b, q| {
            b.iter(|| execute(&m, q, &opts).expect("run").count)
        });
        group.bench_with_input(BenchmarkId::new("host-1-thread", &name), &q, |b, q| {
            b.iter(|| single.install(|| execute(&m, q, &opts).expect("run").count))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
