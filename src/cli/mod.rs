//! The `gemp` command line (clap): subcommands, output formatting, logging setup.

mod batch_names;
mod cluster;
mod columnar;
mod devices;
mod export;
mod info;
mod load;
mod logging;
pub mod output;
mod progress;
mod query;
mod reference;
mod shell;
mod similarity;
mod transform;
mod trust;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// gemp — GPU-accelerated graph pattern matching and graph similarity on OpenCL.
#[derive(Debug, Parser)]
#[command(
    name = "gemp",
    version,
    about = "GPU-accelerated graph pattern matching (GEMP) and graph similarity on OpenCL",
    after_help = "Examples:
  gemp generate imdb --titles 3000 --persons 4000 --seed 42 -o data/imdb
  gemp load data/imdb -o imdb.gemp
  gemp info imdb.gemp
  gemp info imdb.gemp --json
  gemp match --model imdb.gemp datasets/queries/four-actors-jack.cypher
  gemp match --model imdb.gemp -c 'MATCH (t:Title) RETURN count(*)'
  echo 'MATCH (p:Person) RETURN p LIMIT 3' | gemp match --model imdb.gemp -
  gemp explain --model imdb.gemp datasets/queries/couples.cypher
  gemp shell --model imdb.gemp
  gemp completions bash > ~/.local/share/bash-completion/completions/gemp

Exit status:
  0  complete (also when the reader of the output went away, e.g. `| head`)
  1  error (the message says what and where)
  2  usage error (bad arguments)
  3  --timeout: a query stopped with a partial result (the output says so too), or an explain
     or transform stopped with nothing (the error says what was running; a transform then
     writes nothing)"
)]
pub struct Cli {
    /// More output (-v debug, -vv trace).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Only errors; no progress bars.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Stop a query with an error naming the stage when the heap passes this: bytes with K/M/G
    /// (e.g. 4G), a share of physical memory (50%), or `none` (default: half of physical
    /// memory, or a third of `ulimit -d` or `ulimit -v` when lower; heap bytes requested, so
    /// resident memory is somewhat larger).
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_memory_limit)]
    memory_limit: Option<MemoryLimit>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate synthetic data sets.
    Generate(load::GenerateArgs),
    /// Load input files into a model and optionally save it as a .gemp snapshot.
    Load(load::LoadArgs),
    /// Show a model's schema, counts and degree statistics.
    Info(info::InfoArgs),
    /// Run a pattern query file against a model.
    Match(query::MatchArgs),
    /// Run many query files against one model (loaded once).
    Batch(query::BatchArgs),
    /// Show how a query is planned: pivot, order, where each predicate runs.
    Explain(query::ExplainArgs),
    /// Split a .gemp snapshot into N parts for a cluster run (`gemp match --parts`).
    Partition(cluster::PartitionArgs),
    /// Run a query on local processes of a cluster (`gemp cluster run --processes N …`).
    Cluster(cluster::ClusterArgs),
    /// List the OpenCL devices and which one is used by default.
    Devices(devices::DevicesArgs),
    /// TruST inexact graph matching of a template graph in a data graph (string node values).
    Trust(trust::TrustArgs),
    /// Apply a rule file (Cypher updating statements) to a model and write the result.
    Transform(transform::TransformArgs),
    /// Write a model as a JSON graph or as Neo4j-style CSV.
    Export(export::ExportArgs),
    /// A* / AMonG similarity of a query graph against a case base of semantic graphs (top k).
    Similarity(similarity::SimilarityArgs),
    /// Generate a recipe case base (NEST workflows) with its similarity model and taxonomies.
    Recipes(similarity::RecipesArgs),
    /// An interactive Cypher shell over one model (statements end with `;`; :help in it).
    Shell(shell::ShellArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(reference::CompletionsArgs),
    /// Print the man page (roff) to stdout.
    Man(reference::ManArgs),
}

