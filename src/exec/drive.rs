//! The one end of a query: given an engine's search (into sinks) and count, [`drive`] decides how
//! the query's results are made — a count alone (no projection, or `--count` of a plain
//! projection), or rows through the result stages with the row budget of `LIMIT` — and builds the
//! [`QueryOutput`] with the stage timings. Engines supply only "search into these sinks" and
//! "count the matches" ([`Search`]), as the subgraph-matching study's engines plug their
//! filter/order/enumerate stages into one driver: the host enumerator, the candidate-space core,
//! the staged engine, GpSense and the OpenCL pipeline all end here (GEMP's factorised count plan,
//! which makes its own sinks, ends through [`finish`]).

use std::time::Instant;

use crate::error::Result;
use crate::exec::control::{Control, Sink};
use crate::exec::eval::ExistsOracle;
use crate::exec::options::{MatchOptions, Timings};
use crate::exec::output::{
    counted_output, counts_plain_projection, plain_projection_count, row_budget, QueryOutput,
};
use crate::exec::plan::Plan;
use crate::exec::results::{finish_stages, CountSink, Projector, RowSink};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// What an engine gives [`drive`]: its search, run into sinks the driver makes.
pub trait Search {
    /// Runs the search: every match goes to a sink from `make_sink` (one per worker or chunk),
    /// and the sinks come back in a deterministic order. Stops early when the shared
    /// [`Control`] says so.
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>>;

    /// The number of matches; by default the search into counting sinks. Engines with a faster
    /// way (combinatorial counting of trailing groups) override it.
    fn count(&mut self) -> Result<u64> {
        Ok(self
            .search(&CountSink::default)?
            .iter()
            .map(|s| s.count)
            .fold(0u64, u64::saturating_add))
    }

    /// The plan the output reports (asked once the search has run).
    fn plan(&mut self) -> Plan;

    /// True when a lone `count(*)` is answered from [`Search::count`] rather than by a search
    /// into the result stage's sink (engines whose count is cheaper than their search).
    fn counts_count_star(&self) -> bool {
        false
    }
}

/// What [`drive`] runs a search for.
pub struct Drive<'q, 'm> {
    /// The model matched.
    pub model: &'m Model,
    /// The query.
    pub query: &'q BoundQuery,
    /// Its options (count only, …).
    pub options: &'q MatchOptions,
    /// The stop conditions the search shares.
    pub control: &'q Control,
    /// How `EXISTS` sub-patterns are evaluated in the result stages.
    pub oracle: &'q (dyn ExistsOracle + Sync),
    /// Filter and plan timings so far (`enumerate` and `results` are filled in here).
    pub timings: Timings,
}

/// Runs `engine`'s search for `run.query` and makes its output: the count alone when only the
/// number of matches is wanted, else rows through the result stages (SKIP/LIMIT's row budget stops
/// the search once enough rows are in).
pub fn drive<'m, E: Search>(run: Drive<'_, 'm>, engine: &mut E) -> Result<QueryOutput<'m>> {
    let Drive {
        model,
        query,
        options,
        control,
        oracle,
        mut timings,
    } = run;
    let first = query.stages.first().map(Projector::new);
    let start = Instant::now();
    let Some(first) = first else {
        // No projection at all: count matches.
        let count = engine.count()?;
        timings.enumerate = start.elapsed();
        let partial = control.timed_out();
        return Ok(counted_output(
            vec!["count".into()],
            count,
            partial,
            engine.plan(),
            timings,
        ));
    };
    if counts_plain_projection(query, options, &first) {
        // `--count` of a plain projection: rows = matches, minus SKIP, capped by LIMIT.
        let count = plain_projection_count(query, engine.count()?);
        timings.enumerate = start.elapsed();
        let (columns, partial) = (first.columns(), control.timed_out());
        return Ok(counted_output(
            columns,
            count,
            partial,
            engine.plan(),
            timings,
        ));
    }
    let budget = row_budget(query, &first);
    let sinks: Vec<RowSink<'_, 'm>> = if first.is_count_star() && engine.counts_count_star() {
        let mut sink = RowSink::new(model, &first, None);
        let _ = sink.add_count(engine.count()?);
        vec![sink]
    } else if budget == Some(0) {
        control.stop();
        Vec::new()
    } else {
        engine.search(&|| RowSink::new(model, &first, Some(oracle)).with_budget(budget, control))?
    };
    timings.enumerate = start.elapsed();
    let partial = control.timed_out();
    let plan = engine.plan();
    Ok(finish(
        model,
        query,
        &first,
        sinks,
        Some(oracle),
        options,
        partial,
        plan,
        timings,
    ))
}

/// The tail of every query whose matches went into `sinks` (what [`drive`] ends with, and what a
/// plan that makes its own sinks — GEMP's factorised plan — calls): the result stages (timed), then the output
/// (rows dropped when only counted; `partial` when the deadline stopped the search).
#[allow(clippy::too_many_arguments)]
pub fn finish<'q, 'm>(
    model: &'m Model,
    query: &BoundQuery,
    first: &'q Projector<'q>,
    sinks: Vec<RowSink<'q, 'm>>,
    oracle: Option<&'q (dyn ExistsOracle + Sync)>,
    options: &MatchOptions,
    partial: bool,
    plan: Plan,
    mut timings: Timings,
) -> QueryOutput<'m> {
    let start = Instant::now();
    let (rows, columns) = finish_stages(model, &query.stages, first, sinks, oracle, partial);
    timings.results = start.elapsed();
    QueryOutput::finished(columns, rows, options.count_only, partial, plan, timings)
}
