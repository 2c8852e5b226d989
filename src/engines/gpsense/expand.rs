//! From matches on the compressed graph back to the original graph (paper §6).
//!
//! The join on the compressed graph reports hyper-matches: one hyper-node per pattern node. Every
//! match of the original graph maps to a hyper-match (the hyper-nodes of its nodes; Theorems 1 and
//! 2), so the data nodes that can bind a pattern node `u` are the members of the mapping lists
//! `M(X)` of the hyper-nodes `X` that `u` takes in some hyper-match — and of those only the exact
//! candidates of `u` (labels, degree, unary conjuncts). [`UsedHyperNodes`] gathers those hyper-nodes
//! from the hyper-matches, [`expand_flags`] turns them into candidate flags on the original graph,
//! where the exact filter and join run (all matches exactly once, whatever the compression).
//! Expanding per node instead of per hyper-match keeps work shared between hyper-matches that agree
//! on a prefix.

use crate::exec::candidates::{degree_needs, labels_match, Semantics};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

use super::compress::Compressed;
use super::filter::{degree_ok, unary_ok};
use super::plan::GpsPlan;

/// Per pattern node, which hyper-nodes it takes in at least one hyper-match.
#[derive(Debug, Clone)]
pub struct UsedHyperNodes {
    /// `used[slot][x]`.
    pub used: Vec<Vec<bool>>,
    /// Hyper-matches seen.
    pub matches: u64,
}

impl UsedHyperNodes {
    /// Nothing used yet, for `slots` pattern nodes over `hyper_nodes` hyper-nodes.
    pub fn new(slots: usize, hyper_nodes: usize) -> Self {
        UsedHyperNodes {
            used: vec![vec![false; hyper_nodes]; slots],
            matches: 0,
        }
    }

    /// Records one hyper-match (`hyper[slot]` = hyper-node).
    pub fn record(&mut self, hyper: &[u32]) {
        for (slot, &x) in hyper.iter().enumerate() {
            self.used[slot][x as usize] = true;
        }
        self.matches += 1;
    }

    /// Merges another worker's record.
    pub fn merge(&mut self, other: &UsedHyperNodes) {
        for (a, b) in self.used.iter_mut().zip(&other.used) {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= *y;
            }
        }
        self.matches += other.matches;
    }
}

/// Candidate flags on the original graph: the members of the used hyper-nodes of each pattern node
/// that are its exact candidates (Definition 3 and unary conjuncts).
pub fn expand_flags(
    model: &Model,
    comp: &Compressed,
    query: &BoundQuery,
    plan: &GpsPlan,
    used: &UsedHyperNodes,
    semantics: Semantics,
) -> Vec<Vec<bool>> {
    let k = query.pattern.nodes.len();
    let mut scratch = vec![u32::MAX; k];
    (0..k)
        .map(|slot| {
            let needs = degree_needs(&query.pattern, slot);
            let labels = &query.pattern.nodes[slot].labels;
            let mut flags = vec![false; model.node_count()];
            for (x, _) in used.used[slot].iter().enumerate().filter(|(_, &u)| u) {
                for &v in comp.members_of(x as u32) {
                    flags[v as usize] = labels_match(model, v, labels)
                        && degree_ok(model, v, &needs, semantics)
                        && unary_ok(model, query, &plan.unary[slot], slot, v, &mut scratch);
                }
            }
            flags
        })
        .collect()
}
