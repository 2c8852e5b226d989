//! The matching pipeline, split as in Sun & Luo's study into stages you can print and swap:
//! [`candidates`] (filter) → [`crate::exec::plan`] (order) → [`enumerate`] (enumerate), then
//! the attribute phase and the [`results`] stage. [`execute`] runs them all on the host;
//! [`device`] runs phase 1 and 2 on an OpenCL device with identical results.

pub mod clauses;
pub mod device;
pub mod enumerate;
pub mod explain;
pub mod extend;
pub mod factorised;
pub mod host;
pub mod space;
mod space_exec;
pub mod symmetry;
pub mod triangles;

use std::time::Instant;

use crate::exec::results::{CountSink, Projector, RowSink};
use crate::exec::{candidates, plan};
use enumerate::Enumerator;

use crate::error::Result;
use crate::exec::eval::{ExistsOracle, Val};
use crate::exec::plan::Plan;
use crate::exec::{drive, Drive, Search, Sink};
use crate::exec::{
    hand_over, is_streamable, Control, MatchOptions, QueryOutput, RowConsumer, Semantics,
    StreamSummary, Timings,
};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// Plans a bound query as the device pipeline runs it: candidate filtering then ordering, with
/// string conjuncts in the attribute phase. Returns the plan and candidate sets.
pub fn prepare(
    model: &Model,
    query: &BoundQuery,
    semantics: Semantics,
) -> (Plan, Vec<candidates::CandidateSet>, Timings) {
    prepare_with(model, query, semantics, false)
}

/// Plans a bound query as the host runs it: unary string conjuncts filter candidates too.
pub fn prepare_host(
    model: &Model,
    query: &BoundQuery,
    semantics: Semantics,
) -> (Plan, Vec<candidates::CandidateSet>, Timings) {
    prepare_with(model, query, semantics, true)
}

fn prepare_with(
    model: &Model,
    query: &BoundQuery,
    semantics: Semantics,
    strings_unary: bool,
) -> (Plan, Vec<candidates::CandidateSet>, Timings) {
    let mut t = Timings::default();
    let start = Instant::now();
    let unary = plan::unary_conjuncts_with(query, strings_unary);
    let cands = candidates::for_query(model, query, &unary, semantics);
    t.filter = start.elapsed();
    let start = Instant::now();
    let plan = plan_for(model, query, &cands, strings_unary);
    t.plan = start.elapsed();
    (plan, cands, t)
}

/// The matching order for `query` over candidate sets computed already.
pub(crate) fn plan_for(
    model: &Model,
    query: &BoundQuery,
    cands: &[candidates::CandidateSet],
    strings_unary: bool,
) -> Plan {
    // No order given: every next node is the cheapest one.
    plan_following(model, query, cands, &[], strings_unary)
}

/// Sampled fan-outs by (relationship, bound end, direction): the planner asks for the same one at
/// every step and in every comparison of its choices, and each answer samples up to 512
/// candidates (on HPRD's 16-node queries the sampling was most of the planning time).
#[derive(Default)]
struct FanoutMemo(std::cell::RefCell<hashbrown::HashMap<(usize, usize, plan::Dir), f64>>);

impl FanoutMemo {
    /// The memoised fan-out, computed by `compute` the first time.
    fn get(&self, rel: usize, from: usize, dir: plan::Dir, compute: impl FnOnce() -> f64) -> f64 {
        if let Some(&f) = self.0.borrow().get(&(rel, from, dir)) {
            return f;
        }
        let f = compute();
        self.0.borrow_mut().insert((rel, from, dir), f);
        f
    }
}

/// [`plan_for`] binding the nodes in `order` (see [`plan::plan_in_order`]): GEMP's join
/// following another order stage's choice; unary string conjuncts count as applied to `cands`.
pub(crate) fn plan_in_order_for(
    model: &Model,
    query: &BoundQuery,
    cands: &[candidates::CandidateSet],
    order: &[crate::pattern::ir::NodeSlot],
) -> Plan {
    plan_following(model, query, cands, order, true)
}

