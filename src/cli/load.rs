//! `gemp load` and `gemp generate`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};

use gemp::io::format::Format;
use gemp::io::input::{total_size, LoadPhase, LoadProgress};
use gemp::io::{LoadOptions, LoadReport};
use gemp::model::{snapshot, Model};
use gemp::util::safe_write::{self, WriteOptions};

/// Arguments of `gemp load`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp load datasets/imdb-sample -o sample.gemp
  gemp load datasets/imdb-sample -o sample.gemp --json
  gemp load title.basics.tsv.gz name.basics.tsv.gz title.principals.tsv.gz -o imdb.gemp
  gemp load --format imdb-lists actors.list.gz actresses.list.gz movies.list.gz -o old.gemp
  gemp load --format xmi railway.xmi --metamodel railway.xcore -o railway.gemp
  gemp load --format neo4j-csv csv-dir/ --metamodel railway.xcore -o railway.gemp
  gemp load --format json graph.json -o graph.gemp

  # Neo4j bulk-import CSV laid out for neo4j-admin database import: header files apart,
  # labels and types on the command line, `|` between fields, `,` between array items
  gemp load --format neo4j-csv --delimiter '|' --array-delimiter , --id-type integer \\
    --nodes=Person=persons-header.csv,persons.csv \\
    --nodes=Person:Admin=admins-header.csv,admins-1.csv,admins-2.csv \\
    --relationships=KNOWS=knows-header.csv,knows.csv -o social.gemp")]
pub struct LoadArgs {
    /// Input files or directories (Neo4j CSV: each file with its own header).
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
    /// Print a JSON report on stdout: {"nodes", "edges", "bytes", "seconds", "output",
    /// "report": {"files": [{"file", "rows", "malformed", "bytes"}], "malformed",
    /// "dangling_nodes", "duplicate_edges_skipped"}} ("report" is null for a snapshot input).
    #[arg(long)]
    pub json: bool,
    /// Neo4j bulk-import CSV options, as `neo4j-admin database import` takes them.
    #[command(flatten)]
    pub neo4j: Neo4jCsvArgs,
}

/// The `neo4j-admin database import` options of `gemp load` (they imply `--format neo4j-csv`).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Neo4j CSV (neo4j-admin database import conventions)")]
pub struct Neo4jCsvArgs {
    /// Node files sharing one header: the first line of the first file (which may hold only the
    /// header) heads them all; the labels given are added to every node (besides a `:LABEL`
    /// column). Repeatable.
    #[arg(long = "nodes", value_name = "[LABEL[:LABEL…]=]FILE[,FILE…]")]
    pub nodes: Vec<String>,
    /// Relationship files sharing one header, like `--nodes`; the type given applies to rows
    /// without a `:TYPE` value. Repeatable.
    #[arg(long = "relationships", value_name = "[TYPE=]FILE[,FILE…]")]
    pub relationships: Vec<String>,
    /// The field delimiter: one ASCII character, or `TAB` / `\t`.
    #[arg(long, value_name = "CHAR", default_value = ",", value_parser = gemp::io::neo4j_csv::parse_delimiter)]
    pub delimiter: u8,
    /// The separator of array items (`tags:string[]`) and of labels in a `:LABEL` field.
    #[arg(long, value_name = "CHAR", default_value = ";", value_parser = gemp::io::neo4j_csv::parse_array_delimiter)]
    pub array_delimiter: char,
    /// The quote character.
    #[arg(long, value_name = "CHAR", default_value = "\"", value_parser = gemp::io::neo4j_csv::parse_delimiter)]
    pub quote: u8,
    /// How ids are compared: `string` (byte for byte) or `integer` (by value: `007` and `7` are
    /// one node; a non-integer id is a malformed row).
    #[arg(long, value_enum, default_value = "string", ignore_case = true)]
    pub id_type: gemp::io::neo4j_csv::IdType,
}

