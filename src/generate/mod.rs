//! Synthetic data generators: a realistic, deterministic IMDb dump of any size ([`imdb`]), the
//! TTC 2014 Movie Database Case's synthetic models in the same format ([`ttc14`]), random
//! labelled multigraphs ([`graph`]), Graph500 Kronecker (R-MAT) graphs ([`rmat`]), built
//! on a small self-contained PRNG toolkit ([`rng`]).

mod dir_set;
pub mod graph;
pub mod imdb;
mod names;
pub mod rmat;
pub mod rng;
pub mod ttc14;

pub use graph::{generate_graph, GraphGenConfig};
pub use imdb::{generate_imdb, generate_imdb_with, GenSummary, ImdbGenConfig};
pub use rmat::{generate_rmat, RmatConfig};
pub use ttc14::{generate_ttc14, generate_ttc14_with, Ttc14Counts, Ttc14GenConfig};
