//! The host matcher's hand-over to the candidate-space core ([`crate::engines::gemp::space`]): every
//! query the core answers exactly runs there — counted, collected or streamed through the same
//! result stages — unless a factorised or symmetry-reduced count plan answers it without
//! enumerating (the IMDb shapes), which stays here.

use std::time::Instant;

use super::{
    choose_factorised, count_symmetry, counts_matches_only, prepare_host, stream_through, Control,
    MatchOptions, QueryOutput, RowConsumer, StreamSummary, Timings,
};
use crate::engines::gemp::space::{self, Budget, Prepared, Rows, SpaceOptions};
use crate::error::Result;
use crate::exec::results::{Projector, RowSink};
use crate::exec::{drive, Drive, Search, Sink};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// The core's preparation of `query`, or `None` when it should run elsewhere (not eligible, a
/// count plan wins, or its space would be too large). The time of the whole decision counts as
/// filtering.
fn prepare(
    model: &Model,
    query: &BoundQuery,
    options: &MatchOptions,
    control: &Control,
) -> Option<Prepared> {
    if !space::eligible(query, options.semantics) {
        return None;
    }
    let start = Instant::now();
    // Factorised plans count; a projection without aggregates that is not counted never uses one.
    let aggregates = query.stages.iter().any(|s| {
        !Projector::new(s).is_streaming() || s.items.iter().any(|i| i.expr.has_aggregate())
    });
    let counting = query.stages.is_empty() || counts_matches_only(query, options) || aggregates;
    // A count plan of the host matcher that answers without enumerating keeps the query; its
    // candidate sets (the same first filter) seed the core's otherwise. Only a query with an
    // aggregate can have one (`may_factorise`): a bare pattern counted (`--count`, a `.graph`
    // query) skips the host planner's preparation, whose fan-out sampling cost more than the
    // core's whole filter on small queries.
    let mut first = None;
    if counting
        && options.limit.is_none()
        && super::factorised::may_factorise(query, options.semantics)
    {
        let (plan, cands, _) = prepare_host(model, query, options.semantics);
        if count_symmetry(model, query, &plan, &cands, options).is_some()
            || choose_factorised(model, query, &plan, &cands, options).is_some()
        {
            return None;
        }
        first = Some(cands);
    }
    let mut space_options = SpaceOptions {
        counting: query.stages.is_empty() || counts_matches_only(query, options),
        ..SpaceOptions::from_env()
    };
    // The first N come from the orders' rate trials; sampled estimates are of whole searches.
    space_options.sampling &= options.limit.is_none();
    let mut prepared = Prepared::new(
        model,
        query,
        options.semantics,
        &space_options,
        control,
        first,
    )?;
    prepared.filter_time = start.elapsed() - prepared.order_time;
    Some(prepared)
}

fn timings_of(prepared: &Prepared) -> Timings {
    Timings {
        filter: prepared.filter_time,
        plan: prepared.order_time,
        ..Timings::default()
    }
}

/// Runs `query` on the core when it is for the core; `None` otherwise.
pub(super) fn execute<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    deadline: Option<Instant>,
) -> Result<Option<QueryOutput<'m>>> {
    let control = Control::new(deadline);
    let Some(prepared) = prepare(model, query, options, &control) else {
        return Ok(None);
    };
    let timings = timings_of(&prepared);
    let plan = prepared.space.as_plan(query, &prepared.choice);
    let limit = options.limit.map(|l| Budget::new(l, &control));
    let mut search = CoreSearch {
        prepared: &prepared,
        control: &control,
        limit: limit.as_ref(),
        limit_count: options.limit,
        rels: query.pattern.rels.len(),
        plan,
    };
    drive_core(model, query, options, &control, timings, &mut search).map(Some)
}

/// Drives the core's `search` of `query` through the result stages.
fn drive_core<'m, S: Search>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    control: &Control,
    timings: Timings,
    search: &mut S,
) -> Result<QueryOutput<'m>> {
    // Queries the core takes have no `EXISTS` sub-patterns; the oracle is never asked.
    let oracle = crate::exec::exists::ModelOracle {
        model,
        semantics: options.semantics,
    };
    let run = Drive {
        model,
        query,
        options,
        control,
        oracle: &oracle,
        timings,
    };
    drive(run, search)
}

/// The core's preparation of `query` when it is a pure count the core takes (no `--limit`; no
/// projection, or one whose rows are counted: `count(*)`, `--count`): what the device counts
/// over the candidate space (`cl/space.cl`). `None` otherwise.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn prepare_count(
    model: &Model,
    query: &BoundQuery,
    options: &MatchOptions,
    control: &Control,
) -> Option<Prepared> {
    if options.limit.is_some() || !(query.stages.is_empty() || counts_matches_only(query, options))
    {
        return None;
    }
    prepare(model, query, options, control)
}

