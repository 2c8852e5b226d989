//! The candidate-space core: filter → order → enumerate over a compact candidate space, as the
//! subgraph-matching field does it (GraphQL / CFL / DP-iso / CECI), on all cores.
//!
//! 1. [`filter`]: candidate sets per pattern node (labels, degrees, unary predicates), refined by
//!    neighbourhood profiles along a BFS order of the query, forwards and backwards, while a sweep
//!    still removes candidates; then [`tables`]: per relationship and end, the candidate-to-candidate
//!    edges as a CSR of positions.
//! 2. [`order`]: GraphQL's, RI's and a cost-greedy order, scored by one cost model; the cheapest
//!    runs. When the model's choice proves costly, the orders (and a greedy order built on
//!    samples) are scored again on [`sampled`] estimates of their partial matches.
//! 3. [`search`]: backtracking by intersection of candidate-edge rows, failing-set pruning, the
//!    last node counted when only counts are wanted, work stealing across threads, an exact
//!    `--limit`. Counting every match, [`adaptive`] (DP-iso's adaptive order: the next node is
//!    the one with the fewest local candidates under the bindings made) races the static orders.
//!
//! It answers a query exactly when [`eligible`]: one `MATCH` of anonymous relationships between
//! distinct nodes (existence checks), connected, at most 64 nodes, node-isomorphism or
//! homomorphism, every `WHERE` conjunct on one node, no sub-pattern in the projections. Anything
//! else runs on the planner-driven host matcher.

pub mod adaptive;
pub mod filter;
pub mod order;
pub mod query_graph;
pub mod sampled;
pub mod search;
pub mod tables;

use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// Force one order algorithm (`gql`, `ri`, `cost`, `adaptive` — the last for counts only);
    /// `None` = the cheapest by the cost model.
    pub order: Option<String>,
    /// Counting every match, the adaptive order ([`adaptive`]) races the static ones.
    pub adaptive: bool,
    /// Failing-set pruning.
    pub failing_sets: bool,
    /// Orders of a costly query scored by sampled estimates ([`order::SAMPLE_FROM`],
    /// [`sampled`]) rather than by the model alone (a count: once the model's order overran
    /// [`SAMPLED_AFTER_VISITS`]).
    pub sampling: bool,
    /// The model's estimated cost from which orders are scored on sampled estimates
    /// ([`order::SAMPLE_FROM`]; tests make it 0 so that small graphs exercise sampling).
    pub sample_from: f64,
    /// Candidate visits of the model's order before a count samples ([`SAMPLED_AFTER_VISITS`]).
    pub sampled_after_visits: u64,
    /// Most refinement sweeps.
    pub max_sweeps: usize,
    /// Candidate visits of a rate trial ([`TRIAL_VISITS`]; tests make it tiny so that small
    /// graphs exercise the trials).
    pub trial_visits: u64,
    /// The matches are only counted (no rows): orders are scored for counting, which takes the
    /// tail of independent nodes together ([`order::choose`]).
    pub counting: bool,
}

impl Default for SpaceOptions {
    fn default() -> Self {
        SpaceOptions {
            order: None,
            adaptive: true,
            failing_sets: true,
            sampling: true,
            sample_from: order::SAMPLE_FROM,
            sampled_after_visits: SAMPLED_AFTER_VISITS,
            max_sweeps: 32,
            trial_visits: TRIAL_VISITS,
            counting: false,
        }
    }
}

