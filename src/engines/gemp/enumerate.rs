//! Stage 3 of matching — *enumerate*: iterative-depth backtracking from pivot candidates over the
//! sorted CSR, following a [`Plan`]. This is the host backend of GEMP's phase 1 (topology) followed
//! by phase 2 (attribute conjuncts on complete topological matches).
//!
//! Every distinct binding of the pattern's variables is reported exactly once: anonymous
//! relationships are existence checks (parallel edges do not multiply matches), named relationships
//! are enumerated edge by edge. Under [`Semantics::Cypher`] every relationship is enumerated edge
//! by edge and an edge already bound to an earlier relationship of the same `MATCH` clause is
//! skipped (relationship isomorphism).

use crate::exec::candidates::{CandidateSet, Semantics};
use crate::exec::eval::{Env, ExistsOracle};
use crate::exec::exists::{edge_exists, edges_between, sub_pattern_exists};
use crate::exec::plan::{Dir, Plan};
use crate::exec::{Control, Sink};
use crate::model::{Model, ANY_TYPE};
use crate::pattern::ir::{BoundQuery, CmpOp, Expr, NodeSlot, RelSlot, RelVar, SubPattern};

/// Units of search work (candidates tried, 64 list entries gathered) between looks at the
/// deadline: a look costs a clock read, a candidate at least a few nanoseconds, so the deadline
/// is seen within milliseconds at no measurable cost.
const CHECK_EVERY: u32 = 2048;

/// A count-only shortcut for the last steps: `size` pattern nodes expanded the same way from the
/// same bound node, independent of each other except for an optional total id order.
#[derive(Debug, Clone)]
struct TailGroup {
    start: usize,
    size: usize,
    ordered: bool,
    /// Attribute conjuncts evaluated at the group's start (they do not involve the group).
    attribute_filters: Vec<usize>,
}

/// An anonymous relationship between a step's node and a node bound earlier, applied to the
/// step's whole candidate list at once: the bound node's neighbour runs are looked up once per
/// expansion instead of once per candidate.
#[derive(Debug, Clone)]
struct Screen {
    /// The earlier-bound endpoint.
    bound: NodeSlot,
    /// Allowed types (`ANY_TYPE` alone = any).
    types: Vec<u32>,
    /// Candidates must be out-neighbours of the bound node (edge bound → candidate)…
    out: bool,
    /// …or in-neighbours (edge candidate → bound); both for an undirected relationship.
    inc: bool,
}

/// The sorted neighbour runs of a screen's bound node (see [`State`]).
#[derive(Debug, Clone, Default)]
struct ScreenRuns {
    node: Option<u32>,
    out: Vec<std::ops::Range<usize>>,
    inc: Vec<std::ops::Range<usize>>,
}

/// What each step does, prepared once from the plan.
#[derive(Debug, Clone, Default)]
struct StepWork {
    /// Checks applied to the whole candidate list (see [`Screen`]).
    screens: Vec<Screen>,
    /// Number of screens in earlier steps (this step's screens are numbered from here).
    first_screen: usize,
    /// Checks run per candidate: named relationships (enumerated) and self loops.
    checks: Vec<RelSlot>,
    /// `id(a) < id(b)` conjuncts of the step, compared directly.
    id_less: Vec<(NodeSlot, NodeSlot)>,
    /// The step's other phase-1 conjuncts.
    filters: Vec<usize>,
}

/// Per-worker search state.
pub struct State {
    nodes: Vec<u32>,
    rels: Vec<u32>,
    bufs: Vec<Vec<(u32, u32)>>,
    /// Per screen (numbered across steps): the bound node whose neighbour runs were last looked up,
    /// and those runs. The bound node usually stays the same over many expansions.
    screen_runs: Vec<ScreenRuns>,
    ticks: u32,
}

impl State {
    /// State for a pattern of `nodes` nodes and `rels` relationships.
    pub fn new(nodes: usize, rels: usize) -> Self {
        State {
            nodes: vec![u32::MAX; nodes],
            rels: vec![u32::MAX; rels],
            bufs: (0..=nodes).map(|_| Vec::new()).collect(),
            screen_runs: Vec::new(),
            ticks: 0,
        }
    }
}

/// Runs a plan over a model.
pub struct Enumerator<'a> {
    model: &'a Model,
    query: &'a BoundQuery,
    plan: &'a Plan,
    cands: &'a [CandidateSet],
    semantics: Semantics,
    control: &'a Control,
    tail: Option<TailGroup>,
    work: Vec<StepWork>,
    /// Cypher semantics: per relationship slot, the relationships of its `MATCH` clause bound
    /// before it in the plan (their edges must differ from its edge). Empty otherwise.
    earlier: Vec<Vec<RelSlot>>,
}

