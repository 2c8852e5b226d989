//! Input formats and their detection from file names and contents.

use std::path::PathBuf;

use super::expand;
use super::loader::Candidate;
use crate::error::{Error, Result};

/// A model input format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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

impl Format {
    /// Every format, in the order `--format` lists them.
    pub const ALL: [Format; 8] = [
        Format::Auto,
        Format::Snapshot,
        Format::ImdbTsv,
        Format::ImdbLists,
        Format::SubgraphBench,
        Format::Xmi,
        Format::Neo4jCsv,
        Format::Json,
    ];
}

/// Detects the format of a set of inputs (directories already expanded or not): a lone `.gemp`
/// snapshot, else the first loader of [`super::registry::loaders`] whose
/// [`Loader::detect`](super::loader::Loader::detect) takes the files.
pub fn detect(paths: &[PathBuf]) -> Result<Format> {
    if paths.len() == 1 && paths[0].is_file() && crate::model::snapshot::is_snapshot(&paths[0]) {
        return Ok(Format::Snapshot);
    }
    // A directory export with its manifest is Neo4j CSV whatever else it holds (an empty model's
    // export holds only the manifest, which would look like JSON).
    if paths
        .iter()
        .any(|p| super::export_manifest::has_manifest(p))
    {
        return Ok(Format::Neo4jCsv);
    }
    let inputs: Vec<Candidate> = expand::expand_paths(paths)?
        .into_iter()
        .map(Candidate::new)
        .collect();
    let loaders = super::registry::loaders();
    if let Some(l) = loaders.iter().find(|l| l.detect(&inputs)) {
        return Ok(l.format());
    }
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let expected: Vec<&str> = loaders.iter().map(|l| l.description()).collect();
    let (last, rest) = expected.split_last().unwrap_or((&"", &[]));
    Err(Error::InvalidArgument(format!(
        "cannot tell the format of {}: expected a .gemp snapshot, {} or {last}; name it with --format",
        shown.join(", "),
        rest.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_asks_the_loaders_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let tsv = file("title.basics.tsv", "tconst\n");
        let list = file("actors.list", "");
        let graph = file("g.graph", "t 0 0\n");
        let xmi = file("m.xmi", "<x/>");
        let json = file("g.json", "{}");
        let csv = file("Person.csv", "id:ID\n1\n");
        let plain = file("notes.csv", "a,b\n");
        let mm = file("m.ecore", "");
        assert_eq!(detect(&[tsv, list.clone()]).unwrap(), Format::ImdbTsv);
        assert_eq!(detect(&[list, graph.clone()]).unwrap(), Format::ImdbLists);
        assert_eq!(detect(&[graph]).unwrap(), Format::SubgraphBench);
        assert_eq!(
            detect(&[mm.clone(), xmi, json.clone()]).unwrap(),
            Format::Xmi
        );
        assert_eq!(detect(&[mm.clone(), json]).unwrap(), Format::Json);
        assert_eq!(detect(&[plain.clone(), csv]).unwrap(), Format::Neo4jCsv);
        let err = detect(&[plain, mm]).unwrap_err().to_string();
        assert!(
            err.contains(
                "expected a .gemp snapshot, IMDb TSV files (title.basics.tsv[.gz], …), IMDb lists \
                 (actors.list[.gz], …), a subgraph-benchmark .graph file, .xmi, .json or Neo4j CSV \
                 (id:ID / :START_ID headers); name it with --format"
            ),
            "{err}"
        );
    }
}
