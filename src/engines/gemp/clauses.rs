//! The host's row-by-row execution of queries with clauses beyond the core language
//! ([`crate::pattern::ir::Clauses`]): `UNWIND`, `OPTIONAL MATCH`, variable-length relationships
//! and `UNION [ALL]`.
//!
//! From one empty row, each reading step maps every row to its extensions ([`super::extend`];
//! in parallel over rows, in row order): `UNWIND` to one row per element (none for an empty list
//! or null; a non-list value is a one-element list, as in Cypher), a `MATCH` step to one row per
//! extension, an `OPTIONAL MATCH` to its extensions or, when there is none, the row itself with
//! the step's variables null. The rows then go through the projection stages as matches do
//! (grouping, `DISTINCT`, `ORDER BY`, `SKIP`, `LIMIT`, `WITH … WHERE`), with the lists unwound
//! after a `WITH` between stages. `UNION ALL` concatenates the queries' rows in order; `UNION`
//! also drops duplicate rows (keeping the first).
//!
//! The reading steps run as a pipeline over chunks of [`CHUNK`] rows: a chunk's rows go through
//! every later step before the next chunk is taken, so the rows keep the order a step-by-step run
//! gives them. The deadline (`--timeout`) and the memory limit are looked at per chunk, per row
//! and inside a row's search; once they stop the run, every row not yet through all the reading
//! steps is dropped — never passed on half-extended, nor null-extended as if an `OPTIONAL MATCH`
//! had found nothing. A partial answer thus holds only true rows (the first ones, in order),
//! and is marked partial.
//!
//! The rows that come out of the reading steps go into the first projection stage as they come
//! (inside the deadline; a count or grouping does not hold them), but a row's extensions are held
//! until the row is complete, and there is no output streaming or factorised counting: these
//! clauses trade the core matcher's speed for generality.

use std::time::{Duration, Instant};

use hashbrown::HashSet;
use rayon::prelude::*;

use super::extend::{Row, RowOracle, StepSearch};
use super::{MatchOptions, QueryOutput, Timings};
use crate::error::Result;
use crate::exec::eval::{Env, Val};
use crate::exec::plan::Plan;
use crate::exec::results::{Key, Projector, RowSink};
use crate::exec::Control;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, Clauses, Expr, MatchStep, ReadStep, NULL_ID};

/// Runs a query with [`Clauses`] on the host.
pub fn execute<'m>(
    model: &'m Model,
    query: &BoundQuery,
    options: &MatchOptions,
) -> Result<QueryOutput<'m>> {
    let Some(clauses) = query.clauses.as_deref() else {
        return super::execute(model, query, options);
    };
    if options.semantics == crate::pattern::Semantics::Homomorphism
        && clauses.var_length.iter().any(|v| v.unbounded)
    {
        return Err(crate::Error::Query(crate::error::QueryMessage::classed(
            "an unbounded variable-length relationship (`*`) under homomorphism: a path could \
             go round a cycle forever; give it an upper bound or use another semantics",
            None,
        )));
    }
    if !clauses.union.is_empty() {
        return union(model, query, clauses, options);
    }
    let control = Control::new(options.timeout.map(|d| Instant::now() + d));
    crate::util::memory::enter_stage(&READING_STAGE);
    let start = Instant::now();
    let oracle = RowOracle {
        model,
        semantics: options.semantics,
    };
    let first = Row {
        nodes: vec![NULL_ID; query.pattern.nodes.len()],
        rels: vec![NULL_ID; query.pattern.rels.len()],
        values: vec![Val::Null; clauses.columns],
    };
    let steps = reading_steps(query, clauses);
    let searches: Vec<Option<StepSearch<'_>>> = steps
        .iter()
        .map(|step| match step {
            ReadStep::Unwind { .. } => None,
            ReadStep::Match(m) => Some(
                StepSearch::new(
                    model,
                    &query.pattern,
                    m,
                    &clauses.var_length,
                    options.semantics,
                    &oracle,
                )
                .with_control(&control),
            ),
        })
        .collect();
    let pipeline = Pipeline {
        model,
        oracle: &oracle,
        steps: &steps,
        searches: &searches,
        control: &control,
    };
    // The rows that come out of the reading steps go into the first projection stage as they
    // come (in order), so the deadline covers that stage's work and the rows are not held.
    let projector = query.stages.first().map(Projector::new);
    let dyn_oracle: &(dyn crate::exec::eval::ExistsOracle + Sync) = &oracle;
    let mut sink = projector
        .as_ref()
        .map(|p| RowSink::new(model, p, Some(dyn_oracle)).counting_inputs());
    let mut into_first = |rows: Vec<Row<'m>>| match &mut sink {
        // A sink refuses inputs once the memory limit is reached: the run is then an error.
        Some(sink) => rows
            .iter()
            .all(|row| sink.push(&row.nodes, &row.rels, &row.values)),
        None => true,
    };
    let stopped = !pipeline.run(0, vec![first], &mut into_first);
    let partial = control.timed_out();
    let enumerate = start.elapsed();
    let start = Instant::now();
    let (out_rows, columns) = match (sink, &projector) {
        // The session turns the run into the memory-limit error: no rows to project.
        _ if stopped && crate::util::memory::tripped() => (Vec::new(), Vec::new()),
        (Some(sink), Some(projector)) => project(model, query, clauses, projector, sink),
        _ => (Vec::new(), Vec::new()),
    };
    let timings = Timings {
        enumerate,
        results: start.elapsed(),
        ..Timings::default()
    };
    Ok(QueryOutput::finished(
        columns,
        out_rows,
        options.count_only,
        partial,
        empty_plan(),
        timings,
    ))
}

