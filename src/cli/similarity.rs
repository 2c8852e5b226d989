//! `gemp similarity`: A* (or AMonG) similarity of a query graph against a case base, top k; and
//! `gemp recipes`: the recipe case-base generator.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use gemp::similarity::load::load_graphs;
use gemp::similarity::recipes;
use gemp::similarity::report::{edge_name, status};
use gemp::similarity::retrieval::{retrieve, CaseOutcome, Retrieval};
use gemp::similarity::{
    variant_name, Algorithm, Improvements, Mapping, Outcome, SearchOptions, SemanticGraph,
    SimilarityModel,
};

/// Where the searches run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// AMonG on a GPU or accelerator (or the device named by --device / GEMP_DEVICE), else the
    /// host; the log says which and why.
    Auto,
    /// Host A* (parallel over the cases).
    Host,
    /// AMonG on the OpenCL device (one case after the other).
    Opencl,
    /// Device and host race per case; the first to finish wins.
    Race,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A text table.
    Table,
    /// One JSON document.
    Json,
}

/// Arguments of `gemp similarity`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp similarity --query datasets/recipes/cases.json --query-name recipe-03 --cases datasets/recipes
  gemp similarity --query q.json --cases datasets/recipes --k 5 --algorithm astar2 --improvements rm
  gemp similarity --query q.json --cases datasets/recipes --backend race --format json --mappings")]
pub struct SimilarityArgs {
    /// The query graph: a graph file or a case-base file (then --query-name picks the graph).
    #[arg(long)]
    pub query: PathBuf,
    /// Which graph of a case-base query file (default: the first).
    #[arg(long)]
    pub query_name: Option<String>,
    /// The case base: a case-base file, a graph file or a directory of .json files.
    #[arg(long)]
    pub cases: PathBuf,
    /// The similarity model (default: model.json in the case directory or beside the case file;
    /// without one, every description attribute is compared by equality).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// How many of the most similar cases to report.
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// astar1, astar2 or astar3.
    #[arg(long, default_value = "astar3")]
    pub algorithm: String,
    /// Improvements: letters r (search-space reduction), m (adaptive mapping orientation),
    /// s (heuristic-based selection, astar3 only); `none` for none.
    #[arg(long, default_value = "rms")]
    pub improvements: String,
    /// Keep at most N solutions in the queue (faster, no longer guaranteed optimal).
    #[arg(long)]
    pub queue_limit: Option<usize>,
    /// Give up on a case after this many seconds.
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Search every case fully (no early stop of cases that cannot reach the top k).
    #[arg(long)]
    pub no_early_stop: bool,
    /// host, opencl (AMonG), race, or auto (AMonG only on a GPU or accelerator).
    #[arg(long, value_enum, default_value = "host")]
    pub backend: Backend,
    /// The OpenCL device for opencl, race and auto (an index from `gemp devices`; default:
    /// $GEMP_DEVICE, else the first GPU).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// AMonG: number of search instances (priority queues).
    #[arg(long, default_value_t = 64)]
    pub instances: usize,
    /// AMonG: evaluation strategy 1, 2 or 3.
    #[arg(long, default_value_t = 3)]
    pub eval: u8,
    /// AMonG: insertion strategy 1 (one random queue) or 2 (all queues).
    #[arg(long, default_value_t = 2)]
    pub insert: u8,
    /// Host: give up on a case once its queue holds more than N solutions (bounds memory; every
    /// finished search stays exact, unlike --queue-limit).
    #[arg(long)]
    pub max_queue: Option<usize>,
    /// AMonG: capacity of each priority queue (solutions).
    #[arg(long, default_value_t = 4096)]
    pub queue_capacity: usize,
    /// table or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Print the mapping of every reported case.
    #[arg(long)]
    pub mappings: bool,
}

/// Arguments of `gemp recipes`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp recipes -o datasets/recipes
  gemp recipes --count 200 --seed 7 -o /tmp/recipes --stats")]
pub struct RecipesArgs {
    /// Number of recipes.
    #[arg(long, default_value_t = 40)]
    pub count: usize,
    /// Random seed.
    #[arg(long, default_value_t = 2020)]
    pub seed: u64,
    /// Output directory (cases.json, model.json, taxonomies).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace existing output files (only regular files: a device, FIFO or directory is never
    /// replaced).
    #[arg(long)]
    pub force: bool,
    /// Print the Table 1 statistics of the generated case base.
    #[arg(long)]
    pub stats: bool,
}

