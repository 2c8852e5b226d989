//! A*-based similarity search (Bergmann & Gil; Zeyen & Bergmann): A*I, A*II and A*III with the
//! improvements R (search-space reduction), M (adaptive mapping orientation) and S
//! (heuristic-based element selection), an optional queue-size limit, and statistics.
//!
//! Without a queue limit every variant returns the exact optimum `max_m sim_m(G_q, G_c)` over all
//! legal mappings (type-preserving, injective, partial, edges only between mapped nodes).

mod heuristic;
mod search;
mod select;
mod state;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;

pub use search::search;

use crate::error::Error;

/// The estimation and selection functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// `h_I`: 1 for every element not mapped yet; nodes first, then edges.
    AStarI,
    /// `h_II`: the best isolated similarity of every element not mapped yet; `select_II`.
    AStarII,
    /// `h_III`: the best similarity still legal under the current mapping; `select_II`, or
    /// `select_III` with improvement S.
    #[default]
    AStarIII,
}

impl FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.to_ascii_lowercase().as_str() {
            "astar1" | "a*i" | "1" | "i" => Ok(Algorithm::AStarI),
            "astar2" | "a*ii" | "2" | "ii" => Ok(Algorithm::AStarII),
            "astar3" | "a*iii" | "3" | "iii" => Ok(Algorithm::AStarIII),
            _ => Err(Error::InvalidArgument(format!(
                "unknown algorithm `{s}` (astar1, astar2, astar3)"
            ))),
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::AStarI => "A*I",
            Algorithm::AStarII => "A*II",
            Algorithm::AStarIII => "A*III",
        })
    }
}

/// The improvements of Zeyen & Bergmann, combinable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Improvements {
    /// R: the initial solution holds every mapping that is the only legal one of its node type.
    pub reduction: bool,
    /// M: case-oriented mapping when the query has more elements than the case.
    pub orientation: bool,
    /// S: select the element with the best, then fewest best, possible mappings (A*III only).
    pub selection: bool,
}

impl Improvements {
    /// All three (`RMS`).
    pub const ALL: Improvements = Improvements {
        reduction: true,
        orientation: true,
        selection: true,
    };
}

impl FromStr for Improvements {
    type Err = Error;
    /// Letters `r`, `m`, `s` in any order and case; `""`, `-` or `none` for none.
    fn from_str(s: &str) -> Result<Self, Error> {
        let mut imp = Improvements::default();
        if matches!(s, "" | "-" | "none") {
            return Ok(imp);
        }
        for c in s.chars() {
            match c.to_ascii_lowercase() {
                'r' => imp.reduction = true,
                'm' => imp.orientation = true,
                's' => imp.selection = true,
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown improvement `{c}` in `{s}` (letters r, m, s)"
                    )))
                }
            }
        }
        Ok(imp)
    }
}

impl fmt::Display for Improvements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, c) in [
            (self.reduction, 'R'),
            (self.orientation, 'M'),
            (self.selection, 'S'),
        ] {
            if on {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// A variant name as in the paper, e.g. `A*III-RMS`.
pub fn variant_name(algorithm: Algorithm, improvements: Improvements) -> String {
    let imp = improvements.to_string();
    if imp.is_empty() {
        algorithm.to_string()
    } else {
        format!("{algorithm}-{imp}")
    }
}

/// How to search.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Estimation and selection functions.
    pub algorithm: Algorithm,
    /// R, M, S.
    pub improvements: Improvements,
    /// Keep at most this many solutions in the queue (dropping the worst): faster, maybe not
    /// optimal. `None`: exact.
    pub queue_limit: Option<usize>,
    /// Give up (rather than prune, so every finished search stays exact) once the queue holds more
    /// than this many solutions: bounds the memory of a search. `None`: no bound.
    pub max_queue: Option<usize>,
    /// Give up after this long.
    pub time_limit: Option<Duration>,
    /// Give up when this flag is set (checked every few expansions).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Give up as soon as the best f-value in the queue falls below this similarity (an `f64`
    /// stored as bits; retrieval's early stop).
    pub prune_below: Option<Arc<AtomicU64>>,
}

/// Counters of one search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Solutions taken from the queue and expanded.
    pub expansions: u64,
    /// Solutions created (inserted or found complete).
    pub generated: u64,
    /// Largest queue size seen.
    pub max_queue: usize,
    /// Solutions dropped by the queue limit.
    pub pruned: u64,
    /// AMonG: iterations of the extract/expand/evaluate/insert loop (0 on the host).
    pub iterations: u64,
    /// Whether the search ran case-oriented (improvement M chose it).
    pub case_oriented: bool,
    /// Wall time of the search (preparation of the isolated similarities not included).
    pub time: Duration,
}