/// Rows a reading step takes at a time (see the module documentation).
pub const CHUNK: usize = 1024;

/// The stage the memory-limit error names when the rows of the reading steps pass it.
pub(crate) const READING_STAGE: &str = "the rows of the UNWIND and MATCH steps";

/// The reading steps of a query with their searches, run chunk by chunk.
struct Pipeline<'a, 'm> {
    model: &'m Model,
    oracle: &'a RowOracle<'a>,
    steps: &'a [ReadStep],
    /// Per step: the search of a `MATCH` step.
    searches: &'a [Option<StepSearch<'a>>],
    control: &'a Control,
}

impl<'m> Pipeline<'_, 'm> {
    /// True while the run may go on: the deadline has not passed, the memory limit is not reached
    /// (the rows held name the stage), and no stop was asked for.
    fn go_on(&self) -> bool {
        if crate::util::memory::check(READING_STAGE) {
            self.control.stop();
            return false;
        }
        self.control.check_deadline()
    }

    /// Runs the reading steps from number `i` on over `rows` and hands the rows that come out
    /// of the last one to `out`, in order. Returns false once the run was stopped (or `out`
    /// refused rows): the rows not yet through every step are then dropped, and `out` has been
    /// given only complete rows.
    fn run(&self, i: usize, rows: Vec<Row<'m>>, out: &mut dyn FnMut(Vec<Row<'m>>) -> bool) -> bool {
        let Some(step) = self.steps.get(i) else {
            return out(rows);
        };
        match step {
            ReadStep::Unwind { list, column } => {
                for row in rows {
                    let value = Env {
                        locals: &[],
                        model: self.model,
                        nodes: &row.nodes,
                        rels: &row.rels,
                        row: &row.values,
                        exists: Some(self.oracle),
                    }
                    .eval(list);
                    let mut items = elements(value).into_iter().peekable();
                    while items.peek().is_some() {
                        if !self.go_on() {
                            return false;
                        }
                        let chunk: Vec<Row<'m>> = items
                            .by_ref()
                            .take(CHUNK)
                            .map(|item| {
                                let mut r = row.clone();
                                if let Some(slot) = r.values.get_mut(*column) {
                                    *slot = item;
                                }
                                r
                            })
                            .collect();
                        if !self.run(i + 1, chunk, out) {
                            return false;
                        }
                    }
                }
                true
            }
            ReadStep::Match(m) => {
                let Some(search) = self.searches.get(i).and_then(Option::as_ref) else {
                    return true;
                };
                if let [row] = &rows[..] {
                    return self.stream_one(i, m.optional, search, row, out);
                }
                for chunk in rows.chunks(CHUNK) {
                    if !self.go_on() {
                        return false;
                    }
                    // Per row: its extensions (the row itself, null-extended, for an
                    // `OPTIONAL MATCH` without any), or `None` when the run stopped first.
                    let extended: Vec<Option<Vec<Row<'m>>>> = chunk
                        .par_iter()
                        .map(|row| {
                            if !self.control.check_deadline() {
                                return None;
                            }
                            let mut ext = Vec::new();
                            if !search.extend(row, &mut ext) {
                                return None;
                            }
                            if ext.is_empty() && m.optional {
                                ext.push(row.clone());
                            }
                            Some(ext)
                        })
                        .collect();
                    // The rows before the first one the stop cut short go on (in order).
                    let done = extended.iter().take_while(|e| e.is_some()).count();
                    let stopped = done < extended.len();
                    // Handed on a chunk at a time, each row's extensions freed as they are
                    // moved (not all gathered into one more list beside them).
                    let mut next: Vec<Row<'m>> = Vec::new();
                    for ext in extended.into_iter().take(done).flatten() {
                        next.extend(ext);
                        if next.len() >= CHUNK && !self.run(i + 1, std::mem::take(&mut next), out) {
                            return false;
                        }
                    }
                    if !self.run(i + 1, next, out) || stopped {
                        return false;
                    }
                }
                true
            }
        }
    }
}

