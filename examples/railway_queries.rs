//! Runs the Train Benchmark queries on a railway model through the library API.
//!
//! ```text
//! cargo run --release --example railway_queries -- \
//!     ../shared/data/trainbenchmark/railway.xcore ../shared/data/trainbenchmark/railway-repair-1.xmi
//! ```
//!
//! The arguments are the model's files (XMI, Neo4j CSV, JSON or a `.gemp` snapshot, with an
//! `.ecore` / `.xcore` metamodel); without arguments the scale-1 repair model of
//! `../shared/data/trainbenchmark` is used. Prints each query's count, backend and time, and the
//! first match of each query with its node keys and labels.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gemp::api::{Graph, Item, RunOptions};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if inputs.is_empty() {
        let data = root.join("../shared/data/trainbenchmark");
        inputs = vec![
            data.join("railway.xcore"),
            data.join("railway-repair-1.xmi"),
        ];
        if !inputs[1].is_file() {
            return Err(format!(
                "no model given and {} is absent; pass the model's files as arguments",
                inputs[1].display()
            )
            .into());
        }
    }
    let graph = Graph::load(&inputs)?;
    println!(
        "model: {} nodes, {} edges",
        graph.model().node_count(),
        graph.model().edge_count()
    );
    let options = RunOptions::default();
    let runner = graph.runner(&options)?;
    println!("backend: {}", runner.backend_name());
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("datasets/queries/trainbenchmark"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cypher"))
        .collect();
    files.sort();
    for file in files {
        let name = file.file_stem().unwrap_or_default().to_string_lossy();
        let query = graph.query(&std::fs::read_to_string(&file)?)?;
        let matches = runner.execute(&query, &options)?;
        let t = matches.timings();
        println!(
            "{name:<20} {:>6} matches  {:>10.3?} on {}",
            matches.count(),
            t.total,
            t.backend
        );
        if let Some(row) = matches.row(0) {
            for (column, item) in matches.columns().iter().zip(row.items()) {
                match item {
                    Item::Node(n) => println!("    {column} = {} {:?}", n.key(), n.labels()),
                    Item::Value(v) => println!("    {column} = {v}"),
                    other => println!("    {column} = {other:?}"),
                }
            }
        }
    }
    Ok(())
}