impl Neo4jCsvArgs {
    /// The loader's options; an error for a group that does not parse or a delimiter equal to
    /// the quote.
    pub fn options(&self) -> anyhow::Result<gemp::io::neo4j_csv::CsvOptions> {
        use gemp::io::neo4j_csv::{CsvOptions, GroupKind, InputGroup};
        if self.delimiter == self.quote {
            anyhow::bail!("--delimiter and --quote are both `{}`", self.quote as char);
        }
        let mut groups = Vec::new();
        for (kind, specs) in [
            (GroupKind::Nodes, &self.nodes),
            (GroupKind::Relationships, &self.relationships),
        ] {
            for spec in specs {
                groups.push(InputGroup::parse(kind, spec).map_err(anyhow::Error::msg)?);
            }
        }
        Ok(CsvOptions {
            delimiter: self.delimiter,
            array_delimiter: self.array_delimiter,
            quote: self.quote,
            id_type: self.id_type,
            groups,
        })
    }
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
    /// A Graph500 Kronecker (R-MAT) graph: 2^scale nodes, edge-factor × 2^scale generated edges
    /// (a=0.57, b=0.19, c=0.19), self-loops dropped, duplicate pairs kept once, each stored as
    /// one edge of type E from the lower node key to the higher; nodes labelled L0.. uniformly.
    /// Written as a .gemp snapshot. Deterministic per seed, generated on all cores.
    #[command(after_help = "Examples:
  gemp generate rmat --scale 16 --edge-factor 16 -o rmat16.gemp
  gemp generate rmat --scale 23 --edge-factor 16 --labels 4 --seed 7 -o rmat23-l4.gemp")]
    Rmat {
        /// log2 of the node count (at most 31).
        #[arg(long)]
        scale: u32,
        /// Generated edges per node.
        #[arg(long, default_value_t = 16)]
        edge_factor: u32,
        /// Number of node labels (L0, L1, …), uniform.
        #[arg(long, default_value_t = 1)]
        labels: u32,
        /// Random seed (same seed, same graph).
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
    let options = LoadOptions {
        strict,
        ..Default::default()
    };
    load_model_opts(inputs, format, &options, verify)
}

/// [`load_model_with`] with all the loader's options.
pub fn load_model_opts(
    inputs: &[PathBuf],
    format: Format,
    options: &LoadOptions,
    verify: bool,
) -> anyhow::Result<(Model, Option<LoadReport>)> {
    let format = match format {
        Format::Auto => gemp::io::format::detect(inputs)?,
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
    // One bar for the whole load (none when `gemp load` already shows one).
    let _progress = LoadProgress::start(total_size(inputs), false);
    let (model, report) = gemp::io::load(inputs, format, options)?;
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
    let csv = args.neo4j.options()?;
    let csv_given = csv != gemp::io::neo4j_csv::CsvOptions::default();
    let format = match args.format {
        Format::Auto if csv_given => Format::Neo4jCsv,
        f if csv_given && f != Format::Neo4jCsv => anyhow::bail!(
            "--nodes, --relationships, --delimiter, --array-delimiter, --quote and --id-type \
             are for --format neo4j-csv"
        ),
        f => f,
    };
    if args.inputs.is_empty() && csv.groups.is_empty() {
        anyhow::bail!("no input: give files or directories, or --nodes / --relationships");
    }
    let group_files: Vec<PathBuf> = csv
        .groups
        .iter()
        .flat_map(|g| g.files.iter().cloned())
        .collect();
    let options = LoadOptions {
        strict: args.strict,
        neo4j: csv,
        ..Default::default()
    };
    let start = Instant::now();
    let mut inputs = args.inputs.clone();
    inputs.extend(args.metamodel.iter().cloned());
    // One bar for parsing, freezing and writing (a snapshot input is opened, not loaded).
    let snapshot_input = match format {
        Format::Auto => gemp::io::format::detect(&inputs).ok() == Some(Format::Snapshot),
        f => f == Format::Snapshot,
    };
    let mut progress = if snapshot_input {
        None
    } else {
        Some(LoadProgress::start(
            total_size(&inputs) + total_size(&group_files),
            args.output.is_some(),
        ))
    };
    let (model, report) = load_model_opts(&inputs, format, &options, true)?;
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
    if args.json {
        let doc = serde_json::json!({
            "nodes": model.node_count(),
            "edges": model.edge_count(),
            "bytes": bytes,
            "seconds": secs,
            "output": args.output,
            "report": report,
        });
        super::print_report(format_args!("{}\n", serde_json::to_string_pretty(&doc)?))?;
    }
    Ok(())
}

/// Writes the model `make` generates to the snapshot `output` (checked before generating, so a
/// refused path costs no work) and reports its counts (`edges_note` after the edge count) and time.
fn write_generated(
    output: &Path,
    force: bool,
    edges_note: &str,
    make: impl FnOnce() -> anyhow::Result<gemp::model::Model>,
) -> anyhow::Result<()> {
    let write_options = WriteOptions::force(force);
    safe_write::check(output, &write_options)?;
    let start = Instant::now();
    let model = make()?;
    snapshot::write_with(&model, output, &write_options)
        .with_context(|| format!("writing {}", output.display()))?;
    if !quiet() {
        eprintln!(
            "wrote {} nodes, {} edges{edges_note} to {} in {:.2}s",
            model.node_count(),
            model.edge_count(),
            output.display(),
            start.elapsed().as_secs_f64()
        );
    }
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
            let config = gemp::generate::GraphGenConfig {
                nodes,
                edges,
                labels,
                types,
                seed,
                with_values: true,
            };
            write_generated(&output, force, "", || {
                Ok(gemp::generate::generate_graph(&config)?)
            })
        }
        GenerateKind::Rmat {
            scale,
            edge_factor,
            labels,
            seed,
            output,
            force,
        } => {
            let config = gemp::generate::RmatConfig {
                scale,
                edge_factor,
                labels,
                seed,
                ..Default::default()
            };
            let generated = format!(" ({} generated)", config.generated_edges());
            write_generated(&output, force, &generated, || {
                Ok(gemp::generate::generate_rmat(&config)?)
            })
        }
        GenerateKind::Trust(a) => super::trust::generate(a),
        GenerateKind::Ttc14 {
            blocks,
            output,
            force,
        } => {
            let start = Instant::now();
            let config = gemp::generate::Ttc14GenConfig { blocks };
            let s =
                gemp::generate::generate_ttc14_with(&config, &output, &WriteOptions::force(force))?;
            let counts = gemp::generate::Ttc14Counts::of(blocks);
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
            let config = gemp::generate::imdb::ImdbGenConfig {
                titles,
                persons,
                principals,
                seed,
                gzip,
                gzip_level,
                ..Default::default()
            };
            let start = Instant::now();
            let s = gemp::generate::imdb::generate_imdb_with(
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
