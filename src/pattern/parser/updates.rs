//! Rule files: statements of a read part (`MATCH … WHERE …`, `WITH …`) and updating clauses
//! (`CREATE`, `MERGE`, `SET`, `REMOVE`, `DELETE`, `DETACH DELETE`), separated by `;`.

use super::{PResult, Parser};
use crate::pattern::ast::{Name, RemoveItem, SetItem, Statement, UpdateClause, UpdateKind};
use crate::pattern::error::QueryError;
use crate::pattern::lexer::{Keyword, TokenKind};

impl Parser<'_> {
    /// `statement (; statement)* [;]`: at least one statement.
    pub(super) fn rules(&mut self) -> PResult<Vec<Statement>> {
        let mut statements = Vec::new();
        loop {
            while self.eat(&TokenKind::Semicolon).is_some() {}
            if self.at(&TokenKind::Eof) {
                break;
            }
            statements.push(self.statement()?);
            if self.at(&TokenKind::Eof) {
                break;
            }
            if self.eat(&TokenKind::Semicolon).is_none() {
                return Err(self.statement_end_error().into());
            }
        }
        if let Some(e) = self.lex_error.take() {
            return Err(Box::new(e));
        }
        if statements.is_empty() {
            return Err(Box::new(
                QueryError::syntax("the rule file holds no statement", self.peek().span).with_help(
                    "write statements such as `MATCH (n:A) SET n.x = 1`, separated by `;`",
                ),
            ));
        }
        Ok(statements)
    }

    /// One statement: `(MATCH …)* (WITH …)* update+`.
    fn statement(&mut self) -> PResult<Statement> {
        let start = self.peek().span;
        let mut matches = Vec::new();
        let mut filters = Vec::new();
        let mut clause = 0;
        while self.eat_keyword(Keyword::Match).is_some() {
            self.match_body(&mut matches, &mut filters, clause)?;
            clause += 1;
        }
        let where_clause = self.conjunction(filters)?;
        let mut with_clauses = Vec::new();
        while let Some(keyword) = self.eat_keyword(Keyword::With) {
            if matches.is_empty() {
                return Err(Box::new(
                    QueryError::unsupported("WITH without a MATCH before it", keyword)
                        .with_help("start the statement with MATCH"),
                ));
            }
            with_clauses.push(self.with_clause(keyword)?);
            if let Some(span) = self.eat_keyword(Keyword::Match) {
                return Err(Box::new(
                    QueryError::unsupported("MATCH after WITH", span)
                        .with_help("write every MATCH clause before the first WITH"),
                ));
            }
        }
        let mut updates = Vec::new();
        while let Some(clause) = self.update_clause()? {
            updates.push(clause);
        }
        if updates.is_empty() {
            let e = self.statement_end_error();
            return Err(Box::new(e));
        }
        Ok(Statement {
            matches,
            where_clause,
            with_clauses,
            updates,
            span: start.to(self.prev_span),
        })
    }

    /// The error at a token that cannot continue or end a statement.
    fn statement_end_error(&self) -> QueryError {
        let span = self.peek().span;
        match self.peek_kind() {
            TokenKind::Keyword(Keyword::Return) => {
                QueryError::unsupported("RETURN in a rule file", span)
                    .with_help("rule statements only update; run read queries with `gemp match`")
            }
            TokenKind::Keyword(Keyword::Match | Keyword::With) => {
                QueryError::unsupported("a read clause after an updating clause", span)
                    .with_help("end the statement with `;` and start the next one with MATCH")
            }
            _ => match self.unsupported_update() {
                Some(e) => e,
                None => self.error_expected(
                    "CREATE, MERGE, SET, REMOVE, DELETE, DETACH DELETE, ';' or end of input",
                ),
            },
        }
    }

    /// Clauses outside the rule subset that may stand where an updating clause does.
    fn unsupported_update(&self) -> Option<QueryError> {
        let span = self.peek().span;
        match self.peek_kind() {
            TokenKind::Keyword(Keyword::Unwind) => Some(QueryError::unsupported("UNWIND", span)),
            TokenKind::Ident(word) if word.eq_ignore_ascii_case("FOREACH") => {
                Some(QueryError::unsupported("FOREACH", span))
            }
            TokenKind::Ident(word) if word.eq_ignore_ascii_case("ON") => Some(
                QueryError::unsupported("MERGE … ON CREATE / ON MATCH", span)
                    .with_help("follow the MERGE with SET clauses, which apply in both cases"),
            ),
            _ => self.unsupported_clause(),
        }
    }

    /// The next updating clause, or `None` when the next token starts none.
    fn update_clause(&mut self) -> PResult<Option<UpdateClause>> {
        let start = self.peek().span;
        let kind = match self.peek_kind() {
            TokenKind::Keyword(Keyword::Create) => {
                self.advance();
                let mut paths = Vec::new();
                loop {
                    paths.push(self.path_pattern()?);
                    if self.eat(&TokenKind::Comma).is_none() {
                        break;
                    }
                }
                UpdateKind::Create(paths)
            }
            TokenKind::Keyword(Keyword::Merge) => {
                self.advance();
                let path = self.path_pattern()?;
                if self.at(&TokenKind::Comma) {
                    return Err(Box::new(
                        QueryError::unsupported("MERGE of several patterns", self.peek().span)
                            .with_help("write one MERGE clause per pattern"),
                    ));
                }
                UpdateKind::Merge(path)
            }
            TokenKind::Keyword(Keyword::Set) => {
                self.advance();
                UpdateKind::Set(self.comma_list(Self::set_item)?)
            }
            TokenKind::Keyword(Keyword::Remove) => {
                self.advance();
                UpdateKind::Remove(self.comma_list(Self::remove_item)?)
            }
            TokenKind::Keyword(Keyword::Delete) => {
                self.advance();
                UpdateKind::Delete {
                    detach: false,
                    targets: self.comma_list(Self::delete_target)?,
                }
            }
            TokenKind::Keyword(Keyword::Detach) => {
                self.advance();
                self.expect_keyword(Keyword::Delete, "DELETE after DETACH")?;
                UpdateKind::Delete {
                    detach: true,
                    targets: self.comma_list(Self::delete_target)?,
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(UpdateClause {
            kind,
            span: start.to(self.prev_span),
        }))
    }

    /// `item (, item)*`.
    fn comma_list<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut items = vec![item(self)?];
        while self.eat(&TokenKind::Comma).is_some() {
            items.push(item(self)?);
        }
        Ok(items)
    }

    /// `var.key = expr`, `var:Label…` or `var += {map}`.
    fn set_item(&mut self) -> PResult<SetItem> {
        let var = self.variable_name("a variable to SET")?;
        match self.peek_kind() {
            TokenKind::Dot => {
                self.advance();
                let key = self.symbolic_name("a property key after '.'")?;
                if self.at(&TokenKind::Dot) {
                    return Err(Box::new(QueryError::unsupported(
                        "SET on a nested property",
                        self.peek().span,
                    )));
                }
                self.expect(&TokenKind::Eq, "'=' after the property")?;
                let value = self.expr()?;
                Ok(SetItem::Property { var, key, value })
            }
            TokenKind::Colon => Ok(SetItem::Labels {
                labels: self.simple_labels()?,
                var,
            }),
            TokenKind::Plus if self.peek_nth(1) == &TokenKind::Eq => {
                let plus = self.advance();
                let eq = self.advance();
                if eq.start != plus.end {
                    return Err(Box::new(QueryError::syntax(
                        "expected `+=`, found `+` and `=` apart",
                        plus.to(eq),
                    )));
                }
                if !self.at(&TokenKind::LBrace) {
                    return Err(Box::new(
                        QueryError::unsupported(
                            "SET += with anything but a literal map",
                            self.peek().span,
                        )
                        .with_help("write the map out: SET n += {key: value, …}"),
                    ));
                }
                Ok(SetItem::MergeMap {
                    entries: self.property_map()?,
                    var,
                })
            }
            TokenKind::Eq => Err(Box::new(
                QueryError::unsupported(
                    "SET var = {map} (replacing every property)",
                    var.span.to(self.peek().span),
                )
                .with_help("set the properties one by one, or use SET var += {map}"),
            )),
            _ => Err(self
                .error_expected("'.', ':' or '+=' after the variable in SET")
                .into()),
        }
    }

    /// `var.key` or `var:Label…`.
    fn remove_item(&mut self) -> PResult<RemoveItem> {
        let var = self.variable_name("a variable to REMOVE from")?;
        match self.peek_kind() {
            TokenKind::Dot => {
                self.advance();
                let key = self.symbolic_name("a property key after '.'")?;
                Ok(RemoveItem::Property { var, key })
            }
            TokenKind::Colon => Ok(RemoveItem::Labels {
                labels: self.simple_labels()?,
                var,
            }),
            _ => Err(self
                .error_expected("'.' or ':' after the variable in REMOVE")
                .into()),
        }
    }

    /// A variable to delete: a name, not an expression.
    fn delete_target(&mut self) -> PResult<Name> {
        let name = self.variable_name("a variable to DELETE")?;
        if matches!(
            self.peek_kind(),
            TokenKind::Dot | TokenKind::LBracket | TokenKind::LParen
        ) {
            return Err(Box::new(
                QueryError::unsupported("DELETE of an expression", self.peek().span)
                    .with_help("DELETE takes node and relationship variables"),
            ));
        }
        Ok(name)
    }

    /// `:A:B…` (each label once; no `|` alternatives).
    fn simple_labels(&mut self) -> PResult<Vec<Name>> {
        let mut labels = Vec::new();
        while self.eat(&TokenKind::Colon).is_some() {
            labels.push(self.symbolic_name("a label name after ':'")?);
            if self.at(&TokenKind::Pipe) {
                return Err(Box::new(QueryError::syntax(
                    "label alternatives (`|`) cannot be set or removed",
                    self.peek().span,
                )));
            }
        }
        Ok(labels)
    }
}
