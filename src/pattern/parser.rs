//! Recursive-descent parser from query text to a [`Query`] syntax tree.
//!
//! The parser never panics and never recurses without bound: expressions, patterns nested in
//! expressions and long operator chains all count towards [`MAX_DEPTH`], beyond which it reports
//! "expression nested too deeply". Lexical errors are reported in source order with parse errors: the
//! token stream stops at the first malformed token, and that error is returned if the parser gets there.
//!
//! The work is split by grammar area: `clauses` (MATCH, WITH, RETURN), `patterns` (paths, nodes,
//! relationships), `expr` (operator precedence) and `unsupported` (recognising Cypher that gemp rejects).

use super::ast::{Query, Span, Statement};
use super::error::QueryError;
use super::lexer::{Keyword, Lexer, Token, TokenKind};

mod clauses;
mod expr;
mod patterns;
mod unsupported;
mod updates;

#[cfg(test)]
mod tests;

/// Deepest nesting the parser accepts, in levels: each nested expression or applied operator is one
/// level; lists and function calls count two, pattern predicates and `EXISTS` subqueries three, as they
/// nest through more parser functions. This keeps the syntax tree shallow enough for recursive code
/// (printing, binding, dropping) and the parser's own stack use under about 1 MiB even in debug
/// builds, so any query parses safely on a thread with the default 2 MiB stack.
pub const MAX_DEPTH: usize = 256;

/// Parses one query (see `docs/query-language.md`).
///
/// Errors are of kind `Syntax` (malformed text) or `Unsupported` (valid Cypher outside gemp's subset);
/// names are not checked against any graph here. Never panics, whatever the input.
///
/// ```
/// use gemp::pattern::{parse_query, QueryErrorKind};
///
/// let query = parse_query("match (a:Person)-[:KNOWS]->(b) where a.age > 30 return b.name").unwrap();
/// assert_eq!(query.matches[0].nodes.len(), 2);
/// assert_eq!(
///     query.to_string(),
///     "MATCH (a:Person)-[:KNOWS]->(b)\nWHERE a.age > 30\nRETURN b.name"
/// );
///
/// let error = parse_query("MATCH (a) SET a.x = 1").unwrap_err();
/// assert_eq!(error.kind, QueryErrorKind::Unsupported);
/// ```
pub fn parse_query(source: &str) -> Result<Query, QueryError> {
    Parser::new(source).query().map_err(|e| *e)
}

/// Parses a rule file: statements separated by `;`, each an optional read part (`MATCH … WHERE …`,
/// `WITH …`) followed by updating clauses (`CREATE`, `MERGE`, `SET`, `REMOVE`, `DELETE`,
/// `DETACH DELETE`); see `docs/query-language.md`, "Transformation".
///
/// Errors are of kind `Syntax` or `Unsupported`, with line and column. Never panics.
///
/// ```
/// use gemp::pattern::parser::parse_rules;
///
/// let rules = parse_rules("MATCH (s:Segment) WHERE s.length <= 0 SET s.length = -s.length + 1;\n\
///                          CREATE (:Sensor {name: 'x'})").unwrap();
/// assert_eq!(rules.len(), 2);
/// assert!(parse_rules("MATCH (n) RETURN n").is_err());
/// ```
pub fn parse_rules(source: &str) -> Result<Vec<Statement>, QueryError> {
    Parser::new(source).rules().map_err(|e| *e)
}

/// The message of a parse the run's deadline stopped ([`crate::util::deadline`]); the caller
/// that set the deadline reports a timeout instead.
pub const OUT_OF_TIME: &str = "the time limit ran out while parsing";

/// Errors are boxed inside the parser: it keeps the recursive functions' stack frames small, which is
/// what bounds the stack used by [`MAX_DEPTH`] levels of nesting.
type PResult<T> = Result<T, Box<QueryError>>;

/// Returned by [`Parser::peek`] past the end of the token list, which cannot happen but must not panic.
static FALLBACK_EOF: Token = Token {
    kind: TokenKind::Eof,
    span: Span {
        start: 0,
        end: 0,
        line: 1,
        column: 1,
    },
};

/// Parser state: the token list and a cursor into it.
struct Parser<'s> {
    source: &'s str,
    /// Always ends with an [`TokenKind::Eof`] token.
    tokens: Vec<Token>,
    pos: usize,
    /// Span of the last consumed token.
    prev_span: Span,
    /// Current nesting depth (see [`MAX_DEPTH`]).
    depth: usize,
    /// The lexical error that cut the token list short, if any; the final `Eof` stands in its place.
    lex_error: Option<QueryError>,
}

