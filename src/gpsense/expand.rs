//! Expansion of a match on the compressed graph to the exact matches of the original graph
//! (paper §6): every pattern node `u` matched to hyper-node `X` takes the members of `M(X)` that
//! are exact candidates of `u` (labels, degree, unary conjuncts); relationships are checked on the
//! original graph (named ones enumerated edge by edge), then injectivity and the `WHERE` conjuncts.
//!
//! Each match of the original graph maps to exactly one node tuple of the compressed graph (the
//! hyper-nodes of its nodes), and the compressed join reports each node tuple once, so every exact
//! match is reported exactly once (Theorems 1 and 2: no match is lost by filtering on the
//! compressed graph).

use crate::matcher::candidates::{degree_needs, labels_match, Semantics};
use crate::matcher::enumerate::{edge_exists, edges_between, Control};
use crate::model::Model;
use crate::pattern::eval::Env;
use crate::pattern::ir::BoundQuery;

use super::compress::Compressed;
use super::filter::{degree_ok, unary_ok};
use super::join::{Conjuncts, Emit};
use super::plan::GpsPlan;

/// Expands compressed matches of one query.
pub struct Expander<'a> {
    model: &'a Model,
    comp: &'a Compressed,
    query: &'a BoundQuery,
    plan: &'a GpsPlan,
    semantics: Semantics,
    conjuncts: Conjuncts<'a>,
    control: &'a Control,
    needs: Vec<Vec<(Vec<u32>, Option<bool>, usize)>>,
}

/// Per-worker scratch space of an [`Expander`].
pub struct ExpandState {
    nodes: Vec<u32>,
    rels: Vec<u32>,
    scratch: Vec<u32>,
}

impl<'a> Expander<'a> {
    /// Prepares the expansion of `query`'s compressed matches.
    pub fn new(
        model: &'a Model,
        comp: &'a Compressed,
        query: &'a BoundQuery,
        plan: &'a GpsPlan,
        semantics: Semantics,
        conjuncts: Conjuncts<'a>,
        control: &'a Control,
    ) -> Self {
        let needs = (0..query.pattern.nodes.len())
            .map(|s| degree_needs(&query.pattern, s))
            .collect();
        Expander {
            model,
            comp,
            query,
            plan,
            semantics,
            conjuncts,
            control,
            needs,
        }
    }

    /// Fresh scratch space.
    pub fn state(&self) -> ExpandState {
        ExpandState {
            nodes: vec![u32::MAX; self.query.pattern.nodes.len()],
            rels: vec![u32::MAX; self.query.pattern.rels.len()],
            scratch: vec![u32::MAX; self.query.pattern.nodes.len()],
        }
    }

    /// Emits every exact match whose nodes lie in the mapping lists of `hyper` (one hyper-node per
    /// pattern node slot). False when stopped.
    pub fn expand(&self, hyper: &[u32], st: &mut ExpandState, emit: Emit<'_>) -> bool {
        if !self.control.check_deadline() {
            return false;
        }
        self.step(0, hyper, st, emit)
    }

    fn exact_candidate(&self, slot: usize, v: u32, scratch: &mut [u32]) -> bool {
        let unary = &self.plan.unary[slot];
        labels_match(self.model, v, &self.query.pattern.nodes[slot].labels)
            && degree_ok(self.model, v, &self.needs[slot], self.semantics)
            && unary_ok(self.model, self.query, unary, slot, v, scratch)
    }

    fn step(&self, i: usize, hyper: &[u32], st: &mut ExpandState, emit: Emit<'_>) -> bool {
        let Some(step) = self.plan.steps.get(i) else {
            if !self.holds(&self.plan.attribute_filters, st) {
                return true;
            }
            return emit(&st.nodes, &st.rels);
        };
        let w = step.node;
        for &y in self.comp.members_of(hyper[w]) {
            if self.semantics == Semantics::Isomorphism
                && self.plan.steps[..i].iter().any(|s| st.nodes[s.node] == y)
            {
                continue;
            }
            if !self.exact_candidate(w, y, &mut st.scratch) {
                continue;
            }
            st.nodes[w] = y;
            let go_on = self.check(i, 0, hyper, st, emit);
            st.nodes[w] = u32::MAX;
            if !go_on {
                return false;
            }
        }
        true
    }

    fn check(&self, i: usize, c: usize, hyper: &[u32], st: &mut ExpandState, emit: Emit) -> bool {
        let step = &self.plan.steps[i];
        let Some(&ri) = step.rels.get(c) else {
            if !self.holds(&step.filters, st) {
                return true;
            }
            return self.step(i + 1, hyper, st, emit);
        };
        let r = &self.query.pattern.rels[ri];
        let (a, b) = (st.nodes[r.src], st.nodes[r.dst]);
        if !r.named {
            if !edge_exists(self.model, a, b, r) {
                return true;
            }
            return self.check(i, c + 1, hyper, st, emit);
        }
        let mut edges = Vec::new();
        edges_between(self.model, a, b, r, &mut edges);
        for e in edges {
            st.rels[ri] = e;
            if !self.check(i, c + 1, hyper, st, emit) {
                st.rels[ri] = u32::MAX;
                return false;
            }
        }
        st.rels[ri] = u32::MAX;
        true
    }

    fn holds(&self, filters: &[usize], st: &ExpandState) -> bool {
        if filters.is_empty() {
            return true;
        }
        let env = Env {
            model: self.conjuncts.model,
            nodes: &st.nodes,
            rels: &st.rels,
            row: &[],
            exists: Some(self.conjuncts.oracle),
        };
        filters.iter().all(|&f| env.holds(&self.query.filter[f]))
    }
}
