//! Extending one row by one `MATCH` step (see [`crate::pattern::ir::MatchStep`]): every binding
//! of the step's new nodes and relationships, given the nodes earlier steps bound, that satisfies
//! the step's conjuncts under the query's semantics. Variable-length relationships are walked
//! here too.
//!
//! The search binds nodes first — along a single relationship from a bound node (distinct
//! neighbours), along a variable-length relationship from a bound end, by its id when a conjunct
//! `id(n) = e` gives it from what earlier steps bound (`UNWIND … AS x MATCH (t) WHERE id(t) = x`
//! looks one node up per row), or by scanning — then the relationships between bound nodes, then
//! tests the conjuncts. Semantics, as
//! `docs/query-language.md` ("Matching semantics") states them:
//!
//! - node-isomorphism: a new node differs from every node of the row (earlier steps' included)
//!   and from every inner node of the row's variable-length paths; a variable-length path is a
//!   simple path whose inner nodes are new nodes in that sense;
//! - Cypher: the relationships of one `MATCH` clause bind distinct edges (a variable-length path
//!   is a trail), nodes may repeat;
//! - homomorphism: no distinctness (variable-length paths are walks).
//!
//! Without a variable and outside Cypher semantics a relationship is an existence check, and a
//! variable-length one is matched per sequence of nodes, not of edges.
//!
//! With a [`Control`] ([`StepSearch::with_control`]) the search looks at the deadline and the
//! memory limit as it goes; a stopped search hands out none of the row's extensions (a row is
//! never passed on half-extended).

use crate::exec::candidates::{labels_match, Semantics};
use crate::exec::eval::{Env, ExistsOracle, Val};
use crate::exec::exists::{edge_exists, edges_between, sub_pattern_exists};
use crate::exec::Control;
use crate::model::{Model, ANY_TYPE};
use crate::pattern::ir::{
    CmpOp, Expr, MatchStep, NodeSlot, Pattern, RelSlot, SubPattern, VarLength, NULL_ID,
};

