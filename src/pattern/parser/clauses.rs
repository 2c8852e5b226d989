//! Clauses: `MATCH ... WHERE`, `WITH`, `RETURN`, `ORDER BY`, `SKIP`, `LIMIT`, and `EXISTS { ... }` bodies.

use super::{PResult, Parser};
use crate::pattern::ast::{
    BinaryOp, Expr, ExprKind, Literal, Name, OptionalMatch, PathPattern, Projection, Query,
    ReadingClause, ReturnItem, SortItem, Span, SubQuery, UnionClause, Unwind, WithClause,
};
use crate::pattern::error::QueryError;
use crate::pattern::lexer::{Keyword, TokenKind};

impl Parser<'_> {
    /// A whole query: [`query_part`](Self::query_part)s joined by `UNION [ALL]`, then `;` or the
    /// end of input.
    pub(super) fn query(&mut self) -> PResult<Query> {
        let mut parts = vec![self.query_part()?];
        let mut unions: Vec<(bool, Span)> = Vec::new();
        while let Some(keyword) = self.eat_keyword(Keyword::Union) {
            let all = self.eat_word("ALL");
            let span = if all {
                keyword.to(self.prev_span)
            } else {
                keyword
            };
            if let Some(&(first_all, _)) = unions.first() {
                if first_all != all {
                    return Err(Box::new(
                        QueryError::syntax("UNION and UNION ALL cannot be mixed", span)
                            .with_help("use UNION everywhere or UNION ALL everywhere"),
                    ));
                }
            }
            if parts.last().is_some_and(|p| p.ret.is_none()) {
                return Err(Box::new(
                    QueryError::syntax("each query of a UNION must end with RETURN", span)
                        .with_help("add a RETURN clause before UNION"),
                ));
            }
            unions.push((all, span));
            parts.push(self.query_part()?);
        }
        if !unions.is_empty() && parts.last().is_some_and(|p| p.ret.is_none()) {
            let e = self.clause_error("RETURN");
            return Err(Box::new(
                e.with_help("each query of a UNION must end with RETURN"),
            ));
        }

        if self.eat(&TokenKind::Semicolon).is_some() && !self.at(&TokenKind::Eof) {
            let e = self.error_expected("end of input after `;`");
            return Err(Box::new(
                e.with_help("a query file holds exactly one query"),
            ));
        }
        if !self.at(&TokenKind::Eof) {
            let last = parts.last();
            let expected = if last.is_some_and(|p| p.ret.is_some()) {
                "end of query"
            } else if last.is_some_and(|p| !p.with_clauses.is_empty()) {
                "WITH, UNWIND, RETURN or end of query"
            } else {
                "MATCH, OPTIONAL MATCH, UNWIND, WHERE, WITH, RETURN or end of query"
            };
            return Err(self.clause_error(expected).into());
        }
        if let Some(e) = self.lex_error.take() {
            // The query looked complete because lexing stopped early.
            return Err(Box::new(e));
        }
        // The first part holds the others, each with the UNION before it.
        let mut parts = parts.into_iter();
        let mut query = parts
            .next()
            .unwrap_or_else(|| unreachable_query(self.prev_span));
        query.union = unions
            .into_iter()
            .zip(parts)
            .map(|((all, span), query)| UnionClause { all, span, query })
            .collect();
        Ok(query)
    }

    /// One query of a `UNION`: `(UNWIND …)* (MATCH … [WHERE …])* (OPTIONAL MATCH … | UNWIND …)*
    /// (WITH … (UNWIND …)*)* [RETURN …]`.
    pub(super) fn query_part(&mut self) -> PResult<Query> {
        let start = self.peek().span;
        let mut leading = Vec::new();
        while let Some(keyword) = self.eat_keyword(Keyword::Unwind) {
            leading.push(self.unwind(keyword)?);
        }
        let optional_next = self.at_optional_match();
        // `WITH …` or `RETURN …` first: the clauses run on one empty row (`RETURN 1`).
        let projection_next = self.at_keyword(Keyword::With) || self.at_keyword(Keyword::Return);
        if leading.is_empty()
            && !self.at_keyword(Keyword::Match)
            && !optional_next
            && !projection_next
        {
            let e = self.clause_error("MATCH");
            return Err(Box::new(e.with_help(
                "a query starts with MATCH, OPTIONAL MATCH, UNWIND, WITH or RETURN",
            )));
        }
        let mut matches = Vec::new();
        let mut filters = Vec::new();
        let mut clause = 0;
        while self.eat_keyword(Keyword::Match).is_some() {
            self.match_body(&mut matches, &mut filters, clause)?;
            clause += 1;
        }
        let where_clause = self.conjunction(filters)?;

        let mut trailing = Vec::new();
        loop {
            if self.at_optional_match() {
                let optional = self.advance();
                self.advance();
                let mut paths = Vec::new();
                let mut filters = Vec::new();
                self.match_body(&mut paths, &mut filters, clause)?;
                clause += 1;
                let where_clause = self.conjunction(filters)?;
                trailing.push(ReadingClause::OptionalMatch(OptionalMatch {
                    paths,
                    where_clause,
                    span: optional.to(self.prev_span),
                }));
            } else if let Some(keyword) = self.eat_keyword(Keyword::Unwind) {
                trailing.push(ReadingClause::Unwind(self.unwind(keyword)?));
            } else if let Some(span) = self.eat_keyword(Keyword::Match) {
                return Err(Box::new(
                    QueryError::unsupported("MATCH after OPTIONAL MATCH or UNWIND", span)
                        .with_help(
                            "write every MATCH clause before the first OPTIONAL MATCH and UNWIND",
                        ),
                ));
            } else {
                break;
            }
        }

        let mut with_clauses = Vec::new();
        while let Some(keyword) = self.eat_keyword(Keyword::With) {
            let mut with = self.with_clause(keyword)?;
            while let Some(keyword) = self.eat_keyword(Keyword::Unwind) {
                with.unwinds.push(self.unwind(keyword)?);
            }
            with_clauses.push(with);
            if self.at_keyword(Keyword::Match) || self.at_optional_match() {
                let span = self.peek().span;
                return Err(Box::new(
                    QueryError::unsupported("MATCH after WITH", span)
                        .with_help("write every MATCH clause before the first WITH"),
                ));
            }
        }
        let ret = match self.eat_keyword(Keyword::Return) {
            Some(keyword) => Some(self.projection(keyword)?),
            None => None,
        };
        Ok(Query {
            matches,
            where_clause,
            with_clauses,
            ret,
            span: start.to(self.prev_span),
            leading,
            trailing,
            union: Vec::new(),
        })
    }

    /// True at `OPTIONAL MATCH`.
    fn at_optional_match(&self) -> bool {
        self.at_keyword(Keyword::Optional)
            && self.peek_nth(1) == &TokenKind::Keyword(Keyword::Match)
    }

    /// Consumes the unquoted word `word` (any case) if it is next.
    fn eat_word(&mut self, word: &str) -> bool {
        let hit = matches!(self.peek_kind(), TokenKind::Ident(w) if w.eq_ignore_ascii_case(word));
        if hit {
            self.advance();
        }
        hit
    }

    /// `UNWIND list AS alias` (keyword at `keyword` already consumed).
    pub(super) fn unwind(&mut self, keyword: Span) -> PResult<Unwind> {
        let list = self.expr()?;
        self.expect_keyword(Keyword::As, "AS after the UNWIND list")?;
        let alias = self.variable_name("a variable name after AS")?;
        Ok(Unwind {
            list,
            span: keyword.to(alias.span),
            alias,
        })
    }

    /// The patterns and optional `WHERE` of `MATCH` clause number `clause` (keyword already
    /// consumed).
    pub(super) fn match_body(
        &mut self,
        matches: &mut Vec<PathPattern>,
        filters: &mut Vec<Expr>,
        clause: usize,
    ) -> PResult<()> {
        loop {
            let mut path = self.match_path_pattern()?;
            path.clause = clause;
            matches.push(path);
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        if self.eat_keyword(Keyword::Where).is_some() {
            filters.push(self.expr()?);
        }
        Ok(())
    }

    /// Joins the filters of several `MATCH` clauses with `AND`.
    pub(super) fn conjunction(&mut self, filters: Vec<Expr>) -> PResult<Option<Expr>> {
        let saved = self.depth;
        let mut combined: Option<Expr> = None;
        for filter in filters {
            combined = Some(match combined {
                None => filter,
                Some(lhs) => {
                    self.descend()?;
                    let span = lhs.span.to(filter.span);
                    let kind = ExprKind::Binary {
                        op: BinaryOp::And,
                        lhs: Box::new(lhs),
                        rhs: Box::new(filter),
                    };
                    Expr::new(kind, span)
                }
            });
        }
        self.depth = saved;
        Ok(combined)
    }

    /// `EXISTS { [MATCH] pattern, ... [WHERE expr] (MATCH ...)* }`, at `EXISTS`.
    pub(super) fn exists_subquery(&mut self) -> PResult<SubQuery> {
        let start = self.advance();
        self.expect(&TokenKind::LBrace, "'{' after EXISTS")?;
        let mut matches = Vec::new();
        let mut filters = Vec::new();
        let mut clause = 0;
        if !self.at_keyword(Keyword::Match) {
            self.match_body(&mut matches, &mut filters, clause)?;
            clause += 1;
        }
        while self.eat_keyword(Keyword::Match).is_some() {
            self.match_body(&mut matches, &mut filters, clause)?;
            clause += 1;
        }
        let end = self.subquery_end()?;
        let where_clause = self.conjunction(filters)?;
        Ok(SubQuery {
            matches,
            where_clause,
            span: start.to(end),
        })
    }

    /// The `}` closing an `EXISTS` subquery.
    fn subquery_end(&mut self) -> PResult<Span> {
        match self.eat(&TokenKind::RBrace) {
            Some(span) => Ok(span),
            None => Err(self.clause_error("'}' to close the EXISTS subquery").into()),
        }
    }

    /// A `WITH` clause body and its optional `WHERE` (keyword at `keyword` already consumed).
    pub(super) fn with_clause(&mut self, keyword: Span) -> PResult<WithClause> {
        let projection = self.projection(keyword)?;
        let where_clause = match self.eat_keyword(Keyword::Where) {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        Ok(WithClause {
            projection,
            where_clause,
            unwinds: Vec::new(),
        })
    }

    /// `[DISTINCT] (* | item, ...) [ORDER BY ...] [SKIP n] [LIMIT n]` after `RETURN` or `WITH`.
    pub(super) fn projection(&mut self, keyword: Span) -> PResult<Projection> {
        let distinct = self.eat_keyword(Keyword::Distinct).is_some();
        let star = self.eat(&TokenKind::Star).is_some();
        let mut items = Vec::new();
        if !star || self.eat(&TokenKind::Comma).is_some() {
            loop {
                items.push(self.return_item()?);
                if self.eat(&TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        let mut order_by = Vec::new();
        if self.eat_keyword(Keyword::Order).is_some() {
            self.expect_keyword(Keyword::By, "BY after ORDER")?;
            loop {
                order_by.push(self.sort_item()?);
                if self.eat(&TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        let skip = match self.eat_keyword(Keyword::Skip) {
            Some(_) => Some(self.count_argument("SKIP")?),
            None => None,
        };
        let limit = match self.eat_keyword(Keyword::Limit) {
            Some(_) => Some(self.count_argument("LIMIT")?),
            None => None,
        };
        Ok(Projection {
            distinct,
            star,
            items,
            order_by,
            skip,
            limit,
            span: keyword.to(self.prev_span),
        })
    }

    /// `expr [AS alias]`.
    fn return_item(&mut self) -> PResult<ReturnItem> {
        let expr = self.expr()?;
        let alias = match self.eat_keyword(Keyword::As) {
            Some(_) => Some(self.variable_name("a column name after AS")?),
            None => None,
        };
        Ok(ReturnItem {
            span: expr.span.to(self.prev_span),
            expr,
            alias,
        })
    }

    /// `expr [ASC | ASCENDING | DESC | DESCENDING]`.
    fn sort_item(&mut self) -> PResult<SortItem> {
        let expr = self.expr()?;
        let descending = match self.peek_kind() {
            TokenKind::Keyword(Keyword::Desc | Keyword::Descending) => {
                self.advance();
                true
            }
            TokenKind::Keyword(Keyword::Asc | Keyword::Ascending) => {
                self.advance();
                false
            }
            _ => false,
        };
        Ok(SortItem {
            span: expr.span.to(self.prev_span),
            expr,
            descending,
        })
    }

    /// The argument of `SKIP` or `LIMIT`: a non-negative integer literal or a parameter.
    fn count_argument(&mut self, clause: &str) -> PResult<Expr> {
        let token = self.peek().clone();
        let kind = match token.kind {
            TokenKind::Integer(_) => ExprKind::Literal(Literal::Int(self.integer(false)?)),
            TokenKind::Param(name) => {
                self.advance();
                ExprKind::Param(name)
            }
            _ => {
                let what = format!("a non-negative integer or a parameter after {clause}");
                return Err(self.error_expected(&what).into());
            }
        };
        Ok(Expr::new(kind, token.span))
    }

    /// A variable or alias name: an identifier, or any backtick-quoted name.
    pub(super) fn variable_name(&mut self, what: &str) -> PResult<Name> {
        match self.peek_kind().clone() {
            TokenKind::Ident(name) | TokenKind::QuotedIdent(name) => Ok(Name {
                name,
                span: self.advance(),
            }),
            TokenKind::Keyword(keyword) => {
                let text = self.text(self.peek().span);
                let help = format!(
                    "{} is a reserved word; to use it as a name, write it in backticks: `{text}`",
                    keyword.as_str()
                );
                Err(Box::new(self.error_expected(what).with_help(help)))
            }
            _ => Err(self.error_expected(what).into()),
        }
    }

    /// "expected {what}", unless the next tokens start a clause gemp does not support.
    pub(super) fn clause_error(&self, what: &str) -> QueryError {
        if let Some(e) = self.unsupported_clause() {
            return e;
        }
        let misplaced = match self.peek_kind() {
            TokenKind::Keyword(
                kw @ (Keyword::Match
                | Keyword::Optional
                | Keyword::With
                | Keyword::Unwind
                | Keyword::Return),
            ) => Some(kw.as_str()),
            _ => None,
        };
        match misplaced {
            // Valid Cypher in other orders (`WITH … MATCH`): gemp's clause order, not a syntax
            // error (which would claim the query is malformed).
            Some(kw) => QueryError::unsupported(&format!("{kw} at this place"), self.peek().span)
                .with_help(format!(
                    "expected {what} here: gemp takes its clauses in the orders listed in \
                     docs/query-language.md"
                )),
            None => self.error_expected(what),
        }
    }
}

/// An empty query at `span`: what [`Parser::query`] would chain if it had no part, which cannot
/// happen (it always parses one) but must not panic.
fn unreachable_query(span: Span) -> Query {
    Query {
        matches: Vec::new(),
        where_clause: None,
        with_clauses: Vec::new(),
        ret: None,
        span,
        leading: Vec::new(),
        trailing: Vec::new(),
        union: Vec::new(),
    }
}
