//! One Train Benchmark scenario on one railway model, in process, timed phase by phase; what
//! `scripts/bench-trainbenchmark` runs.
//!
//! ```text
//! cargo run --release --example trainbenchmark -- --scenario inject --iterations 5 \
//!     ../shared/data/trainbenchmark/railway.xcore ../shared/data/trainbenchmark/railway-inject-1.xmi
//! ```
//!
//! For each query (all six, or `--queries PosLength,RouteSensor`) the model is loaded afresh from
//! the files (`load`), the query counted (`check`), and then, by scenario:
//!
//! - `batch`: nothing more;
//! - `inject`: `--iterations` times the query's `*.inject.cypher` rule file (`transform`) and the
//!   count again, by a full run (`recheck`) and incrementally (`recheck_incremental`);
//! - `repair`: the `*.repair.cypher` rule file once, and the count again (both ways).
//!
//! For inject and repair, a [`gemp::api::LiveQuery`] of the query is made right after `check`
//! (`live_init`) and kept across the transformations; `recheck_incremental` is its
//! [`LiveQuery::refresh`](gemp::api::LiveQuery::refresh), which re-examines only what the
//! transformation touched. When its count differs from the full re-check's (or the live query's
//! first count from `check`'s), the run stops with an error and a non-zero exit status.
//!
//! Each phase prints one JSON object on its own line: `query`, `phase`, `iteration` (0 for load,
//! check and live_init), `seconds`, `matches` (after check, live_init and both re-checks),
//! `changes` (what a transform changed: elements created and deleted, properties and labels set)
//! and, for `recheck_incremental`, `added` and `removed` (matches gained and lost), `affected`
//! (nodes re-examined) and `incremental` (false when the live query fell back to a full re-run).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use gemp::api::{Graph, LiveQuery, RunOptions};

/// The six queries, in the benchmark's order.
const QUERIES: [&str; 6] = [
    "ConnectedSegments",
    "PosLength",
    "RouteSensor",
    "SemaphoreNeighbor",
    "SwitchMonitored",
    "SwitchSet",
];