impl SpaceOptions {
    /// The defaults, with `GEMP_SPACE_ORDER` forcing an order (`gql`, `ri`, `cost`, or one spelled
    /// out as `list:` and the pattern's node numbers, or `adaptive` for counts),
    /// `GEMP_SPACE_FAILING_SETS=0` turning failing sets off, `GEMP_SPACE_SAMPLING=0` scoring
    /// orders by the model alone and `GEMP_SPACE_ADAPTIVE=0` keeping the adaptive order out of
    /// the race (for benchmarks comparing them).
    pub fn from_env() -> Self {
        let mut o = SpaceOptions::default();
        if let Ok(name) = std::env::var("GEMP_SPACE_ORDER") {
            o.order = Some(name);
        }
        if std::env::var("GEMP_SPACE_FAILING_SETS").is_ok_and(|v| v == "0") {
            o.failing_sets = false;
        }
        if std::env::var("GEMP_SPACE_SAMPLING").is_ok_and(|v| v == "0") {
            o.sampling = false;
        }
        if std::env::var("GEMP_SPACE_ADAPTIVE").is_ok_and(|v| v == "0") {
            o.adaptive = false;
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
    /// Node-isomorphism (else homomorphism).
    pub injective: bool,
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
        let by_labels = filter::by_neighbour_labels(model, &q, &labels, &mut cands, injective);
        let mut refine = filter::refine(
            model,
            &q,
            &labels,
            &mut cands,
            injective,
            options.max_sweeps,
            &|| !control.check_deadline(),
        );
        refine.removed += by_labels;
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
            injective: semantics == Semantics::Isomorphism,
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
            cands: &self.cands,
            injective: self.injective,
        }
    }

    /// The order `options` asks for, or the cheapest. A costly query's orders are scored on
    /// sampled estimates here only when its matches are not just counted (a count samples later,
    /// once the model's order has overrun a budget: [`Prepared::count`]).
    pub fn choose_order(&self, options: &SpaceOptions) -> OrderChoice {
        let stats = self.order_stats();
        let sample_from = (options.sampling && !options.counting).then_some(options.sample_from);
        options
            .order
            .as_deref()
            .and_then(|name| order::named(&self.query, &stats, name, options.counting))
            .unwrap_or_else(|| order::choose(&self.query, &stats, options.counting, sample_from))
    }

