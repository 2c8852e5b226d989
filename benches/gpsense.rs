//! GpSense vs the default engine (GEMP) on HPRD (when `../shared/data/hprd` exists) and on a
//! generated IMDb-like graph: total time of a query set per engine and backend (host; OpenCL when
//! a platform exists), as ratios to the default engine on the host measured in the same run, and
//! the compression ratio of every level of GpSense's multi-level compression.
//!
//! `cargo bench --bench gpsense` (GEMP_BENCH_PERSONS / GEMP_BENCH_TITLES scale the IMDb-like graph,
//! default 20k persons, 14k titles). Every engine's result count is checked against the default
//! engine's before it is timed; each set is run once to warm up, then timed once. Prints Markdown.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gemp::engines::gemp::execute;
use gemp::engines::gpsense::compress::{self, CompressConfig};
use gemp::engines::gpsense::{Engine, EngineConfig};
use gemp::exec::MatchOptions;
use gemp::generate::{generate_imdb, ImdbGenConfig};
use gemp::io::{subgraph_bench, Format, LoadOptions, LoadReport};
use gemp::model::{Model, Value};
use gemp::pattern::ir::BoundQuery;
use gemp::pattern::{bench_query, compile, Params};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn time_set(
    queries: &[(String, BoundQuery)],
    run: &dyn Fn(&BoundQuery) -> u64,
) -> (Duration, Vec<u64>) {
    let counts: Vec<u64> = queries.iter().map(|(_, q)| run(q)).collect();
    let start = Instant::now();
    for (_, q) in queries {
        run(q);
    }
    (start.elapsed(), counts)
}

fn opts() -> MatchOptions {
    MatchOptions {
        count_only: true,
        ..Default::default()
    }
}

fn bench_set(title: &str, m: &Model, queries: &[(String, BoundQuery)]) {
    println!("### {title}\n");
    println!(
        "{} nodes, {} edges, {} queries, topology {} bytes.\n",
        m.node_count(),
        m.edge_count(),
        queries.len(),
        compress::model_bytes(m)
    );
    let budget = compress::model_bytes(m) * 3 / 4;
    let start = Instant::now();
    let c = compress::compress(m, budget, &CompressConfig::default());
    let compress_time = start.elapsed();
    println!(
        "Compression to a budget of 3/4 of the topology ({budget} bytes) in {compress_time:.2?}:\n"
    );
    println!("| level | δ | nodes | edges | (nodes+edges) ratio | bytes |");
    println!("|---|---|---|---|---|---|");
    let base = (c.levels[0].nodes + c.levels[0].edges) as f64;
    for (i, l) in c.levels.iter().enumerate() {
        println!(
            "| {i} | {} | {} | {} | {:.1}% | {} |",
            if i == 0 {
                "—".to_string()
            } else {
                format!("{:.1}", l.delta)
            },
            l.nodes,
            l.edges,
            100.0 * (l.nodes + l.edges) as f64 / base,
            l.bytes
        );
    }
    println!();
    // Deeper compression (budget 0: as far as the thresholds go), for the per-level ratios.
    let deep = compress::compress(m, 0, &CompressConfig::default());
    let ratios: Vec<String> = deep
        .ratios()
        .iter()
        .map(|r| format!("{:.1}%", 100.0 * r))
        .collect();
    println!(
        "Compressing as far as the thresholds go: {} levels, ratios {}.\n",
        ratios.len(),
        ratios.join(" → ")
    );

    let gps_host = Engine::new(m, EngineConfig::default()).unwrap();
    let packed = Engine::with_compressed(m, EngineConfig::default(), c);
    #[cfg(feature = "opencl")]
    let device = gemp::gpu::platform_count().is_ok_and(|n| n > 0).then(|| {
        let gpu =
            std::sync::Arc::new(gemp::gpu::Gpu::new(gemp::gpu::DeviceSelector::Auto).unwrap());
        let runner = gemp::session::Session::new(
            m,
            &gemp::session::SessionOptions {
                backend: gemp::session::Backend::Opencl,
                ..Default::default()
            },
        )
        .unwrap();
        let gps = Engine::with_device(m, EngineConfig::default(), gpu).unwrap();
        (runner, gps)
    });
    println!("| engine | total | ÷ gemp host |");
    println!("|---|---|---|");
    let mut baseline = None;
    let mut want = None;
    let mut report = |name: &str, run: &dyn Fn(&BoundQuery) -> u64| {
        let (t, counts) = time_set(queries, run);
        match &want {
            None => want = Some(counts),
            Some(w) => assert_eq!(&counts, w, "{name}: counts differ from the default engine"),
        }
        let base: Duration = *baseline.get_or_insert(t);
        println!(
            "| {name} | {t:.3?} | {:.2} |",
            t.as_secs_f64() / base.as_secs_f64()
        );
    };
    report("gemp host", &|q| execute(m, q, &opts()).unwrap().count);
    #[cfg(feature = "opencl")]
    if let Some((runner, gps)) = &device {
        report("gemp opencl", &|q| runner.run(q, &opts()).unwrap().0.count);
        report("gpsense opencl", &|q| {
            gps.execute(q, &opts()).unwrap().count
        });
    }
    report("gpsense host", &|q| {
        gps_host.execute(q, &opts()).unwrap().count
    });
    report("gpsense host, compressed (3/4 budget)", &|q| {
        packed.execute(q, &opts()).unwrap().count
    });
    println!();
}