impl<'s> Parser<'s> {
    fn new(source: &'s str) -> Self {
        let mut tokens = Vec::new();
        let mut lex_error = None;
        for token in Lexer::new(source) {
            // Megabytes of query text stop lexing at the run's deadline (an end of input here,
            // and the timeout error in its place).
            if tokens.len() % 65536 == 65535 && crate::util::deadline::current_passed() {
                let span = token.as_ref().map(|t| t.span).unwrap_or_default();
                tokens.push(Token {
                    kind: TokenKind::Eof,
                    span: span.shrink_to_start(),
                });
                lex_error = Some(QueryError::syntax(OUT_OF_TIME, span));
                break;
            }
            match token {
                Ok(token) => tokens.push(token),
                Err(e) => {
                    let span = e.span.unwrap_or_default();
                    tokens.push(Token {
                        kind: TokenKind::Eof,
                        span: span.shrink_to_start(),
                    });
                    lex_error = Some(e);
                }
            }
        }
        if !matches!(tokens.last(), Some(t) if t.kind == TokenKind::Eof) {
            tokens.push(FALLBACK_EOF.clone());
        }
        Parser {
            source,
            tokens,
            pos: 0,
            prev_span: Span::default(),
            depth: 0,
            lex_error,
        }
    }

    // ----- looking at tokens -----

    fn peek(&self) -> &Token {
        self.peek_token(0)
    }

    fn peek_token(&self, n: usize) -> &Token {
        self.tokens
            .get(self.pos.saturating_add(n))
            .or(self.tokens.last())
            .unwrap_or(&FALLBACK_EOF)
    }

    fn peek_kind(&self) -> &TokenKind {
        &self.peek().kind
    }

    /// The kind of the token `n` places ahead (0 = next).
    fn peek_nth(&self, n: usize) -> &TokenKind {
        &self.peek_token(n).kind
    }

    fn at(&self, kind: &TokenKind) -> bool {
        self.peek_kind() == kind
    }

    fn at_keyword(&self, keyword: Keyword) -> bool {
        self.at(&TokenKind::Keyword(keyword))
    }

    /// The source text of `span` ("" if it does not fit the source).
    fn text(&self, span: Span) -> &'s str {
        self.source.get(span.start..span.end).unwrap_or("")
    }

    // ----- consuming tokens -----

    /// Consumes the next token (never moves past `Eof`) and returns its span.
    fn advance(&mut self) -> Span {
        let token = self.peek();
        let span = token.span;
        if token.kind != TokenKind::Eof {
            self.pos += 1;
            self.prev_span = span;
        }
        span
    }

    /// Consumes the next token if it is `kind`, returning its span.
    fn eat(&mut self, kind: &TokenKind) -> Option<Span> {
        self.at(kind).then(|| self.advance())
    }

    fn eat_keyword(&mut self, keyword: Keyword) -> Option<Span> {
        self.eat(&TokenKind::Keyword(keyword))
    }

    /// Consumes a token of `kind` or fails with "expected {what}".
    fn expect(&mut self, kind: &TokenKind, what: &str) -> PResult<Span> {
        self.eat(kind)
            .ok_or_else(|| self.error_expected(what).into())
    }

    fn expect_keyword(&mut self, keyword: Keyword, what: &str) -> PResult<Span> {
        self.expect(&TokenKind::Keyword(keyword), what)
    }

    // ----- errors -----

    /// "expected {what}, found {next token}" at the next token, or the lexical error when the next
    /// token is where lexing failed.
    fn error_expected(&self, what: &str) -> QueryError {
        if let Some(e) = self.pending_lex_error() {
            return e;
        }
        QueryError::syntax(
            format!("expected {what}, found {}", self.peek_kind().describe()),
            self.peek().span,
        )
    }

    /// The lexical error, when the cursor stands on the token that replaced it.
    fn pending_lex_error(&self) -> Option<QueryError> {
        let at_end = self.pos + 1 >= self.tokens.len();
        self.lex_error.clone().filter(|_| at_end)
    }

    /// Enters one more level of nesting. Callers restore `depth` when they are done.
    fn descend(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep_error());
        }
        Ok(())
    }

    /// The error of a parse stopped by the run's deadline (the caller reports the timeout).
    #[cold]
    fn out_of_time(&self) -> Box<QueryError> {
        Box::new(QueryError::syntax(OUT_OF_TIME, self.peek().span))
    }

    #[cold]
    #[inline(never)]
    fn too_deep_error(&self) -> Box<QueryError> {
        Box::new(
            QueryError::syntax("expression nested too deeply", self.peek().span).with_help(format!(
                "gemp accepts at most {MAX_DEPTH} levels of nested expressions, patterns and chained \
                 operators; simplify the query"
            )),
        )
    }
}