impl<'m> Pipeline<'_, 'm> {
    /// A `MATCH` step over a single row (the first `MATCH` of a query, whose extensions are the
    /// whole result): its extensions go on to the next steps in batches as the search finds
    /// them, so they are neither all held nor all dropped at once when the run stops (the
    /// deadline is then honoured within a batch). Returns false once the run was stopped.
    fn stream_one(
        &self,
        i: usize,
        optional: bool,
        search: &StepSearch<'_>,
        row: &Row<'m>,
        out: &mut dyn FnMut(Vec<Row<'m>>) -> bool,
    ) -> bool {
        if !self.go_on() {
            return false;
        }
        let mut ext = Vec::new();
        let mut next = |rows: Vec<Row<'m>>| self.go_on() && self.run(i + 1, rows, out);
        let (finished, handed) = search.extend_streaming(row, &mut ext, &mut next);
        if !finished {
            return false;
        }
        if ext.is_empty() && handed == 0 && optional {
            ext.push(row.clone());
        }
        next(ext)
    }
}

/// The reading steps of `query`: its clauses' steps, or its core `MATCH` as the one step.
fn reading_steps<'q>(query: &BoundQuery, clauses: &'q Clauses) -> std::borrow::Cow<'q, [ReadStep]> {
    if clauses.steps.is_empty() {
        std::borrow::Cow::Owned(vec![ReadStep::Match(core_match(query))])
    } else {
        std::borrow::Cow::Borrowed(&clauses.steps)
    }
}

/// The core pattern and filter of `query` as one mandatory step.
fn core_match(query: &BoundQuery) -> MatchStep {
    MatchStep {
        optional: false,
        new_nodes: (0..query.pattern.nodes.len()).collect(),
        old_nodes: Vec::new(),
        rels: (0..query.pattern.rels.len()).collect(),
        filter: query.filter.clone(),
    }
}

/// A plan with no steps (row-by-row execution has no matching order to report).
fn empty_plan() -> Plan {
    Plan {
        steps: Vec::new(),
        unary: Vec::new(),
        attribute_filters: Vec::new(),
    }
}

/// The elements of `list`'s value for `row`: a list's items, nothing for null, else the value.
fn elements<'m>(list: Val<'m>) -> Vec<Val<'m>> {
    match list {
        Val::List(items) => items,
        Val::Null => Vec::new(),
        other => vec![other],
    }
}