/// Runs a query [`prepare_count`] took through the result stages with `count` as its count (the
/// device's); rows, were any asked for, come from the core's host search.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn execute_counted<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    control: &Control,
    prepared: &Prepared,
    count: &mut dyn FnMut(&Prepared) -> Result<u64>,
) -> Result<QueryOutput<'m>> {
    let timings = timings_of(prepared);
    let plan = prepared.space.as_plan(query, &prepared.choice);
    let mut search = CountedSearch {
        core: CoreSearch {
            prepared,
            control,
            limit: None,
            limit_count: None,
            rels: query.pattern.rels.len(),
            plan,
        },
        count,
    };
    drive_core(model, query, options, control, timings, &mut search)
}

/// [`CoreSearch`] with its count from elsewhere (the device).
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
struct CountedSearch<'p, 'c, 'f> {
    core: CoreSearch<'p, 'c>,
    count: &'f mut dyn FnMut(&Prepared) -> Result<u64>,
}

impl Search for CountedSearch<'_, '_, '_> {
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>> {
        self.core.search(make_sink)
    }

    fn count(&mut self) -> Result<u64> {
        (self.count)(self.core.prepared)
    }

    fn plan(&mut self) -> crate::exec::plan::Plan {
        self.core.plan()
    }

    fn counts_count_star(&self) -> bool {
        true
    }
}

/// The core's search for [`drive`]: work-stealing enumeration over the candidate space, exact
/// `--limit`, and the core's own count (which also answers `count(*)`).
struct CoreSearch<'p, 'c> {
    prepared: &'p Prepared,
    control: &'c Control,
    limit: Option<&'p Budget<'c>>,
    limit_count: Option<u64>,
    rels: usize,
    plan: crate::exec::plan::Plan,
}

impl Search for CoreSearch<'_, '_> {
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>> {
        if self.prepared.is_empty() || self.control.stopped() {
            return Ok(Vec::new());
        }
        let (order, limit) = (&self.prepared.plan.order, self.limit);
        Ok(self
            .prepared
            .searcher(self.control)
            .run_chunks(|| Rows::new(make_sink(), order, self.rels, limit))
            .into_iter()
            .map(|r| r.sink)
            .collect())
    }

    fn count(&mut self) -> Result<u64> {
        Ok(self.prepared.count(self.control, self.limit_count))
    }

    fn plan(&mut self) -> crate::exec::plan::Plan {
        self.plan.clone()
    }

    fn counts_count_star(&self) -> bool {
        true
    }
}

/// Streams a plain one-stage projection of `query` from the core when it is for the core;
/// `None` otherwise.
pub(super) fn execute_streaming<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
    consume: RowConsumer<'_, 'm>,
) -> Result<Option<StreamSummary>> {
    let control = Control::new(options.timeout.map(|d| Instant::now() + d));
    let Some(prepared) = prepare(model, query, options, &control) else {
        return Ok(None);
    };
    let mut timings = timings_of(&prepared);
    let stage = &query.stages[0];
    let projector = Projector::new(stage);
    let columns = projector.columns();
    let skip = stage.skip.unwrap_or(0);
    let budget = stage.limit.map(|l| l.saturating_add(skip));
    let limit = options.limit.map(|l| Budget::new(l, &control));
    let rels = query.pattern.rels.len();
    let start = Instant::now();
    let written = stream_through(
        &columns,
        skip,
        stage.limit.unwrap_or(u64::MAX),
        &control,
        consume,
        |tx| {
            if budget == Some(0) || prepared.is_empty() || control.stopped() {
                return;
            }
            let visitors = prepared.searcher(&control).run_chunks(|| {
                let sink = RowSink::new(model, &projector, None)
                    .with_budget(budget, &control)
                    .streaming(tx.clone());
                Rows::new(sink, &prepared.plan.order, rels, limit.as_ref())
            });
            for mut v in visitors {
                v.sink.flush();
            }
        },
    )?;
    timings.enumerate = start.elapsed();
    Ok(Some(StreamSummary {
        columns,
        count: written,
        partial: control.timed_out(),
        timings,
    }))
}

/// `query` with its plain one-stage projection capped at `limit` rows — the first `limit`
/// matches — for `--limit` on a query the core does not take; `None` when its rows are not one
/// per match (grouping, `DISTINCT`, `ORDER BY`, `SKIP`, several stages).
pub(super) fn limit_query(query: &BoundQuery, limit: u64) -> Option<BoundQuery> {
    if query.clauses.is_some() || query.stages.len() != 1 {
        return None;
    }
    let stage = &query.stages[0];
    if !Projector::new(stage).is_streaming() || stage.skip.unwrap_or(0) != 0 {
        return None;
    }
    let mut limited = query.clone();
    let cap = stage.limit.map_or(limit, |l| l.min(limit));
    limited.stages[0].limit = Some(cap);
    Some(limited)
}

