//! The candidate-space core: filter → order → enumerate over a compact candidate space, as the
//! subgraph-matching field does it (GraphQL / CFL / DP-iso / CECI), on all cores.
//!
//! 1. [`filter`]: candidate sets per pattern node (labels, degrees, unary predicates), refined by
//!    neighbourhood profiles along a BFS order of the query, forwards and backwards, while a sweep
//!    still removes candidates; then [`tables`]: per relationship and end, the candidate-to-candidate
//!    edges as a CSR of positions.
//! 2. [`order`]: GraphQL's, RI's and a cost-greedy order, scored by one cost model; the cheapest
//!    runs.
//! 3. [`search`]: backtracking by intersection of candidate-edge rows, failing-set pruning, the
//!    last node counted when only counts are wanted, work stealing across threads, an exact
//!    `--limit`.
//!
//! It answers a query exactly when [`eligible`]: one `MATCH` of anonymous relationships between
//! distinct nodes (existence checks), connected, at most 64 nodes, node-isomorphism or
//! homomorphism, every `WHERE` conjunct on one node, no sub-pattern in the projections. Anything
//! else runs on the planner-driven host matcher.

pub mod filter;
pub mod order;
pub mod query_graph;
pub mod search;
pub mod tables;

use std::time::Instant;

use crate::exec::candidates::{self, Semantics};
use crate::exec::plan::{self, Dir, Expansion, Plan, Step};
use crate::exec::Control;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, Expr};

pub use filter::Candidates;
pub use order::OrderChoice;
pub use query_graph::QueryGraph;
pub use search::{Budget, Counter, Rows, SearchPlan, Searcher, Visitor};
pub use tables::EdgeTable;

/// Knobs of the core (the defaults are what queries run with; tests and benchmarks vary them).
#[derive(Debug, Clone)]
pub struct SpaceOptions {
    /// Force one order algorithm (`gql`, `ri`, `cost`); `None` = the cheapest by the cost model.
    pub order: Option<String>,
    /// Failing-set pruning.
    pub failing_sets: bool,
    /// Most refinement sweeps.
    pub max_sweeps: usize,
}

impl Default for SpaceOptions {
    fn default() -> Self {
        SpaceOptions {
            order: None,
            failing_sets: true,
            max_sweeps: 6,
        }
    }
}

impl SpaceOptions {
    /// The defaults, with `GEMP_SPACE_ORDER` (`gql`, `ri`, `cost`) forcing an order and
    /// `GEMP_SPACE_FAILING_SETS=0` turning failing sets off (for benchmarks comparing them).
    pub fn from_env() -> Self {
        let mut o = SpaceOptions::default();
        if let Ok(name) = std::env::var("GEMP_SPACE_ORDER") {
            o.order = Some(name);
        }
        if std::env::var("GEMP_SPACE_FAILING_SETS").is_ok_and(|v| v == "0") {
            o.failing_sets = false;
        }
        o
    }
}

/// Why a query is not for the candidate-space core, or `None` when it is.
pub fn ineligible_because(query: &BoundQuery, semantics: Semantics) -> Option<&'static str> {
    let p = &query.pattern;
    if query.clauses.is_some() {
        return Some("clauses beyond MATCH … WHERE … WITH … RETURN");
    }
    if semantics == Semantics::Cypher {
        return Some("relationship-isomorphism semantics");
    }
    if p.nodes.is_empty() || p.rels.is_empty() {
        return Some("no relationship");
    }
    if p.nodes.len() > search::MAX_NODES {
        return Some("more than 64 pattern nodes");
    }
    if p.rels.iter().any(|r| r.named) {
        return Some("a named relationship");
    }
    if p.rels.iter().any(|r| r.src == r.dst) {
        return Some("a self-loop in the pattern");
    }
    let unary = plan::unary_conjuncts_with(query, true);
    let unary_count: usize = unary.iter().map(Vec::len).sum();
    if unary_count != query.filter.len() {
        return Some("a WHERE conjunct over several nodes");
    }
    let mut sub_pattern = false;
    for s in &query.stages {
        let mut look = |e: &Expr| sub_pattern |= matches!(e, Expr::Exists(_));
        s.items.iter().for_each(|i| i.expr.walk(&mut look));
        if let Some(f) = &s.filter {
            f.walk(&mut look);
        }
        s.order_by.iter().for_each(|(e, _)| e.walk(&mut look));
    }
    if sub_pattern {
        return Some("a sub-pattern in a projection");
    }
    if p.hops_from(&[(0, 0)]).is_none() {
        return Some("a pattern of several connected parts");
    }
    None
}