/// `UNWIND`s after a projection: each appends a column.
fn unwind_projected<'m>(
    model: &'m Model,
    rows: Vec<Vec<Val<'m>>>,
    lists: &[Expr],
) -> Vec<Vec<Val<'m>>> {
    let mut rows = rows;
    for list in lists {
        let mut out = Vec::new();
        for row in rows {
            let value = Env {
                locals: &[],
                model,
                nodes: &[],
                rels: &[],
                row: &row,
                exists: None,
            }
            .eval(list);
            for item in elements(value) {
                let mut r = row.clone();
                r.push(item);
                out.push(r);
            }
        }
        rows = out;
    }
    rows
}

/// The projection stages of `query` (its `WITH` and `RETURN` clauses, with their `UNWIND`s) run
/// over `rows`, given as the values of its columns (its reading steps are not run): how an
/// updating statement's `RETURN` reads the rows its updates leave. Returns the final rows and
/// columns; the memory limit stops it with an error.
pub fn project_rows<'m>(
    model: &'m Model,
    query: &BoundQuery,
    rows: &[Vec<Val<'m>>],
    semantics: crate::exec::candidates::Semantics,
) -> Result<(Vec<Vec<Val<'m>>>, Vec<String>)> {
    let empty = Clauses::default();
    let clauses = query.clauses.as_deref().unwrap_or(&empty);
    let Some(first) = query.stages.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    crate::util::memory::enter_stage(&READING_STAGE);
    let oracle = RowOracle { model, semantics };
    let projector = Projector::new(first);
    let dyn_oracle: &(dyn crate::exec::eval::ExistsOracle + Sync) = &oracle;
    let mut sink = RowSink::new(model, &projector, Some(dyn_oracle)).counting_inputs();
    let nodes = vec![NULL_ID; query.pattern.nodes.len()];
    let rels = vec![NULL_ID; query.pattern.rels.len()];
    for row in rows {
        if !sink.push(&nodes, &rels, row) {
            return Err(crate::util::memory::take_error().unwrap_or(
                crate::error::Error::MemoryLimit {
                    stage: READING_STAGE.into(),
                    limit: crate::util::memory::limit().unwrap_or(u64::MAX),
                },
            ));
        }
    }
    Ok(project(model, query, clauses, &projector, sink))
}

/// The projection stages after the first (`sink`, of `projector`, fed the rows of the reading
/// steps). Returns the final rows and columns.
fn project<'m>(
    model: &'m Model,
    query: &BoundQuery,
    clauses: &Clauses,
    projector: &Projector<'_>,
    sink: RowSink<'_, 'm>,
) -> (Vec<Vec<Val<'m>>>, Vec<String>) {
    let mut out = sink.finish();
    let mut columns = projector.columns();
    for (i, stage) in query.stages.iter().enumerate().skip(1) {
        if let Some(lists) = clauses.unwinds_after.get(i - 1) {
            out = unwind_projected(model, out, lists);
        }
        let p = Projector::new(stage);
        let mut sink = RowSink::new(model, &p, None).counting_inputs();
        for row in &out {
            if !sink.push(&[], &[], row) {
                break;
            }
        }
        out = sink.finish();
        columns = p.columns();
    }
    (out, columns)
}

/// `query` without its `UNION` parts (and without [`Clauses`] when it has nothing else of them).
fn head_of(query: &BoundQuery) -> BoundQuery {
    let mut head = query.clone();
    if let Some(c) = head.clauses.as_deref_mut() {
        c.union.clear();
        if c.steps.is_empty() {
            head.clauses = None;
        }
    }
    head
}

/// `UNION [ALL]`: every query's rows in order, duplicates dropped unless every union is `ALL`.
fn union<'m>(
    model: &'m Model,
    query: &BoundQuery,
    clauses: &Clauses,
    options: &MatchOptions,
) -> Result<QueryOutput<'m>> {
    let start = Instant::now();
    let rows_options = MatchOptions {
        count_only: false,
        ..options.clone()
    };
    let head = super::execute(model, &head_of(query), &rows_options)?;
    let columns = head.columns;
    let mut partial = head.partial;
    let mut rows = head.rows;
    for part in &clauses.union {
        let out = super::execute(model, &part.query, &rows_options)?;
        partial |= out.partial;
        rows.extend(out.rows);
    }
    if clauses.union.iter().any(|p| !p.all) {
        let mut seen = HashSet::new();
        rows.retain(|r| seen.insert(Key(r.clone())));
    }
    Ok(QueryOutput::finished(
        columns,
        rows,
        options.count_only,
        partial,
        empty_plan(),
        Timings {
            enumerate: start.elapsed(),
            results: Duration::ZERO,
            ..Timings::default()
        },
    ))
}