/// A legal mapping: for each query node and edge the case node or edge (`None` = null mapping).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mapping {
    /// Query node `i` → case node.
    pub nodes: Vec<Option<usize>>,
    /// Query edge `i` → case edge.
    pub edges: Vec<Option<usize>>,
}

/// A finished search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// `sim_m(G_q, G_c)` of the mapping found (the optimum unless solutions were pruned).
    pub similarity: f64,
    /// The mapping.
    pub mapping: Mapping,
    /// Counters.
    pub stats: Stats,
    /// True when no solution was dropped by the queue limit (the similarity is the optimum).
    pub exact: bool,
}

/// Why a search stopped without a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The time limit passed.
    TimeLimit,
    /// The cancel flag was set.
    Cancelled,
    /// The best f-value fell below `prune_below`.
    BelowBound,
    /// A priority queue was full: one of AMonG's device queues (solutions would have been lost;
    /// raise the capacity) or the host queue past [`SearchOptions::max_queue`].
    QueueCapacity,
}

/// The end of a search.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The search finished.
    Done(SearchResult),
    /// The search gave up.
    Stopped {
        /// Why.
        reason: StopReason,
        /// The best f-value left in the queue: an upper bound of the similarity.
        upper_bound: f64,
        /// Counters up to the stop.
        stats: Stats,
    },
}

impl Outcome {
    /// The result when the search finished.
    pub fn done(self) -> Option<SearchResult> {
        match self {
            Outcome::Done(r) => Some(r),
            Outcome::Stopped { .. } => None,
        }
    }

    /// The counters.
    pub fn stats(&self) -> &Stats {
        match self {
            Outcome::Done(r) => &r.stats,
            Outcome::Stopped { stats, .. } => stats,
        }
    }
}

/// `sim_m(G_q, G_c)` of `mapping` (checked for legality; `None` when illegal): the reference
/// for tests and for results computed elsewhere (AMonG).
pub fn mapping_similarity(problem: &super::problem::Problem, mapping: &Mapping) -> Option<f64> {
    let q = &problem.query;
    let c = &problem.case;
    if mapping.nodes.len() != q.nodes || mapping.edges.len() != q.edges {
        return None;
    }
    let mut used = vec![false; c.len()];
    let mut sum = 0.0;
    for (x, y) in mapping
        .nodes
        .iter()
        .enumerate()
        .map(|(i, y)| (i, y.map(|y| y)))
        .chain(
            mapping
                .edges
                .iter()
                .enumerate()
                .map(|(i, y)| (q.nodes + i, y.map(|y| c.nodes + y))),
        )
    {
        let Some(y) = y else { continue };
        if y >= c.len() || used[y] || c.is_edge(y) != q.is_edge(x) {
            return None;
        }
        used[y] = true;
        if q.is_edge(x) {
            let (l, r) = q.ends_of(x);
            let (cl, cr) = c.ends_of(y);
            if mapping.nodes[l] != Some(cl) || mapping.nodes[r] != Some(cr) {
                return None;
            }
        }
        sum += problem.similarity(x, y)?;
    }
    Some(if q.is_empty() {
        1.0
    } else {
        sum / problem.denominator()
    })
}