/// Runs the command line; returns the process exit code (errors are printed as one line).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.verbose, cli.quiet);
    exit_quietly_on_closed_stdout();
    if !cli.quiet {
        gemp::io::input::set_progress_display(Some(std::sync::Arc::new(
            progress::IndicatifDisplay,
        )));
    }
    // Interrupted writes remove their temporary files (exit 130 on SIGINT, 143 on SIGTERM). The
    // shell writes no files and takes Ctrl-C itself: it stops the running query.
    if !matches!(cli.command, Command::Shell(_)) {
        if let Err(e) = gemp::util::safe_write::install_signal_cleanup() {
            log::warn!("{e}");
        }
    }
    // `--backend auto`'s "no GPU here" is remembered between runs (see gpu::probe_memo).
    gemp::gpu::probe_memo::enable();
    gemp::util::memory::set_limit(match cli.memory_limit {
        Some(MemoryLimit(limit)) => limit,
        None => gemp::util::memory::default_limit(),
    });
    // Past the limit's polling, an allocation the system refuses is the memory-limit error
    // naming the stage (exit status 1), not an abort.
    gemp::util::memory::exit_on_failed_allocation();
    let complete = |r: anyhow::Result<()>| r.map(|()| Outcome::Complete);
    let result = match cli.command {
        Command::Generate(a) => complete(load::generate(a)),
        Command::Load(a) => complete(load::load(a)),
        Command::Info(a) => complete(info::info(a)),
        Command::Match(a) => query::run_match(a),
        Command::Batch(a) => query::run_batch(a),
        Command::Explain(a) => complete(query::run_explain(a)),
        Command::Partition(a) => complete(cluster::partition(a)),
        Command::Cluster(a) => complete(cluster::cluster(a)),
        Command::Devices(a) => complete(devices::devices(a)),
        Command::Trust(a) => complete(trust::trust(a)),
        Command::Transform(a) => complete(transform::transform(a)),
        Command::Export(a) => complete(export::export(a)),
        Command::Similarity(a) => complete(similarity::run_similarity(a)),
        Command::Recipes(a) => complete(similarity::run_recipes(a)),
        Command::Shell(a) => shell::run_shell(a),
        Command::Completions(a) => complete(reference::completions(a)),
        Command::Man(a) => complete(reference::man(a)),
    };
    // `-v`: what the run held at most (the memory-limit tests read it: a parent's `wait4` would
    // also count the resident memory of whoever spawned gemp).
    if let Some(peak) = gemp::util::memory::peak_resident_bytes() {
        log::info!("peak resident memory {} KiB", peak >> 10);
    }
    match result {
        Ok(Outcome::Complete) => ExitCode::SUCCESS,
        Ok(Outcome::Partial) => ExitCode::from(EXIT_PARTIAL),
        // The reader of our output went away (`gemp match … | head`): not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        // `--timeout` ran out before a result (while planning, during a transform): the status
        // of a stopped query, with the error saying what was running.
        Err(e) if is_timeout(&e) => {
            eprintln!("error: {} (exit status 3)", format_error(&e));
            ExitCode::from(EXIT_PARTIAL)
        }
        Err(e) => {
            let msg = format_error(&e);
            if msg.starts_with("error:") {
                eprintln!("{msg}");
            } else {
                eprintln!("error: {msg}");
            }
            ExitCode::FAILURE
        }
    }
}

/// A parsed `--memory-limit` (`None`: no limit).
#[derive(Debug, Clone, Copy)]
struct MemoryLimit(Option<u64>);

fn parse_memory_limit(text: &str) -> Result<MemoryLimit, String> {
    gemp::util::memory::parse_limit(text).map(MemoryLimit)
}

/// How a command that can stop early ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every result was produced.
    Complete,
    /// A limit (`--timeout`) stopped a query: what was written is a lower bound, and says so.
    Partial,
}

/// The exit status of a partial result.
pub const EXIT_PARTIAL: u8 = 3;

/// Prints `text` on stdout for a command whose product is a file (`transform -o`, `batch --out`):
/// a reader that went away (`| head`) does not stop the command, which still writes its file and
/// ends with its own status; other write errors are errors.
fn print_report(text: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_fmt(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}

/// Ends the process quietly with status 0 when `print!` panics because stdout is a closed pipe
/// (`gemp info m.gemp | head`), as `match` does when its reader goes away: the commands whose
/// product is their stdout are done when nobody reads it. (Commands whose product is a file print
/// through [`print_report`] and go on.)
fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info)
    }));
}

/// True when `e` (or a cause) is [`gemp::Error::Timeout`].
pub(crate) fn is_timeout(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|cause| matches!(cause.downcast_ref(), Some(gemp::Error::Timeout { .. })))
}

/// True when `e` (or a cause) is a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let io = cause.downcast_ref::<std::io::Error>().or_else(|| {
            match cause.downcast_ref::<gemp::Error>() {
                Some(gemp::Error::Io { source, .. }) => Some(source),
                _ => None,
            }
        });
        io.is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// One line: the error and its causes joined with ": ".
fn format_error(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if !parts.last().is_some_and(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ")
}
