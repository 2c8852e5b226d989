//! Retrieval: the `k` cases most similar to a query, searched in parallel over the cases (rayon),
//! with the early stop of Bergmann & Gil's parallel retrieval: once `k` searches have finished,
//! a search whose best f-value (an upper bound of its similarity) falls below the `k`-th best
//! finished similarity cannot enter the top `k` and stops.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::astar::{search, Outcome, SearchOptions};
use super::graph::SemanticGraph;
use super::problem::Problem;
use super::sim_model::SimilarityModel;
use crate::error::Result;

/// The outcome for one case.
#[derive(Debug, Clone)]
pub struct CaseOutcome {
    /// Index of the case in the case base.
    pub case: usize,
    /// The search's end (finished, or stopped by the time limit or the early stop).
    pub outcome: Outcome,
}

impl CaseOutcome {
    /// The similarity when the search finished.
    pub fn similarity(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Done(r) => Some(r.similarity),
            Outcome::Stopped { .. } => None,
        }
    }
}

/// A retrieval's answer.
#[derive(Debug, Clone)]
pub struct Retrieval {
    /// The finished cases, best first (ties by case index), at most `k`.
    pub ranked: Vec<CaseOutcome>,
    /// Cases whose search stopped (early stop, time limit), by case index.
    pub stopped: Vec<CaseOutcome>,
    /// Finished cases below the top `k`.
    pub others: Vec<CaseOutcome>,
    /// Wall time of the whole retrieval.
    pub time: Duration,
}

/// Searches `query` against every case in parallel and keeps the best `k` (with `early_stop`,
/// searches that cannot reach the top `k` stop; the top `k` similarities are the same).
pub fn retrieve(
    query: &SemanticGraph,
    cases: &[SemanticGraph],
    model: &SimilarityModel,
    k: usize,
    options: &SearchOptions,
    early_stop: bool,
) -> Result<Retrieval> {
    retrieve_with(
        query,
        cases,
        model,
        k,
        early_stop,
        true,
        |problem, bound| {
            let mut o = options.clone();
            o.prune_below = bound;
            search(problem, &o)
        },
    )
}

/// [`retrieve`] with any search function `run(problem, prune_below)`; `parallel` false runs the
/// cases one after the other (for a single device).
pub fn retrieve_with<F>(
    query: &SemanticGraph,
    cases: &[SemanticGraph],
    model: &SimilarityModel,
    k: usize,
    early_stop: bool,
    parallel: bool,
    run: F,
) -> Result<Retrieval>
where
    F: Fn(&Problem, Option<Arc<AtomicU64>>) -> Result<Outcome> + Sync,
{
    let start = Instant::now();
    let k = k.max(1);
    // Most promising cases first (initial upper bound: the best isolated similarity of every
    // query element), so the threshold rises early.
    let mut problems: Vec<(usize, Problem, f64)> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let p = Problem::new(query, c, model)?;
            let bound: f64 = p
                .query_candidates
                .iter()
                .map(|l| l.first().map_or(0.0, |c| c.1))
                .sum();
            Ok((i, p, bound))
        })
        .collect::<Result<_>>()?;
    problems.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    let threshold = Arc::new(AtomicU64::new(0f64.to_bits()));
    let finished: Mutex<Vec<f64>> = Mutex::new(Vec::new());
    let one = |(case, problem, _): &(usize, Problem, f64)| -> Result<CaseOutcome> {
        let bound = early_stop.then(|| Arc::clone(&threshold));
        let outcome = run(problem, bound)?;
        if let (true, Outcome::Done(r)) = (early_stop, &outcome) {
            let mut f = finished.lock().unwrap_or_else(PoisonError::into_inner);
            f.push(r.similarity);
            if f.len() >= k {
                f.sort_by(|a, b| b.total_cmp(a));
                f.truncate(k);
                threshold.store(f[k - 1].to_bits(), Ordering::Relaxed);
            }
        }
        Ok(CaseOutcome {
            case: *case,
            outcome,
        })
    };
    let outcomes: Vec<CaseOutcome> = if parallel {
        problems.par_iter().map(one).collect::<Result<_>>()?
    } else {
        problems.iter().map(one).collect::<Result<_>>()?
    };
    let (mut done, mut stopped): (Vec<_>, Vec<_>) =
        outcomes.into_iter().partition(|o| o.similarity().is_some());
    done.sort_by(|a, b| {
        b.similarity()
            .unwrap_or(0.0)
            .total_cmp(&a.similarity().unwrap_or(0.0))
            .then(a.case.cmp(&b.case))
    });
    stopped.sort_by_key(|o| o.case);
    let others = done.split_off(k.min(done.len()));
    Ok(Retrieval {
        ranked: done,
        stopped,
        others,
        time: start.elapsed(),
    })
}
