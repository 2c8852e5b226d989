//! How a query runs: the options every engine takes and the timings every engine reports.

use std::time::Duration;

use serde::Serialize;

use crate::pattern::Semantics;

/// How to run a query.
#[derive(Debug, Clone, Default)]
pub struct MatchOptions {
    /// Node-injective (default), homomorphic or Cypher (relationship-isomorphic) matching.
    pub semantics: Semantics,
    /// Stop cleanly after this long; the result is then marked partial.
    pub timeout: Option<Duration>,
    /// Only the number of result rows is wanted (no rows are materialised when avoidable).
    pub count_only: bool,
    /// Stop after this many pattern matches (`--limit`), counted exactly: the subgraph-matching
    /// field's "first N embeddings". `None` = every match.
    pub limit: Option<u64>,
}

/// Timings of the host pipeline's stages.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    /// Candidate filtering.
    pub filter: Duration,
    /// Planning.
    pub plan: Duration,
    /// Enumeration (topology and attribute phases).
    pub enumerate: Duration,
    /// Result stage.
    pub results: Duration,
}
