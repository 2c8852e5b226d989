//! The registry of loaders: one [`Loader`] per input format, in detection priority order. Each
//! entry says which files are its format's (extensions, or the IMDb file names) and hands its
//! inputs to the format's module.

use std::path::{Path, PathBuf};

use super::loader::{Candidate, LoadContext, Loader};
use super::report::LoadReport;
use super::{imdb_lists, imdb_tsv, json_graph, neo4j_csv, subgraph_bench, xmi, Format};
use crate::error::Result;
use crate::model::ModelBuilder;

/// Every loader, in the order detection asks them (IMDb names first, then extensions, then
/// Neo4j CSV, which is told from its header).
pub fn loaders() -> &'static [&'static dyn Loader] {
    static LOADERS: [&dyn Loader; 6] = [
        &ImdbTsvLoader,
        &ImdbListsLoader,
        &SubgraphBenchLoader,
        &XmiFormatLoader,
        &JsonLoader,
        &Neo4jCsvLoader,
    ];
    &LOADERS
}

/// The loader of `format`; `None` for [`Format::Auto`] and [`Format::Snapshot`] (a snapshot is
/// opened, not loaded).
pub fn loader_for(format: Format) -> Option<&'static dyn Loader> {
    loaders().iter().copied().find(|l| l.format() == format)
}

/// The official IMDb TSV dumps ([`imdb_tsv`]): files are told by name (`title.basics.tsv[.gz]`, …).
#[derive(Debug, Clone, Copy)]
pub struct ImdbTsvLoader;

impl Loader for ImdbTsvLoader {
    fn format(&self) -> Format {
        Format::ImdbTsv
    }
    fn description(&self) -> &'static str {
        "IMDb TSV files (title.basics.tsv[.gz], …)"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &[".tsv", ".tsv.gz"]
    }
    fn accepts(&self, path: &Path) -> bool {
        imdb_tsv::detect_file(path).is_some()
    }
    fn detect(&self, inputs: &[Candidate]) -> bool {
        inputs
            .iter()
            .any(|c| c.name.starts_with("title.") || c.name.starts_with("name."))
    }
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()> {
        imdb_tsv::load_into(builder, paths, context.options, report)
    }
}

/// The old IMDb plain-text lists ([`imdb_lists`]): files are told by name (`actors.list[.gz]`, …).
#[derive(Debug, Clone, Copy)]
pub struct ImdbListsLoader;

impl Loader for ImdbListsLoader {
    fn format(&self) -> Format {
        Format::ImdbLists
    }
    fn description(&self) -> &'static str {
        "IMDb lists (actors.list[.gz], …)"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &[".list", ".list.gz"]
    }
    fn accepts(&self, path: &Path) -> bool {
        imdb_lists::detect_file(path).is_some()
    }
    fn detect(&self, inputs: &[Candidate]) -> bool {
        inputs.iter().any(|c| c.ends_with_any(self.extensions()))
    }
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()> {
        imdb_lists::load_into(builder, paths, context.options, report)
    }
}

/// The subgraph-matching benchmarks' `.graph` files ([`subgraph_bench`]).
#[derive(Debug, Clone, Copy)]
pub struct SubgraphBenchLoader;

impl Loader for SubgraphBenchLoader {
    fn format(&self) -> Format {
        Format::SubgraphBench
    }
    fn description(&self) -> &'static str {
        "a subgraph-benchmark .graph file"
    }
    fn extensions(&self) -> &'static [&'static str] {
        subgraph_bench::EXTENSIONS
    }
    fn accepts(&self, _path: &Path) -> bool {
        // Every file of a directory given with `--format subgraph-bench` is a graph.
        true
    }
    fn detect(&self, inputs: &[Candidate]) -> bool {
        !inputs.is_empty() && inputs.iter().all(|c| c.ends_with_any(self.extensions()))
    }
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()> {
        subgraph_bench::load_into(builder, paths, context.options, report)
    }
}

/// EMF XMI models ([`xmi`]), `.xmi` or `.xmi.gz`.
#[derive(Debug, Clone, Copy)]
pub struct XmiFormatLoader;

impl Loader for XmiFormatLoader {
    fn format(&self) -> Format {
        Format::Xmi
    }
    fn description(&self) -> &'static str {
        ".xmi"
    }
    fn extensions(&self) -> &'static [&'static str] {
        xmi::EXTENSIONS
    }
    fn detect(&self, inputs: &[Candidate]) -> bool {
        inputs
            .iter()
            .any(|c| !c.metamodel && c.ends_with_any(self.extensions()))
    }
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()> {
        xmi::load_into(builder, paths, context.metamodel, context.options, report)
    }
}

/// The JSON graph format ([`json_graph`]), `.json` or `.json.gz`.
#[derive(Debug, Clone, Copy)]
pub struct JsonLoader;

impl Loader for JsonLoader {
    fn format(&self) -> Format {
        Format::Json
    }
    fn description(&self) -> &'static str {
        ".json"
    }
    fn extensions(&self) -> &'static [&'static str] {
        json_graph::EXTENSIONS
    }
    fn detect(&self, inputs: &[Candidate]) -> bool {
        let mut data = inputs.iter().filter(|c| !c.metamodel).peekable();
        data.peek().is_some() && data.all(|c| c.ends_with_any(self.extensions()))
    }
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()> {
        json_graph::load_into(builder, paths, context.metamodel, context.options, report)
    }
}

/// Neo4j bulk-import CSV ([`neo4j_csv`]): `.csv` / `.csv.gz` files with an `:ID` or `:START_ID`
/// header, and the `--nodes` / `--relationships` groups of [`super::LoadOptions::neo4j`].
#[derive(Debug, Clone, Copy)]
pub struct Neo4jCsvLoader;

impl Loader for Neo4jCsvLoader {
    fn format(&self) -> Format {
        Format::Neo4jCsv
    }
    fn description(&self) -> &'static str {
        "Neo4j CSV (id:ID / :START_ID headers)"
    }
    fn extensions(&self) -> &'static [&'static str] {
        neo4j_csv::EXTENSIONS
    }
    fn detect(&self, inputs: &[Candidate]) -> bool {
        inputs.iter().any(|c| {
            !c.metamodel
                && c.ends_with_any(self.extensions())
                && neo4j_csv::has_neo4j_header(&c.path)
        })
    }
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()> {
        neo4j_csv::load_into(builder, paths, context.metamodel, context.options, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_loader_per_loadable_format() {
        for f in &Format::ALL {
            let found = loaders().iter().filter(|l| l.format() == *f).count();
            let loadable = !matches!(f, Format::Auto | Format::Snapshot);
            assert_eq!(found, usize::from(loadable), "{f:?}");
        }
    }

    #[test]
    fn directory_files_are_chosen_per_loader() {
        let p = |s: &str| PathBuf::from(s);
        assert!(ImdbTsvLoader.accepts(&p("d/title.basics.tsv.gz")));
        assert!(!ImdbTsvLoader.accepts(&p("d/title.akas.tsv")));
        assert!(ImdbListsLoader.accepts(&p("d/actors.list")));
        assert!(XmiFormatLoader.accepts(&p("d/M.XMI.gz")));
        assert!(!XmiFormatLoader.accepts(&p("d/m.json")));
        assert!(JsonLoader.accepts(&p("d/g.json.gz")));
        assert!(Neo4jCsvLoader.accepts(&p("d/Person.csv")));
    }
}
