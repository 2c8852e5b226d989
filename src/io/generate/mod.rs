//! Synthetic data generators: a realistic, deterministic IMDb dump of any size ([`imdb`]), random
//! labelled multigraphs ([`graph`]), built
//! on a small self-contained PRNG toolkit ([`rng`]).

pub mod graph;
pub mod imdb;
mod names;
pub mod rng;

pub use graph::{generate_graph, GraphGenConfig};
pub use imdb::{generate_imdb, GenSummary, ImdbGenConfig};
