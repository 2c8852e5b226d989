//! What a program embedding gemp — the Python package in `python/` — needs beyond the rest of
//! the API: compile errors with their position, the semantics a query text declares, `explain`
//! on a runner, and cancellation of a running query from another thread
//! ([`CancelFlag`](crate::exec::control::CancelFlag)).
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

use super::{Graph, Matches, NodeRef, Query, RelRef, RunOptions, Runner};
use crate::error::Result;
/// A value of a result row as the engines produce it ([`Matches::output`]'s rows).
pub use crate::exec::eval::Val;
pub use crate::exec::Semantics;
use crate::pattern::binder::Params;
pub use crate::pattern::binder::QueryWarning;
pub use crate::pattern::{QueryError, QueryErrorKind};
pub use crate::session::Backend;
pub use crate::session::EngineKind;

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
        let (prepared, warnings) = crate::session::prepare::prepare_detailed(
            &self.model,
            source,
            &crate::session::PrepareOptions {
                params: params.clone(),
                ..Default::default()
            },
        )?;
        Ok((
            Query {
                prepared,
                params: params.clone(),
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
        let mut run = options.match_options();
        run.semantics = options.semantics.unwrap_or(query.semantics());
        self.session.explain(query.bound(), &run)
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