impl<'a> Enumerator<'a> {
    /// Prepares enumeration; `count_only` enables the tail-group counting shortcut.
    pub fn new(
        model: &'a Model,
        query: &'a BoundQuery,
        plan: &'a Plan,
        cands: &'a [CandidateSet],
        semantics: Semantics,
        control: &'a Control,
        count_only: bool,
    ) -> Self {
        let mut e = Enumerator {
            model,
            query,
            plan,
            cands,
            semantics,
            control,
            tail: None,
            work: Vec::new(),
            earlier: Vec::new(),
        };
        if semantics.distinct_edges() {
            e.earlier = earlier_in_clause(query, plan);
        }
        let mut screens = 0;
        e.work = (0..plan.steps.len())
            .map(|i| {
                let mut w = e.step_work(i);
                w.first_screen = screens;
                screens += w.screens.len();
                w
            })
            .collect();
        if count_only {
            e.tail = e.find_tail_group();
        }
        e
    }

    /// True when the count-only shortcut for a trailing group of steps applies.
    pub fn has_tail_group(&self) -> bool {
        self.tail.is_some()
    }

    /// Splits step `i`'s checks into screens and per-candidate checks, and its filters into
    /// id-order comparisons and general conjuncts.
    fn step_work(&self, i: usize) -> StepWork {
        let step = &self.plan.steps[i];
        let bound_before = |slot: NodeSlot| self.plan.steps[..i].iter().any(|s| s.node == slot);
        let mut work = StepWork::default();
        for &rel in &step.checks {
            let r = &self.query.pattern.rels[rel];
            let screen = if self.edge_wise(r) || r.src == r.dst {
                None
            } else if r.dst == step.node && bound_before(r.src) {
                Some((r.src, true, r.undirected))
            } else if r.src == step.node && bound_before(r.dst) {
                Some((r.dst, r.undirected, true))
            } else {
                None
            };
            match screen {
                Some((bound, out, inc)) => work.screens.push(Screen {
                    bound,
                    types: if r.types.is_empty() {
                        vec![ANY_TYPE]
                    } else {
                        r.types.clone()
                    },
                    out,
                    inc,
                }),
                None => work.checks.push(rel),
            }
        }
        let bound_now = |slot: NodeSlot| self.plan.steps[..=i].iter().any(|s| s.node == slot);
        for &f in &step.filters {
            match id_order(&self.query.filter[f]) {
                Some((a, b)) if bound_now(a) && bound_now(b) => work.id_less.push((a, b)),
                _ => work.filters.push(f),
            }
        }
        work
    }

    /// True when `r` is enumerated edge by edge (named, or any relationship under Cypher
    /// semantics), false when it is an existence check.
    fn edge_wise(&self, r: &RelVar) -> bool {
        r.named || self.semantics.distinct_edges()
    }

    /// Cypher semantics: true when edge `e` is bound already to an earlier relationship of
    /// `rel`'s `MATCH` clause.
    fn edge_taken(&self, rel: RelSlot, e: u32, st: &State) -> bool {
        self.earlier
            .get(rel)
            .is_some_and(|before| before.iter().any(|&o| st.rels[o] == e))
    }

    /// Keeps the candidates in `buf` that pass every screen of step `i`.
    fn apply_screens(&self, i: usize, st: &mut State, buf: &mut Vec<(u32, u32)>) {
        let m = self.model;
        let work = &self.work[i];
        for (k, screen) in work.screens.iter().enumerate() {
            let b = st.nodes[screen.bound];
            let slot = work.first_screen + k;
            if st.screen_runs.len() <= slot {
                st.screen_runs.resize_with(slot + 1, ScreenRuns::default);
            }
            let runs = &mut st.screen_runs[slot];
            if runs.node != Some(b) {
                runs.node = Some(b);
                runs.out.clear();
                runs.inc.clear();
                for &t in &screen.types {
                    if screen.out {
                        m.out().type_runs(b, t, &mut runs.out);
                    }
                    if screen.inc {
                        m.inc().type_runs(b, t, &mut runs.inc);
                    }
                }
            }
            let runs = &st.screen_runs[slot];
            let member = |v: u32| {
                runs.out
                    .iter()
                    .any(|r| m.out().neighbors[r.clone()].binary_search(&v).is_ok())
                    || runs
                        .inc
                        .iter()
                        .any(|r| m.inc().neighbors[r.clone()].binary_search(&v).is_ok())
            };
            buf.retain(|&(v, _)| member(v));
            if buf.is_empty() {
                return;
            }
        }
    }

