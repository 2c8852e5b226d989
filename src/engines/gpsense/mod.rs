//! GpSense (Tran, Cambria & Hussain): filter-and-join subgraph matching and multi-level graph
//! compression, a second matching engine for the same pattern files (`--engine gpsense`).
//!
//! The pipeline, per query:
//!
//! 1. [`plan`] — concept versus variable nodes and the visiting order by rank `deg/freq`;
//! 2. [`filter`] — candidate initialisation (label and degree, Definition 3) into one boolean array
//!    per query node, stream compaction, neighbour filtering along the order with both CSRs, one
//!    refinement round in reversed order (more with [`FilterConfig::refine_rounds`]);
//! 3. [`join`] — edge candidates per query relationship (count, prefix sum, write), combined into
//!    full matches with injectivity and the remaining `WHERE` conjuncts;
//! 4. the default engine's attribute phase (string conjuncts on complete matches) and result stage
//!    ([`crate::exec::results`]), so results are the default engine's: every distinct binding
//!    once, node-injective by default, homomorphic with [`Semantics::Homomorphism`]. Cypher's
//!    relationship isomorphism ([`Semantics::Cypher`]) is not in this engine: such a query is
//!    refused with a query error.
//!
//! Data graphs larger than a device-memory budget are compressed offline ([`compress`]): similar
//! nodes merge into weighted hyper-nodes level by level until the graph fits; queries are filtered
//! and joined on the compressed graph (Definition 5 candidates), and the hyper-nodes each pattern
//! node takes in a hyper-match are expanded through the mapping lists into exact candidates of the
//! original graph, where the exact join runs ([`expand`]). The compressed graph is saved beside a
//! snapshot (`model.gemp.gpsense`, [`store`]) and reused.
//!
//! Filtering and edge-candidate collection run as OpenCL kernels (`cl/gpsense_*.cl`, [`device`])
//! when the engine has a device (on the compressed graph when there is one); combining partial
//! matches, and everything on the original graph of a compressed model, runs on the host (all
//! cores). Every query the default engine accepts under node-isomorphism or homomorphism runs:
//! nothing falls back and nothing is refused.
//!
//! [`FilterConfig::refine_rounds`]: filter::FilterConfig::refine_rounds
//! [`Semantics::Homomorphism`]: crate::exec::Semantics::Homomorphism
//! [`Semantics::Cypher`]: crate::exec::Semantics::Cypher

#![cfg_attr(not(feature = "opencl"), allow(rustdoc::broken_intra_doc_links))]

pub mod compress;
#[cfg(feature = "opencl")]
pub mod device;
pub mod engine;
pub mod expand;
pub mod filter;
pub mod join;
pub mod plan;
pub mod store;

pub use engine::{Engine, EngineConfig};
