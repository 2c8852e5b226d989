//! `gemp transform`: apply a rule file to a model, print the change report, write the result as a
//! snapshot (atomically, through `safe_write`).

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use gemp::io::format::Format;
use gemp::model::snapshot;
use gemp::transform::{ApplyOptions, Rules};
use gemp::util::safe_write::WriteOptions;

/// Arguments of `gemp transform`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp transform --model railway.gemp datasets/queries/trainbenchmark/PosLength.repair.cypher -o repaired.gemp
  gemp transform --model m.gemp rules.cypher --in-place --until-fixpoint --max-iterations 50
  gemp transform --model m.gemp rules.cypher --json        # report only; nothing is written
  gemp transform --model m.gemp rules.cypher --in-place --timeout 60
  gemp export repaired.gemp --format json -o repaired.json

Each statement finds all its matches on the model as it stands, then applies them as one change;
a failing statement (e.g. DELETE of a node that keeps relationships) stops the run and nothing is
written. The output snapshot is written atomically: a kill at any moment leaves the old file.")]
pub struct TransformArgs {
    /// The model: a .gemp snapshot or anything `gemp load` reads; repeat for several input files.
    #[arg(long, short = 'm', required = true)]
    pub model: Vec<PathBuf>,
    /// Format of --model inputs.
    #[arg(long, value_enum, default_value = "auto")]
    pub model_format: Format,
    /// The rule file: statements separated by `;`.
    pub rules: PathBuf,
    /// Write the transformed model to this snapshot.
    #[arg(short, long, conflicts_with = "in_place")]
    pub output: Option<PathBuf>,
    /// Replace the input snapshot (atomically) with the transformed model.
    #[arg(long)]
    pub in_place: bool,
    /// Replace an existing output file (only a regular file).
    #[arg(long)]
    pub force: bool,
    /// Repeat the rule file until a pass changes nothing.
    #[arg(long)]
    pub until_fixpoint: bool,
    /// Most passes with --until-fixpoint.
    #[arg(
        long,
        default_value_t = 100,
        requires = "until_fixpoint",
        value_name = "N"
    )]
    pub max_iterations: usize,
    /// Query parameter `name=value` (JSON scalars are typed: 42, 1.5, true, "x"; else a string).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Print the change report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Give up after this many seconds for the whole rule file (every statement of every pass):
    /// an error, exit status 3, and nothing is written (the model file is unchanged).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// How the statements' read parts match: `cypher` (the default for rule files: Neo4j's
    /// relationship-isomorphism), `isomorphism` (distinct pattern nodes bind distinct nodes) or
    /// `homomorphism`. Overrides the rule file's `// gemp: semantics=…` line.
    #[arg(long, value_enum)]
    pub semantics: Option<gemp::exec::Semantics>,
}

/// `gemp transform`.
pub fn transform(args: TransformArgs) -> anyhow::Result<()> {
    let target = match (&args.output, args.in_place) {
        (Some(out), _) => Some((out.clone(), WriteOptions::force(args.force))),
        (None, true) => {
            let [input] = &args.model[..] else {
                bail!("--in-place needs exactly one --model snapshot");
            };
            if !snapshot::is_snapshot(input) {
                bail!(
                    "--in-place replaces a .gemp snapshot; {} is not one (write with -o instead)",
                    input.display()
                );
            }
            Some((input.clone(), WriteOptions::REPLACE))
        }
        (None, false) => None,
    };
    if let Some((path, options)) = &target {
        gemp::util::safe_write::check(path, options)?;
    }
    let text = gemp::io::input::read_utf8(&args.rules)?;
    let rules = Rules::parse(&text, Some(&args.rules.display().to_string()))?;
    let timeout = match args.timeout {
        Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
        Some(s) => bail!("--timeout must be a positive number of seconds, got {s}"),
        None => None,
    };
    let options = ApplyOptions {
        until_fixpoint: args.until_fixpoint,
        max_iterations: args.max_iterations,
        params: super::query::parse_params(&args.params)?,
        timeout,
        semantics: args.semantics,
    };
    let (model, _) = super::load::load_model(&args.model, args.model_format, false)?;
    let (changed, report) = gemp::transform::apply(&model, &rules, &options)?;
    let last = changed.as_ref().unwrap_or(&model);
    if args.json {
        let mut value = serde_json::json!({
            "statements": report.statements,
            "iterations": report.iterations,
            "fixpoint_reached": report.fixpoint_reached,
            "totals": report.totals(),
        });
        if let Some(r) = &report.returned {
            let rows: Vec<Vec<serde_json::Value>> = r
                .rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|v| super::output::to_json(last, v))
                        .collect()
                })
                .collect();
            value["returned"] = serde_json::json!({ "columns": r.columns, "rows": rows });
        }
        super::print_report(format_args!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        super::print_report(format_args!("{}", report.to_table()))?;
        // The rows of the last statement's RETURN, after the report.
        if let Some(r) = &report.returned {
            let mut text = format!("\n{}\n", r.columns.join("\t"));
            for row in &r.rows {
                let cells: Vec<String> = row.iter().map(|v| super::output::text(last, v)).collect();
                text.push_str(&cells.join("\t"));
                text.push('\n');
            }
            super::print_report(format_args!("{text}"))?;
        }
    }
    if args.until_fixpoint && !report.fixpoint_reached {
        log::warn!(
            "no fixpoint after {} passes (--max-iterations): the last pass still changed the model",
            report.iterations
        );
    }
    match target {
        Some((path, options)) => {
            let out = changed.as_ref().unwrap_or(&model);
            snapshot::write_with(out, &path, &options)
                .with_context(|| format!("writing {}", path.display()))?;
            log::info!(
                "wrote {} ({} nodes, {} relationships)",
                path.display(),
                out.node_count(),
                out.edge_count()
            );
        }
        None => log::warn!("no -o or --in-place: the transformed model is not written"),
    }
    Ok(())
}
