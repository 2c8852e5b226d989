//! `gemp load` and `gemp generate`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::io::format::Format;
use crate::io::input::{total_size, LoadPhase, LoadProgress};
use crate::io::safe_write::{self, WriteOptions};
use crate::io::{LoadOptions, LoadReport};
use crate::model::{snapshot, Model};

/// Arguments of `gemp load`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp load datasets/imdb-sample -o sample.gemp
  gemp load title.basics.tsv.gz name.basics.tsv.gz title.principals.tsv.gz -o imdb.gemp
  gemp load --format imdb-lists actors.list.gz actresses.list.gz movies.list.gz -o old.gemp
  gemp load --format xmi railway.xmi --metamodel railway.xcore -o railway.gemp
  gemp load --format neo4j-csv csv-dir/ --metamodel railway.xcore -o railway.gemp
  gemp load --format json graph.json -o graph.gemp")]
pub struct LoadArgs {
    /// Input files or directories.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Write the frozen model to this .gemp snapshot.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Input format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: Format,
    /// Fail on the first malformed row instead of skipping and reporting it.
    #[arg(long)]
    pub strict: bool,
    /// An `.ecore` or `.xcore` metamodel for XMI, Neo4j-CSV or JSON inputs (superclass labels,
    /// property types, defaults, opposite references). Metamodel files among the inputs work too.
    #[arg(long)]
    pub metamodel: Option<PathBuf>,
    /// Replace existing output files (only regular files: a device, FIFO or directory is never
    /// replaced).
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `gemp generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    kind: GenerateKind,
}

#[derive(Debug, Subcommand)]
enum GenerateKind {
    /// A random labelled multigraph (labels L0.., types T0.., int property `value`), written as a
    /// .gemp snapshot.
    #[command(after_help = "Examples:
  gemp generate graph --nodes 100000 --edges 1000000 -o random.gemp
  gemp generate graph --nodes 20000000 --edges 100000000 --labels 16 --types 8 -o big.gemp")]
    Graph {
        /// Number of nodes.
        #[arg(long, default_value_t = 10_000)]
        nodes: u64,
        /// Number of edges.
        #[arg(long, default_value_t = 50_000)]
        edges: u64,
        /// Number of labels.
        #[arg(long, default_value_t = 8)]
        labels: u32,
        /// Number of relationship types.
        #[arg(long, default_value_t = 4)]
        types: u32,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output snapshot.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace existing output files (only regular files: a device, FIFO or directory is never
        /// replaced).
        #[arg(long)]
        force: bool,
    },
    /// A synthetic dump in the official IMDb TSV format.
    #[command(after_help = "Examples:
  gemp generate imdb --titles 3000 --persons 4000 --seed 42 -o datasets/imdb-sample
  gemp generate imdb --titles 2000000 --persons 3000000 --gzip -o /data/imdb-big")]
    Imdb {
        /// Number of titles.
        #[arg(long, default_value_t = 10_000)]
        titles: u64,
        /// Number of persons.
        #[arg(long, default_value_t = 15_000)]
        persons: u64,
        /// Number of principals (credits); default about 6 per title.
        #[arg(long)]
        principals: Option<u64>,
        /// Random seed (same seed, same bytes).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write .tsv.gz instead of .tsv.
        #[arg(long)]
        gzip: bool,
        /// gzip level 0–9 (1 is fast; 6 is what the official dumps use).
        #[arg(long, default_value_t = 1)]
        gzip_level: u32,
        /// Output directory.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace existing output files (only regular files: a device, FIFO or directory is never
        /// replaced).
        #[arg(long)]
        force: bool,
    },
    /// The synthetic models of the TTC 2014 Movie Database Case (N blocks of 10 movies, 10 persons
    /// and 32 acting credits: 3N couples, N 3-cliques), written in the IMDb TSV format.
    #[command(after_help = "Examples:
  gemp generate ttc14 --blocks 1000 -o data/ttc14-1000
  gemp generate ttc14 --blocks 50000 -o data/ttc14-1m     # 1,000,000 movies and persons
  gemp load data/ttc14-1000 -o ttc14.gemp")]
    Ttc14 {
        /// The case's N: number of (positive, negative) test blocks, 1 to 100,000,000.
        #[arg(long)]
        blocks: u64,
        /// Output directory.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace existing output files (only regular files: a device, FIFO or directory is never
        /// replaced).
        #[arg(long)]
        force: bool,
    },
    /// Random TruST data and template graphs with string values (optionally a planted noisy copy).
    Trust(super::trust::GenerateTrustArgs),
}

/// Loads a model from inputs in any supported format (a snapshot is opened, not parsed).
pub fn load_model(
    inputs: &[PathBuf],
    format: Format,
    strict: bool,
) -> anyhow::Result<(Model, Option<LoadReport>)> {
    load_model_with(inputs, format, strict, true)
}

/// [`load_model`], choosing whether a snapshot's section checksums are verified on open.
pub fn load_model_with(
    inputs: &[PathBuf],
    format: Format,
    strict: bool,
    verify: bool,
) -> anyhow::Result<(Model, Option<LoadReport>)> {
    let format = match format {
        Format::Auto => crate::io::format::detect(inputs)?,
        f => f,
    };
    if format == Format::Snapshot {
        let [path] = inputs else {
            anyhow::bail!("a snapshot is opened on its own: give exactly one .gemp file");
        };
        let start = Instant::now();
        let options = snapshot::OpenOptions {
            verify_checksums: verify,
        };
        let model = snapshot::open_with(path, &options)?;
        log::debug!("opened {} in {:.3?}", path.display(), start.elapsed());
        return Ok((model, None));
    }
    let options = LoadOptions {
        strict,
        ..Default::default()
    };
    // One bar for the whole load (none when `gemp load` already shows one).
    let _progress = LoadProgress::start(total_size(inputs), false);
    let (model, report) = crate::io::load(inputs, format, &options)?;
    report.log_summary();
    Ok((model, Some(report)))
}

fn quiet() -> bool {
    log::max_level() < log::LevelFilter::Warn
}

/// `gemp load`.
pub fn load(args: LoadArgs) -> anyhow::Result<()> {
    let write_options = WriteOptions::force(args.force);
    if let Some(out) = &args.output {
        // Refuse before a long load, not after it.
        safe_write::check(out, &write_options)?;
    }
    let start = Instant::now();
    let mut inputs = args.inputs.clone();
    inputs.extend(args.metamodel.iter().cloned());
    // One bar for parsing, freezing and writing (a snapshot input is opened, not loaded).
    let snapshot_input = match args.format {
        Format::Auto => crate::io::format::detect(&inputs).ok() == Some(Format::Snapshot),
        f => f == Format::Snapshot,
    };
    let mut progress = if snapshot_input {
        None
    } else {
        Some(LoadProgress::start(
            total_size(&inputs),
            args.output.is_some(),
        ))
    };
    let (model, report) = load_model(&inputs, args.format, args.strict)?;
    let secs = start.elapsed().as_secs_f64();
    let bytes: u64 = report
        .as_ref()
        .map_or(0, |r| r.files.iter().map(|f| f.bytes).sum());
    let summary = || {
        if !quiet() {
            eprintln!(
                "loaded {} nodes, {} edges from {:.1} MB in {:.2}s ({:.0} MB/s)",
                model.node_count(),
                model.edge_count(),
                bytes as f64 / 1e6,
                secs,
                bytes as f64 / 1e6 / secs.max(1e-9)
            );
            if let Some(r) = &report {
                if r.malformed_count() > 0 || r.dangling_nodes > 0 {
                    eprintln!(
                        "{} malformed rows skipped, {} nodes created for dangling references (-v for details)",
                        r.malformed_count(),
                        r.dangling_nodes
                    );
                }
            }
        }
    };
    match &progress {
        Some(p) => p.suspend(summary),
        None => summary(),
    }
    if let Some(out) = &args.output {
        let t = Instant::now();
        if let Some(p) = &progress {
            p.phase(LoadPhase::Write);
        }
        snapshot::write_with(&model, out, &write_options).context("writing the snapshot")?;
        // The bar goes before the last line.
        progress = None;
        if !quiet() {
            eprintln!(
                "wrote {} in {:.2}s",
                out.display(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    drop(progress);
    Ok(())
}

/// `gemp generate`.
pub fn generate(args: GenerateArgs) -> anyhow::Result<()> {
    match args.kind {
        GenerateKind::Graph {
            nodes,
            edges,
            labels,
            types,
            seed,
            output,
            force,
        } => {
            let write_options = WriteOptions::force(force);
            safe_write::check(&output, &write_options)?;
            let start = Instant::now();
            let config = crate::io::generate::GraphGenConfig {
                nodes,
                edges,
                labels,
                types,
                seed,
                with_values: true,
            };
            let model = crate::io::generate::generate_graph(&config)?;
            snapshot::write_with(&model, &output, &write_options)
                .with_context(|| format!("writing {}", output.display()))?;
            if !quiet() {
                eprintln!(
                    "wrote {} nodes, {} edges to {} in {:.2}s",
                    model.node_count(),
                    model.edge_count(),
                    output.display(),
                    start.elapsed().as_secs_f64()
                );
            }
            Ok(())
        }
        GenerateKind::Trust(a) => super::trust::generate(a),
        GenerateKind::Ttc14 {
            blocks,
            output,
            force,
        } => {
            let start = Instant::now();
            let config = crate::io::generate::Ttc14GenConfig { blocks };
            let s = crate::io::generate::generate_ttc14_with(
                &config,
                &output,
                &WriteOptions::force(force),
            )?;
            let counts = crate::io::generate::Ttc14Counts::of(blocks);
            if !quiet() {
                eprintln!(
                    "wrote {} movies, {} persons, {} acting credits ({} bytes) to {} in {:.2}s; \
                     the model holds {} couples and {} 3-cliques",
                    s.titles,
                    s.persons,
                    s.principals,
                    s.bytes,
                    output.display(),
                    start.elapsed().as_secs_f64(),
                    counts.couples,
                    counts.three_cliques
                );
            }
            Ok(())
        }
        GenerateKind::Imdb {
            titles,
            persons,
            principals,
            seed,
            gzip,
            gzip_level,
            output,
            force,
        } => {
            let config = crate::io::generate::imdb::ImdbGenConfig {
                titles,
                persons,
                principals,
                seed,
                gzip,
                gzip_level,
                ..Default::default()
            };
            let start = Instant::now();
            let s = crate::io::generate::imdb::generate_imdb_with(
                &config,
                &output,
                &WriteOptions::force(force),
            )?;
            let secs = start.elapsed().as_secs_f64();
            let rows = s.titles + s.persons + s.principals + s.ratings;
            eprintln!(
                "wrote {} titles, {} persons, {} principals, {} ratings ({} bytes) to {} in {:.2}s ({:.2}M rows/s)",
                s.titles,
                s.persons,
                s.principals,
                s.ratings,
                s.bytes,
                output.display(),
                secs,
                rows as f64 / secs.max(1e-9) / 1e6
            );
            Ok(())
        }
    }
}