/// The conjuncts of `step` that give a new node's id from what earlier steps bound: `id(n) = e`
/// (either way round) where `e` reads no node or relationship of this step, no column its
/// variable-length relationships fill, and no sub-pattern.
fn id_keys<'a>(step: &'a MatchStep, vars: &[&VarLength]) -> Vec<(NodeSlot, &'a Expr)> {
    let outer = |e: &Expr| {
        let mut ok = true;
        e.walk(&mut |x| match x {
            Expr::Node(n) if step.new_nodes.contains(n) => ok = false,
            Expr::Rel(r) if step.rels.contains(r) => ok = false,
            Expr::Column(c) if vars.iter().any(|v| v.column == Some(*c)) => ok = false,
            Expr::Exists(_) | Expr::Aggregate { .. } => ok = false,
            _ => {}
        });
        ok
    };
    let new_node = |e: &Expr| match e {
        Expr::Id(base) => match **base {
            Expr::Node(n) if step.new_nodes.contains(&n) => Some(n),
            _ => None,
        },
        _ => None,
    };
    step.filter
        .iter()
        .filter_map(|c| match c {
            Expr::Compare(CmpOp::Eq, a, b) => match (new_node(a), new_node(b)) {
                (Some(n), _) if outer(b) => Some((n, &**b)),
                (_, Some(n)) if outer(a) => Some((n, &**a)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A row before the first projection: node and relationship bindings by slot ([`NULL_ID`] for
/// unbound or null) and values by column.
#[derive(Debug, Clone)]
pub struct Row<'m> {
    /// Node ids by node slot.
    pub nodes: Vec<u32>,
    /// Edge ids by relationship slot.
    pub rels: Vec<u32>,
    /// Unwound values and variable-length relationship lists, by column.
    pub values: Vec<Val<'m>>,
}

/// Answers `EXISTS { … }` for rows whose nodes may be null: a sub-pattern anchored on a null node
/// has no match.
pub struct RowOracle<'a> {
    /// The model.
    pub model: &'a Model,
    /// The semantics in force.
    pub semantics: Semantics,
}

impl ExistsOracle for RowOracle<'_> {
    fn exists(&self, sub: &SubPattern, nodes: &[u32], _rels: &[u32]) -> bool {
        let null_anchor = sub
            .anchors
            .iter()
            .any(|&(o, _)| nodes.get(o).is_none_or(|&n| n == NULL_ID));
        !null_anchor && sub_pattern_exists(self.model, sub, nodes, self.semantics, self)
    }
}

/// The search for one step's extensions.
pub struct StepSearch<'a> {
    model: &'a Model,
    pattern: &'a Pattern,
    step: &'a MatchStep,
    semantics: Semantics,
    oracle: &'a RowOracle<'a>,
    /// The step's single relationships, in order.
    singles: Vec<RelSlot>,
    /// The step's variable-length relationships.
    vars: Vec<&'a VarLength>,
    /// The deadline and stop flag the search looks at, if any.
    control: Option<&'a Control>,
    /// Per new node with a conjunct `id(node) = e`, `e` reading only what earlier steps bound:
    /// the node is looked up by that id instead of scanned.
    id_keys: Vec<(NodeSlot, &'a Expr)>,
}

/// Search steps between two looks at the [`Control`] (each look reads the clock).
const CHECK_EVERY: u32 = 1024;

/// Extensions handed on in batches while the search goes on (see
/// [`StepSearch::extend_streaming`]): false when the receiver wants no more.
pub type Flush<'f, 'm> = &'f mut dyn FnMut(Vec<Row<'m>>) -> bool;

/// Extensions held before a streaming search hands them on.
const FLUSH_AT: usize = 1024;

/// The search's mutable state.
struct State<'m, 'f> {
    row: Row<'m>,
    /// Inner nodes of the variable-length paths walked so far (node-isomorphism).
    inner: Vec<u32>,
    /// Per entry of [`StepSearch::vars`]: walked yet, and its edges (when edges are tracked).
    walked: Vec<Option<Vec<u32>>>,
    /// Search steps since the last look at the control.
    ticks: u32,
    /// Set once the control said stop: the search unwinds and its extensions are dropped.
    stopped: bool,
    /// Where extensions go in batches as they are found (streaming), if anywhere.
    flush: Option<Flush<'f, 'm>>,
    /// Extensions handed to `flush` so far.
    handed: u64,
}

impl<'a> StepSearch<'a> {
    /// The search for `step` of a query with `pattern` and variable-length relationships
    /// `var_length`.
    pub fn new(
        model: &'a Model,
        pattern: &'a Pattern,
        step: &'a MatchStep,
        var_length: &'a [VarLength],
        semantics: Semantics,
        oracle: &'a RowOracle<'a>,
    ) -> Self {
        let vars: Vec<&VarLength> = var_length
            .iter()
            .filter(|v| step.rels.contains(&v.rel))
            .collect();
        let singles = step
            .rels
            .iter()
            .copied()
            .filter(|r| !vars.iter().any(|v| v.rel == *r))
            .collect();
        let id_keys = id_keys(step, &vars);
        StepSearch {
            model,
            pattern,
            step,
            semantics,
            oracle,
            singles,
            vars,
            control: None,
            id_keys,
        }
    }

    /// The same search, stopping when `control` says so (its deadline passed, the memory limit
    /// was reached, or a stop was asked for).
    pub fn with_control(mut self, control: &'a Control) -> Self {
        self.control = Some(control);
        self
    }

    /// Pushes every extension of `row` to `out` and returns true; or returns false, with `out`
    /// as it was, when the control stopped the search before it found them all (the row's
    /// extensions are then unknown, and none of them is handed out).
    #[must_use]
    pub fn extend<'m>(&self, row: &Row<'m>, out: &mut Vec<Row<'m>>) -> bool {
        self.run(row, out, None).0
    }

    /// Like [`extend`](Self::extend), but hands the extensions found to `flush` in batches of
    /// about a thousand while the search goes on, instead of holding them all: a row whose
    /// extensions are the whole result (the first `MATCH` of a query) is then neither held in
    /// memory nor dropped all at once when the deadline stops the search. Returns whether the
    /// search finished (the rest of its extensions are in `out`; on a stop `out` is as it was)
    /// and how many extensions went to `flush` (every one a true extension of `row`). A `flush`
    /// returning false stops the search.
    #[must_use]
    pub fn extend_streaming<'m>(
        &self,
        row: &Row<'m>,
        out: &mut Vec<Row<'m>>,
        flush: Flush<'_, 'm>,
    ) -> (bool, u64) {
        self.run(row, out, Some(flush))
    }

    fn run<'m>(
        &self,
        row: &Row<'m>,
        out: &mut Vec<Row<'m>>,
        flush: Option<Flush<'_, 'm>>,
    ) -> (bool, u64) {
        let null_old = self
            .step
            .old_nodes
            .iter()
            .any(|&s| row.nodes.get(s).is_none_or(|&n| n == NULL_ID));
        if null_old {
            return (true, 0);
        }
        let mut st = State {
            row: row.clone(),
            inner: Vec::new(),
            walked: vec![None; self.vars.len()],
            ticks: 0,
            stopped: false,
            flush,
            handed: 0,
        };
        let before = out.len();
        self.bind_nodes(&mut st, out);
        if st.stopped {
            out.truncate(before);
            return (false, st.handed);
        }
        (true, st.handed)
    }

    /// Counts one search step; false once the control said stop (looked at every
    /// [`CHECK_EVERY`] steps).
    fn go_on(&self, st: &mut State<'_, '_>) -> bool {
        if st.stopped {
            return false;
        }
        let Some(control) = self.control else {
            return true;
        };
        st.ticks += 1;
        if st.ticks >= CHECK_EVERY {
            st.ticks = 0;
            // The extensions are the rows this stage holds: at the limit (not beyond it, as
            // the control's own look) the run stops naming them.
            if crate::util::memory::check(super::clauses::READING_STAGE) {
                control.stop();
                st.stopped = true;
                return false;
            }
            if !control.check_deadline() {
                st.stopped = true;
                return false;
            }
        }
        true
    }

    fn bound(st: &State<'_, '_>, slot: NodeSlot) -> bool {
        st.row.nodes[slot] != NULL_ID
    }

    /// True when `v` may be bound to the new node `slot`.
    fn node_ok(&self, st: &State<'_, '_>, slot: NodeSlot, v: u32) -> bool {
        labels_match(self.model, v, &self.pattern.nodes[slot].labels)
            && (self.semantics != Semantics::Isomorphism
                || !(st.row.nodes.contains(&v) || st.inner.contains(&v)))
    }

    /// Binds the step's nodes one at a time, then its relationships.
    fn bind_nodes<'m>(&self, st: &mut State<'m, '_>, out: &mut Vec<Row<'m>>) {
        if !self.go_on(st) {
            return;
        }
        let p = self.pattern;
        // Along a single relationship from a bound node.
        let single = self.singles.iter().find_map(|&ri| {
            let r = &p.rels[ri];
            match (Self::bound(st, r.src), Self::bound(st, r.dst)) {
                (true, false) => Some((ri, r.dst, true)),
                (false, true) => Some((ri, r.src, false)),
                _ => None,
            }
        });
        if let Some((ri, to, forward)) = single {
            let r = &p.rels[ri];
            let from = st.row.nodes[if forward { r.src } else { r.dst }];
            let mut next: Vec<u32> = self
                .steps(ri, from, forward)
                .into_iter()
                .map(|(v, _)| v)
                .collect();
            next.sort_unstable();
            next.dedup();
            for v in next {
                if st.stopped {
                    return;
                }
                if self.node_ok(st, to, v) {
                    st.row.nodes[to] = v;
                    self.bind_nodes(st, out);
                    st.row.nodes[to] = NULL_ID;
                }
            }
            return;
        }
        // Along a variable-length relationship from a bound end.
        let var = (0..self.vars.len()).find_map(|vi| {
            let r = &p.rels[self.vars[vi].rel];
            if st.walked[vi].is_some() {
                return None;
            }
            match (Self::bound(st, r.src), Self::bound(st, r.dst)) {
                (true, false) => Some((vi, true)),
                (false, true) => Some((vi, false)),
                _ => None,
            }
        });
        if let Some((vi, forward)) = var {
            self.walk_from(st, vi, forward, out);
            return;
        }
        // A new node not joined to a bound one, whose id a conjunct gives: look it up.
        let keyed = self
            .id_keys
            .iter()
            .find(|(s, _)| !Self::bound(st, *s))
            .copied();
        if let Some((slot, key)) = keyed {
            let id = Env {
                model: self.model,
                nodes: &st.row.nodes,
                rels: &st.row.rels,
                row: &st.row.values,
                exists: Some(self.oracle),
                locals: &[],
            }
            .eval(key);
            // `id(n) = x` holds only for an integer (or an integral float) naming a node.
            let v = match id {
                Val::Int(i) => u32::try_from(i).ok(),
                Val::Float(f) if f.fract() == 0.0 && (0.0..4.3e9).contains(&f) => Some(f as u32),
                _ => None,
            };
            if let Some(v) = v.filter(|&v| (v as usize) < self.model.node_count()) {
                if self.go_on(st) && self.node_ok(st, slot, v) {
                    st.row.nodes[slot] = v;
                    self.bind_nodes(st, out);
                    st.row.nodes[slot] = NULL_ID;
                }
            }
            return;
        }
        // A new node not joined to a bound one: scan.
        if let Some(&slot) = self.step.new_nodes.iter().find(|&&s| !Self::bound(st, s)) {
            for v in 0..self.model.node_count() as u32 {
                if !self.go_on(st) {
                    return;
                }
                if self.node_ok(st, slot, v) {
                    st.row.nodes[slot] = v;
                    self.bind_nodes(st, out);
                    st.row.nodes[slot] = NULL_ID;
                }
            }
            return;
        }
        // Variable-length relationships between bound nodes.
        if let Some(vi) = (0..self.vars.len()).find(|&vi| st.walked[vi].is_none()) {
            self.walk_from(st, vi, true, out);
            return;
        }
        self.bind_rels(st, 0, out);
    }

    /// `(neighbour, edge)` one hop from `from` along relationship `ri` (`forward`: from its source
    /// side). An undirected self-loop is listed once.
    fn steps(&self, ri: RelSlot, from: u32, forward: bool) -> Vec<(u32, u32)> {
        let r = &self.pattern.rels[ri];
        let types: &[u32] = if r.types.is_empty() {
            &[ANY_TYPE]
        } else {
            &r.types
        };
        let mut out = Vec::new();
        for (adj, ok, outgoing) in [
            (self.model.out(), forward || r.undirected, true),
            (self.model.inc(), !forward || r.undirected, false),
        ] {
            if !ok {
                continue;
            }
            for &t in types {
                for pos in adj.range_of_type(from, t) {
                    let v = adj.neighbors[pos];
                    if r.undirected && !outgoing && v == from {
                        // The loop was listed from the outgoing side already.
                        continue;
                    }
                    out.push((v, adj.edge_id_at(pos)));
                }
            }
        }
        out
    }

    /// True when edges are told apart: per-edge matching (a variable, or Cypher semantics).
    fn per_edge(&self, ri: RelSlot) -> bool {
        self.semantics.distinct_edges() || self.pattern.rels[ri].named
    }

    /// Cypher semantics: true when edge `e` is taken by another relationship of `ri`'s clause
    /// (a bound single one, or a walked variable-length one).
    fn edge_taken(&self, st: &State<'_, '_>, ri: RelSlot, e: u32) -> bool {
        if !self.semantics.distinct_edges() {
            return false;
        }
        let p = self.pattern;
        let clause = p.rels[ri].clause;
        let singles = self
            .singles
            .iter()
            .any(|&o| o != ri && p.rels[o].clause == clause && st.row.rels[o] == e);
        let paths = self.vars.iter().zip(&st.walked).any(|(v, w)| {
            v.rel != ri
                && p.rels[v.rel].clause == clause
                && w.as_ref().is_some_and(|w| w.contains(&e))
        });
        singles || paths
    }

    /// Walks variable-length relationship `vi` from its bound end (`forward`: from the source).
    fn walk_from<'m>(
        &self,
        st: &mut State<'m, '_>,
        vi: usize,
        forward: bool,
        out: &mut Vec<Row<'m>>,
    ) {
        let r = &self.pattern.rels[self.vars[vi].rel];
        let (from, to) = if forward {
            (r.src, r.dst)
        } else {
            (r.dst, r.src)
        };
        let start = st.row.nodes[from];
        let mut edges = Vec::new();
        self.walk_depth(st, vi, forward, to, start, 0, &mut edges, out);
    }

    /// One level of the walk: at `cur` after `depth` hops, the edges taken in `edges` (in the
    /// order walked). The relationship list bound to a variable is in that order.
    #[allow(clippy::too_many_arguments)]
    fn walk_depth<'m>(
        &self,
        st: &mut State<'m, '_>,
        vi: usize,
        forward: bool,
        to: NodeSlot,
        cur: u32,
        depth: u32,
        edges: &mut Vec<u32>,
        out: &mut Vec<Row<'m>>,
    ) {
        if !self.go_on(st) {
            return;
        }
        let var = self.vars[vi];
        let ri = var.rel;
        if depth >= var.min {
            if Self::bound(st, to) {
                if st.row.nodes[to] == cur {
                    self.finish_walk(st, vi, edges, out);
                }
            } else if self.node_ok(st, to, cur) {
                st.row.nodes[to] = cur;
                self.finish_walk(st, vi, edges, out);
                st.row.nodes[to] = NULL_ID;
            }
        }
        if depth >= var.max {
            return;
        }
        // Going on makes `cur` an inner node (unless it is the start).
        let iso = self.semantics == Semantics::Isomorphism;
        if depth > 0 && iso && (st.row.nodes.contains(&cur) || st.inner.contains(&cur)) {
            return;
        }
        if depth > 0 {
            st.inner.push(cur);
        }
        let mut next = self.steps(ri, cur, forward);
        if !self.per_edge(ri) {
            next.sort_unstable_by_key(|&(v, _)| v);
            next.dedup_by_key(|&mut (v, _)| v);
        }
        for (v, e) in next {
            if st.stopped {
                return;
            }
            if self.semantics.distinct_edges() && (edges.contains(&e) || self.edge_taken(st, ri, e))
            {
                continue;
            }
            edges.push(e);
            self.walk_depth(st, vi, forward, to, v, depth + 1, edges, out);
            edges.pop();
        }
        if depth > 0 {
            st.inner.pop();
        }
    }

    /// A complete path for variable-length relationship `vi`: record it and go on.
    fn finish_walk<'m>(
        &self,
        st: &mut State<'m, '_>,
        vi: usize,
        edges: &[u32],
        out: &mut Vec<Row<'m>>,
    ) {
        let var = self.vars[vi];
        st.walked[vi] = Some(edges.to_vec());
        if let Some(c) = var.column {
            st.row.values[c] = Val::List(edges.iter().map(|&e| Val::Rel(e)).collect());
        }
        self.bind_nodes(st, out);
        if let Some(c) = var.column {
            st.row.values[c] = Val::Null;
        }
        st.walked[vi] = None;
    }

    /// Binds (or checks) the single relationships from number `i` on, then tests the conjuncts.
    fn bind_rels<'m>(&self, st: &mut State<'m, '_>, i: usize, out: &mut Vec<Row<'m>>) {
        let Some(&ri) = self.singles.get(i) else {
            let env = Env {
                locals: &[],
                model: self.model,
                nodes: &st.row.nodes,
                rels: &st.row.rels,
                row: &st.row.values,
                exists: Some(self.oracle),
            };
            if self.step.filter.iter().all(|f| env.holds(f)) {
                out.push(st.row.clone());
                if out.len() >= FLUSH_AT {
                    if let Some(flush) = st.flush.as_mut() {
                        st.handed += out.len() as u64;
                        if !flush(std::mem::take(out)) {
                            st.stopped = true;
                        }
                    }
                }
            }
            return;
        };
        let r = &self.pattern.rels[ri];
        let (a, b) = (st.row.nodes[r.src], st.row.nodes[r.dst]);
        if !self.per_edge(ri) {
            if edge_exists(self.model, a, b, r) {
                self.bind_rels(st, i + 1, out);
            }
            return;
        }
        let mut edges = Vec::new();
        edges_between(self.model, a, b, r, &mut edges);
        for e in edges {
            if !self.go_on(st) {
                return;
            }
            if self.edge_taken(st, ri, e) {
                continue;
            }
            st.row.rels[ri] = e;
            self.bind_rels(st, i + 1, out);
        }
        st.row.rels[ri] = NULL_ID;
    }
}
