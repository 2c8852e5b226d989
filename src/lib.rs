//! # gemp — GPU-accelerated graph pattern matching and graph similarity on OpenCL
//!
//! One graph model ([`model`]) shared by every algorithm: GEMP's two-phase pattern matching pipeline,
//! A* graph similarity and AMonG, TruST inexact matching and GpSense filter-and-join matching;
//! [`transform`] changes models with rule files of Cypher updating statements.
//! See `README.md` and the architecture map for the big picture.

#![warn(missing_docs)]

pub mod api;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod engines;
pub mod error;
pub mod exec;
pub mod generate;
pub mod gpu;
pub mod io;
pub mod model;
pub mod pattern;
pub mod session;
pub mod similarity;
pub mod transform;
pub mod trust;
pub mod util;

pub use error::{Error, ErrorKind, Location, Result};