    /// The pivot's candidates.
    pub fn pivot_candidates(&self) -> &'a [u32] {
        match self.plan.steps.first() {
            Some(s) => &self.cands[s.node].nodes,
            None => &[],
        }
    }

    /// Runs the search for every pivot candidate in `pivots`. Returns false when stopped.
    pub fn run(&self, pivots: &[u32], state: &mut State, sink: &mut dyn Sink) -> bool {
        if self.plan.steps.is_empty() {
            // An empty pattern has exactly one (empty) match.
            return sink.emit(&[], &[]);
        }
        for &v in pivots {
            if !self.control.check_deadline() {
                return false;
            }
            if !self.bind(0, v, u32::MAX, state, sink) {
                return false;
            }
        }
        true
    }

    /// Binds step `i`'s node to `v` (via edge `e` when expanding), runs its checks, then goes on.
    fn bind(&self, i: usize, v: u32, e: u32, st: &mut State, sink: &mut dyn Sink) -> bool {
        // Every candidate tried counts: a step whose filters reject almost every candidate (a
        // scan over a cartesian product) never reaches `descend`, yet must stop at the deadline.
        if !self.tick(st, 1) {
            return false;
        }
        let step = &self.plan.steps[i];
        st.nodes[step.node] = v;
        if let Some(x) = step.expand {
            st.rels[x.rel] = e;
            if self.edge_taken(x.rel, e, st) {
                return true;
            }
        }
        if self.work[i]
            .id_less
            .iter()
            .any(|&(a, b)| st.nodes[a] >= st.nodes[b])
        {
            return true;
        }
        self.run_checks(i, 0, st, sink)
    }

    fn run_checks(&self, i: usize, c: usize, st: &mut State, sink: &mut dyn Sink) -> bool {
        let work = &self.work[i];
        let Some(&rel) = work.checks.get(c) else {
            if !self.filters_hold(&work.filters, st) {
                return true;
            }
            return self.descend(i + 1, st, sink);
        };
        let r = &self.query.pattern.rels[rel];
        let (a, b) = (st.nodes[r.src], st.nodes[r.dst]);
        if !self.edge_wise(r) {
            if edge_exists(self.model, a, b, r) {
                return self.run_checks(i, c + 1, st, sink);
            }
            return true;
        }
        let mut edges = Vec::new();
        edges_between(self.model, a, b, r, &mut edges);
        for e in edges {
            if self.edge_taken(rel, e, st) {
                continue;
            }
            st.rels[rel] = e;
            if !self.run_checks(i, c + 1, st, sink) {
                return false;
            }
        }
        true
    }

    fn filters_hold(&self, filters: &[usize], st: &State) -> bool {
        if filters.is_empty() {
            return true;
        }
        let env = Env {
            locals: &[],
            model: self.model,
            nodes: &st.nodes,
            rels: &st.rels,
            row: &[],
            exists: Some(self),
        };
        filters.iter().all(|&f| env.holds(&self.query.filter[f]))
    }

    /// True when data node `v` is already bound to a step before `i` (injectivity).
    fn is_used(&self, i: usize, v: u32, st: &State) -> bool {
        self.semantics == Semantics::Isomorphism
            && self.plan.steps[..i].iter().any(|s| st.nodes[s.node] == v)
    }

    /// Candidates for step `i`: (node, edge) pairs in `out`, distinct nodes for anonymous edges.
    fn expand_candidates(&self, i: usize, st: &State, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let step = &self.plan.steps[i];
        let cand = &self.cands[step.node];
        let Some(x) = step.expand else {
            out.extend(cand.nodes.iter().map(|&v| (v, u32::MAX)));
            return;
        };
        let r = &self.query.pattern.rels[x.rel];
        let from = st.nodes[x.from];
        let m = self.model;
        let push_run = |adj: &crate::model::Adjacency, out: &mut Vec<(u32, u32)>| {
            let types: &[u32] = if r.types.is_empty() {
                &[ANY_TYPE]
            } else {
                &r.types
            };
            for &t in types {
                for p in adj.range_of_type(from, t) {
                    let y = adj.neighbors[p];
                    if cand.contains(y) {
                        out.push((y, adj.edge_id_at(p)));
                    }
                }
            }
        };
        match x.dir {
            Dir::Out => push_run(m.out(), out),
            Dir::In => push_run(m.inc(), out),
            Dir::Both => {
                push_run(m.out(), out);
                push_run(m.inc(), out);
            }
        }
        let several_runs = r.types.len() > 1 || x.dir == Dir::Both || r.types.is_empty();
        if self.edge_wise(r) {
            if x.dir == Dir::Both {
                // A self loop appears in both lists with the same edge id.
                out.sort_unstable();
                out.dedup();
            }
        } else if several_runs {
            out.sort_unstable_by_key(|p| p.0);
            out.dedup_by_key(|p| p.0);
        } else {
            out.dedup_by_key(|p| p.0);
        }
    }

    /// Steps `i..`: the leaf, the tail-group shortcut, or the next expansion.
    /// Counts `work` units of search (a candidate tried, a list scanned); false (after stopping)
    /// once the deadline or memory limit passed, looked at every [`CHECK_EVERY`] units.
    #[inline]
    fn tick(&self, st: &mut State, work: u32) -> bool {
        st.ticks = st.ticks.saturating_add(work);
        if st.ticks >= CHECK_EVERY {
            st.ticks = 0;
            return self.control.check_deadline();
        }
        true
    }

    fn descend(&self, i: usize, st: &mut State, sink: &mut dyn Sink) -> bool {
        if !self.tick(st, 1) || self.control.stopped() {
            return false;
        }
        if i == self.plan.steps.len() {
            if !self.filters_hold(&self.plan.attribute_filters, st) {
                return true;
            }
            return sink.emit(&st.nodes, &st.rels);
        }
        if let Some(t) = &self.tail {
            if t.start == i {
                if !self.filters_hold(&t.attribute_filters, st) {
                    return true;
                }
                let n = self.count_tail(t, st);
                return n == 0 || sink.add_count(n);
            }
        }
        let mut buf = std::mem::take(&mut st.bufs[i]);
        self.expand_candidates(i, st, &mut buf);
        // Gathering and screening a long list (a scan step) is work even when every candidate is
        // screened out.
        let scanned = u32::try_from(buf.len() / 64).unwrap_or(u32::MAX);
        self.apply_screens(i, st, &mut buf);
        if !self.tick(st, scanned) {
            st.bufs[i] = buf;
            return false;
        }
        let mut go_on = true;
        for &(v, e) in buf.iter() {
            if self.is_used(i, v, st) {
                continue;
            }
            if !self.bind(i, v, e, st, sink) {
                go_on = false;
                break;
            }
        }
        st.bufs[i] = buf;
        go_on
    }

    /// Number of ways to bind the tail group, without enumerating them.
    fn count_tail(&self, t: &TailGroup, st: &mut State) -> u64 {
        let mut buf = std::mem::take(&mut st.bufs[t.start]);
        self.expand_candidates(t.start, st, &mut buf);
        let m = buf
            .iter()
            .filter(|&&(v, _)| !self.is_used(t.start, v, st))
            .count() as u64;
        st.bufs[t.start] = buf;
        let r = t.size as u64;
        match (self.semantics, t.ordered) {
            (_, true) => binomial(m, r),
            (Semantics::Isomorphism, false) => falling_factorial(m, r),
            // (Cypher semantics has no tail groups: see `find_tail_group`.)
            (Semantics::Homomorphism | Semantics::Cypher, false) => m.saturating_pow(r as u32),
        }
    }

    /// Finds the longest tail of steps that can be counted combinatorially.
    fn find_tail_group(&self) -> Option<TailGroup> {
        if self.semantics.distinct_edges() {
            // Parallel edges multiply matches and edges must differ: no closed form here.
            return None;
        }
        let steps = &self.plan.steps;
        let pattern = &self.query.pattern;
        let last = steps.last()?;
        let sig = |i: usize| {
            let s = &steps[i];
            let x = s.expand?;
            let r = &pattern.rels[x.rel];
            if r.named || !s.checks.is_empty() {
                return None;
            }
            let mut types = r.types.clone();
            types.sort_unstable();
            Some((x.from, x.dir, types))
        };
        let want = sig(steps.len() - 1)?;
        let mut start = steps.len() - 1;
        while start > 0 {
            let prev = start - 1;
            let same = sig(prev).as_ref() == Some(&want)
                && self.cands[steps[prev].node].nodes == self.cands[last.node].nodes
                && !steps[start..].iter().any(|s| s.node == want.0)
                && steps[prev].node != want.0;
            if !same {
                break;
            }
            start = prev;
        }
        let members: Vec<NodeSlot> = steps[start..].iter().map(|s| s.node).collect();
        // The anchor must be bound before the group.
        if members.contains(&want.0) {
            return None;
        }
        // Only id-order conjuncts may involve group members; they must form a chain or be absent.
        let mut order_edges = Vec::new();
        for (ci, c) in self.query.filter.iter().enumerate() {
            let mut slots = Vec::new();
            c.node_slots(&mut slots);
            let mut rels = Vec::new();
            c.rel_slots(&mut rels);
            if !slots.iter().any(|s| members.contains(s)) {
                continue;
            }
            if self.plan.unary.iter().any(|u| u.contains(&ci)) {
                continue; // already applied to the (shared) candidate set
            }
            match id_order(c) {
                Some((a, b)) if members.contains(&a) && members.contains(&b) => {
                    order_edges.push((a, b))
                }
                _ => return None,
            }
        }
        let ordered = match order_edges.len() {
            0 => false,
            n if n + 1 == members.len() && is_chain(&members, &order_edges) => true,
            _ => return None,
        };
        // Attribute conjuncts must not involve the group.
        let attribute_filters = self.plan.attribute_filters.clone();
        for &f in &attribute_filters {
            let mut slots = Vec::new();
            self.query.filter[f].node_slots(&mut slots);
            if slots.iter().any(|s| members.contains(s)) {
                return None;
            }
        }
        Some(TailGroup {
            start,
            size: members.len(),
            ordered,
            attribute_filters,
        })
    }
}

