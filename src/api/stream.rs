//! Rows handed to the caller while the query runs ([`Graph::for_each_row`],
//! [`Runner::for_each_row`]): a callback, not an iterator, because the rows borrow the search's
//! state, which lives on the caller's stack while the engine runs — an iterator would need the
//! search on another thread and rows copied across. The callback returns
//! [`ControlFlow::Break`] to stop: the search stops at once (the rest is never computed).
//!
//! Plain one-stage projections (no `ORDER BY`, `DISTINCT`, grouping) stream from the host matcher
//! as matches are found; other queries (and the device pipeline) hand their rows over at the end,
//! one call per row all the same.
//!
//! ```
//! use std::ops::ControlFlow;
//! use gemp::api::{Graph, RunOptions};
//!
//! let graph = Graph::from_json_str(r#"{
//!   "nodes": [ {"id": "a", "labels": ["N"]}, {"id": "b", "labels": ["N"]}, {"id": "c", "labels": ["N"]} ],
//!   "edges": [] }"#)?;
//! let options = RunOptions::host();
//! let query = graph.query("MATCH (x:N), (y:N) RETURN x, y")?;
//! let mut first = Vec::new();
//! let end = graph.for_each_row(&query, &options, |row| {
//!     first.push(row.node("x").unwrap().key().to_owned());
//!     if first.len() == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
//! })?;
//! assert_eq!((end.rows, end.stopped), (2, true));
//! # Ok::<(), gemp::Error>(())
//! ```

use std::ops::ControlFlow;

use super::{Graph, Query, Row, RunOptions, Runner};
use crate::error::Result;
use crate::exec::eval::Val;
use crate::model::Model;
use crate::session::Session;

/// How a streamed run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEnd {
    /// The column names.
    pub columns: Vec<String>,
    /// Rows handed to the callback.
    pub rows: u64,
    /// True when the callback stopped the run ([`ControlFlow::Break`]).
    pub stopped: bool,
    /// True when a timeout stopped the search (the rows are then a part of the answer).
    pub partial: bool,
}

/// The message a stopped consumer returns, to tell the stop from a real output error.
const STOPPED: &str = "the caller stopped the query";

/// Runs `query` on `session`, handing each row to `f` (see the module documentation).
fn stream_on<'g>(
    model: &'g Model,
    session: &Session<'g>,
    query: &Query,
    options: &RunOptions,
    f: &mut dyn FnMut(Row<'_, 'g>) -> ControlFlow<()>,
) -> Result<StreamEnd> {
    let rebound = super::rebound_for(session, query, options)?;
    let prepared = rebound.as_ref().unwrap_or(&query.prepared);
    let run = options.match_options_for(prepared);
    let mut handed = 0u64;
    let mut stopped = false;
    let mut columns_seen: Vec<String> = Vec::new();
    let mut consume = |columns: &[String], rows: &[Vec<Val<'g>>]| -> std::io::Result<()> {
        if columns_seen.is_empty() {
            columns_seen = columns.to_vec();
        }
        for values in rows {
            handed += 1;
            let row = Row {
                model,
                columns,
                values,
            };
            if f(row).is_break() {
                stopped = true;
                return Err(std::io::Error::other(STOPPED));
            }
        }
        Ok(())
    };
    match session.run_streaming(prepared.bound(), &run, &mut consume) {
        Ok((summary, _)) => Ok(StreamEnd {
            columns: summary.columns,
            rows: handed,
            stopped: false,
            partial: summary.partial,
        }),
        Err(_) if stopped => Ok(StreamEnd {
            columns: columns_seen,
            rows: handed,
            stopped: true,
            partial: false,
        }),
        Err(e) => Err(e),
    }
}

impl Graph {
    /// Runs a prepared query and hands each row to `f` as the search finds it (see
    /// [`crate::api::stream`]); `f` returns [`ControlFlow::Break`] to stop the query. Runs on
    /// the session the graph keeps, as [`Graph::execute`] does; with
    /// [`RunOptions::count_only`] no row is handed over.
    pub fn for_each_row<F>(
        &self,
        query: &Query,
        options: &RunOptions,
        mut f: F,
    ) -> Result<StreamEnd>
    where
        F: FnMut(Row<'_, '_>) -> ControlFlow<()>,
    {
        let model: &Model = &self.model;
        // SAFETY: as in `Graph::execute`.
        unsafe {
            self.sessions.with(model, options.session_key(), |session| {
                stream_on(model, session, query, options, &mut |row| f(row))
            })
        }
    }
}

impl<'g> Runner<'g> {
    /// [`Graph::for_each_row`] on the runner's session.
    pub fn for_each_row<F>(
        &self,
        query: &Query,
        options: &RunOptions,
        mut f: F,
    ) -> Result<StreamEnd>
    where
        F: FnMut(Row<'_, 'g>) -> ControlFlow<()>,
    {
        stream_on(self.model, &self.session, query, options, &mut f)
    }
}
