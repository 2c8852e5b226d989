//! What a query gives back: its rows or count ([`QueryOutput`]), the summary of a streamed run
//! ([`StreamSummary`]), and the small rules every engine's end of a query shares.

use crate::error::Result;
use crate::exec::eval::Val;
use crate::exec::options::Timings;
use crate::exec::plan::Plan;
use crate::exec::results::Projector;
use crate::pattern::ir::BoundQuery;

/// The result of a query.
#[derive(Debug)]
pub struct QueryOutput<'m> {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows (empty when only counting).
    pub rows: Vec<Vec<Val<'m>>>,
    /// Number of result rows.
    pub count: u64,
    /// True when `--timeout` stopped the search: rows and count are then a lower bound.
    pub partial: bool,
    /// The plan that ran.
    pub plan: Plan,
    /// Stage timings.
    pub timings: Timings,
}

impl<'m> QueryOutput<'m> {
    /// The output of a finished query: `count` is the number of `rows`, which are dropped when
    /// only the count is wanted (`count_only`).
    pub fn finished(
        columns: Vec<String>,
        mut rows: Vec<Vec<Val<'m>>>,
        count_only: bool,
        partial: bool,
        plan: Plan,
        timings: Timings,
    ) -> Self {
        let count = rows.len() as u64;
        if count_only {
            rows.clear();
        }
        QueryOutput {
            columns,
            rows,
            count,
            partial,
            plan,
            timings,
        }
    }
}

/// The output of a query answered by a count alone (no rows): a query without a projection
/// (column `count`), or `--count` of a plain projection.
pub fn counted_output<'m>(
    columns: Vec<String>,
    count: u64,
    partial: bool,
    plan: Plan,
    timings: Timings,
) -> QueryOutput<'m> {
    QueryOutput {
        columns,
        rows: Vec::new(),
        count,
        partial,
        plan,
        timings,
    }
}

/// `--count` of a plain one-stage projection: its `matches`, less `SKIP`, capped by `LIMIT`.
pub fn plain_projection_count(query: &BoundQuery, matches: u64) -> u64 {
    let Some(proj) = query.stages.first() else {
        return matches;
    };
    matches
        .saturating_sub(proj.skip.unwrap_or(0))
        .min(proj.limit.unwrap_or(u64::MAX))
}

/// The rows a streaming one-stage projection needs at most (`LIMIT` + `SKIP`), or `None` when
/// every row is needed.
pub fn row_budget(query: &BoundQuery, first: &Projector) -> Option<u64> {
    if first.is_streaming() && query.stages.len() == 1 {
        query.stages[0]
            .limit
            .map(|l| l.saturating_add(query.stages[0].skip.unwrap_or(0)))
    } else {
        None
    }
}

/// Receives the column names and a batch of rows; an error stops the search.
pub type RowConsumer<'c, 'm> = &'c mut dyn FnMut(&[String], &[Vec<Val<'m>>]) -> std::io::Result<()>;

/// What a streamed query reports once every row has been handed over.
#[derive(Debug)]
pub struct StreamSummary {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows handed to the consumer (after SKIP and LIMIT).
    pub count: u64,
    /// True when `--timeout` stopped the search.
    pub partial: bool,
    /// Stage timings.
    pub timings: Timings,
}

/// Hands a collected output's rows to `consume` at once (for runs that cannot stream) and
/// returns its summary. A run the memory limit stopped hands nothing over: its rows (an
/// aggregate over part of the matches, say) would be wrong; it is [`crate::Error::MemoryLimit`].
pub fn hand_over<'m>(out: QueryOutput<'m>, consume: RowConsumer<'_, 'm>) -> Result<StreamSummary> {
    if let Some(e) = crate::util::memory::error() {
        return Err(e);
    }
    consume(&out.columns, &out.rows).map_err(|e| crate::Error::io("<output>", e))?;
    Ok(StreamSummary {
        columns: out.columns,
        count: out.count,
        partial: out.partial,
        timings: out.timings,
    })
}

/// True when `query` returns a single aggregate (`RETURN count(*)`, `RETURN sum(x.v) AS s`): its
/// answer is that one value, not a number of rows (what `--count` prints for it).
pub fn is_single_aggregate(query: &BoundQuery) -> bool {
    query
        .stages
        .last()
        .is_some_and(|s| Projector::new(s).is_single_aggregate())
}

/// True when rows of `query` can be handed out as they are found (a core query of one stage, no
/// grouping, `DISTINCT` or `ORDER BY`).
pub fn is_streamable(query: &BoundQuery) -> bool {
    query.clauses.is_none()
        && query.stages.len() == 1
        && Projector::new(&query.stages[0]).is_streaming()
}

/// True for `--count` of a plain one-stage projection (not `count(*)`): its count is the number
/// of matches, less `SKIP`, capped by `LIMIT` ([`plain_projection_count`]).
pub fn counts_plain_projection(
    query: &BoundQuery,
    options: &crate::exec::MatchOptions,
    first: &Projector,
) -> bool {
    options.count_only
        && !first.is_count_star()
        && first.rows_one_per_match()
        && query.stages.len() == 1
}
