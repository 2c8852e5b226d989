//! TruST: inexact graph matching by a truncated search tree (Zhang, Franco Soto, Udawat — see
//! `shared/papers/trust-gpu-truncated-search-tree.txt`), on the host and on OpenCL.
//!
//! Given a template graph and a data graph whose nodes carry string values, TruST finds the
//! injective mappings of template nodes to data nodes that best agree in values and neighbourhoods:
//!
//! 1. [`similarity`] — `S_ij`, the normalised Levenshtein similarity of the values
//!    ([`levenshtein`]);
//! 2. [`one_hop`] — `OH_ij = ½·S_ij + ½·W_ij`, `W_ij` an exact maximum-weight matching between the
//!    two neighbourhoods ([`assignment`]), normalised by the template degree;
//! 3. [`search`] — a level-wise beam search (`k0` pairs at level 1, `β` states per level) that
//!    removes duplicate matchings by hashing their canonical form;
//! 4. [`TrustResult`] — the top-k matchings with score, mapping and per-node scores.
//!
//! Every score is fixed point (units of 1/[`levenshtein::SCALE`]), so the device pipeline
//! (`device`, `opencl` feature) produces exactly the host's results. Graphs come from the shared
//! model through [`TrustGraph::from_model`]; [`generate`] makes random test and benchmark inputs.
//!
//! **Parameters.** `k0` and `β` trade time for accuracy: the search does `O(β · |V_T| · deg)` work
//! per level, and a matching can only be found if its first pair is among the `k0` best pairs and
//! each of its prefixes stays among the `β` best states. With both unbounded the search is
//! exhaustive over edge-preserving injective mappings.

pub mod assignment;
#[cfg(feature = "opencl")]
pub mod device;
pub mod generate;
pub mod graph;
pub mod levenshtein;
pub mod one_hop;
pub mod report;
pub mod search;
pub mod similarity;

use std::time::{Duration, Instant};

pub use graph::{TrustGraph, ValueSources, DEFAULT_VALUE_PROPERTY, NONE};
pub use search::{Level, LevelStats, SearchParams};

use crate::error::{Error, Result};
use one_hop::OneHopSource;

/// Default number of level-1 pairs.
pub const DEFAULT_K0: usize = 32;
/// Default search range β.
pub const DEFAULT_BEAM: usize = 128;
/// Default number of matchings reported.
pub const DEFAULT_TOP: usize = 5;

/// All the knobs of a TruST run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustParams {
    /// The search parameters (`k0`, `β`, depth).
    pub search: SearchParams,
    /// How many matchings to report.
    pub top: usize,
}

impl Default for TrustParams {
    fn default() -> Self {
        TrustParams {
            search: SearchParams {
                k0: DEFAULT_K0,
                beam: DEFAULT_BEAM,
                depth: None,
            },
            top: DEFAULT_TOP,
        }
    }
}

/// One template node's part of a matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeMatch {
    /// The template node.
    pub template: u32,
    /// Its data node (`None` when the search stopped before reaching it).
    pub data: Option<u32>,
    /// `S` of the pair (fixed point; 0 when unmatched).
    pub similarity: u32,
    /// `OH` of the pair (fixed point; 0 when unmatched).
    pub one_hop: u32,
}

/// A matching found by TruST.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    /// Sum of the one-hop scores of its pairs (fixed point).
    pub raw_score: u64,
    /// One entry per template node, in template order.
    pub nodes: Vec<NodeMatch>,
}

impl Matching {
    /// The score normalised to `[0, 1]`: the mean one-hop score over all template nodes
    /// (unmatched ones count 0).
    pub fn score(&self) -> f64 {
        levenshtein::to_f64(self.raw_score) / self.nodes.len().max(1) as f64
    }

    /// The data node of each template node (`NONE` when unmatched).
    pub fn mapping(&self) -> Vec<u32> {
        self.nodes.iter().map(|n| n.data.unwrap_or(NONE)).collect()
    }
}

/// Wall-clock time of each phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timings {
    /// Similarity table.
    pub similarity: Duration,
    /// One-hop table.
    pub one_hop: Duration,
    /// Tree search and result assembly.
    pub search: Duration,
}

impl Timings {
    /// The whole pipeline.
    pub fn total(&self) -> Duration {
        self.similarity + self.one_hop + self.search
    }
}

/// The outcome of a TruST run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustResult {
    /// The best matchings, best first (at most `top`).
    pub matchings: Vec<Matching>,
    /// Statistics of every level run.
    pub levels: Vec<LevelStats>,
    /// Wall-clock time per phase.
    pub timings: Timings,
}

/// Checks the inputs every backend needs: a non-empty template.
pub fn check_inputs(template: &TrustGraph, params: &TrustParams) -> Result<()> {
    if template.node_count() == 0 {
        return Err(Error::InvalidArgument(
            "the template graph has no nodes".into(),
        ));
    }
    if params.search.k0 == 0 || params.search.beam == 0 {
        return Err(Error::InvalidArgument(
            "k0 and the beam must be at least 1".into(),
        ));
    }
    if params.search.depth == Some(0) {
        return Err(Error::InvalidArgument(
            "the depth must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Builds the top-`top` matchings of the final level (already sorted best first); `sim` and
/// `one_hop` give the scores of a (template node, data node) pair.
pub fn assemble(
    level: &Level,
    t: usize,
    top: usize,
    mut sim: impl FnMut((u32, u32)) -> u32,
    mut one_hop: impl FnMut((u32, u32)) -> u32,
) -> Vec<Matching> {
    (0..level.len().min(top))
        .map(|k| Matching {
            raw_score: level.scores[k],
            nodes: level
                .state(k, t)
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let pair = (i as u32, x);
                    let matched = x != NONE;
                    NodeMatch {
                        template: i as u32,
                        data: matched.then_some(x),
                        similarity: if matched { sim(pair) } else { 0 },
                        one_hop: if matched { one_hop(pair) } else { 0 },
                    }
                })
                .collect(),
        })
        .collect()
}

/// Runs the whole pipeline on the host: the similarity table in parallel, one-hop bounds in
/// parallel and exact one-hop scores only where the search needs them ([`one_hop::LazyOneHop`]).
pub fn run_host(
    template: &TrustGraph,
    data: &TrustGraph,
    params: &TrustParams,
) -> Result<TrustResult> {
    check_inputs(template, params)?;
    let d = data.node_count();
    let mut timings = Timings::default();
    let start = Instant::now();
    let s = similarity::similarity_table(template, data);
    timings.similarity = start.elapsed();
    let start = Instant::now();
    let mut oh = one_hop::LazyOneHop::new(template, data, &s);
    timings.one_hop = start.elapsed();
    let start = Instant::now();
    let (level, levels) = search::search(template, data, &mut oh, &params.search)?;
    let matchings = assemble(
        &level,
        template.node_count(),
        params.top,
        |p| s[p.0 as usize * d + p.1 as usize],
        |p| oh.one_hop(p.0, p.1),
    );
    timings.search = start.elapsed();
    Ok(TrustResult {
        matchings,
        levels,
        timings,
    })
}
