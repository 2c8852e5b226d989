//! Loaders, writers and generators: IMDb TSV dumps and plain-text lists, synthetic IMDb data.

pub mod format;
pub mod generate;
pub mod imdb_lists;
pub mod imdb_tsv;
pub mod input;
pub mod report;
pub mod subgraph_bench;

use std::path::PathBuf;

pub use format::Format;
pub use report::{FileReport, LoadOptions, LoadReport, Malformed};

use crate::error::{Error, Result};
use crate::model::{Model, ModelBuilder};

/// Loads `paths` (files or directories) in `format` into a frozen model. For
/// [`Format::Snapshot`] use [`crate::model::snapshot::open`] instead; [`Format::Auto`] detects.
pub fn load(
    paths: &[PathBuf],
    format: Format,
    options: &LoadOptions,
) -> Result<(Model, LoadReport)> {
    let format = match format {
        Format::Auto => format::detect(paths)?,
        f => f,
    };
    let mut builder = ModelBuilder::new();
    let mut report = LoadReport::default();
    match format {
        Format::ImdbTsv => imdb_tsv::load_into(&mut builder, paths, options, &mut report)?,
        Format::ImdbLists => imdb_lists::load_into(&mut builder, paths, options, &mut report)?,
        Format::SubgraphBench => {
            for p in format::expand_paths(paths)? {
                let g = subgraph_bench::parse(&p, options, &mut report)?;
                subgraph_bench::add_to(&mut builder, &g)?;
            }
        }
        Format::Snapshot | Format::Auto => {
            return Err(Error::InvalidArgument(
                "snapshots are opened with model::snapshot::open, not loaded".into(),
            ))
        }
    }
    log::debug!(
        "parsed {} nodes, {} edges",
        builder.node_count(),
        builder.edge_count()
    );
    let start = std::time::Instant::now();
    let model = builder.freeze()?;
    log::debug!("froze the model in {:.2?}", start.elapsed());
    Ok((model, report))
}
