//! Synthetic data generators: a realistic, deterministic IMDb dump of any size ([`imdb`]), built
//! on a small self-contained PRNG toolkit ([`rng`]).

pub mod imdb;
mod names;
pub mod rng;

pub use imdb::{generate_imdb, GenSummary, ImdbGenConfig};
