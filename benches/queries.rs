//! The example queries on a generated IMDb-like graph (100k persons, 70k titles, ~420k credits),
//! host backend on all cores vs. the same query on a one-thread pool (the baseline, same run), and
//! the OpenCL backend (GEMP's two-phase pipeline; PoCL on the CPU where no GPU is present) when an
//! OpenCL platform exists, with the model uploaded once as in a batch. Every backend's count is
//! checked against the host's before it is timed.
//!
//! `cargo bench --bench queries` (set GEMP_BENCH_PERSONS / GEMP_BENCH_TITLES to scale). Queries
//! named in GEMP_BENCH_SKIP (comma-separated; default `costar-triangle`, about a minute per run at
//! this size) are left out of the sampling loop and timed once with `gemp match --timings` instead.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gemp::engines::gemp::execute;
use gemp::exec::MatchOptions;
use gemp::generate::{generate_imdb, ImdbGenConfig};
use gemp::io::{Format, LoadOptions};
use gemp::model::{Model, Value};
use gemp::pattern::{compile, Params};
use gemp::session::Backend;
use gemp::session::{Session, SessionOptions};

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
    params.insert("year".into(), Value::Int(2000).into());
    let queries = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/queries");
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    // The OpenCL backend, when a platform exists (the model is uploaded once, here).
    let device = if gemp::gpu::platform_count().is_ok_and(|n| n > 0) {
        let options = SessionOptions {
            backend: Backend::Opencl,
            ..Default::default()
        };
        let runner = Session::new(&m, &options).expect("opening the OpenCL device");
        eprintln!(
            "device: {} (model upload {:.3?})",
            runner.engine_name(),
            runner.setup_time()
        );
        Some(runner)
    } else {
        eprintln!("no OpenCL platform: host only");
        None
    };
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
    let skip = std::env::var("GEMP_BENCH_SKIP").unwrap_or_else(|_| "costar-triangle".into());
    for path in names {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if skip.split(',').any(|s| s.trim() == name) {
            continue;
        }
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
        if let Some(runner) = &device {
            let (out, report) = runner.run(&q, &opts).expect("device run");
            assert_eq!(
                out.count, rows,
                "{name}: the OpenCL backend disagrees with the host"
            );
            if let Some(f) = &report.fallback {
                eprintln!("{name}: runs on the host under OpenCL ({f}); not timed");
                continue;
            }
            group.bench_with_input(BenchmarkId::new("opencl", &name), &q, |b, q| {
                b.iter(|| runner.run(q, &opts).expect("device run").0.count)
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
