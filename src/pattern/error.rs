//! Errors in a query: what went wrong, where, and how to show it to a user.

use serde::Serialize;

use super::ast::Span;
use crate::error::{CypherClass, QueryMessage};

mod render;
mod suggest;

pub use suggest::nearest_names;

/// What kind of problem a [`QueryError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum QueryErrorKind {
    /// The text is not a well-formed query.
    Syntax,
    /// Well-formed Cypher that gemp does not support (writing clauses, `OPTIONAL MATCH`, ...).
    Unsupported,
    /// Well-formed, but meaningless for the graph or in itself (unknown label, unbound variable, ...).
    Semantic,
}

/// An error in a query, pointing at the offending text.
///
/// `Display` gives a one-line summary (`line 3, column 16: expected ...`); [`QueryError::render`] gives
/// the multi-line report with the source line and a caret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryError {
    /// The kind of problem.
    pub kind: QueryErrorKind,
    /// What is wrong, as one sentence without trailing period. Messages of kind `Unsupported` start with
    /// `unsupported: `.
    pub message: String,
    /// The offending text, when there is one.
    pub span: Option<Span>,
    /// A hint on how to fix it.
    pub help: Option<String>,
    /// The openCypher error class (see [`CypherClass`]): `SyntaxError` for malformed text, set
    /// where it is known for semantic errors; `None` for refusals of unsupported constructs.
    #[serde(skip)]
    pub class: Option<CypherClass>,
}

impl QueryError {
    /// A syntax error at `span`.
    pub fn syntax(message: impl Into<String>, span: Span) -> Self {
        QueryError {
            kind: QueryErrorKind::Syntax,
            message: message.into(),
            span: Some(span),
            help: None,
            class: Some(CypherClass::SyntaxError),
        }
    }

    /// An "unsupported" error for `what` (e.g. "OPTIONAL MATCH") at `span`; the message reads
    /// "unsupported: {what} is not supported by gemp (see docs/query-language.md)".
    pub fn unsupported(what: &str, span: Span) -> Self {
        QueryError {
            kind: QueryErrorKind::Unsupported,
            message: format!(
                "unsupported: {what} is not supported by gemp (see docs/query-language.md)"
            ),
            span: Some(span),
            help: None,
            class: None,
        }
    }

    /// A semantic error; `span` is the offending text if known.
    pub fn semantic(message: impl Into<String>, span: Option<Span>) -> Self {
        QueryError {
            kind: QueryErrorKind::Semantic,
            message: message.into(),
            span,
            help: None,
            class: None,
        }
    }

    /// The same error with its openCypher class.
    pub fn with_class(mut self, class: CypherClass) -> Self {
        self.class = Some(class);
        self
    }

    /// As a library [`crate::Error::Query`]: the rendered report (see [`QueryError::render`])
    /// with the class kept.
    pub fn into_error(self, source: &str, file_name: Option<&str>) -> crate::error::Error {
        let location = self.span.map(|s| crate::error::Location {
            file: file_name.map(std::path::PathBuf::from),
            line: u64::from(s.line),
            column: u64::from(s.column),
        });
        crate::error::Error::Query(
            QueryMessage::classed(self.render(source, file_name), self.class).at(location),
        )
    }

    /// The same error with a hint on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The multi-line report, rustc style:
    ///
    /// ```text
    /// error: expected ')' after node pattern, found `-`
    ///  --> query.cypher:3:16
    ///   |
    /// 3 | MATCH (a:Person-[:ACTOR]->(m)
    ///   |                ^
    ///   = help: ...
    /// ```
    ///
    /// `source` is the query text the span refers to; `file_name` is shown in the location line when
    /// given. Never panics, even when the span does not fit `source`.
    pub fn render(&self, source: &str, file_name: Option<&str>) -> String {
        render::render(self, source, file_name)
    }
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(span) = &self.span {
            write!(f, "line {}, column {}: ", span.line, span.column)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

impl From<QueryError> for crate::error::Error {
    /// Keeps the one-line summary; render the error with its source first when it is available.
    fn from(e: QueryError) -> Self {
        crate::error::Error::Query(QueryMessage::classed(e.to_string(), e.class))
    }
}