/// True when the core answers `query` exactly (see the module doc).
pub fn eligible(query: &BoundQuery, semantics: Semantics) -> bool {
    ineligible_because(query, semantics).is_none()
}

/// A query's candidate space: refined candidate sets and candidate-edge tables.
#[derive(Debug, Clone)]
pub struct Space {
    /// The query graph.
    pub query: QueryGraph,
    /// Candidates per pattern node before refinement.
    pub initial: Vec<usize>,
    /// Refined candidates per pattern node.
    pub cands: Vec<Candidates>,
    /// Tables, two per relationship ([`tables::table_id`]).
    pub tables: Vec<EdgeTable>,
    /// What refinement did.
    pub refine: filter::RefineStats,
}

impl Space {
    /// Builds the space of an [`eligible`] query from `first`, the host's candidate sets (labels,
    /// degrees, one-node predicates) when the caller has them already, else computed here; `None`
    /// when a table would be too large.
    pub fn build(
        model: &Model,
        query: &BoundQuery,
        semantics: Semantics,
        options: &SpaceOptions,
        control: &Control,
        first: Option<Vec<candidates::CandidateSet>>,
    ) -> Option<Space> {
        let n = model.node_count();
        let t0 = Instant::now();
        let first = first.unwrap_or_else(|| {
            let unary = plan::unary_conjuncts_with(query, true);
            candidates::for_query(model, query, &unary, semantics)
        });
        let t_first = t0.elapsed();
        let initial: Vec<usize> = first.iter().map(|c| c.len()).collect();
        let mut cands: Vec<Candidates> = first
            .into_iter()
            .map(|c| Candidates::from_sorted(c.nodes, n))
            .collect();
        let q = QueryGraph::new(&query.pattern, model);
        let labels: Vec<Vec<Vec<u32>>> = query
            .pattern
            .nodes
            .iter()
            .map(|v| v.labels.clone())
            .collect();
        let injective = semantics == Semantics::Isomorphism;
        let refine = filter::refine(
            model,
            &q,
            &labels,
            &mut cands,
            injective,
            options.max_sweeps,
            &|| !control.check_deadline(),
        );
        let t_refine = t0.elapsed();
        let tables = tables::build(model, &q, &cands)?;
        log::debug!(
            "candidate space: first filter {t_first:.2?}, refinement ({} sweeps, {} removed) \
             until {t_refine:.2?}, tables until {:.2?}",
            refine.sweeps,
            refine.removed,
            t0.elapsed()
        );
        Some(Space {
            query: q,
            initial,
            cands,
            tables,
            refine,
        })
    }

    /// The statistics orders are scored with.
    pub fn order_stats(&self) -> order::OrderStats<'_> {
        order::OrderStats {
            sizes: self.cands.iter().map(Candidates::len).collect(),
            edges: (0..self.query.rels.len())
                .map(|r| self.tables[tables::table_id(r, true)].len())
                .collect(),
            tables: &self.tables,
        }
    }

    /// The order `options` asks for, or the cheapest.
    pub fn choose_order(&self, options: &SpaceOptions) -> OrderChoice {
        let stats = self.order_stats();
        options
            .order
            .as_deref()
            .and_then(|name| order::named(&self.query, &stats, name))
            .unwrap_or_else(|| order::choose(&self.query, &stats))
    }

    /// The order as the host planner's [`Plan`] (for `explain`, timings and outputs): each node
    /// after the first expands along its first relationship to a bound node and checks the rest.
    pub fn as_plan(&self, query: &BoundQuery, choice: &OrderChoice) -> Plan {
        let estimates = self
            .order_stats()
            .prefix_estimates(&self.query, &choice.order);
        let mut steps = Vec::with_capacity(choice.order.len());
        let mut bound = vec![false; self.query.len()];
        for (&u, &estimate) in choice.order.iter().zip(&estimates) {
            let mut expand = None;
            let mut checks = Vec::new();
            for inc in &self.query.incident[u] {
                if !bound[inc.other] {
                    continue;
                }
                let r = &self.query.rels[inc.rel];
                if expand.is_none() {
                    let dir = if r.undirected {
                        Dir::Both
                    } else if inc.forward {
                        Dir::In
                    } else {
                        Dir::Out
                    };
                    expand = Some(Expansion {
                        rel: inc.rel,
                        from: inc.other,
                        dir,
                    });
                } else {
                    checks.push(inc.rel);
                }
            }
            steps.push(Step {
                node: u,
                expand,
                checks,
                filters: Vec::new(),
                candidates: self.cands[u].len(),
                estimate,
            });
            bound[u] = true;
        }
        Plan {
            steps,
            unary: plan::unary_conjuncts_with(query, true),
            attribute_filters: Vec::new(),
        }
    }
}