/// What the host engine runs for `query` when the core takes it: the candidate space (candidates
/// per node before and after refinement, candidate edges per relationship), the order chosen and
/// why (every order's estimated cost), and how the enumeration runs; `None` when the core does not
/// take the query.
pub(super) fn describe(
    model: &Model,
    query: &BoundQuery,
    options: &MatchOptions,
) -> Option<String> {
    use std::fmt::Write;
    let control = Control::new(None);
    let prepared = prepare(model, query, options, &control)?;
    let space = &prepared.space;
    let plan = space.as_plan(query, &prepared.choice);
    let mut o = crate::exec::explain::render_under(query, &plan, model, options.semantics);
    let name = |v: usize| query.pattern.nodes[v].name.clone();
    let _ = writeln!(
        o,
        "\nhost execution: candidate-space core (filter → order → enumerate)\ncandidates \
         (labels, degrees and one-node predicates, then {} refinement sweep(s) by neighbourhood \
         profiles, {} removed):",
        space.refine.sweeps, space.refine.removed
    );
    for (v, c) in space.cands.iter().enumerate() {
        let _ = writeln!(o, "  {}: {} → {}", name(v), space.initial[v], c.len());
    }
    let _ = writeln!(o, "candidate edges (per relationship):");
    for (r, rel) in space.query.rels.iter().enumerate() {
        let edges = space.tables[crate::engines::gemp::space::tables::table_id(r, true)].len();
        let _ = writeln!(o, "  {} – {}: {edges}", name(rel.src), name(rel.dst));
    }
    let considered: Vec<String> = prepared
        .choice
        .considered
        .iter()
        .map(|(n, c)| format!("{n} {c:.3e}"))
        .collect();
    let order: Vec<String> = prepared.choice.order.iter().map(|&v| name(v)).collect();
    match prepared.choice.tiny_bound {
        Some(bound) => {
            let _ = writeln!(
                o,
                "order: {} ({}), not scored against others: no order can visit more than {bound} \
                 candidates (the pattern's size times the product of the candidate counts)",
                prepared.choice.name,
                order.join(", "),
            );
        }
        None => {
            let _ = writeln!(
                o,
                "order: {} ({}), the cheapest by estimated partial matches summed over its \
                 prefixes (considered: {})",
                prepared.choice.name,
                order.join(", "),
                considered.join(", ")
            );
        }
    }
    if let Some(particles) = prepared.choice.sampled {
        let _ = writeln!(
            o,
            "  (scores: estimated candidate visits from sampled partial matches, {particles} per \
             level; the model's estimates were {:.3e} or more)",
            crate::engines::gemp::space::order::SAMPLE_FROM
        );
    } else if let Some((from, after)) = prepared.lazy_sampling {
        if prepared.choice.tiny_bound.is_none()
            && prepared.choice.cost >= from
            && options.limit.is_none()
        {
            let stats = space.order_stats();
            let sampled =
                crate::engines::gemp::space::order::choose(&space.query, &stats, true, Some(0.0));
            let order: Vec<String> = sampled.order.iter().map(|&v| name(v)).collect();
            let considered: Vec<String> = sampled
                .considered
                .iter()
                .map(|(n, c)| format!("{n} {c:.3e}"))
                .collect();
            let _ = writeln!(
                o,
                "if that order overruns {after} candidate visits, the count scores the orders again \
                 on sampled partial matches ({} per level) and goes on with {} ({}) (considered: {})",
                crate::engines::gemp::space::sampled::PARTICLES,
                sampled.name,
                order.join(", "),
                considered.join(", ")
            );
        }
    }
    let counting = query.stages.is_empty() || counts_matches_only(query, options);
    let _ =
        writeln!(
        o,
        "enumeration: local candidates by intersecting candidate-edge rows; failing sets {}; {}; \
         work stealing across threads{}",
        if prepared.failing_sets { "on" } else { "off" },
        if counting {
            "the last node counted, not visited"
        } else {
            "every match visited"
        },
        if counting { "" } else { " (by first-node chunks, in order)" }
    );
    if prepared.adaptive_only && counting {
        let _ = writeln!(
            o,
            "the count runs the adaptive order only (GEMP_SPACE_ORDER=adaptive): starting at {},              each next node the one with the fewest local candidates under the bindings made",
            name(prepared.adaptive_plan().root())
        );
    } else if prepared.adaptive
        && counting
        && options.limit.is_none()
        && prepared.choice.tiny_bound.is_none()
    {
        let _ = writeln!(
            o,
            "if that order overruns its first budget, the adaptive order (starting at {}, each              next node the one with the fewest local candidates under the bindings made) races              the orders in rate trials",
            name(prepared.adaptive_plan().root())
        );
    }
    Some(o)
}