/// The planner over `cands` with memoised sampled fan-outs, binding `order` first (empty: the
/// planner's own choices throughout).
fn plan_following(
    model: &Model,
    query: &BoundQuery,
    cands: &[candidates::CandidateSet],
    order: &[crate::pattern::ir::NodeSlot],
    strings_unary: bool,
) -> Plan {
    let unary = plan::unary_conjuncts_with(query, strings_unary);
    let counts: Vec<usize> = cands.iter().map(|c| c.len()).collect();
    let memo = FanoutMemo::default();
    let fanout = |rel: usize, from: usize, dir: plan::Dir| {
        memo.get(rel, from, dir, || {
            sampled_fanout(model, query, cands, &unary, rel, from, dir)
        })
    };
    plan::plan_in_order(query, order, &counts, &fanout, strings_unary)
}

/// Average number of edges of `rel`'s types that a candidate of `from` has in direction `dir`,
/// times the fraction of the far end's nodes that are candidates; sampled over up to 512
/// candidates of `from`.
fn sampled_fanout(
    model: &Model,
    query: &BoundQuery,
    cands: &[candidates::CandidateSet],
    unary: &[Vec<usize>],
    rel: usize,
    from: usize,
    dir: plan::Dir,
) -> f64 {
    let r = &query.pattern.rels[rel];
    let from_cands = &cands[from].nodes;
    if from_cands.is_empty() {
        return 0.0;
    }
    let step = (from_cands.len() / 512).max(1);
    let mut edges = 0usize;
    let mut samples = 0usize;
    for &v in from_cands.iter().step_by(step) {
        edges += match dir {
            plan::Dir::Out => candidates::typed_degree(model, v, &r.types, true),
            plan::Dir::In => candidates::typed_degree(model, v, &r.types, false),
            plan::Dir::Both => {
                candidates::typed_degree(model, v, &r.types, true)
                    + candidates::typed_degree(model, v, &r.types, false)
            }
        };
        samples += 1;
    }
    let to = if r.src == from { r.dst } else { r.src };
    // The degree filter only removes nodes no edge reaches; unary predicates remove reachable ones.
    let filtered = !unary[to].is_empty();
    let selectivity = if !filtered || query.pattern.nodes[to].labels.is_empty() {
        1.0
    } else {
        let base: usize = query.pattern.nodes[to]
            .labels
            .iter()
            .map(|g| g.iter().map(|&l| model.label_count(l)).sum::<usize>())
            .min()
            .unwrap_or(model.node_count());
        (cands[to].len() as f64 / base.max(1) as f64).min(1.0)
    };
    edges as f64 / samples as f64 * selectivity
}

/// [`execute`] restricted to the matches that bind pattern node `slot` to one of `seeds` (sorted,
/// distinct node ids), once per slot of `slots`: candidates are filtered once, as usual; for each
/// slot, that slot's are then cut down to `seeds` and the plan is made for the cut sets, so the
/// search starts from the seeds when they are fewer than any other node's candidates. What
/// incremental re-checking runs ([`crate::api::LiveQuery`]). A slot the pattern does not have is an
/// error.
pub fn execute_seeded<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    slots: &[usize],
    seeds: &[u32],
) -> Result<Vec<QueryOutput<'m>>> {
    if let Some(&slot) = slots.iter().find(|&&s| s >= query.pattern.nodes.len()) {
        return Err(crate::error::Error::InvalidArgument(format!(
            "pattern node {slot} does not exist (the pattern has {})",
            query.pattern.nodes.len()
        )));
    }
    let deadline = options.timeout.map(|d| Instant::now() + d);
    let start = Instant::now();
    let unary = plan::unary_conjuncts_with(query, true);
    // Every node of a match binding a seed at one of `slots` lies within the pattern's radius
    // around the seeds: candidates are filtered there only (unless that is a large part of the
    // model anyway).
    let near = pattern_radius(&query.pattern, slots).and_then(|r| {
        crate::model::neighbourhood::neighbourhood(
            model,
            seeds,
            r,
            (model.node_count() / 4).max(64),
        )
    });
    let all = candidates::filter_candidates_within(
        model,
        &query.pattern,
        &query.filter,
        &unary,
        options.semantics,
        near.as_deref(),
    );
    let filtered = start.elapsed();
    let mut outputs = Vec::with_capacity(slots.len());
    for &slot in slots {
        let mut timings = Timings {
            filter: filtered,
            ..Timings::default()
        };
        let start = Instant::now();
        let mut cands = all.clone();
        let kept: Vec<u32> = seeds
            .iter()
            .copied()
            .filter(|&v| cands[slot].contains(v))
            .collect();
        cands[slot] = candidates::CandidateSet::from_sorted(kept, model.node_count());
        let plan = plan_for(model, query, &cands, true);
        timings.plan = start.elapsed();
        outputs.push(execute_planned(
            model, query, plan, cands, timings, options, deadline,
        )?);
    }
    Ok(outputs)
}