/// A query ready to search: its space, order and search plan.
pub struct Prepared {
    /// The candidate space.
    pub space: Space,
    /// The order chosen.
    pub choice: OrderChoice,
    /// The search plan of that order.
    pub plan: SearchPlan,
    /// The search plans of the other orders considered, cheapest first.
    pub alternatives: Vec<(&'static str, SearchPlan)>,
    /// Node-isomorphism (else homomorphism).
    pub injective: bool,
    /// Failing-set pruning on.
    pub failing_sets: bool,
    /// Time spent filtering (candidates, refinement, tables) and ordering.
    pub filter_time: std::time::Duration,
    /// Time spent choosing the order.
    pub order_time: std::time::Duration,
}

impl Prepared {
    /// Filters and orders an [`eligible`] query (from the host's candidate sets `first` when
    /// given, see [`Space::build`]); `None` when the space would be too large.
    pub fn new(
        model: &Model,
        query: &BoundQuery,
        semantics: Semantics,
        options: &SpaceOptions,
        control: &Control,
        first: Option<Vec<candidates::CandidateSet>>,
    ) -> Option<Self> {
        let start = Instant::now();
        let space = Space::build(model, query, semantics, options, control, first)?;
        let filter_time = start.elapsed();
        let start = Instant::now();
        let choice = space.choose_order(options);
        log::debug!(
            "candidate space: candidates {:?} (before refinement {:?}); order {} {:?}, considered {:?}",
            space.cands.iter().map(Candidates::len).collect::<Vec<_>>(),
            space.initial,
            choice.name,
            choice.order,
            choice.considered
        );
        let plan = SearchPlan::new(&space.query, choice.order.clone(), &space.cands);
        let alternatives = choice
            .alternatives
            .iter()
            .map(|(name, order)| {
                (
                    *name,
                    SearchPlan::new(&space.query, order.clone(), &space.cands),
                )
            })
            .collect();
        Some(Prepared {
            space,
            choice,
            plan,
            alternatives,
            injective: semantics == Semantics::Isomorphism,
            failing_sets: options.failing_sets,
            filter_time,
            order_time: start.elapsed(),
        })
    }

    /// A searcher over this space in the chosen order.
    pub fn searcher<'a>(&'a self, control: &'a Control) -> Searcher<'a> {
        self.searcher_for(&self.plan, control)
    }