/// `gemp recipes`.
pub fn run_recipes(args: RecipesArgs) -> anyhow::Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let graphs = recipes::generate_recipes(args.count, args.seed);
    recipes::write_case_base_with(
        &args.output,
        &graphs,
        &gemp::util::safe_write::WriteOptions::force(args.force),
    )?;
    println!(
        "wrote {} recipes to {}",
        graphs.len(),
        args.output.join("cases.json").display()
    );
    if args.stats {
        println!(
            "{:<20} {:>6} {:>7} {:>6} {:>7}",
            "", "min", "median", "max", "avg"
        );
        for (name, [min, median, max, mean]) in recipes::table1_statistics(&graphs) {
            println!("{name:<20} {min:>6} {median:>7} {max:>6} {mean:>7.1}");
        }
    }
    Ok(())
}

/// `gemp similarity`.
pub fn run_similarity(mut args: SimilarityArgs) -> anyhow::Result<()> {
    let algorithm: Algorithm = args.algorithm.parse()?;
    let improvements: Improvements = args.improvements.parse()?;
    if improvements.selection && algorithm != Algorithm::AStarIII {
        bail!("improvement s needs --algorithm astar3");
    }
    let query = pick_query(&args)?;
    let cases = load_graphs(&args.cases)
        .with_context(|| format!("reading the case base {}", args.cases.display()))?;
    let model = load_model(&args)?;
    let time_limit = match args.time_limit {
        Some(t) if !(t > 0.0 && t.is_finite()) => bail!("--time-limit must be a positive number"),
        t => t.map(Duration::from_secs_f64),
    };
    let options = SearchOptions {
        algorithm,
        improvements,
        queue_limit: args.queue_limit,
        max_queue: args.max_queue,
        time_limit,
        ..Default::default()
    };
    let early_stop = !args.no_early_stop;
    // The host/OpenCL choice is the one every command makes; `race` runs both on the device named.
    let shared = match args.backend {
        Backend::Host => gemp::gpu::Backend::Host,
        Backend::Auto => gemp::gpu::Backend::Auto,
        Backend::Opencl | Backend::Race => gemp::gpu::Backend::Opencl,
    };
    let device = gemp::gpu::device_for(shared, gemp::gpu::selector(args.device), "similarity")?;
    if args.backend == Backend::Auto {
        // Reported as what ran.
        args.backend = if device.is_some() {
            Backend::Opencl
        } else {
            Backend::Host
        };
    }
    let retrieval = match device {
        None => retrieve(&query, &cases, &model, args.k, &options, early_stop)?,
        Some(selector) => device_retrieval(
            &args, selector, &query, &cases, &model, &options, early_stop,
        )?,
    };
    let variant = variant_name(algorithm, improvements);
    match args.format {
        OutputFormat::Table => print_table(&args, &variant, &query, &cases, &retrieval),
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&to_json(&args, &variant, &query, &cases, &retrieval))?
        ),
    }
    Ok(())
}

#[cfg(feature = "opencl")]
fn device_retrieval(
    args: &SimilarityArgs,
    selector: gemp::gpu::DeviceSelector,
    query: &SemanticGraph,
    cases: &[SemanticGraph],
    model: &SimilarityModel,
    options: &SearchOptions,
    early_stop: bool,
) -> anyhow::Result<Retrieval> {
    use gemp::similarity::among::{self, AmongOptions};
    use gemp::similarity::retrieval::retrieve_with;
    let gpu = gemp::gpu::Gpu::new(selector)?;
    let among_options = AmongOptions {
        instances: args.instances,
        eval: args.eval.try_into()?,
        insert: args.insert.try_into()?,
        queue_capacity: args.queue_capacity,
        ..AmongOptions::from_search(options)?
    };
    let race = args.backend == Backend::Race;
    Ok(retrieve_with(
        query,
        cases,
        model,
        args.k,
        early_stop,
        false,
        |problem, bound| {
            let mut host = options.clone();
            host.prune_below = bound.clone();
            let mut device = among_options.clone();
            device.prune_below = bound;
            if race {
                among::race(&gpu, problem, &host, &device).map(|(o, _)| o)
            } else {
                among::among_search(&gpu, problem, &device)
            }
        },
    )?)
}

#[cfg(not(feature = "opencl"))]
fn device_retrieval(
    _: &SimilarityArgs,
    _: gemp::gpu::DeviceSelector,
    _: &SemanticGraph,
    _: &[SemanticGraph],
    _: &SimilarityModel,
    _: &SearchOptions,
    _: bool,
) -> anyhow::Result<Retrieval> {
    bail!("this gemp was built without the `opencl` feature; use --backend host")
}