/// Per relationship slot, the relationships of the same `MATCH` clause that `plan` binds before
/// it: each step's expansion first, then its checks in order.
fn earlier_in_clause(query: &BoundQuery, plan: &Plan) -> Vec<Vec<RelSlot>> {
    let rels = &query.pattern.rels;
    let mut earlier = vec![Vec::new(); rels.len()];
    let mut bound: Vec<RelSlot> = Vec::new();
    for step in &plan.steps {
        for rel in step
            .expand
            .map(|x| x.rel)
            .into_iter()
            .chain(step.checks.iter().copied())
        {
            earlier[rel] = bound
                .iter()
                .copied()
                .filter(|&o| rels[o].clause == rels[rel].clause)
                .collect();
            bound.push(rel);
        }
    }
    earlier
}

/// `id(a) < id(b)` (or `>`, normalised to `<`) as `(a, b)`.
pub fn id_order(e: &Expr) -> Option<(NodeSlot, NodeSlot)> {
    let Expr::Compare(op, l, r) = e else {
        return None;
    };
    let slot = |x: &Expr| match x {
        Expr::Id(inner) => match **inner {
            Expr::Node(s) => Some(s),
            _ => None,
        },
        _ => None,
    };
    let (a, b) = (slot(l)?, slot(r)?);
    match op {
        CmpOp::Lt => Some((a, b)),
        CmpOp::Gt => Some((b, a)),
        _ => None,
    }
}