/// The most pattern edges (either direction) between one of `slots` and any pattern node; `None`
/// when some node is not connected to one of them.
fn pattern_radius(pattern: &crate::pattern::ir::Pattern, slots: &[usize]) -> Option<usize> {
    slots.iter().try_fold(0, |radius, &slot| {
        let dist = pattern.hops_from(&[(slot, 0)])?;
        Some(radius.max(dist.into_iter().max().unwrap_or(0)))
    })
}

/// Runs a bound query on the host (all cores).
pub fn execute<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
) -> Result<QueryOutput<'m>> {
    if query.clauses.is_some() {
        if options.limit.is_some() {
            return Err(limit_refused(query, options));
        }
        return clauses::execute(model, query, options);
    }
    // The deadline covers candidate filtering and planning too.
    let deadline = options.timeout.map(|d| Instant::now() + d);
    if let Some(out) = space_exec::execute(model, query, options, deadline)? {
        return Ok(out);
    }
    if options.limit.is_some() {
        let (limited, options) = limited_by_projection(query, options)?;
        return execute(model, &limited, &options);
    }
    let (plan, cands, timings) = prepare_host(model, query, options.semantics);
    if let Some(reduced) = count_symmetry(model, query, &plan, &cands, options) {
        let factor = reduced.factor;
        let mut out = execute_planned(
            model,
            &reduced.query,
            reduced.plan,
            cands,
            timings,
            options,
            deadline,
        )?;
        SymmetryReduced::scale(&mut out.rows, factor);
        return Ok(out);
    }
    execute_planned(model, query, plan, cands, timings, options, deadline)
}

/// `--limit` on a query the core does not run: the query with its plain projection capped at the
/// limit (the first matches), and the options without the limit; an error when its rows are not
/// one per match.
fn limited_by_projection(
    query: &BoundQuery,
    options: &MatchOptions,
) -> Result<(BoundQuery, MatchOptions)> {
    let limit = options.limit.unwrap_or(u64::MAX);
    let limited =
        space_exec::limit_query(query, limit).ok_or_else(|| limit_refused(query, options))?;
    let options = MatchOptions {
        limit: None,
        ..options.clone()
    };
    Ok((limited, options))
}

/// The error for `--limit` on a query that neither the candidate-space core nor a plain
/// projection can cap by matches.
fn limit_refused(query: &BoundQuery, options: &MatchOptions) -> crate::Error {
    let why = crate::engines::gemp::space::ineligible_because(query, options.semantics)
        .unwrap_or("a projection that is not one row per match");
    crate::Error::InvalidArgument(format!(
        "--limit caps pattern matches, which this query cannot count one by one ({why}); \
         use LIMIT in the query instead"
    ))
}

/// A pure count run on a symmetry-reduced query (see [`symmetry`]).
pub(crate) struct SymmetryReduced {
    /// The `id(a) < id(b)` conditions added.
    pub conds: Vec<(usize, usize)>,
    /// What the reduced count is multiplied by.
    pub factor: u64,
    /// The query with the conditions.
    pub query: BoundQuery,
    /// Its plan.
    pub plan: Plan,
}

