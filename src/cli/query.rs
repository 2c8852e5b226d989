//! `gemp match`, `gemp batch` and `gemp explain`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use super::output::{write_partial_marker, write_rows, Finished, OutputFormat, RowWriter};
use super::Outcome;
use gemp::engines::gpsense;
use gemp::engines::staged::{FilterAlgo, JoinAlgo, OrderAlgo, StageChoice};
use gemp::io::format::Format;

use gemp::exec::{self, MatchOptions, Semantics};
use gemp::model::Model;
use gemp::pattern::binder::{self, Params};
use gemp::pattern::ir::BoundQuery;
use gemp::session::{timings_line, Backend};
use gemp::session::{EngineKind, PrepareOptions, QueryLanguage, Session, SessionOptions};
use gemp::util::deadline::Deadline;

/// How a query file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryFormat {
    /// By extension: `.graph` = subgraph-bench, anything else = Cypher.
    Auto,
    /// A pattern query in gemp's openCypher subset.
    Cypher,
    /// A query graph in the subgraph-matching benchmark format.
    SubgraphBench,
}

/// Options shared by the query commands.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The model: a .gemp snapshot or anything `gemp load` reads; repeat for several input files
    /// (default: the bundled IMDb sample).
    #[arg(long, short = 'm')]
    pub model: Vec<PathBuf>,
    /// Format of --model inputs.
    #[arg(long, value_enum, default_value = "auto")]
    pub model_format: Format,
    /// Query parameter `name=value` (JSON scalars are typed: 42, 1.5, true, "x"; else a string).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Which bindings count as matches: isomorphism = distinct pattern nodes on distinct nodes
    /// (the default); homomorphism = no distinctness; cypher (alias relationship-isomorphism) =
    /// Neo4j's: the relationships of one MATCH on distinct edges, each relationship edge by edge.
    /// Overrides a query file's `// gemp: semantics=…` line (with a warning when they differ).
    #[arg(long, value_enum)]
    pub semantics: Option<Semantics>,
    /// How the query files are written.
    #[arg(long, value_enum, default_value = "auto")]
    pub query_format: QueryFormat,
    /// A Cypher query given as text instead of a file (`batch`: repeat for several; their
    /// results are named query-1, query-2, …). A query file `-` is read from standard input.
    #[arg(long = "query", short = 'c', value_name = "TEXT")]
    pub query_text: Vec<String>,
    /// Skip verifying a snapshot's section checksums (structure is still validated).
    #[arg(long)]
    pub no_verify: bool,
    /// Where queries run: auto = OpenCL on a GPU or accelerator (or the device named by --device /
    /// $GEMP_DEVICE), else the host — and the host for queries it counts without enumerating
    /// (factorised plans); opencl = the OpenCL pipeline on any device, a CPU one (PoCL) included
    /// (an error without a device); host = the host matcher.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// The OpenCL device (an index from `gemp devices`; default: $GEMP_DEVICE, else the first
    /// GPU).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// Matching engine: GEMP's two-phase pipeline, or GpSense's filter-and-join.
    #[arg(long, value_enum, default_value = "gemp")]
    pub engine: EngineKind,
    /// GpSense: device-memory budget in bytes; a data graph whose topology needs more is
    /// compressed until it fits (saved beside a snapshot as `<snapshot>.gpsense` and reused).
    #[arg(long, value_name = "BYTES")]
    pub device_memory: Option<u64>,
    /// GpSense: candidate refinement rounds after the first filtering pass, each in reversed order
    /// (1, the paper's best variant; 0 = none; rounds stop early once nothing changes).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub refine_rounds: usize,
    /// Stage algorithms: the filter stage (candidate sets) by GEMP's or GpSense's algorithm.
    /// Any of --filter/--order/--join runs the query through swappable stages on the host (the
    /// others default to gemp; --timings then times filter, order and join), always enumerating.
    /// Not with --engine gpsense or --backend opencl.
    #[arg(long, value_enum, value_name = "ALGO")]
    pub filter: Option<FilterAlgo>,
    /// Stage algorithms: the order stage (node visiting order): GEMP's cost-based planner or
    /// GpSense's rank order (see --filter).
    #[arg(long, value_enum, value_name = "ALGO")]
    pub order: Option<OrderAlgo>,
    /// Stage algorithms: the join stage: GEMP's backtracking enumerator or GpSense's
    /// edge-candidate join (see --filter).
    #[arg(long, value_enum, value_name = "ALGO")]
    pub join: Option<JoinAlgo>,
}

