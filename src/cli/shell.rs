//! `gemp shell`: an interactive Cypher shell over one graph and one kept session (device opened
//! and model uploaded once). Statements end with `;` and may span lines; meta-commands start
//! with `:` ([`meta`]); Ctrl-C stops a running query ([`interrupt`]). Rows go to stdout, what the
//! shell says about them (row counts, timings, errors) to stderr. When standard input is not a
//! terminal the shell reads statements from it without line editing, with the same output.

mod history;
mod interrupt;
mod meta;
mod statements;

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::Value as Json;

use gemp::api::{Graph, Matches, RunOptions};
use gemp::exec::Semantics;
use gemp::io::format::Format;
use gemp::session::Backend;

use super::output::{to_json, OutputFormat, RowWriter};
use super::Outcome;
use interrupt::Interrupts;
use meta::Meta;
use statements::StatementBuffer;

/// Arguments of `gemp shell`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp shell
  gemp shell --model imdb.gemp --backend host
  printf 'MATCH (p:Person)\\nRETURN count(*) AS n;\\n:format csv\\nMATCH (t:Title) RETURN count(*);' | gemp shell

In the shell: statements end with `;` and may span lines; :help lists the meta-commands
(:schema, :explain, :timings, :semantics, :backend, :format, :param, :quit). Ctrl-C stops a
running query and keeps the session; Ctrl-D leaves. The history is kept in $GEMP_HISTORY, else
<cache dir>/gemp/history (e.g. ~/.cache/gemp/history).")]
pub struct ShellArgs {
    /// The model: a .gemp snapshot or anything `gemp load` reads; repeat for several input files
    /// (default: the bundled IMDb sample).
    #[arg(long, short = 'm')]
    pub model: Vec<PathBuf>,
    /// Format of --model inputs.
    #[arg(long, value_enum, default_value = "auto")]
    pub model_format: Format,
    /// Skip verifying a snapshot's section checksums (structure is still validated).
    #[arg(long)]
    pub no_verify: bool,
    /// Where queries run (as `gemp match --backend`; `:backend` changes it).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// Matching semantics for every statement (default: each query's own `// gemp:` line, else
    /// isomorphism; `:semantics` changes it).
    #[arg(long, value_enum)]
    pub semantics: Option<Semantics>,
    /// Query parameter `name=value` (as `gemp match --param`; `:param` adds more).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// How rows are printed (`:format` changes it).
    #[arg(long, value_enum, default_value = "table")]
    pub format: ShellFormat,
    /// Print each query's stage times (`:timings on|off` changes it).
    #[arg(long)]
    pub timings: bool,
    /// Keep no history file.
    #[arg(long)]
    pub no_history: bool,
}

/// How the shell prints rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellFormat {
    /// An aligned table, cut to the terminal's width.
    Table,
    /// CSV with a header row.
    Csv,
    /// One JSON array of row objects per statement.
    Json,
    /// One JSON object per row.
    Jsonl,
}

impl ShellFormat {
    fn name(self) -> &'static str {
        match self {
            ShellFormat::Table => "table",
            ShellFormat::Csv => "csv",
            ShellFormat::Json => "json",
            ShellFormat::Jsonl => "jsonl",
        }
    }
}

/// What the shell does after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// The shell's state: the graph (with its kept session) and the settings statements run with.
struct Shell {
    graph: Graph,
    options: RunOptions,
    format: ShellFormat,
    timings: bool,
    interactive: bool,
    interrupts: Interrupts,
    /// Statements and meta-commands that ended in an error.
    failed: usize,
    /// Statements and meta-commands run.
    ran: usize,
}

/// `gemp shell`.
pub fn run_shell(args: ShellArgs) -> anyhow::Result<Outcome> {
    let inputs = super::query::model_inputs(&args.model)?;
    let (model, _) =
        super::load::load_model_with(&inputs, args.model_format, false, !args.no_verify)?;
    let interactive = std::io::stdin().is_terminal();
    let options = RunOptions {
        backend: args.backend,
        semantics: args.semantics,
        params: super::query::parse_params(&args.params)?,
        ..RunOptions::default()
    };
    let mut shell = Shell {
        graph: Graph::from_model(model),
        options,
        format: args.format,
        timings: args.timings,
        interactive,
        interrupts: Interrupts::install(interactive),
        failed: 0,
        ran: 0,
    };
    if interactive {
        shell.interactive(history::path(args.no_history))?;
        return Ok(Outcome::Complete);
    }
    shell.script()?;
    if shell.failed > 0 {
        anyhow::bail!(
            "{} of {} statements and meta-commands failed",
            shell.failed,
            shell.ran
        );
    }
    Ok(Outcome::Complete)
}