impl SymmetryReduced {
    /// Multiplies the reduced count (the first column) by `factor`.
    pub(crate) fn scale(rows: &mut [Vec<Val<'_>>], factor: u64) {
        for row in rows {
            if let Some(Val::Int(n)) = row.first_mut() {
                *n = n.saturating_mul(factor as i64);
            }
        }
    }
}

/// The symmetry-reduced form of a pure `RETURN count(*)` query under node-injective semantics
/// whose `WHERE` has only unary conjuncts (see [`symmetry`]), or `None` when it has no usable
/// symmetry.
pub(crate) fn count_symmetry(
    model: &Model,
    query: &BoundQuery,
    plan: &Plan,
    cands: &[candidates::CandidateSet],
    options: &MatchOptions,
) -> Option<SymmetryReduced> {
    if options.semantics != Semantics::Isomorphism || query.stages.len() != 1 {
        return None;
    }
    if !Projector::new(&query.stages[0]).is_count_star() {
        return None;
    }
    let unary: Vec<usize> = plan.unary.iter().flatten().copied().collect();
    if (0..query.filter.len()).any(|i| !unary.contains(&i)) {
        return None;
    }
    let fixed: Vec<bool> = plan.unary.iter().map(|u| !u.is_empty()).collect();
    let fp = choose_factorised(model, query, plan, cands, options)?;
    let (conds, factor) = symmetry::conditions(query, &fixed, &fp)?;
    let reduced = symmetry::with_conditions(query, &conds);
    let plan = plan_for(model, &reduced, cands, true);
    Some(SymmetryReduced {
        conds,
        factor,
        query: reduced,
        plan,
    })
}

/// [`execute`] once the query is planned.
fn execute_planned<'m>(
    model: &'m Model,
    query: &BoundQuery,
    plan: Plan,
    cands: Vec<candidates::CandidateSet>,
    timings: Timings,
    options: &MatchOptions,
    deadline: Option<Instant>,
) -> Result<QueryOutput<'m>> {
    let control = Control::new(deadline);
    let count_matches_only = counts_matches_only(query, options);
    let e = Enumerator::new(
        model,
        query,
        &plan,
        &cands,
        options.semantics,
        &control,
        count_matches_only,
    );
    // The same decision as [`choose_factorised`], on the enumerator built here.
    if !e.has_tail_group() {
        if let Some(fp) = factorised::plan(query, &plan, &cands, options.semantics) {
            return Ok(execute_factorised(
                model, query, &fp, &cands, &control, plan, timings, options,
            ));
        }
    }
    let oracle: &(dyn ExistsOracle + Sync) = &e;
    let mut search = HostSearch {
        pivots: e.pivot_candidates(),
        k: query.pattern.nodes.len(),
        r: query.pattern.rels.len(),
        e: &e,
        plan: &plan,
        control: &control,
    };
    let run = Drive {
        model,
        query,
        options,
        control: &control,
        oracle,
        timings,
    };
    drive(run, &mut search)
}

/// The host enumerator's search for [`drive`]: pivot chunks on all cores.
struct HostSearch<'e, 'a> {
    e: &'e Enumerator<'a>,
    pivots: &'e [u32],
    /// Pattern nodes and relationships.
    k: usize,
    r: usize,
    plan: &'e Plan,
    control: &'e Control,
}

impl Search for HostSearch<'_, '_> {
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>> {
        if self.plan.steps.is_empty() {
            // The empty pattern has one empty match.
            let mut s = make_sink();
            s.emit(&[], &[]);
            return Ok(vec![s]);
        }
        if self.control.stopped() {
            return Ok(Vec::new());
        }
        Ok(host::run_parallel(
            self.e,
            self.pivots,
            self.k,
            self.r,
            make_sink,
        ))
    }

    fn count(&mut self) -> Result<u64> {
        Ok(count_matches(
            self.e,
            self.pivots,
            self.k,
            self.r,
            self.plan,
        ))
    }

    fn plan(&mut self) -> Plan {
        // The enumerator borrows the plan; a plan is a few short lists.
        self.plan.clone()
    }
}

/// True when only the number of matches is wanted: a lone `count(*)`, or `--count` of a plain
/// one-stage projection (the enumerator may then count trailing groups combinatorially).
fn counts_matches_only(query: &BoundQuery, options: &MatchOptions) -> bool {
    query.stages.first().map(Projector::new).is_some_and(|p| {
        p.is_count_star()
            || (options.count_only && p.rows_one_per_match() && query.stages.len() == 1)
    })
}