    fn searcher_for<'a>(&'a self, plan: &'a SearchPlan, control: &'a Control) -> Searcher<'a> {
        Searcher::new(
            &self.space.cands,
            &self.space.tables,
            plan,
            self.injective,
            self.failing_sets,
            control,
        )
    }

    /// True when some pattern node has no candidate (no match).
    pub fn is_empty(&self) -> bool {
        self.space.cands.iter().any(Candidates::is_empty)
    }

    /// Counts the matches (at most `limit`) on all cores.
    ///
    /// Estimates can be far off, so the count hedges: the chosen order runs first with a budget of
    /// 16 times its estimated cost in candidate visits (at least [`TRIAL_VISITS`]); when it
    /// overruns that, every order (the chosen one included) gets a trial of [`TRIAL_VISITS`] on one
    /// thread; the first to finish answers. When none does, the order that found the most matches
    /// in its trial (the earlier one on a tie) runs to the end. A trial costs at most its budget, so
    /// an order the cost model misjudged by orders of magnitude costs a few milliseconds of trials,
    /// not the whole query. The rate trials run on one thread so that they walk the same part of
    /// the search tree whatever the number of threads: the order chosen, and so the time, does not
    /// depend on how work happened to be split.
    pub fn count(&self, control: &Control, limit: Option<u64>) -> u64 {
        if self.is_empty() {
            return 0;
        }
        // One run of `plan` with at most `visits` candidate visits: whether it finished, the
        // matches it found and the candidates it visited.
        let attempt = |plan: &SearchPlan, name: &str, visits: u64, parallel: bool| {
            let budget = limit.map(|l| Budget::new(l, control));
            let mut counter = Counter::new(budget.as_ref());
            if control.stopped() {
                return (true, counter.count, 0);
            }
            let mut searcher = self.searcher_for(plan, control).with_visit_budget(visits);
            if !parallel {
                searcher = searcher.sequential();
            }
            searcher.run(&mut counter);
            // A limit reached or a deadline passed ends the count whatever the budget says.
            let done = !searcher.exhausted() || control.stopped();
            log::debug!(
                "candidate space: order {name}: {} matches, about {} candidates visited, {} tasks \
                 handed to other threads{}",
                counter.count,
                searcher.visited(),
                searcher.handed_over(),
                if done { "" } else { " (gave up)" }
            );
            (done, counter.count, searcher.visited())
        };
        // The order that runs to the end when no trial finished: the one that found the most
        // matches per candidate visited (trials get different budgets).
        let mut best = (self.choice.name, &self.plan, 0.0f64);
        if !self.alternatives.is_empty() {
            // The cost model estimates the cost of every embedding; under a limit (the first N) an
            // order that is cheap overall may still be slow to its first N, so its trial is capped
            // and the orders compete on their rate of matches.
            let mut first = (16.0 * self.choice.cost).clamp(TRIAL_VISITS as f64, 1e15) as u64;
            if limit.is_some() {
                first = first.min(LIMITED_FIRST_TRIAL_VISITS);
            }
            let (done, found, visited) = attempt(&self.plan, self.choice.name, first, true);
            if done {
                return found;
            }
            // On one thread a first trial of the rate trials' budget is one of them already.
            let repeat = first != TRIAL_VISITS || rayon::current_num_threads() > 1;
            if !repeat {
                best.2 = found as f64 / visited.max(1) as f64;
            }
            let trials = std::iter::once((self.choice.name, &self.plan))
                .filter(|_| repeat)
                .chain(self.alternatives.iter().map(|(n, p)| (*n, p)));
            for (name, plan) in trials {
                match attempt(plan, name, TRIAL_VISITS, false) {
                    (true, count, _) => return count,
                    (false, found, visited) => {
                        let rate = found as f64 / visited.max(1) as f64;
                        if rate > best.2 {
                            best = (name, plan, rate);
                        }
                    }
                }
            }
        }
        attempt(best.1, best.0, u64::MAX, true).1
    }
}

/// Candidate visits of the chosen order's first trial under a limit (`--limit`, the first N
/// embeddings): a few tens of milliseconds.
pub const LIMITED_FIRST_TRIAL_VISITS: u64 = 1 << 21;

/// Candidate visits each order gets in a counting trial (a few milliseconds).
pub const TRIAL_VISITS: u64 = 1 << 18;

/// Counts the matches of an [`eligible`] query's pattern and `WHERE` (ignoring projections), at
/// most `limit`; `None` when the query is not eligible or its space too large.
pub fn count(
    model: &Model,
    query: &BoundQuery,
    semantics: Semantics,
    options: &SpaceOptions,
    limit: Option<u64>,
) -> Option<u64> {
    if !eligible(query, semantics) {
        return None;
    }
    let control = Control::new(None);
    let prepared = Prepared::new(model, query, semantics, options, &control, None)?;
    Some(prepared.count(&control, limit))
}
