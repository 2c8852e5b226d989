//! The order stage: the sequence in which the join binds the pattern nodes. Two algorithms
//! behind one contract ([`order`]): GEMP's cost-based planner (sampled fan-out,
//! [`crate::exec::plan`]) and GpSense's rank order (`deg / freq`, concept nodes first,
//! [`crate::engines::gpsense::plan`]). In both, every node after the first of its connected component is
//! connected to a node before it.

use crate::exec::candidates::CandidateSet;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, NodeSlot};

use super::OrderAlgo;

/// The visiting order of `query`'s pattern nodes (every slot once) by `algo`, over the
/// candidate sets the filter stage left (`cands`, indexed by node slot).
pub fn order(
    algo: OrderAlgo,
    model: &Model,
    query: &BoundQuery,
    cands: &[CandidateSet],
) -> Vec<NodeSlot> {
    match algo {
        OrderAlgo::Gemp => crate::engines::gemp::plan_for(model, query, cands, true)
            .steps
            .iter()
            .map(|s| s.node)
            .collect(),
        OrderAlgo::Gpsense => {
            let counts: Vec<usize> = cands.iter().map(|c| c.len()).collect();
            crate::engines::gpsense::plan::plan(model, query, &counts).order
        }
    }
}
