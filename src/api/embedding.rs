//! What a program embedding gemp — the Python package in `python/` — needs beyond the rest of
//! the API: compile errors with their position, the semantics a query text declares, `explain`
//! on a runner, and cancellation of a running query from another thread ([`CancelFlag`]).
//!
//! ```
//! use gemp::api::{CancelFlag, Graph, RunOptions};
//! // The types an embedding names in its options: gemp::api::embedding::{Backend, Semantics, …}.
//!
//! let graph = Graph::from_json_str(r#"{"nodes": [{"id": "a", "labels": ["Task"]}], "edges": []}"#)?;
//! let err = graph.compile("MATCH (t:Task RETURN t", &Default::default()).unwrap_err();
//! assert_eq!((err.span.unwrap().line, err.span.unwrap().column), (1, 15));
//!
//! // A flag raised (here: before the run) stops the runs started in its scope; their result
//! // is then partial.
//! let flag = CancelFlag::new();
//! flag.cancel();
//! let query = graph.query("MATCH (t:Task) RETURN t")?;
//! let matches = flag.scope(|| graph.execute(&query, &RunOptions::host()))?;
//! assert!(matches.is_partial());
//! # Ok::<(), gemp::Error>(())
//! ```

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{Graph, Matches, NodeRef, Query, RelRef, RunOptions, Runner};
use crate::error::Result;
/// A value of a result row as the engines produce it ([`Matches::output`]'s rows).
pub use crate::matcher::eval::Val;
pub use crate::matcher::Semantics;
use crate::pattern::binder::Params;
pub use crate::pattern::binder::QueryWarning;
pub use crate::pattern::{QueryError, QueryErrorKind};
pub use crate::session::EngineKind;
pub use crate::task::Backend;

impl Graph {
    /// Compiles a query with `params`, keeping the error's structure (kind, message, position,
    /// hint) where [`Graph::query_with`] renders it to text.
    pub fn compile(&self, source: &str, params: &Params) -> std::result::Result<Query, QueryError> {
        self.compile_with_warnings(source, params).map(|(q, _)| q)
    }

    /// [`Graph::compile`], with the binder's warnings (comparisons that can never be true, …).
    pub fn compile_with_warnings(
        &self,
        source: &str,
        params: &Params,
    ) -> std::result::Result<(Query, Vec<QueryWarning>), QueryError> {
        let (bound, warnings) =
            crate::pattern::binder::compile_with_warnings(source, &self.model, params)?;
        Ok((
            Query {
                bound,
                source: source.to_owned(),
            },
            warnings,
        ))
    }
}

/// The semantics a query text declares in a leading `// gemp: semantics=…` line, if any.
pub fn declared_semantics(source: &str) -> Result<Option<Semantics>> {
    Ok(crate::pattern::directives::parse(source)?
        .semantics
        .map(|(s, _)| s))
}

impl Runner<'_> {
    /// How this runner's engine runs `query` with `options` (as `gemp explain` prints it).
    pub fn explain(&self, query: &Query, options: &RunOptions) -> Result<String> {
        self.session.explain(&query.bound, &options.match_options())
    }
}

impl<'g> Matches<'g> {
    /// Node `id` of the graph the rows come from (a [`Val::Node`] of [`Matches::output`]'s
    /// rows), for a consumer that reads the raw rows column by column.
    pub fn node(&self, id: u32) -> NodeRef<'g> {
        NodeRef {
            model: self.model,
            id,
        }
    }

    /// Relationship `id` of the graph the rows come from (a [`Val::Rel`]).
    pub fn rel(&self, id: u32) -> RelRef<'g> {
        RelRef {
            model: self.model,
            id,
        }
    }
}

impl<'g> RelRef<'g> {
    /// Every property the relationship has, in column order.
    pub fn properties(&self) -> Vec<(&'g str, crate::model::ValueRef<'g>)> {
        self.model
            .edge_columns()
            .iter()
            .map(|c| (c.name.as_str(), c.get(self.id as usize)))
            .filter(|(_, v)| !v.is_null())
            .collect()
    }
}

thread_local! {
    /// The flag of the innermost [`CancelFlag::scope`] on this thread.
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Stops running queries from another thread (a Ctrl-C handler, a UI's stop button).
///
/// Runs started inside [`CancelFlag::scope`] — on the calling thread — watch the flag where they
/// watch their deadline (`timeout`): once it is raised they stop as if the deadline had passed
/// and return what they found so far, marked partial ([`super::Matches::is_partial`]). A caller
/// that raised the flag should discard that result.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag not raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Raises the flag: every run started in its scope stops soon (at its next deadline check).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once raised.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Runs `f` with this flag watched by the runs it starts on this thread.
    pub fn scope<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Option<Arc<AtomicBool>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| *c.borrow_mut() = self.0.take());
            }
        }
        let previous = CURRENT.with(|c| c.borrow_mut().replace(Arc::clone(&self.0)));
        let _restore = Restore(previous);
        f()
    }
}

/// The flag of the innermost [`CancelFlag::scope`] on this thread (read when a run's stop
/// control is made).
pub(crate) fn current_cancel_flag() -> Option<Arc<AtomicBool>> {
    CURRENT.with(|c| c.borrow().clone())
}