/// The factorised plan `execute` runs for `query` (see [`factorised`]), or `None` when it
/// enumerates: no node can be eliminated, or a count-only query ends in a group of steps the
/// enumerator counts combinatorially already.
pub fn choose_factorised(
    model: &Model,
    query: &BoundQuery,
    plan: &Plan,
    cands: &[candidates::CandidateSet],
    options: &MatchOptions,
) -> Option<factorised::FactorPlan> {
    if !factorised::may_factorise(query, options.semantics) {
        return None;
    }
    let control = Control::new(None);
    let e = Enumerator::new(
        model,
        query,
        plan,
        cands,
        options.semantics,
        &control,
        counts_matches_only(query, options),
    );
    if e.has_tail_group() {
        return None;
    }
    factorised::plan(query, plan, cands, options.semantics)
}

/// True when the host engine counts `query` without enumerating its matches (a factorised plan,
/// symmetry-reduced or not; see [`factorised`]).
pub fn host_counts_without_enumerating(
    model: &Model,
    query: &BoundQuery,
    options: &MatchOptions,
) -> bool {
    let (plan, cands, _) = prepare_host(model, query, options.semantics);
    choose_factorised(model, query, &plan, &cands, options).is_some()
}

/// Runs a factorised plan (see [`factorised`]) and the result stages after it.
#[allow(clippy::too_many_arguments)]
fn execute_factorised<'m>(
    model: &'m Model,
    query: &BoundQuery,
    fp: &factorised::FactorPlan,
    cands: &[candidates::CandidateSet],
    control: &Control,
    plan: Plan,
    mut timings: Timings,
    options: &MatchOptions,
) -> QueryOutput<'m> {
    let projector = Projector::new(&fp.first);
    let fx = factorised::FactorExec::new(model, query, fp, cands, control);
    let next = query.stages.get(1).map(Projector::new);
    let start = Instant::now();
    let sinks = fx.run_parallel(&projector, next.as_ref(), &fx);
    timings.enumerate = start.elapsed();
    let partial = control.timed_out();
    crate::exec::drive::finish(
        model,
        query,
        &projector,
        sinks,
        Some(&fx),
        options,
        partial,
        plan,
        timings,
    )
}

/// Runs a query and hands its rows to `consume` in batches while the search runs (on a worker
/// thread), so a plain projection never holds all its rows. Queries that group, deduplicate or
/// order run through [`execute`] and are handed over at the end. Without `ORDER BY` the order of
/// rows is unspecified.
pub fn execute_streaming<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    consume: RowConsumer<'_, 'm>,
) -> Result<StreamSummary> {
    if !is_streamable(query) || options.count_only {
        return hand_over(execute(model, query, options)?, consume);
    }
    if let Some(summary) = space_exec::execute_streaming(model, query, options, &mut *consume)? {
        return Ok(summary);
    }
    if options.limit.is_some() {
        let (limited, options) = limited_by_projection(query, options)?;
        return execute_streaming(model, &limited, &options, consume);
    }
    let control = Control::new(options.timeout.map(|d| Instant::now() + d));
    let (plan, cands, mut timings) = prepare_host(model, query, options.semantics);
    let stage = &query.stages[0];
    let projector = Projector::new(stage);
    let columns = projector.columns();
    let e = Enumerator::new(
        model,
        query,
        &plan,
        &cands,
        options.semantics,
        &control,
        false,
    );
    let (k, r) = (query.pattern.nodes.len(), query.pattern.rels.len());
    let skip = stage.skip.unwrap_or(0);
    let limit = stage.limit.unwrap_or(u64::MAX);
    let budget = stage.limit.map(|l| l.saturating_add(skip));
    let start = Instant::now();
    let oracle: &(dyn ExistsOracle + Sync) = &e;
    let written = stream_through(&columns, skip, limit, &control, consume, |tx| {
        if budget == Some(0) {
            return;
        }
        if plan.steps.is_empty() {
            let mut s = RowSink::new(model, &projector, Some(oracle)).streaming(tx);
            s.push(&[], &[], &[]);
            s.flush();
            return;
        }
        let sinks = host::run_parallel(&e, e.pivot_candidates(), k, r, || {
            RowSink::new(model, &projector, Some(oracle))
                .with_budget(budget, &control)
                .streaming(tx.clone())
        });
        for mut s in sinks {
            s.flush();
        }
    })?;
    timings.enumerate = start.elapsed();
    Ok(StreamSummary {
        columns,
        count: written,
        partial: control.timed_out(),
        timings,
    })
}