fn hprd() -> Option<(Model, Vec<(String, BoundQuery)>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = [
        root.join("../shared/data/hprd"),
        root.join("../../shared/data/hprd"),
    ]
    .into_iter()
    .find(|d| d.join("HPRD.graph").is_file())?;
    let opts = LoadOptions::default();
    let (m, _) = subgraph_bench::load(&dir.join("HPRD.graph"), &opts).ok()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("queries"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "graph"))
        .collect();
    files.sort();
    let queries = files
        .iter()
        .map(|f| {
            let g = subgraph_bench::parse(f, &opts, &mut LoadReport::default()).unwrap();
            let name = f.file_stem().unwrap().to_string_lossy().into_owned();
            (name, bench_query::bind(&g, &m))
        })
        .collect();
    Some((m, queries))
}

fn imdb() -> (Model, Vec<(String, BoundQuery)>) {
    let dir = std::env::temp_dir().join("gemp-bench-gpsense");
    let config = ImdbGenConfig {
        titles: env_u64("GEMP_BENCH_TITLES", 14_000),
        persons: env_u64("GEMP_BENCH_PERSONS", 20_000),
        seed: 11,
        ..Default::default()
    };
    generate_imdb(&config, &dir).expect("generate");
    let (m, _) = gemp::io::load(&[dir], Format::ImdbTsv, &LoadOptions::default()).expect("load");
    let mut params = Params::new();
    params.insert("year".into(), Value::Int(2000).into());
    let qdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/queries");
    let mut names: Vec<String> = std::fs::read_dir(&qdir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            (n.ends_with(".cypher") && !n.starts_with("costar-triangle")).then_some(n)
        })
        .collect();
    names.sort();
    let queries = names
        .into_iter()
        .map(|n| {
            let src = std::fs::read_to_string(qdir.join(&n)).unwrap();
            let q = compile(&src, &m, &params).unwrap();
            (n, q)
        })
        .collect();
    (m, queries)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    match hprd() {
        Some((m, q)) => bench_set("HPRD (100 queries of 16 vertices, count only)", &m, &q),
        None => eprintln!("skipping HPRD: ../shared/data/hprd not found"),
    }
    let (m, q) = imdb();
    bench_set(
        "Generated IMDb-like graph (example queries but costar-triangle, count only)",
        &m,
        &q,
    );
}
