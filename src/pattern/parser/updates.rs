//! Rule files: statements of a read part (`MATCH … WHERE …`, `WITH …`) and updating clauses
//! (`CREATE`, `MERGE`, `SET`, `REMOVE`, `DELETE`, `DETACH DELETE`), separated by `;`.

use super::{PResult, Parser};
use crate::pattern::ast::{Name, RemoveItem, SetItem, Statement, Tail, UpdateClause, UpdateKind};
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

    /// One statement: a read part (`UNWIND`, `MATCH`, `OPTIONAL MATCH`, `WITH`, as a query
    /// without `RETURN`), `update+`, then `(WITH …)* RETURN …` optionally.
    fn statement(&mut self) -> PResult<Statement> {
        let start = self.peek().span;
        let reads = self.at_keyword(Keyword::Match)
            || self.at_keyword(Keyword::Unwind)
            || self.at_keyword(Keyword::With)
            || (self.at_keyword(Keyword::Optional)
                && self.peek_nth(1) == &TokenKind::Keyword(Keyword::Match));
        let read = if reads {
            Some(self.query_part()?)
        } else {
            None
        };
        if let Some(ret) = read.as_ref().and_then(|q| q.ret.as_ref()) {
            return Err(Box::new(
                QueryError::unsupported("RETURN in a rule statement without updates", ret.span)
                    .with_help("rule statements update; run read queries with `gemp match`"),
            ));
        }
        let mut updates: Vec<UpdateClause> = Vec::new();
        while let Some(clause) = self.update_clause()? {
            let merge = matches!(clause.kind, UpdateKind::Merge(_));
            updates.push(clause);
            while merge && self.at_word("ON") {
                updates.push(self.merge_action()?);
            }
        }
        if updates.is_empty() {
            let e = self.statement_end_error();
            return Err(Box::new(e));
        }
        let tail = self.tail()?;
        let read = read.unwrap_or_else(|| crate::pattern::ast::Query {
            matches: Vec::new(),
            where_clause: None,
            with_clauses: Vec::new(),
            ret: None,
            span: start,
            leading: Vec::new(),
            trailing: Vec::new(),
            union: Vec::new(),
        });
        Ok(Statement {
            matches: read.matches,
            where_clause: read.where_clause,
            with_clauses: read.with_clauses,
            updates,
            span: start.to(self.prev_span),
            leading: read.leading,
            trailing: read.trailing,
            tail,
        })
    }

    /// `(WITH …)* RETURN …` after the updating clauses, if there.
    fn tail(&mut self) -> PResult<Option<Tail>> {
        let start = self.peek().span;
        let mut with_clauses = Vec::new();
        while let Some(keyword) = self.eat_keyword(Keyword::With) {
            let mut with = self.with_clause(keyword)?;
            while let Some(keyword) = self.eat_keyword(Keyword::Unwind) {
                with.unwinds.push(self.unwind(keyword)?);
            }
            with_clauses.push(with);
        }
        match self.eat_keyword(Keyword::Return) {
            Some(keyword) => {
                let ret = self.projection(keyword)?;
                Ok(Some(Tail {
                    with_clauses,
                    ret,
                    span: start.to(self.prev_span),
                }))
            }
            None if with_clauses.is_empty() => Ok(None),
            None => {
                let span = self.peek().span;
                Err(Box::new(match self.peek_kind() {
                    TokenKind::Keyword(Keyword::Match | Keyword::Optional) => {
                        QueryError::unsupported("a read clause after an updating clause", span)
                            .with_help(
                                "end the statement with `;` and start the next one with MATCH",
                            )
                    }
                    TokenKind::Eof | TokenKind::Semicolon => {
                        QueryError::unsupported("WITH at the end of a statement", span)
                            .with_help("end the statement with RETURN, or leave the WITH out")
                    }
                    _ => QueryError::unsupported(
                        "an updating clause after WITH after an updating clause",
                        span,
                    )
                    .with_help("end the statement with `;` and start the next one with MATCH"),
                }))
            }
        }
    }

    /// True at the unquoted word `word` (any case).
    fn at_word(&self, word: &str) -> bool {
        matches!(self.peek_kind(), TokenKind::Ident(w) if w.eq_ignore_ascii_case(word))
    }

    /// `ON CREATE SET …` or `ON MATCH SET …`, at `ON`.
    fn merge_action(&mut self) -> PResult<UpdateClause> {
        let start = self.advance();
        let on_create = match self.peek_kind() {
            TokenKind::Keyword(Keyword::Create) => true,
            TokenKind::Keyword(Keyword::Match) => false,
            _ => return Err(self.error_expected("CREATE or MATCH after ON").into()),
        };
        self.advance();
        self.expect_keyword(Keyword::Set, "SET after ON CREATE / ON MATCH")?;
        let items = self.comma_list(Self::set_item)?;
        Ok(UpdateClause {
            kind: if on_create {
                UpdateKind::OnCreate(items)
            } else {
                UpdateKind::OnMatch(items)
            },
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
                    return Ok(SetItem::Map {
                        value: self.expr()?,
                        var,
                        replace: false,
                    });
                }
                Ok(SetItem::MergeMap {
                    entries: self.property_map()?,
                    var,
                })
            }
            TokenKind::Eq => {
                self.advance();
                Ok(SetItem::Map {
                    value: self.expr()?,
                    var,
                    replace: true,
                })
            }
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