impl Shell {
    /// Reads lines with editing and history until `:quit` or Ctrl-D.
    fn interactive(&mut self, history: Option<PathBuf>) -> anyhow::Result<()> {
        use rustyline::error::ReadlineError;
        let config = rustyline::Config::builder()
            .max_history_size(2000)?
            .auto_add_history(false)
            .build();
        let mut editor = rustyline::DefaultEditor::with_config(config)?;
        let mut history = history::History::open(history, &mut editor);
        let model = self.graph.model();
        eprintln!(
            "gemp shell: {} nodes, {} relationships. Statements end with `;`; :help lists the \
             commands, Ctrl-D or :quit leaves.",
            model.node_count(),
            model.edge_count()
        );
        let mut buffer = StatementBuffer::new();
        loop {
            let prompt = if buffer.is_empty() {
                "gemp> "
            } else {
                "  ... "
            };
            match editor.readline(prompt) {
                Ok(line) => {
                    let flow = self.line(&mut buffer, &line, &mut |entry| {
                        history.add(&mut editor, entry)
                    });
                    if flow == Flow::Quit {
                        break;
                    }
                }
                // Ctrl-C at the prompt: the statement being typed is dropped.
                Err(ReadlineError::Interrupted) => buffer.clear(),
                Err(ReadlineError::Eof) => break,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Reads statements from a standard input that is not a terminal.
    fn script(&mut self) -> anyhow::Result<()> {
        let mut buffer = StatementBuffer::new();
        for line in std::io::stdin().lock().lines() {
            let line = line.map_err(|e| anyhow::anyhow!("reading standard input: {e}"))?;
            if self.line(&mut buffer, &line, &mut |_| {}) == Flow::Quit {
                return Ok(());
            }
        }
        if let Some(last) = buffer.finish() {
            self.statement(&last);
        }
        Ok(())
    }

    /// One line of input: a meta-command where a statement would start, else more statement
    /// text (running the statements it completes). `remember` gets what goes into the history.
    fn line(
        &mut self,
        buffer: &mut StatementBuffer,
        line: &str,
        remember: &mut dyn FnMut(&str),
    ) -> Flow {
        if buffer.is_empty() && line.trim_start().starts_with(':') {
            remember(line.trim());
            return match meta::parse(line) {
                Ok(m) => self.meta(m),
                Err(e) => {
                    self.ran += 1;
                    self.failed += 1;
                    eprintln!("error: {e}");
                    Flow::Continue
                }
            };
        }
        for statement in buffer.push_line(line) {
            remember(&format!("{statement};"));
            if self.statement(&statement) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    /// Runs one statement; an error is printed and the shell goes on (a closed stdout ends it).
    fn statement(&mut self, text: &str) -> Flow {
        self.ran += 1;
        match self.query(text) {
            Ok(()) => Flow::Continue,
            Err(e) if super::is_broken_pipe(&e) => Flow::Quit,
            Err(e) => {
                self.failed += 1;
                report_error(&e);
                Flow::Continue
            }
        }
    }

    /// Prepares, runs and prints one query.
    fn query(&mut self, text: &str) -> anyhow::Result<()> {
        let start = Instant::now();
        let query = self.graph.query_with(text, &self.options)?;
        let spinner = gemp::io::input::SearchSpinner::start(false, self.interactive);
        let (graph, options) = (&self.graph, &self.options);
        let (result, cancelled) = self.interrupts.run(|_| graph.execute(&query, options));
        drop(spinner);
        if cancelled {
            eprintln!("query cancelled (Ctrl-C); the session goes on");
            return Ok(());
        }
        let matches = result?;
        let elapsed = start.elapsed();
        let printed = self.print(&matches)?;
        if !printed {
            eprintln!("output stopped (Ctrl-C)");
            return Ok(());
        }
        if matches.is_partial() {
            eprintln!(
                "warning: partial result: {} rows before the search stopped",
                matches.count()
            );
        }
        if self.interactive {
            let n = matches.count();
            eprintln!(
                "{n} row{} ({:.1} ms)",
                if n == 1 { "" } else { "s" },
                elapsed.as_secs_f64() * 1e3
            );
        }
        if self.timings {
            let t = matches.timings();
            eprintln!(
                "timings [{}]: total {:.3?} (filter {:.3?}, plan {:.3?}, enumerate {:.3?}, \
                 results {:.3?})",
                t.backend, t.total, t.host.filter, t.host.plan, t.host.enumerate, t.host.results
            );
        }
        Ok(())
    }

    /// Prints the rows of `matches` in the shell's format; false when Ctrl-C stopped the output.
    fn print(&self, matches: &Matches<'_>) -> anyhow::Result<bool> {
        let stdout = std::io::stdout();
        let width = if stdout.is_terminal() {
            console::Term::stdout()
                .size_checked()
                .map(|(_, cols)| usize::from(cols))
        } else {
            None
        };
        let model = self.graph.model();
        let out = matches.output();
        let mut w = std::io::BufWriter::new(stdout.lock());
        let (result, _) = self.interrupts.run(|flag| -> anyhow::Result<bool> {
            if self.format == ShellFormat::Json {
                let rows: Vec<Json> = out
                    .rows
                    .iter()
                    .map(|r| {
                        Json::Object(
                            out.columns
                                .iter()
                                .cloned()
                                .zip(r.iter().map(|v| to_json(model, v)))
                                .collect(),
                        )
                    })
                    .collect();
                serde_json::to_writer_pretty(&mut w, &Json::Array(rows))?;
                writeln!(w)?;
            } else {
                let format = match self.format {
                    ShellFormat::Csv => OutputFormat::Csv,
                    ShellFormat::Jsonl => OutputFormat::Jsonl,
                    _ => OutputFormat::Table,
                };
                let mut rows = RowWriter::new(format, width);
                for chunk in out.rows.chunks(1024) {
                    if flag.is_cancelled() {
                        w.flush()?;
                        return Ok(false);
                    }
                    rows.write(&mut w, model, &out.columns, chunk)?;
                }
                rows.finish(&mut w, model, &out.columns)?;
            }
            w.flush()?;
            Ok(true)
        });
        result
    }

    /// Runs a meta-command.
    fn meta(&mut self, meta: Meta) -> Flow {
        self.ran += 1;
        match self.try_meta(meta) {
            Ok(flow) => flow,
            Err(e) if super::is_broken_pipe(&e) => Flow::Quit,
            Err(e) => {
                self.failed += 1;
                report_error(&e);
                Flow::Continue
            }
        }
    }

    fn try_meta(&mut self, meta: Meta) -> anyhow::Result<Flow> {
        match meta {
            Meta::Quit => return Ok(Flow::Quit),
            Meta::Help => eprint!("{}", meta::HELP),
            Meta::Schema => {
                let schema = self.graph.model().schema();
                let mut out = std::io::stdout().lock();
                write!(out, "{}", super::info::render(&schema, usize::MAX))?;
                out.flush()?;
            }
            Meta::Explain(text) => {
                let query = self.graph.query_with(&text, &self.options)?;
                let plan = self.graph.explain(&query, &self.options)?;
                let mut out = std::io::stdout().lock();
                write!(out, "{plan}")?;
                out.flush()?;
            }
            Meta::Timings(Some(on)) => self.timings = on,
            Meta::Timings(None) => {
                eprintln!("timings {}", if self.timings { "on" } else { "off" })
            }
            Meta::Semantics(Some(name)) => {
                self.options.semantics = match name.to_ascii_lowercase().as_str() {
                    "default" | "auto" | "query" => None,
                    _ => Some(Semantics::parse(&name).ok_or_else(|| {
                        anyhow::anyhow!(
                            "unknown semantics `{name}`: isomorphism, homomorphism, cypher or \
                             default (each query's own)"
                        )
                    })?),
                };
                self.show_semantics();
            }
            Meta::Semantics(None) => self.show_semantics(),
            Meta::Backend(Some(name)) => {
                self.options.backend = Backend::from_str(&name, true).map_err(|_| {
                    anyhow::anyhow!("unknown backend `{name}`: auto, opencl or host")
                })?;
                eprintln!("backend {}", backend_name(self.options.backend));
            }
            Meta::Backend(None) => eprintln!("backend {}", backend_name(self.options.backend)),
            Meta::Format(Some(name)) => {
                self.format = ShellFormat::from_str(&name, true).map_err(|_| {
                    anyhow::anyhow!("unknown format `{name}`: table, csv, json or jsonl")
                })?;
                if self.interactive {
                    eprintln!("format {}", self.format.name());
                }
            }
            Meta::Format(None) => eprintln!("format {}", self.format.name()),
            Meta::Param(assignment) => {
                let Some((name, value)) = assignment.split_once('=') else {
                    anyhow::bail!(":param takes name=value, got `{assignment}`");
                };
                let parsed =
                    super::query::parse_params(&[format!("{}={}", name.trim(), value.trim())])?;
                self.options.params.extend(parsed);
            }
            Meta::Params { clear: true } => self.options.params.clear(),
            Meta::Params { clear: false } => {
                let mut names: Vec<&String> = self.options.params.keys().collect();
                names.sort();
                if names.is_empty() {
                    eprintln!("no parameters (:param name=value sets one)");
                }
                for name in names {
                    eprintln!("${name} = {}", self.options.params[name]);
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn show_semantics(&self) {
        match self.options.semantics {
            Some(s) => eprintln!("semantics {s}"),
            None => {
                eprintln!("semantics: each query's own (`// gemp: semantics=…`), else isomorphism")
            }
        }
    }
}

/// Prints an error as the command line does: one `error:` prefix, then the message (a query
/// error shows its source with the position marked).
fn report_error(e: &anyhow::Error) {
    let msg = super::format_error(e);
    if msg.starts_with("error:") {
        eprintln!("{msg}");
    } else {
        eprintln!("error: {msg}");
    }
}

/// A backend as `--backend` names it.
fn backend_name(backend: Backend) -> String {
    backend
        .to_possible_value()
        .map_or_else(|| format!("{backend:?}"), |v| v.get_name().to_owned())
}