impl QueryArgs {
    /// The session these arguments ask for (backend, device, engine and GpSense's setup).
    fn session_options(&self) -> anyhow::Result<SessionOptions> {
        if self.engine == EngineKind::Gemp && self.device_memory.is_some() {
            bail!("--device-memory applies to --engine gpsense only");
        }
        Ok(SessionOptions {
            stages: self.stages(),
            backend: self.backend,
            device: gemp::gpu::selector(self.device),
            engine: self.engine,
            gpsense: gpsense::EngineConfig {
                filter: gpsense::filter::FilterConfig {
                    refine_rounds: self.refine_rounds,
                },
                device_memory: self.device_memory,
                cache: gpsense::store::cache_path(&self.model),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    /// The stage algorithms asked for: `None` without --filter/--order/--join, else each
    /// stage's (gemp where not given).
    fn stages(&self) -> Option<StageChoice> {
        if self.filter.is_none() && self.order.is_none() && self.join.is_none() {
            return None;
        }
        Some(StageChoice {
            filter: self.filter.unwrap_or_default(),
            order: self.order.unwrap_or_default(),
            join: self.join.unwrap_or_default(),
        })
    }

    /// Opens the session on `model`.
    fn open_session<'m>(&self, model: &'m Model) -> anyhow::Result<Session<'m>> {
        Ok(Session::new(model, &self.session_options()?)?)
    }
}

/// Arguments of `gemp match`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp match datasets/queries/four-actors-jack.cypher
  gemp match --model imdb.gemp couples.cypher --format jsonl
  gemp match --model imdb.gemp couples.cypher --format parquet -o couples.parquet
  gemp match --model imdb.gemp couples.cypher --format arrow | python3 -c 'import pyarrow as pa, sys; print(pa.ipc.open_stream(sys.stdin.buffer).read_all())'
  gemp match --model imdb.gemp q.cypher --param name=Jack --count
  gemp match --model hprd.gemp query_dense_16_1.graph --count
  gemp match --model yeast.gemp query_dense_16_1.graph --count --limit 100000
  gemp match --model imdb.gemp big.cypher --timeout 10 --count
  gemp match --model imdb.gemp q.cypher --backend opencl --device 1 --timings
  gemp match datasets/queries/four-actors-jack.cypher --filter gpsense --order gemp --join gpsense --timings")]
pub struct MatchArgs {
    /// The query file (.cypher, or a .graph query graph); `-` reads it from standard input.
    #[arg(required_unless_present = "query_text", conflicts_with = "query_text")]
    pub query: Option<PathBuf>,
    #[command(flatten)]
    pub common: QueryArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Write the output to this file (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace an existing --output file (only a regular file).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Print only the number of results.
    #[arg(long)]
    pub count: bool,
    /// Stop after the first N pattern matches, counted exactly (the subgraph-matching field's
    /// "first N embeddings"; works for `.graph` queries, which have no LIMIT). A query whose rows
    /// are not one per match (grouping, DISTINCT, ORDER BY, SKIP) is refused unless the
    /// candidate-space core runs it.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Stop after this many seconds and report the partial result as partial (counted from the
    /// start of reading the query: parsing, binding and planning count; opening the model does
    /// not).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Print the time of each stage to stderr.
    #[arg(long)]
    pub timings: bool,
    /// Never cut table cells (by default, on a terminal, the widest cells are cut with `…` so the
    /// table fits the terminal's width; output to a file or pipe is never cut).
    #[arg(long)]
    pub no_trunc: bool,
    /// With --format jsonl: start with a `{"_meta": {"semantics": …, "engine": …}}` line (the
    /// semantics in force and the engine the session opened), before the rows.
    #[arg(long)]
    pub meta: bool,
    /// Running on a partition set, alone or as one process of a cluster.
    #[command(flatten)]
    pub cluster_args: super::cluster::ClusterMatchArgs,
}

/// Arguments of `gemp batch`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp batch --model imdb.gemp datasets/queries/*.cypher --out results/
  gemp batch --model hprd.gemp ../shared/data/hprd/queries/*.graph --out hprd-out --count
  gemp batch --model yeast.gemp yeast/queries/*.graph --out y --count --limit 100000 --timeout 10")]
pub struct BatchArgs {
    /// Query files (`-`: one query from standard input).
    #[arg(required_unless_present = "query_text")]
    pub queries: Vec<PathBuf>,
    #[command(flatten)]
    pub common: QueryArgs,
    /// Directory for one result file per query.
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Output format of the result files.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: OutputFormat,
    /// Only count results (result files then hold the count).
    #[arg(long)]
    pub count: bool,
    /// Stop after the first N pattern matches, counted exactly (the subgraph-matching field's
    /// "first N embeddings"; works for `.graph` queries, which have no LIMIT). A query whose rows
    /// are not one per match (grouping, DISTINCT, ORDER BY, SKIP) is refused unless the
    /// candidate-space core runs it.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Per-query time limit in seconds (parsing, binding and planning count).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Print each query's measurement points to stderr.
    #[arg(long)]
    pub timings: bool,
    /// Replace existing result files in the output directory.
    #[arg(long)]
    pub force: bool,
    /// Print the summary as one JSON document instead of a table: {"queries": [{"name", "file",
    /// "output", "results", "seconds", "status", "error"}], "failed", "partial"}.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `gemp explain`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp explain datasets/queries/four-actors-jack.cypher
  gemp explain --model imdb.gemp couples.cypher
  gemp explain datasets/queries/four-actors-jack.cypher --filter gpsense --join gpsense
  gemp explain -c 'MATCH (t:Title) RETURN t' --json")]
pub struct ExplainArgs {
    /// The query file; `-` reads it from standard input.
    #[arg(required_unless_present = "query_text", conflicts_with = "query_text")]
    pub query: Option<PathBuf>,
    #[command(flatten)]
    pub common: QueryArgs,
    /// Print one JSON document: {"engine", "semantics", "semantics_description", "notes",
    /// "plan"}.
    #[arg(long)]
    pub json: bool,
    /// Give up after this many seconds of parsing, binding and planning (an error, exit status
    /// 3, nothing printed).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// The environment variable that names the bundled sample's directory.
pub const SAMPLE_ENV: &str = "GEMP_SAMPLE";

/// Where the bundled IMDb sample (used when no `--model` is given) is looked for: `$GEMP_SAMPLE`
/// alone when it is set; else beside the executable (`<bin>/datasets/imdb-sample`, an installed
/// `<prefix>/share/gemp/imdb-sample`), then the source tree the binary was built from.
pub fn sample_candidates() -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os(SAMPLE_ENV) {
        return vec![PathBuf::from(dir)];
    }
    let mut found = Vec::new();
    if let Some(bin) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        found.push(bin.join("datasets/imdb-sample"));
        found.push(bin.join("../share/gemp/imdb-sample"));
    }
    found.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/imdb-sample"));
    found
}

/// The bundled IMDb sample, or an error saying where it was looked for and how to name it.
pub fn bundled_sample() -> anyhow::Result<PathBuf> {
    let candidates = sample_candidates();
    if let Some(dir) = candidates.iter().find(|d| d.is_dir()) {
        return Ok(dir.clone());
    }
    let looked: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
    bail!(
        "no --model given and the bundled sample was not found (looked in {}); give --model, or \
         set {SAMPLE_ENV} to the sample's directory (datasets/imdb-sample in gemp's sources)",
        looked.join(", ")
    )
}

/// The model inputs: `--model`'s, else the bundled sample.
pub fn model_inputs(model: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    if !model.is_empty() {
        return Ok(model.to_vec());
    }
    let sample = bundled_sample()?;
    log::info!(
        "no --model given: using the bundled sample {}",
        sample.display()
    );
    Ok(vec![sample])
}

fn open_model(args: &QueryArgs) -> anyhow::Result<Model> {
    let inputs = model_inputs(&args.model)?;
    let (model, _) =
        super::load::load_model_with(&inputs, args.model_format, false, !args.no_verify)?;
    Ok(model)
}

fn params(args: &QueryArgs) -> anyhow::Result<Params> {
    parse_params(&args.params)
}

/// `--param NAME=VALUE` arguments as query parameters.
pub(super) fn parse_params(list: &[String]) -> anyhow::Result<Params> {
    let mut p = Params::new();
    for kv in list {
        let Some((k, v)) = kv.split_once('=') else {
            bail!("--param takes NAME=VALUE, got `{kv}`");
        };
        let k = k.trim_start_matches('$');
        let value = binder::parse_param(k, v).map_err(|e| anyhow::anyhow!(e))?;
        p.insert(k.to_owned(), value);
    }
    Ok(p)
}

/// Where a query comes from: a file, standard input (`-`) or `-c TEXT`.
#[derive(Debug, Clone)]
pub enum QueryInput {
    /// A query file (Cypher, or a `.graph` query graph).
    File(PathBuf),
    /// Standard input, read once.
    Stdin,
    /// Query text given on the command line, with the name messages and result files use.
    Text {
        /// `query` (match, explain) or `query-N` (batch).
        name: String,
        /// The Cypher source.
        text: String,
    },
}

impl QueryInput {
    /// The input a positional path names (`-` is standard input).
    pub fn from_path(path: &Path) -> QueryInput {
        if path.as_os_str() == "-" {
            QueryInput::Stdin
        } else {
            QueryInput::File(path.to_path_buf())
        }
    }

    /// The one query `match` and `explain` run: the file, or `-c TEXT`.
    pub(super) fn single(file: &Option<PathBuf>, args: &QueryArgs) -> anyhow::Result<QueryInput> {
        match (file, args.query_text.as_slice()) {
            (Some(path), []) => Ok(QueryInput::from_path(path)),
            (None, [text]) => Ok(QueryInput::Text {
                name: "query".into(),
                text: text.clone(),
            }),
            (None, []) => anyhow::bail!("no query: give a query file, `-` or -c TEXT"),
            _ => anyhow::bail!("one query at a time: a query file, `-` or one -c TEXT"),
        }
    }

    /// How messages name it, and (as a file name) what batch names its result after.
    pub fn display_path(&self) -> PathBuf {
        match self {
            QueryInput::File(p) => p.clone(),
            QueryInput::Stdin => PathBuf::from("stdin.cypher"),
            QueryInput::Text { name, .. } => PathBuf::from(format!("{name}.cypher")),
        }
    }
}

/// Reads and binds a query through the library's one preparation ([`gemp::session::prepare`]);
/// returns it with the semantics it runs under.
pub fn load_query(
    input: &QueryInput,
    model: &Model,
    args: &QueryArgs,
    params: &Params,
) -> anyhow::Result<(BoundQuery, Semantics)> {
    let options = PrepareOptions {
        params: params.clone(),
        semantics: args.semantics,
        language: match args.query_format {
            QueryFormat::SubgraphBench => QueryLanguage::SubgraphBench,
            QueryFormat::Cypher => QueryLanguage::Cypher,
            QueryFormat::Auto => QueryLanguage::Auto,
        },
        lenient: false,
    };
    let prepared = match input {
        QueryInput::File(path) => gemp::session::prepare::prepare_file(model, path, &options)?,
        QueryInput::Stdin => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                .context("reading the query from standard input")?;
            let text = String::from_utf8(bytes)
                .map_err(|e| anyhow::anyhow!("<stdin>: the query is not UTF-8 ({e})"))?;
            gemp::session::prepare::prepare(model, &text, Some("<stdin>"), &options)?
        }
        QueryInput::Text { name, text } => {
            gemp::session::prepare::prepare(model, text, Some(&format!("<{name}>")), &options)?
        }
    };
    let semantics = prepared.semantics();
    Ok((prepared.into_bound(), semantics))
}

fn options(
    semantics: Semantics,
    timeout: Option<f64>,
    count_only: bool,
    limit: Option<u64>,
) -> anyhow::Result<MatchOptions> {
    let timeout = match timeout {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--timeout must be a positive number of seconds, got {s}"),
        None => None,
    };
    Ok(MatchOptions {
        semantics,
        timeout,
        count_only,
        limit,
    })
}

/// `gemp match`.
pub fn run_match(args: MatchArgs) -> anyhow::Result<Outcome> {
    if args.cluster_args.parts.is_some() {
        if !args.common.model.is_empty() {
            bail!("--parts runs on a partition set: give it instead of --model");
        }
        #[cfg(feature = "cluster")]
        return super::cluster::match_on_cluster(&args);
        #[cfg(not(feature = "cluster"))]
        bail!("this gemp was built without the `cluster` feature");
    }
    let t0 = Instant::now();
    let model = open_model(&args.common)?;
    let t_load = t0.elapsed();
    let params = params(&args.common)?;
    let input = QueryInput::single(&args.query, &args.common)?;
    let limit = options(Semantics::default(), args.timeout, false, None)?.timeout;
    // One deadline from here on: reading, parsing and binding the query count too.
    let deadline = limit.map(Deadline::after);
    let (query, semantics) = Deadline::scope(deadline, || {
        load_query(&input, &model, &args.common, &params)
    })?;
    // `--count` of a query that returns one aggregate prints that aggregate's value.
    let single_aggregate = args.count && exec::is_single_aggregate(&query);
    let opts = MatchOptions {
        timeout: deadline.map(|d| d.left()),
        ..options(
            semantics,
            args.timeout,
            args.count && !single_aggregate,
            args.limit,
        )?
    };
    if args.meta && (args.count || args.format != OutputFormat::Jsonl) {
        bail!("--meta applies to --format jsonl without --count");
    }
    let stdout = std::io::stdout();
    let to_terminal = args.output.is_none() && std::io::IsTerminal::is_terminal(&stdout);
    if args.format.is_binary() && !args.count && to_terminal {
        let name = if args.format == OutputFormat::Arrow {
            "arrow"
        } else {
            "parquet"
        };
        bail!(
            "--format {name} writes binary data, not for a terminal: give -o FILE or redirect \
             stdout (`> out.{}`)",
            args.format.extension()
        );
    }
    let write_options = gemp::util::safe_write::WriteOptions::force(args.force);
    if let Some(path) = &args.output {
        gemp::util::safe_write::check(path, &write_options)?;
    }
    let session = args.common.open_session(&model)?;
    let max_width = if args.no_trunc || !to_terminal {
        None
    } else {
        terminal_width(&stdout)
    };
    let mut w = std::io::BufWriter::new(match &args.output {
        Some(path) => Output::File(gemp::util::safe_write::SafeFile::create(
            path,
            &write_options,
        )?),
        None => Output::Stdout(stdout.lock()),
    });
    if args.meta {
        writeln!(
            w,
            "{}",
            super::output::meta_line(semantics, &session.engine_name())
        )?;
    }
    // Rows are written as the session hands them out: while the search runs on the host, at the
    // end on a device. DOT deduplicates over all rows, so it collects them first.
    let streamed = !args.count && args.format.streams();
    // Matches found and elapsed time on stderr, for searches over a second on a terminal; not
    // when the rows themselves stream to that terminal (they show the progress, and a spinner
    // would be drawn over them).
    let rows_on_terminal = streamed && to_terminal;
    let spinner = gemp::io::input::SearchSpinner::start(streamed, !rows_on_terminal);
    let mut finished = Finished::default();
    let (count, partial, timings, report, t_out) = if streamed {
        let mut rows_out = RowWriter::new(args.format, max_width);
        let (summary, report) = session.run_streaming(&query, &opts, &mut |cols, rows| {
            spinner.add(rows.len() as u64);
            rows_out.write(&mut w, &model, cols, rows)?;
            // A table's first lines show at once, not when the buffer fills.
            w.flush()?;
            Ok(())
        })?;
        drop(spinner);
        finished = rows_out.finish(&mut w, &model, &summary.columns)?;
        (
            summary.count,
            summary.partial,
            summary.timings,
            report,
            Instant::now(),
        )
    } else {
        let (out, report) = session.run(&query, &opts)?;
        drop(spinner);
        let t_out = Instant::now();
        if args.count {
            writeln!(w, "{}", count_text(&model, &out, single_aggregate))?;
        } else {
            finished = write_rows(&mut w, &model, args.format, &out.columns, &out.rows)?;
        }
        (out.count, out.partial, out.timings, report, t_out)
    };
    if finished.empty_graph {
        log::warn!(
            "the rows hold no nodes or relationships, so the digraph is empty; use --format \
             table, jsonl or csv for this query"
        );
    }
    let reason = partial_reason(limit);
    if partial && !args.count {
        write_partial_marker(&mut w, args.format, count, &reason)?;
    }
    w.flush()?;
    if let Output::File(file) = w.into_inner().map_err(|e| e.into_error())? {
        file.commit()?;
    }
    if partial {
        // Said on stderr even with --quiet: the exit status alone is easy to miss.
        eprintln!("warning: partial result: {reason}; {count} rows so far (exit status 3)");
    }
    if args.timings {
        eprintln!(
            "{}",
            timings_line(
                &report,
                &timings,
                t_load,
                session.setup_time(),
                t_out.elapsed()
            )
        );
    }
    Ok(if partial {
        Outcome::Partial
    } else {
        Outcome::Complete
    })
}

/// Where `match` writes: stdout, or the `--output` file (committed once complete).
enum Output<'a> {
    Stdout(std::io::StdoutLock<'a>),
    File(gemp::util::safe_write::SafeFile),
}

impl Write for Output<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(w) => w.flush(),
        }
    }
}

/// What `--count` prints: the value of a query's single aggregate, else its number of rows.
fn count_text(model: &Model, out: &exec::QueryOutput<'_>, single_aggregate: bool) -> String {
    match out.rows.first().and_then(|r| r.first()) {
        Some(v) if single_aggregate => super::output::text(model, v),
        _ => out.count.to_string(),
    }
}

/// The width of the terminal stdout is, or `None` when it is not a terminal.
fn terminal_width(stdout: &std::io::Stdout) -> Option<usize> {
    if !std::io::IsTerminal::is_terminal(stdout) {
        return None;
    }
    console::Term::stdout()
        .size_checked()
        .map(|(_, cols)| usize::from(cols))
}

/// Why a result is partial, for its marker.
fn partial_reason(timeout: Option<Duration>) -> String {
    match timeout {
        Some(t) => format!("timed out after {t:?}"),
        None => "stopped early".into(),
    }
}

/// `gemp explain`.
pub fn run_explain(args: ExplainArgs) -> anyhow::Result<()> {
    let model = open_model(&args.common)?;
    let params = params(&args.common)?;
    let input = QueryInput::single(&args.query, &args.common)?;
    let deadline = options(Semantics::default(), args.timeout, false, None)?
        .timeout
        .map(Deadline::after);
    let out_of_time = |stage: &str| match &deadline {
        Some(d) => d.check(|| stage.to_owned()),
        None => Ok(()),
    };
    let (query, semantics) = Deadline::scope(deadline, || {
        load_query(&input, &model, &args.common, &params)
    })?;
    out_of_time("parsing and binding the query")?;
    let session = args.common.open_session(&model)?;
    let options = MatchOptions {
        semantics,
        ..Default::default()
    };
    let explanation = session.explanation(&query, &options)?;
    out_of_time("planning the query")?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&explanation)?);
    } else {
        print!("{explanation}");
    }
    Ok(())
}

/// `gemp batch`.
pub fn run_batch(args: BatchArgs) -> anyhow::Result<Outcome> {
    let t0 = Instant::now();
    let model = open_model(&args.common)?;
    log::info!("model ready in {:.2?}", t0.elapsed());
    let params = params(&args.common)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let opts = options(Semantics::default(), args.timeout, args.count, args.limit)?;
    let session = args.common.open_session(&model)?;
    log::info!("queries run on {}", session.engine_name());
    let ext = args.format.extension();
    // One distinct result file per query (a/q.cypher and b/q.cypher: q and q-2), all checked
    // before any query runs. Each is renamed into place whole as its query ends, and all are made
    // durable by one file-system sync at the end (two `fsync`s per query cost more than most
    // queries).
    let write_options = gemp::util::safe_write::WriteOptions::force(args.force)
        .deferring_sync()
        .swept();
    let mut inputs: Vec<QueryInput> = args
        .queries
        .iter()
        .map(|q| QueryInput::from_path(q))
        .collect();
    if inputs
        .iter()
        .filter(|q| matches!(q, QueryInput::Stdin))
        .count()
        > 1
    {
        anyhow::bail!("standard input (`-`) can hold one query of a batch");
    }
    inputs.extend(
        args.common
            .query_text
            .iter()
            .enumerate()
            .map(|(i, text)| QueryInput::Text {
                name: format!("query-{}", i + 1),
                text: text.clone(),
            }),
    );
    let shown: Vec<PathBuf> = inputs.iter().map(QueryInput::display_path).collect();
    let names = super::batch_names::result_names(&shown);
    let result_path = |name: &str| {
        args.out
            .join(format!("{name}.{}", if args.count { "count" } else { ext }))
    };
    for (q, (name, renamed)) in shown.iter().zip(&names) {
        let path = result_path(name);
        if *renamed {
            log::warn!(
                "{}: an earlier query has the same name; its result goes to {}",
                q.display(),
                path.display()
            );
        }
        gemp::util::safe_write::check(&path, &write_options)?;
    }
    // Stale temporary files of earlier killed runs: one sweep of the directory, not one per file.
    gemp::util::safe_write::remove_stale_temps_in(&args.out);
    let mut failures = 0;
    let mut partials = 0;
    let mut summary: Vec<serde_json::Value> = Vec::new();
    if !args.json {
        super::print_report(format_args!(
            "{:<40} {:>14} {:>10}  status\n",
            "query", "results", "seconds"
        ))?;
    }
    for ((input, q), (name, _)) in inputs.iter().zip(&shown).zip(&names) {
        let start = Instant::now();
        let deadline = opts.timeout.map(Deadline::after);
        let mut single_aggregate = false;
        let result = Deadline::scope(deadline, || {
            load_query(input, &model, &args.common, &params)
        })
        .and_then(|(query, semantics)| {
            single_aggregate = args.count && exec::is_single_aggregate(&query);
            let opts = MatchOptions {
                semantics,
                count_only: args.count && !single_aggregate,
                // Each query's deadline counts its parsing and binding.
                timeout: deadline.map(|d| d.left()),
                ..opts.clone()
            };
            Ok(session.run(&query, &opts)?)
        });
        let secs = start.elapsed().as_secs_f64();
        match result {
            Ok((out, report)) => {
                let t_out = Instant::now();
                let path = result_path(name);
                let mut f = std::io::BufWriter::new(gemp::util::safe_write::SafeFile::create(
                    &path,
                    &write_options,
                )?);
                // Write errors name the file ("No space left on device" said nothing else).
                let mut written = || -> anyhow::Result<()> {
                    if args.count {
                        writeln!(f, "{}", count_text(&model, &out, single_aggregate))?;
                    } else {
                        write_rows(&mut f, &model, args.format, &out.columns, &out.rows)?;
                    }
                    if out.partial {
                        let reason = partial_reason(opts.timeout);
                        if args.count {
                            writeln!(f, "# {reason}: partial count")?;
                        } else {
                            write_partial_marker(&mut f, args.format, out.count, &reason)?;
                        }
                    }
                    Ok(())
                };
                written().with_context(|| format!("writing {}", path.display()))?;
                partials += usize::from(out.partial);
                f.into_inner()
                    .map_err(|e| gemp::error::Error::io(&path, e.into_error()))?
                    .commit()?;
                if args.timings {
                    eprintln!(
                        "{name}: {}",
                        timings_line(
                            &report,
                            &out.timings,
                            Duration::ZERO,
                            session.setup_time(),
                            t_out.elapsed()
                        )
                    );
                }
                let status = if out.partial {
                    "partial (timeout)"
                } else {
                    "ok"
                };
                let count = out.count;
                if args.json {
                    summary.push(serde_json::json!({
                        "name": name, "file": q, "output": path, "results": count,
                        "seconds": secs, "status": if out.partial { "partial" } else { "ok" },
                    }));
                } else {
                    super::print_report(format_args!(
                        "{name:<40} {count:>14} {secs:>10.3}  {status}\n"
                    ))?;
                }
            }
            // Its time ran out while it was parsed: no result, counted as partial.
            Err(e) if super::is_timeout(&e) => {
                partials += 1;
                super::print_report(format_args!(
                    "{name:<40} {:>14} {secs:>10.3}  partial (timeout, no result)\n",
                    "-"
                ))?;
                eprintln!("warning: {}: {}", q.display(), super::format_error(&e));
            }
            Err(e) => {
                failures += 1;
                // With its causes, the file named once.
                let (msg, file) = (super::format_error(&e), q.display().to_string());
                let msg = match msg.starts_with(&file) {
                    true => msg,
                    false => format!("{file}: {msg}"),
                };
                if args.json {
                    summary.push(serde_json::json!({
                        "name": name, "file": q, "output": null, "results": null,
                        "seconds": secs, "status": "error", "error": msg,
                    }));
                } else {
                    super::print_report(format_args!(
                        "{name:<40} {:>14} {secs:>10.3}  error\n",
                        "-"
                    ))?;
                }
                eprintln!("error: {msg}");
            }
        }
    }
    // The result files, renamed into place one by one, made durable together.
    gemp::util::safe_write::sync_filesystem(&args.out)?;
    if args.json {
        let doc = serde_json::json!({
            "queries": summary, "failed": failures, "partial": partials,
        });
        super::print_report(format_args!("{}\n", serde_json::to_string_pretty(&doc)?))?;
    }
    if failures > 0 {
        bail!("{failures} of {} queries failed", inputs.len());
    }
    if partials > 0 {
        eprintln!(
            "warning: {partials} of {} results are partial (exit status 3)",
            inputs.len()
        );
        return Ok(Outcome::Partial);
    }
    Ok(Outcome::Complete)
}