/// True when `edges` (a < b) order all `members` into one chain.
fn is_chain(members: &[NodeSlot], edges: &[(NodeSlot, NodeSlot)]) -> bool {
    let outd = |s| edges.iter().filter(|e| e.0 == s).count();
    let ind = |s| edges.iter().filter(|e| e.1 == s).count();
    if members.iter().any(|&s| outd(s) > 1 || ind(s) > 1) {
        return false;
    }
    let Some(&head) = members.iter().find(|&&s| ind(s) == 0) else {
        return false;
    };
    let mut seen = 1;
    let mut cur = head;
    while let Some(&(_, next)) = edges.iter().find(|e| e.0 == cur) {
        cur = next;
        seen += 1;
        if seen > members.len() {
            return false;
        }
    }
    seen == members.len()
}

/// C(m, r), saturating.
pub fn binomial(m: u64, r: u64) -> u64 {
    if r > m {
        return 0;
    }
    let r = r.min(m - r);
    let mut acc: u128 = 1;
    for i in 0..r {
        acc = acc * (m - i) as u128 / (i + 1) as u128;
        if acc > u64::MAX as u128 {
            return u64::MAX;
        }
    }
    acc as u64
}

/// m · (m-1) · … · (m-r+1), saturating.
pub fn falling_factorial(m: u64, r: u64) -> u64 {
    if r > m {
        return 0;
    }
    (0..r).fold(1u64, |acc, i| acc.saturating_mul(m - i))
}

impl ExistsOracle for Enumerator<'_> {
    fn exists(&self, sub: &SubPattern, nodes: &[u32], _rels: &[u32]) -> bool {
        sub_pattern_exists(self.model, sub, nodes, self.semantics, self)
    }
}
