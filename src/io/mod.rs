//! Loaders and writers: IMDb TSV dumps and plain-text lists, subgraph-benchmark graphs,
//! model-driven-engineering formats (EMF XMI with an Ecore/Xcore metamodel, Neo4j-style CSV, the
//! JSON graph format).
//!
//! Every input format has a [`Loader`] ([`loader`]), listed once in [`registry`]; format
//! detection and [`load_with_metamodel`] go through that list, and every loader expands
//! directories with the one path expander ([`expand`]).

pub mod expand;
pub mod export_manifest;
pub mod format;
pub mod imdb_lists;
pub mod imdb_tsv;
pub mod input;
pub mod json_graph;
pub mod loader;
pub mod metamodel;
pub mod neo4j_csv;
pub mod partitions;
pub mod registry;
pub mod report;
pub mod subgraph_bench;
pub mod xmi;

use std::path::{Path, PathBuf};

pub use format::Format;
pub use loader::{LoadContext, Loader};
pub use report::{FileReport, LoadOptions, LoadReport, Malformed};

use crate::error::{Error, Result};
use crate::model::{Model, ModelBuilder};

/// Loads `paths` (files or directories) in `format` into a frozen model. For
/// [`Format::Snapshot`] use [`crate::model::snapshot::open`] instead; [`Format::Auto`] detects.
/// For the XMI, Neo4j-CSV and JSON formats, `.ecore` / `.xcore` files among `paths` are read as
/// the metamodel (see [`load_with_metamodel`]).
pub fn load(
    paths: &[PathBuf],
    format: Format,
    options: &LoadOptions,
) -> Result<(Model, LoadReport)> {
    load_with_metamodel(paths, format, None, options)
}

/// The lower-cased endings of metamodel file names.
pub const METAMODEL_EXTENSIONS: &[&str] = &[".ecore", ".xcore"];

/// True for `.ecore` and `.xcore` files.
pub fn is_metamodel_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ecore") || e.eq_ignore_ascii_case("xcore"))
}

/// [`load`] with an explicit metamodel file (`.ecore` or `.xcore`), merged with any metamodel
/// files among `paths`. The metamodel gives XMI, CSV and JSON nodes their superclass labels,
/// completes references that have an opposite and types XMI and CSV properties.
pub fn load_with_metamodel(
    paths: &[PathBuf],
    format: Format,
    metamodel: Option<&Path>,
    options: &LoadOptions,
) -> Result<(Model, LoadReport)> {
    let (mut mm_files, data): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.iter().cloned().partition(|p| is_metamodel_file(p));
    // A directory's metamodel files count too (XMI, CSV and JSON only use them).
    for dir in paths.iter().filter(|p| p.is_dir()) {
        mm_files.extend(expand::dir_files(dir, |f| {
            expand::has_suffix(f, METAMODEL_EXTENSIONS)
        })?);
    }
    let mut mm: Option<metamodel::Metamodel> = None;
    for f in mm_files.iter().map(PathBuf::as_path).chain(metamodel) {
        let m = metamodel::Metamodel::load(f)?;
        match &mut mm {
            Some(all) => all.merge(m),
            None => mm = Some(m),
        }
    }
    let paths = if mm_files.is_empty() {
        paths
    } else {
        &data[..]
    };
    let format = match format {
        Format::Auto => format::detect(paths)?,
        f => f,
    };
    let Some(loader) = registry::loader_for(format) else {
        return Err(Error::InvalidArgument(
            "snapshots are opened with model::snapshot::open, not loaded".into(),
        ));
    };
    let mut builder = ModelBuilder::new();
    let mut report = LoadReport::default();
    let context = LoadContext {
        options,
        metamodel: mm.as_ref(),
    };
    crate::util::memory::enter_stage(&"loading the model");
    let over_limit = || {
        crate::util::memory::check(input::LOADING_STAGE).then(|| Error::MemoryLimit {
            stage: input::LOADING_STAGE.into(),
            limit: crate::util::memory::limit().unwrap_or(u64::MAX),
        })
    };
    loader.load(paths, &context, &mut builder, &mut report)?;
    if let Some(e) = over_limit() {
        return Err(e);
    }
    log::debug!(
        "parsed {} nodes, {} edges",
        builder.node_count(),
        builder.edge_count()
    );
    let start = std::time::Instant::now();
    input::load_phase(input::LoadPhase::Freeze);
    let model = builder.freeze()?;
    if let Some(e) = over_limit() {
        return Err(e);
    }
    log::debug!("froze the model in {:.2?}", start.elapsed());
    Ok((model, report))
}