fn pick_query(args: &SimilarityArgs) -> anyhow::Result<SemanticGraph> {
    let graphs = load_graphs(&args.query)
        .with_context(|| format!("reading the query {}", args.query.display()))?;
    match &args.query_name {
        None => Ok(graphs
            .into_iter()
            .next()
            .context("the query file holds no graph")?),
        Some(name) => graphs
            .into_iter()
            .find(|g| &g.name == name)
            .with_context(|| format!("no graph named `{name}` in {}", args.query.display())),
    }
}

fn load_model(args: &SimilarityArgs) -> anyhow::Result<SimilarityModel> {
    let path = match &args.model {
        Some(p) => Some(p.clone()),
        None => {
            let dir = if args.cases.is_dir() {
                args.cases.clone()
            } else {
                args.cases.parent().unwrap_or(Path::new(".")).to_path_buf()
            };
            let candidate = dir.join("model.json");
            candidate.is_file().then_some(candidate)
        }
    };
    match path {
        Some(p) => Ok(SimilarityModel::load(&p)
            .with_context(|| format!("reading the similarity model {}", p.display()))?),
        None => Ok(SimilarityModel::equality()),
    }
}

fn print_table(
    args: &SimilarityArgs,
    variant: &str,
    query: &SemanticGraph,
    cases: &[SemanticGraph],
    r: &Retrieval,
) {
    println!(
        "query {} ({} nodes, {} edges) against {} cases, {variant}, backend {:?}",
        query.name,
        query.nodes.len(),
        query.edges.len(),
        cases.len(),
        args.backend
    );
    println!(
        "{:>4}  {:<24} {:>10} {:>11} {:>10} {:>10}  status",
        "rank", "case", "similarity", "expansions", "max queue", "time ms"
    );
    for (i, o) in r.ranked.iter().enumerate() {
        let s = o.outcome.stats();
        println!(
            "{:>4}  {:<24} {:>10.4} {:>11} {:>10} {:>10.2}  {}",
            i + 1,
            cases[o.case].name,
            o.similarity().unwrap_or(0.0),
            s.expansions,
            s.max_queue,
            s.time.as_secs_f64() * 1e3,
            status(o)
        );
        if args.mappings {
            if let Outcome::Done(res) = &o.outcome {
                for line in mapping_lines(query, &cases[o.case], &res.mapping) {
                    println!("        {line}");
                }
            }
        }
    }
    if !r.stopped.is_empty() {
        println!("not finished:");
        for o in &r.stopped {
            let s = o.outcome.stats();
            println!(
                "      {:<24} {:>10} {:>11} {:>10} {:>10.2}  {}",
                cases[o.case].name,
                "-",
                s.expansions,
                s.max_queue,
                s.time.as_secs_f64() * 1e3,
                status(o)
            );
        }
    }
    let expansions: u64 = r
        .ranked
        .iter()
        .chain(&r.stopped)
        .chain(&r.others)
        .map(|o| o.outcome.stats().expansions)
        .sum();
    println!(
        "{} finished ({} below the top {}), {} stopped; {} expansions; {:.1} ms",
        r.ranked.len() + r.others.len(),
        r.others.len(),
        args.k,
        r.stopped.len(),
        expansions,
        r.time.as_secs_f64() * 1e3
    );
}

fn mapping_lines(q: &SemanticGraph, c: &SemanticGraph, m: &Mapping) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, t) in m.nodes.iter().enumerate() {
        lines.push(format!(
            "{} -> {}",
            q.nodes[i].id,
            t.map_or("null".to_string(), |t| c.nodes[t].id.clone())
        ));
    }
    for (i, t) in m.edges.iter().enumerate() {
        lines.push(format!(
            "{} -> {}",
            edge_name(q, i),
            t.map_or("null".to_string(), |t| edge_name(c, t))
        ));
    }
    lines
}

fn case_json(
    args: &SimilarityArgs,
    q: &SemanticGraph,
    cases: &[SemanticGraph],
    o: &CaseOutcome,
) -> Value {
    gemp::similarity::report::case_json(q, cases, o, args.mappings)
}

fn to_json(
    args: &SimilarityArgs,
    variant: &str,
    query: &SemanticGraph,
    cases: &[SemanticGraph],
    r: &Retrieval,
) -> Value {
    json!({
        "query": query.name,
        "variant": variant,
        "backend": format!("{:?}", args.backend).to_lowercase(),
        "k": args.k,
        "results": r.ranked.iter().map(|o| case_json(args, query, cases, o)).collect::<Vec<_>>(),
        "not_finished": r.stopped.iter().map(|o| case_json(args, query, cases, o)).collect::<Vec<_>>(),
        "time_ms": r.time.as_secs_f64() * 1e3,
    })
}
