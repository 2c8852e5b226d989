//! Loaders, writers and generators: IMDb TSV dumps and plain-text lists, synthetic IMDb data.

pub mod imdb_tsv;
pub mod input;
pub mod report;

pub use report::{FileReport, LoadOptions, LoadReport, Malformed};