    /// The search plan of `choice`'s order and those of its alternatives.
    #[allow(clippy::type_complexity)]
    pub fn plans(&self, choice: &OrderChoice) -> (SearchPlan, Vec<(&'static str, SearchPlan)>) {
        let plan = SearchPlan::new(&self.query, choice.order.clone(), &self.cands);
        let alternatives = choice
            .alternatives
            .iter()
            .map(|(name, order)| {
                (
                    *name,
                    SearchPlan::new(&self.query, order.clone(), &self.cands),
                )
            })
            .collect();
        (plan, alternatives)
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
    /// Counting every match, the adaptive order races the static ones.
    pub adaptive: bool,
    /// Counts use the adaptive order only (`GEMP_SPACE_ORDER=adaptive`).
    pub adaptive_only: bool,
    /// The adaptive order's plan, made on first use ([`Self::adaptive_plan`]).
    adaptive_plan: std::sync::OnceLock<adaptive::AdaptivePlan>,
    /// When a count re-scores the orders on sampled estimates ([`Self::count`]): from which
    /// estimated cost, after how many candidate visits of the model's order.
    pub lazy_sampling: Option<(f64, u64)>,
    /// Candidate visits of a rate trial ([`SpaceOptions::trial_visits`]).
    pub trial_visits: u64,
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
        let (plan, alternatives) = space.plans(&choice);
        Some(Prepared {
            space,
            choice,
            plan,
            alternatives,
            injective: semantics == Semantics::Isomorphism,
            failing_sets: options.failing_sets,
            adaptive: options.adaptive,
            adaptive_only: options.order.as_deref() == Some("adaptive"),
            adaptive_plan: std::sync::OnceLock::new(),
            lazy_sampling: (options.sampling && options.counting)
                .then_some((options.sample_from, options.sampled_after_visits.max(1))),
            trial_visits: options.trial_visits.max(1),
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

    /// The adaptive order's plan over this space, made on first use ([`adaptive`]).
    pub fn adaptive_plan(&self) -> &adaptive::AdaptivePlan {
        self.adaptive_plan.get_or_init(|| {
            adaptive::AdaptivePlan::new(&self.space.query, &self.space.cands, &self.space.tables)
        })
    }

    /// An adaptive-order searcher over this space ([`adaptive`]).
    pub fn adaptive_searcher<'a>(&'a self, control: &'a Control) -> adaptive::AdaptiveSearcher<'a> {
        adaptive::AdaptiveSearcher::new(
            self.adaptive_plan(),
            &self.space.cands,
            &self.space.tables,
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
    /// overruns that, every order (the chosen one included) gets trials; the first to finish
    /// answers. Under a limit each gets one trial of [`TRIAL_VISITS`] and, when none finishes,
    /// the one that found the most matches per visit (the earlier one on a tie) runs to the end;
    /// counting every match, the trials come in rounds of growing budgets, the orders far behind
    /// the best one's rate dropping out after each ([`Prepared::rate_rounds`]). A trial costs at
    /// most its budget, so an order
    /// the cost model misjudged by orders of magnitude costs a few milliseconds of trials, not the
    /// whole query. When the first budget is no more than a trial's, the first run is the chosen
    /// order's trial. Each trial walks its tree on one thread, so that it sees the same part of it
    /// whatever the number of threads (the order chosen, and so the time, does not depend on how
    /// work happened to be split); the trials run side by side, one per thread.
    ///
    /// Counting every match of a query the model finds costly ([`order::SAMPLE_FROM`]), the
    /// model's order first gets [`SAMPLED_AFTER_VISITS`] candidate visits; when it overruns
    /// those, the orders are scored again on sampled estimates ([`sampled`]: the model can be off
    /// by orders of magnitude on dense queries); the orders within [`NEAR_SAMPLED_COSTS`] of the
    /// cheapest race in rate rounds, or, when one is far ahead, it runs with a budget of
    /// [`SAMPLED_BUDGET_FACTOR`] times its estimate, and past that every order races. Queries the
    /// model's order answers quickly thus pay nothing for sampling.
    pub fn count(&self, control: &Control, limit: Option<u64>) -> u64 {
        if self.is_empty() {
            return 0;
        }
        let sampling = self.lazy_sampling.filter(|&(from, _)| {
            limit.is_none()
                && self.choice.sampled.is_none()
                && self.choice.tiny_bound.is_none()
                && self.choice.cost >= from
        });
        if self.adaptive_only {
            return self
                .attempt(
                    Strategy::Adaptive,
                    "adaptive",
                    control,
                    limit,
                    u64::MAX,
                    true,
                )
                .found;
        }
        if let Some((_, after)) = sampling {
            let model = Strategy::Static(&self.plan);
            let run = self.attempt(model, self.choice.name, control, None, after, true);
            if run.finished {
                return run.found;
            }
            let started = Instant::now();
            let stats = self.space.order_stats();
            let choice = order::choose(&self.space.query, &stats, true, Some(0.0));
            let (plan, alternatives) = self.space.plans(&choice);
            log::debug!(
                "candidate space: the model's order overran {after} visits; \
                 sampled estimates in {:?}: order {} {:?}, considered {:?}",
                started.elapsed(),
                choice.name,
                choice.order,
                choice.considered
            );
            // Orders whose sampled costs are close: the estimates count the search tree without
            // failing-set pruning, which can cut one order's tree several times more than
            // another's, so they race (rate rounds) instead of the cheapest running first.
            let best = choice
                .considered
                .iter()
                .map(|c| c.1)
                .fold(f64::INFINITY, f64::min);
            let score = |name: &str| {
                choice
                    .considered
                    .iter()
                    .find(|c| c.0 == name)
                    .map_or(f64::INFINITY, |c| c.1)
            };
            let statics = || {
                std::iter::once((choice.name, Strategy::Static(&plan)))
                    .chain(alternatives.iter().map(|(n, p)| (*n, Strategy::Static(p))))
            };
            let near: Vec<(&str, Strategy)> = statics()
                .filter(|(name, _)| score(name) <= NEAR_SAMPLED_COSTS * best)
                .collect();
            let mut racing = near;
            if racing.len() < 2 {
                // One order far ahead: it runs with a budget of a few times its estimate (sampled
                // estimates err low, seldom high: a partial match heading a huge subtree is rare
                // in the sample); past that, every order races.
                let budget = (SAMPLED_BUDGET_FACTOR * best).clamp(self.trial_visits as f64, 1e15);
                let chosen = Strategy::Static(&plan);
                let run = self.attempt(chosen, choice.name, control, None, budget as u64, true);
                if run.finished {
                    return run.found;
                }
                racing = statics().collect();
            }
            if self.adaptive {
                racing.push(("adaptive", Strategy::Adaptive));
            }
            let (name, strategy) = match self.rate_rounds(&racing, control) {
                Ok(found) => return found,
                Err(winner) => racing[winner],
            };
            return self
                .attempt(strategy, name, control, None, u64::MAX, true)
                .found;
        }
        self.hedged_count(&self.choice, &self.plan, &self.alternatives, control, limit)
    }

    /// [`Self::count`] with the order `choice` (its search plan `plan`, the other orders'
    /// `alternatives`).
    fn hedged_count(
        &self,
        choice: &OrderChoice,
        plan: &SearchPlan,
        alternatives: &[(&'static str, SearchPlan)],
        control: &Control,
        limit: Option<u64>,
    ) -> u64 {
        let chosen = Strategy::Static(plan);
        if alternatives.is_empty() {
            return self
                .attempt(chosen, choice.name, control, limit, u64::MAX, true)
                .found;
        }
        // The cost model estimates the cost of every embedding; under a limit (the first N) an
        // order that is cheap overall may still be slow to its first N, so its trial is capped
        // and the orders compete on their rate of matches.
        let trial = self.trial_visits;
        let mut first = (16.0 * choice.cost).clamp(trial as f64, 1e15) as u64;
        if limit.is_some() {
            first = first.min(LIMITED_FIRST_TRIAL_VISITS.max(trial));
        }
        if first > trial {
            let run = self.attempt(chosen, choice.name, control, limit, first, true);
            if run.finished {
                return run.found;
            }
        }
        // Counting every match, the adaptive order races too (under a limit the trials compare
        // matches per visit, and an adaptive visit costs more than a static one).
        let mut orders: Vec<(&str, Strategy)> = std::iter::once((choice.name, chosen))
            .chain(alternatives.iter().map(|(n, p)| (*n, Strategy::Static(p))))
            .collect();
        if self.adaptive && limit.is_none() {
            orders.push(("adaptive", Strategy::Adaptive));
        }
        let trials = if limit.is_some() {
            self.rate_trials(&orders, control, limit)
        } else {
            self.rate_rounds(&orders, control)
        };
        let (best_name, best) = match trials {
            Ok(found) => return found,
            Err(best) => orders[best],
        };
        self.attempt(best, best_name, control, limit, u64::MAX, true)
            .found
    }

    /// The rate trials of `orders` under a limit ([`Prepared::trial_visits`] each): `Ok(matches)`
    /// from the first that finished (to its end or its limit), else `Err(i)`, the order with the
    /// most matches per candidate visited (the earlier one on a tie): the one that reaches the
    /// first N soonest.
    fn rate_trials(
        &self,
        orders: &[(&str, Strategy)],
        control: &Control,
        limit: Option<u64>,
    ) -> std::result::Result<u64, usize> {
        let all: Vec<usize> = (0..orders.len()).collect();
        let results = match self.trial_round(orders, &all, control, limit, self.trial_visits) {
            Round::Won(found) => return Ok(found),
            Round::Ran(results) => results,
        };
        let mut best = (0usize, -1.0f64);
        for (i, run) in results.iter().enumerate() {
            let Some(run) = run else { continue };
            let rate = run.found as f64 / run.visited.max(1) as f64;
            if rate > best.1 {
                best = (i, rate);
            }
        }
        Err(best.0)
    }

    /// The trials of `orders` when every match is counted: rounds of growing budgets
    /// ([`Prepared::trial_visits`] / 16, then ×4 up to [`Prepared::trial_visits`]); after each
    /// round the orders that found fewer than half the matches per second of the best one drop
    /// out (per second, not per visit: a visit's intersections cost more in some orders). `Ok(matches)` from the first that finished; else `Err(i)`, the best once one is left
    /// or the budgets are spent (the earlier one on a tie). An order misjudged by the cost model
    /// thus costs a small trial, not a large one.
    fn rate_rounds(
        &self,
        orders: &[(&str, Strategy)],
        control: &Control,
    ) -> std::result::Result<u64, usize> {
        let mut alive: Vec<usize> = (0..orders.len()).collect();
        let mut visits = (self.trial_visits / 16).max(1);
        loop {
            let results = match self.trial_round(orders, &alive, control, None, visits) {
                Round::Won(found) => return Ok(found),
                Round::Ran(results) => results,
            };
            let rate = |i: usize| {
                results[i]
                    .as_ref()
                    .map_or(0.0, |run| run.found as f64 / run.seconds.max(1e-6))
            };
            let mut best = alive[0];
            for &i in &alive {
                if rate(i) > rate(best) {
                    best = i;
                }
            }
            alive.retain(|&i| i == best || 2.0 * rate(i) >= rate(best));
            if alive.len() == 1 || visits >= self.trial_visits {
                return Err(best);
            }
            visits = visits.saturating_mul(4).min(self.trial_visits);
        }
    }

    /// One round of trials of the orders `which` (`visits` each, each on one thread, side by
    /// side): [`Round::Won`] by the first that finished (to its end or its limit; every finished
    /// trial has the same answer), else each order's attempt. A deadline passed in a trial ends
    /// the whole count: that trial wins with what it found, the run marked timed out.
    fn trial_round(
        &self,
        orders: &[(&str, Strategy)],
        which: &[usize],
        control: &Control,
        limit: Option<u64>,
        visits: u64,
    ) -> Round {
        use rayon::prelude::*;
        let controls: Vec<Control> = orders.iter().map(|_| control.child()).collect();
        // The first trial to finish (to its end, its limit or the deadline) answers; it stops
        // the others, whose outcome is then unknown.
        let winner = AtomicUsize::new(usize::MAX);
        let runs: Vec<(usize, Option<Attempt>)> = which
            .par_iter()
            .map(|&i| {
                if winner.load(Ordering::Acquire) != usize::MAX {
                    return (i, None);
                }
                let (name, strategy) = orders[i];
                let run = self.attempt(strategy, name, &controls[i], limit, visits, false);
                if run.finished
                    && winner
                        .compare_exchange(usize::MAX, i, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    for (j, other) in controls.iter().enumerate() {
                        if j != i {
                            other.stop();
                        }
                    }
                }
                (i, Some(run))
            })
            .collect();
        for c in &controls {
            control.absorb(c);
        }
        let mut results: Vec<Option<Attempt>> = orders.iter().map(|_| None).collect();
        for (i, run) in runs {
            results[i] = run;
        }
        let won = winner.load(Ordering::Acquire);
        match results.get(won) {
            Some(Some(run)) => Round::Won(run.found),
            _ => Round::Ran(results),
        }
    }

    /// One run of `strategy` with at most `visits` candidate visits under `control`: on all
    /// threads when `parallel`, else on this one.
    fn attempt(
        &self,
        strategy: Strategy,
        name: &str,
        control: &Control,
        limit: Option<u64>,
        visits: u64,
        parallel: bool,
    ) -> Attempt {
        let budget = limit.map(|l| Budget::new(l, control));
        let mut counter = Counter::new(budget.as_ref());
        if control.stopped() {
            return Attempt {
                finished: true,
                found: counter.count,
                visited: 0,
                seconds: 0.0,
            };
        }
        // The time counts the search only (a rate trial compares searches, not set-up).
        let (meter, seconds) = match strategy {
            Strategy::Static(plan) => {
                let mut searcher = self.searcher_for(plan, control).with_visit_budget(visits);
                if !parallel {
                    searcher = searcher.sequential();
                }
                timed_run(&mut counter, |c| searcher.run(c), searcher.meter())
            }
            Strategy::Adaptive => {
                let mut searcher = self.adaptive_searcher(control).with_visit_budget(visits);
                if !parallel {
                    searcher = searcher.sequential();
                }
                timed_run(&mut counter, |c| searcher.run(c), searcher.meter())
            }
        };
        let (exhausted, visited, handed_over) = meter;
        // A limit reached or a deadline passed ends the count whatever the budget says.
        let finished = !exhausted || control.stopped();
        log::debug!(
            "candidate space: order {name}: {} matches, about {visited} candidates visited, \
             {handed_over} tasks handed to other threads{} in {:.1} ms",
            counter.count,
            if finished { "" } else { " (gave up)" },
            seconds * 1e3
        );
        Attempt {
            finished,
            found: counter.count,
            visited,
            seconds,
        }
    }
}

/// Runs `run` into `counter`, timed; then what `meter` counted: (gave up, candidates visited,
/// tasks handed to other threads), and the seconds.
fn timed_run<'c>(
    counter: &mut Counter<'c, 'c>,
    run: impl FnOnce(&mut Counter<'c, 'c>),
    meter: &search::Meter,
) -> ((bool, u64, u64), f64) {
    let started = Instant::now();
    run(counter);
    let seconds = started.elapsed().as_secs_f64();
    (
        (meter.exhausted(), meter.visited(), meter.handed_over()),
        seconds,
    )
}

/// One way to search the space: a static order's plan, or the adaptive order.
#[derive(Clone, Copy)]
enum Strategy<'p> {
    /// Backtracking in the plan's order ([`Searcher`]).
    Static(&'p SearchPlan),
    /// DP-iso's adaptive order ([`adaptive::AdaptiveSearcher`]).
    Adaptive,
}

/// How a round of order trials ended ([`Prepared::trial_round`]).
enum Round {
    /// A trial finished: the number of matches (the answer).
    Won(u64),
    /// None finished: per order, its attempt (`None` for orders not in the round).
    Ran(Vec<Option<Attempt>>),
}

/// What one run of an order ended with ([`Prepared::attempt`]).
struct Attempt {
    /// It ran to its end (or to the limit, or the deadline): `found` is the answer.
    finished: bool,
    /// Matches it found.
    found: u64,
    /// Candidates it visited.
    visited: u64,
    /// Its wall-clock time.
    seconds: f64,
}

/// Candidate visits of the chosen order's first trial under a limit (`--limit`, the first N
/// embeddings): a few tens of milliseconds.
pub const LIMITED_FIRST_TRIAL_VISITS: u64 = 1 << 21;

/// Candidate visits of the model's order, counting every match of a query the model finds costly,
/// before the orders are scored again on sampled estimates ([`Prepared::count`]): a few tens of
/// milliseconds, a few times what sampling costs.
pub const SAMPLED_AFTER_VISITS: u64 = 1 << 21;

/// The budget of an order chosen on sampled estimates, in multiples of its estimated cost, before
/// every order races ([`Prepared::count`]).
pub const SAMPLED_BUDGET_FACTOR: f64 = 4.0;

/// Orders whose sampled costs are within this factor of the cheapest race in rate rounds
/// ([`Prepared::count`]).
pub const NEAR_SAMPLED_COSTS: f64 = 4.0;

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
