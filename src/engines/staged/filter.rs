//! The filter stage: for every pattern node, the data nodes that may bind it. Two algorithms behind
//! one contract ([`filter`]): GEMP's candidate filter ([`crate::exec::candidates`]) and
//! GpSense's initialisation plus neighbour refinement ([`crate::engines::gpsense::filter`]). Both are
//! sound (no node of a match is dropped); they differ only in how much they prune.

use crate::engines::gpsense::filter::{self as gps_filter, FilterConfig, Topo};
use crate::exec::candidates::{self, CandidateSet, Semantics};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

use super::FilterAlgo;

/// The candidate set of every pattern node of `query` (indexed by node slot) by `algo`. Both
/// algorithms apply the host's unary conjuncts, string ones included
/// ([`crate::exec::plan::unary_conjuncts_with`]`(query, true)`), so every join may take them as applied.
pub fn filter(
    algo: FilterAlgo,
    model: &Model,
    query: &BoundQuery,
    semantics: Semantics,
) -> Vec<CandidateSet> {
    let unary = crate::exec::plan::unary_conjuncts_with(query, true);
    match algo {
        FilterAlgo::Gemp => candidates::for_query(model, query, &unary, semantics),
        FilterAlgo::Gpsense => gpsense(model, query, &unary, semantics),
    }
}

/// GpSense's filter: label, degree and unary tests per node into flags, then neighbour filtering
/// along GpSense's own visiting order and one refinement round in reverse (the engine's
/// default [`FilterConfig`]).
fn gpsense(
    model: &Model,
    query: &BoundQuery,
    unary: &[Vec<usize>],
    semantics: Semantics,
) -> Vec<CandidateSet> {
    let mut flags: Vec<Vec<bool>> = unary
        .iter()
        .enumerate()
        .map(|(slot, unary)| gps_filter::init_flags(model, query, unary, slot, semantics))
        .collect();
    let counts: Vec<usize> = flags
        .iter()
        .map(|f| f.iter().filter(|&&b| b).count())
        .collect();
    let plan = crate::engines::gpsense::plan::plan(model, query, &counts);
    let topo = Topo::of_model(model);
    gps_filter::refine(&topo, query, &plan, &mut flags, FilterConfig::default())
        .into_iter()
        .map(|nodes| CandidateSet::from_sorted(nodes, model.node_count()))
        .collect()
}
