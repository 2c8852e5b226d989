//! The same query on a timely-dataflow cluster (feature `cluster`): a partition set written by
//! `gemp partition` ([`crate::io::partitions`]), one process per machine (or several on one), and
//! a BiGJoin-style dataflow that extends partial matches one query vertex at a time, exchanging
//! them to the worker that owns the node whose data is needed next.
//!
//! - [`plan`]: the distributed plan of a bound query (what it refuses, the order, the checks per
//!   vertex);
//! - [`local`]: what one process holds (its parts) and the per-node routines;
//! - [`dataflow`]: the worker's timely dataflow, in rounds of start vertices;
//! - [`sieve`]: per-query label bits of every node, so candidates are filtered before they travel;
//! - [`star`]: star-shaped counts (one centre, leaves checking labels only) counted at the centre;
//! - [`connect`]: the connections between processes, made silently within a deadline;
//! - [`run`]: one process's run (timely's configuration and failure handling);
//! - [`finish`]: the result at process 0 (count, grouping, `DISTINCT`, `ORDER BY`, `LIMIT`).
//!
//! The query is prepared as every query is ([`crate::session::prepare`]), bound against a part of
//! the set (every part has the whole model's schema and dictionaries).

pub mod connect;
pub mod dataflow;
pub mod finish;
pub mod local;
pub mod plan;
pub mod run;
pub mod sieve;
pub mod star;

pub use finish::{finish, Finished};
pub use plan::DistPlan;
pub use run::{run, schema_model, ClusterOptions, Loaded, ProcessResult};