/// Runs `search` on a worker thread, which sends batches of rows on the channel it is given, and
/// hands them to `consume` here (see [`pump`]); returns the rows written.
pub(crate) fn stream_through<'m>(
    columns: &[String],
    skip: u64,
    limit: u64,
    control: &Control,
    consume: RowConsumer<'_, 'm>,
    search: impl FnOnce(std::sync::mpsc::SyncSender<Vec<Vec<Val<'m>>>>) + Send,
) -> Result<u64> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Vec<Val<'m>>>>(16);
    let (written, write_error) = std::thread::scope(|scope| {
        let worker = scope.spawn(move || search(tx));
        let pumped = pump(rx, columns, skip, limit, consume, control);
        let _ = worker.join();
        pumped
    });
    match write_error {
        Some(err) => Err(crate::Error::io("<output>", err)),
        None => Ok(written),
    }
}

/// Hands the batches of rows arriving on `rx` to `consume`, less the first `skip` rows, at most
/// `limit` rows; stops the search once `limit` rows are written or `consume` fails. Returns the
/// rows written and the write error, if any.
fn pump<'m>(
    rx: std::sync::mpsc::Receiver<Vec<Vec<Val<'m>>>>,
    columns: &[String],
    skip: u64,
    limit: u64,
    consume: RowConsumer<'_, 'm>,
    control: &Control,
) -> (u64, Option<std::io::Error>) {
    let mut seen = 0u64;
    let mut written = 0u64;
    for batch in rx {
        let from = skip.saturating_sub(seen).min(batch.len() as u64) as usize;
        seen += batch.len() as u64;
        let room = (limit - written).min((batch.len() - from) as u64) as usize;
        if room > 0 {
            if let Err(err) = consume(columns, &batch[from..from + room]) {
                control.stop();
                return (written, Some(err));
            }
            written += room as u64;
        }
        if written >= limit {
            control.stop();
            break;
        }
    }
    (written, None)
}

fn count_matches(e: &Enumerator<'_>, pivots: &[u32], k: usize, r: usize, plan: &Plan) -> u64 {
    if plan.steps.is_empty() {
        return 1;
    }
    host::run_parallel(e, pivots, k, r, CountSink::default)
        .into_iter()
        .map(|s| s.count)
        .sum()
}

/// Counts the matches of the pattern and `WHERE` of `query`, ignoring its projections.
pub fn count(model: &Model, query: &BoundQuery, semantics: Semantics) -> u64 {
    let (plan, cands, _) = prepare_host(model, query, semantics);
    let control = Control::new(None);
    let e = Enumerator::new(model, query, &plan, &cands, semantics, &control, true);
    count_matches(
        &e,
        e.pivot_candidates(),
        query.pattern.nodes.len(),
        query.pattern.rels.len(),
        &plan,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo computes each (relationship, end, direction) once and answers it again unchanged;
    /// other keys are computed afresh.
    #[test]
    fn fanout_memo_computes_each_key_once() {
        let memo = FanoutMemo::default();
        let calls = std::cell::Cell::new(0);
        let compute = |v: f64| {
            calls.set(calls.get() + 1);
            v
        };
        assert_eq!(memo.get(0, 1, plan::Dir::Out, || compute(2.5)), 2.5);
        assert_eq!(memo.get(0, 1, plan::Dir::Out, || compute(9.0)), 2.5);
        assert_eq!(calls.get(), 1);
        assert_eq!(memo.get(0, 1, plan::Dir::In, || compute(4.0)), 4.0);
        assert_eq!(memo.get(1, 1, plan::Dir::Out, || compute(7.0)), 7.0);
        assert_eq!(memo.get(0, 0, plan::Dir::Out, || compute(1.0)), 1.0);
        assert_eq!(calls.get(), 4);
    }
}