/// What the host runs for a query with [`Clauses`], as `gemp explain` prints it: each reading
/// step with its relationships and conjuncts, the projection stages, then each `UNION` part.
pub fn describe(model: &Model, query: &BoundQuery) -> String {
    use std::fmt::Write;
    let text = |e: &Expr| crate::exec::explain::expr_text(e, &query.pattern, model);
    let mut o = String::new();
    let Some(clauses) = query.clauses.as_deref() else {
        return o;
    };
    let _ = writeln!(
        o,
        "host execution: row by row (no streaming or factorised counting), reading steps in order:"
    );
    let steps = reading_steps(query, clauses);
    for (i, step) in steps.iter().enumerate() {
        match step {
            ReadStep::Unwind { list, column } => {
                let _ = writeln!(o, "  {}. UNWIND {} AS #{column}", i + 1, text(list));
            }
            ReadStep::Match(m) => {
                let p = &query.pattern;
                let name = |s: usize| p.nodes.get(s).map_or("?".into(), |n| n.name.clone());
                let rels: Vec<String> = m
                    .rels
                    .iter()
                    .filter_map(|&r| p.rels.get(r).map(|rel| (r, rel)))
                    .map(|(r, rel)| {
                        let hops = clauses
                            .var_length
                            .iter()
                            .find(|v| v.rel == r)
                            .map_or(String::new(), |v| format!("*{}..{}", v.min, v.max));
                        let types: Vec<&str> = rel
                            .types
                            .iter()
                            .map(|&t| model.rel_types().name(t).unwrap_or("?"))
                            .collect();
                        let types = if types.is_empty() {
                            String::new()
                        } else {
                            format!(":{}", types.join("|"))
                        };
                        format!(
                            "({})-[{}{types}{hops}]-{}({})",
                            name(rel.src),
                            rel.name,
                            if rel.undirected { "" } else { ">" },
                            name(rel.dst)
                        )
                    })
                    .collect();
                let new: Vec<String> = m.new_nodes.iter().map(|&s| name(s)).collect();
                let _ = write!(
                    o,
                    "  {}. {} binds {}",
                    i + 1,
                    if m.optional {
                        "OPTIONAL MATCH (a row without a match is kept with nulls)"
                    } else {
                        "MATCH"
                    },
                    if new.is_empty() {
                        "no new node".to_string()
                    } else {
                        new.join(", ")
                    }
                );
                if !rels.is_empty() {
                    let _ = write!(o, " along {}", rels.join(", "));
                }
                if !m.filter.is_empty() {
                    let f: Vec<String> = m.filter.iter().map(text).collect();
                    let _ = write!(o, " where {}", f.join(" AND "));
                }
                o.push('\n');
            }
        }
    }
    for (i, lists) in clauses.unwinds_after.iter().enumerate() {
        for list in lists {
            let _ = writeln!(
                o,
                "  after projection stage {}: UNWIND {}",
                i + 1,
                text(list)
            );
        }
    }
    let _ = writeln!(o, "  then {} projection stage(s)", query.stages.len());
    for (i, part) in clauses.union.iter().enumerate() {
        let keyword = if part.all { "UNION ALL" } else { "UNION" };
        let _ = writeln!(o, "{keyword} (query {}):", i + 2);
        if part.query.clauses.is_some() {
            o.push_str(&describe(model, &part.query));
        } else {
            o.push_str(&super::explain::host_execution(
                model,
                &part.query,
                &MatchOptions::default(),
            ));
        }
    }
    o
}