/// Command-line arguments.
struct Args {
    scenario: String,
    iterations: usize,
    queries: Vec<String>,
    backend: String,
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    match parse().and_then(|a| run(&a)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: trainbenchmark --scenario batch|inject|repair [--iterations N] \
                     [--queries A,B] [--backend host|auto] FILES...";

fn parse() -> Result<Args, String> {
    let mut args = Args {
        scenario: String::new(),
        iterations: 1,
        queries: QUERIES.iter().map(|q| q.to_string()).collect(),
        backend: "host".into(),
        files: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match a.as_str() {
            "--scenario" => args.scenario = value("--scenario")?,
            "--iterations" => {
                let v = value("--iterations")?;
                args.iterations = v
                    .parse()
                    .map_err(|_| format!("--iterations: `{v}` is not a count"))?;
            }
            "--queries" => {
                args.queries = value("--queries")?.split(',').map(str::to_owned).collect()
            }
            "--backend" => args.backend = value("--backend")?,
            "-h" | "--help" => return Err(USAGE.into()),
            f if f.starts_with("--") => return Err(format!("unknown option {f}\n{USAGE}")),
            f => args.files.push(PathBuf::from(f)),
        }
    }
    if !["batch", "inject", "repair"].contains(&args.scenario.as_str()) {
        return Err(format!(
            "--scenario batch|inject|repair is required\n{USAGE}"
        ));
    }
    if !["host", "auto"].contains(&args.backend.as_str()) {
        return Err(format!("--backend: host or auto, not `{}`", args.backend));
    }
    if let Some(q) = args.queries.iter().find(|q| !QUERIES.contains(&q.as_str())) {
        return Err(format!(
            "unknown query `{q}` (one of {})",
            QUERIES.join(", ")
        ));
    }
    if args.files.is_empty() {
        return Err(format!("no model files given\n{USAGE}"));
    }
    Ok(args)
}

fn query_file(name: &str) -> Result<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/queries/trainbenchmark")
        .join(name);
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// One output line.
fn emit(query: &str, phase: &str, iteration: usize, seconds: f64, extra: serde_json::Value) {
    let mut line = serde_json::json!({
        "query": query,
        "phase": phase,
        "iteration": iteration,
        "seconds": seconds,
    });
    if let (Some(map), serde_json::Value::Object(more)) = (line.as_object_mut(), extra) {
        map.extend(more);
    }
    println!("{line}");
}

fn run(args: &Args) -> Result<(), String> {
    let options = match args.backend.as_str() {
        "host" => RunOptions::host(),
        _ => RunOptions::default(),
    }
    .count_only();
    for name in &args.queries {
        let check = query_file(&format!("{name}.cypher"))?;
        let rules = match args.scenario.as_str() {
            "inject" => Some(query_file(&format!("{name}.inject.cypher"))?),
            "repair" => Some(query_file(&format!("{name}.repair.cypher"))?),
            _ => None,
        };
        let t = Instant::now();
        let mut graph = Graph::load(&args.files).map_err(|e| e.to_string())?;
        emit(
            name,
            "load",
            0,
            t.elapsed().as_secs_f64(),
            serde_json::json!({
                "nodes": graph.model().node_count(),
                "edges": graph.model().edge_count(),
            }),
        );
        let count = |graph: &Graph| -> Result<(u64, f64), String> {
            let t = Instant::now();
            let q = graph
                .query_with(&check, &options)
                .map_err(|e| e.to_string())?;
            let n = graph.execute(&q, &options).map_err(|e| e.to_string())?;
            Ok((n.count(), t.elapsed().as_secs_f64()))
        };
        let (matches, seconds) = count(&graph)?;
        emit(
            name,
            "check",
            0,
            seconds,
            serde_json::json!({ "matches": matches }),
        );
        let Some(rules) = rules else { continue };
        let t = Instant::now();
        let mut live = graph
            .live_query(&check)
            .map_err(|e| format!("{name}: {e}"))?;
        emit(
            name,
            "live_init",
            0,
            t.elapsed().as_secs_f64(),
            serde_json::json!({ "matches": live.len() }),
        );
        agree(name, "the live query's first count", 0, live.len(), matches)?;
        let rounds = if args.scenario == "inject" {
            args.iterations
        } else {
            1
        };
        for iteration in 1..=rounds {
            let t = Instant::now();
            let report = graph.apply(&rules).map_err(|e| e.to_string())?;
            let seconds = t.elapsed().as_secs_f64();
            let c = report.totals();
            emit(
                name,
                "transform",
                iteration,
                seconds,
                serde_json::json!({
                    "changes": c.nodes_created + c.nodes_deleted + c.relationships_created
                        + c.relationships_deleted + c.properties_set + c.labels_added
                        + c.labels_removed,
                }),
            );
            let (matches, seconds) = count(&graph)?;
            emit(
                name,
                "recheck",
                iteration,
                seconds,
                serde_json::json!({ "matches": matches }),
            );
            recheck_incremental(name, iteration, &graph, &mut live, matches)?;
        }
    }
    Ok(())
}

/// Refreshes `live` after a transformation (phase `recheck_incremental`) and checks its count
/// against the full re-check's `full_matches`.
fn recheck_incremental(
    name: &str,
    iteration: usize,
    graph: &Graph,
    live: &mut LiveQuery,
    full_matches: u64,
) -> Result<(), String> {
    let t = Instant::now();
    let diff = live
        .refresh(graph)
        .map_err(|e| format!("{name}: incremental re-check {iteration}: {e}"))?;
    let seconds = t.elapsed().as_secs_f64();
    emit(
        name,
        "recheck_incremental",
        iteration,
        seconds,
        serde_json::json!({
            "matches": live.len(),
            "added": diff.added.len(),
            "removed": diff.removed.len(),
            "affected": diff.affected,
            "incremental": diff.incremental,
        }),
    );
    agree(
        name,
        "the incremental re-check",
        iteration,
        live.len(),
        full_matches,
    )
}

/// An error when the live query's count `live_matches` differs from the full count.
fn agree(
    name: &str,
    what: &str,
    iteration: usize,
    live_matches: usize,
    full_matches: u64,
) -> Result<(), String> {
    if live_matches as u64 == full_matches {
        return Ok(());
    }
    Err(format!(
        "{name}, iteration {iteration}: {what} found {live_matches} matches, the full count \
         {full_matches}"
    ))
}
