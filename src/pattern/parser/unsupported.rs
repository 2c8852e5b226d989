//! Recognising valid Cypher that gemp does not support, so that it gets a clear "unsupported" error
//! instead of a puzzling syntax error.

use super::{PResult, Parser};
use crate::pattern::error::QueryError;
use crate::pattern::lexer::{Keyword, TokenKind};

const READ_ONLY: &str =
    "a query only reads; updating clauses belong in rule files run by `gemp transform`";

impl Parser<'_> {
    /// The upper-cased word `n` tokens ahead, if it is an unquoted word (keyword or identifier).
    fn word_ahead(&self, n: usize) -> Option<String> {
        match self.peek_nth(n) {
            TokenKind::Keyword(kw) => Some(kw.as_str().to_string()),
            TokenKind::Ident(name) => Some(name.to_ascii_uppercase()),
            _ => None,
        }
    }

    /// An "unsupported" error when the next tokens start a clause outside gemp's subset.
    pub(super) fn unsupported_clause(&self) -> Option<QueryError> {
        let first = self.word_ahead(0)?;
        let second = self.word_ahead(1).unwrap_or_default();
        let (what, words, help) = match (first.as_str(), second.as_str()) {
            ("DETACH", "DELETE") => ("DETACH DELETE", 2, READ_ONLY),
            ("LOAD", "CSV") => ("LOAD CSV", 2, "load data with `gemp` loaders instead"),
            ("CREATE", _) => ("CREATE", 1, READ_ONLY),
            ("SET", _) => ("SET", 1, READ_ONLY),
            ("DELETE", _) => ("DELETE", 1, READ_ONLY),
            ("MERGE", _) => ("MERGE", 1, READ_ONLY),
            ("REMOVE", _) => ("REMOVE", 1, READ_ONLY),
            ("FOREACH", _) => ("FOREACH", 1, READ_ONLY),
            ("CALL", _) => (
                "CALL",
                1,
                "procedures and CALL subqueries are not available; EXISTS { ... } is",
            ),
            _ => return None,
        };
        let start = self.peek().span;
        let end = self.peek_token(words - 1).span;
        Some(QueryError::unsupported(what, start.to(end)).with_help(help))
    }

    /// Named paths `p = (...)` and `shortestPath(...)` at the start of a path pattern.
    pub(super) fn reject_unsupported_path_start(&self) -> PResult<()> {
        let span = self.peek().span;
        match (self.peek_nth(0), self.peek_nth(1)) {
            (TokenKind::Ident(_) | TokenKind::QuotedIdent(_), TokenKind::Eq) => Err(Box::new(
                QueryError::unsupported("a named path (`p = (...)`)", span).with_help(
                    "remove the path variable; name the nodes and relationships instead",
                ),
            )),
            (TokenKind::Ident(name), TokenKind::LParen) if is_shortest_path(name) => {
                Err(self.shortest_path_error(name).into())
            }
            _ => Ok(()),
        }
    }

    /// The error for `shortestPath(...)` / `allShortestPaths(...)` (spelt `name`) at the next token.
    pub(super) fn shortest_path_error(&self, name: &str) -> QueryError {
        QueryError::unsupported(&format!("`{name}`"), self.peek().span)
    }

    /// `WHERE` inside a node or relationship pattern (`(a:Person WHERE a.age > 30)`).
    pub(super) fn reject_inline_where(&self) -> PResult<()> {
        if !self.at_keyword(Keyword::Where) {
            return Ok(());
        }
        Err(Box::new(
            QueryError::unsupported(
                "WHERE inside a node or relationship pattern",
                self.peek().span,
            )
            .with_help("move the condition to the WHERE clause after the patterns"),
        ))
    }
}

/// True for `shortestPath` and `allShortestPaths`, in any case.
pub(super) fn is_shortest_path(name: &str) -> bool {
    name.eq_ignore_ascii_case("shortestPath") || name.eq_ignore_ascii_case("allShortestPaths")
}
