//! `gemp export`: write a model in the JSON graph format or as Neo4j-style CSV.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use gemp::io::format::Format;
use gemp::util::safe_write::WriteOptions;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// `{"nodes": [...], "edges": [...]}` (see `gemp::io::json_graph`).
    Json,
    /// A directory of Neo4j bulk-import CSV files (one per label and per relationship type).
    Neo4jCsv,
}

/// Arguments of `gemp export`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp export model.gemp --format json -o model.json
  gemp export railway.xmi --metamodel railway.xcore --format json > railway.json
  gemp export railway.xmi --metamodel railway.xcore --format neo4j-csv -o railway-csv/")]
pub struct ExportArgs {
    /// The model: a .gemp snapshot or anything `gemp load` reads.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Format of the inputs.
    #[arg(long, value_enum, default_value = "auto")]
    pub model_format: Format,
    /// An `.ecore` or `.xcore` metamodel for XMI, CSV or JSON inputs.
    #[arg(long)]
    pub metamodel: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: ExportFormat,
    /// Output file (JSON; default standard output) or directory (CSV; required).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Replace existing output files (only regular files: a device, FIFO or directory is never
    /// replaced). For neo4j-csv, replace an earlier export in the directory: the new export is
    /// written beside it and swapped in as a whole (with a `gemp-export.json` manifest), so the
    /// directory holds exactly the old export or exactly the new one, never a mix; your other
    /// files there are kept.
    #[arg(long)]
    pub force: bool,
}

/// `gemp export`.
pub fn export(args: ExportArgs) -> anyhow::Result<()> {
    let write_options = WriteOptions::force(args.force);
    if let (ExportFormat::Json, Some(path)) = (args.format, &args.output) {
        gemp::util::safe_write::check(path, &write_options)?;
    }
    let mut inputs = args.inputs.clone();
    inputs.extend(args.metamodel.iter().cloned());
    let (model, _) = super::load::load_model(&inputs, args.model_format, false)?;
    match args.format {
        ExportFormat::Json => match &args.output {
            Some(path) => gemp::io::json_graph::write_file_with(&model, path, &write_options)?,
            None => {
                let stdout = std::io::stdout();
                let mut w = std::io::BufWriter::new(stdout.lock());
                gemp::io::json_graph::write(&model, &mut w)
                    .and_then(|()| w.flush())
                    .context("writing to standard output")?;
            }
        },
        ExportFormat::Neo4jCsv => {
            let Some(dir) = &args.output else {
                bail!("--format neo4j-csv writes a directory: name it with -o DIR");
            };
            let files = gemp::io::neo4j_csv::write_dir_with(&model, dir, &write_options)?;
            log::info!("wrote {} files to {}", files.len(), dir.display());
        }
    }
    Ok(())
}
