//! Input formats and their detection from file names and contents.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A model input format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Detect from names and contents.
    Auto,
    /// A `.gemp` snapshot.
    Snapshot,
    /// Official IMDb TSV dumps (`title.basics.tsv[.gz]`, …).
    ImdbTsv,
    /// Old IMDb plain-text lists (`actors.list[.gz]`, …).
    ImdbLists,
    /// The `t N M` / `v id label degree` / `e u v` graphs of the subgraph-matching benchmarks.
    SubgraphBench,
    /// EMF XMI models (`.xmi`), with an optional `.ecore` / `.xcore` metamodel.
    Xmi,
    /// Neo4j bulk-import CSV: node files with `id:ID`, relationship files with `:START_ID`,
    /// `:END_ID`.
    Neo4jCsv,
    /// The JSON graph format (`{"nodes": [...], "edges": [...]}`).
    Json,
}

/// Expands directories to the files they contain (sorted, non-recursive).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            entries.sort();
            out.extend(entries);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(Error::io(
                p,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            ));
        }
    }
    Ok(out)
}

/// Like [`expand_paths`], but a directory gives only its files whose lower-cased name ends with
/// one of `suffixes` (files named explicitly are kept whatever their name).
pub fn expand_paths_with(paths: &[PathBuf], suffixes: &[&str]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let files = expand_paths(std::slice::from_ref(p))?;
        if p.is_dir() {
            out.extend(files.into_iter().filter(|f| {
                let n = file_name(f);
                suffixes.iter().any(|s| n.ends_with(s))
            }));
        } else {
            out.extend(files);
        }
    }
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// Detects the format of a set of inputs (directories already expanded or not).
pub fn detect(paths: &[PathBuf]) -> Result<Format> {
    if paths.len() == 1 && paths[0].is_file() && crate::model::snapshot::is_snapshot(&paths[0]) {
        return Ok(Format::Snapshot);
    }
    let files = expand_paths(paths)?;
    let names: Vec<String> = files.iter().map(|p| file_name(p)).collect();
    if names
        .iter()
        .any(|n| n.starts_with("title.") || n.starts_with("name."))
    {
        return Ok(Format::ImdbTsv);
    }
    if names
        .iter()
        .any(|n| n.ends_with(".list") || n.ends_with(".list.gz"))
    {
        return Ok(Format::ImdbLists);
    }
    if names.iter().all(|n| n.ends_with(".graph")) && !names.is_empty() {
        return Ok(Format::SubgraphBench);
    }
    let data: Vec<(&PathBuf, &String)> = files
        .iter()
        .zip(&names)
        .filter(|(p, _)| !super::is_metamodel_file(p))
        .collect();
    if data
        .iter()
        .any(|(_, n)| n.ends_with(".xmi") || n.ends_with(".xmi.gz"))
    {
        return Ok(Format::Xmi);
    }
    if !data.is_empty()
        && data
            .iter()
            .all(|(_, n)| n.ends_with(".json") || n.ends_with(".json.gz"))
    {
        return Ok(Format::Json);
    }
    if data.iter().any(|(p, n)| {
        (n.ends_with(".csv") || n.ends_with(".csv.gz")) && super::neo4j_csv::has_neo4j_header(p)
    }) {
        return Ok(Format::Neo4jCsv);
    }
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Err(Error::InvalidArgument(format!(
        "cannot tell the format of {}: expected a .gemp snapshot, IMDb TSV files (title.basics.tsv[.gz], …) \
         IMDb lists (actors.list[.gz], …), a subgraph-benchmark .graph file, .xmi, .json or Neo4j CSV \
         (id:ID / :START_ID headers); name it with --format",
        shown.join(", ")
    )))
}
