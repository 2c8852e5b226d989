//! Expressions, by precedence climbing over the levels in [`prec`] (lowest first):
//! `OR`, `XOR`, `AND`, prefix `NOT`, comparisons (`a < b < c` reads `a < b AND b < c`), `IN`/`IS NULL`/string predicates,
//! `+ -`, `* / %`, prefix `-`, then atoms with postfix `.key` and `:Label`.
//!
//! The functions that recurse (`expr_above` down to the atoms that contain expressions) are kept small
//! and leave tree building and error reporting to helpers, so that each nesting level costs little
//! stack, even in debug builds.

use super::unsupported::is_shortest_path;
use super::{PResult, Parser};
use crate::pattern::ast::{
    prec, BinaryOp, CaseExpr, Comprehension, ComprehensionKind, Expr, ExprKind, Literal, Name,
    Span, StringOp, UnaryOp,
};
use crate::pattern::error::QueryError;
use crate::pattern::lexer::{Keyword, TokenKind};

/// An operator with a right operand.
#[derive(Clone, Copy)]
enum BinaryLike {
    Binary(BinaryOp),
    String(StringOp),
    In,
}

/// An infix or postfix operator recognised at the next token.
#[derive(Clone, Copy)]
enum Infix {
    Operator(BinaryLike),
    /// `IS [NOT] NULL`.
    NullTest,
}

impl Infix {
    fn precedence(self) -> u8 {
        match self {
            Infix::Operator(BinaryLike::Binary(op)) => op.precedence(),
            Infix::Operator(_) | Infix::NullTest => prec::PREDICATE,
        }
    }

    fn is_comparison(self) -> bool {
        matches!(self, Infix::Operator(BinaryLike::Binary(op)) if op.is_comparison())
    }
}

/// `lhs op rhs`.
fn combine(op: BinaryLike, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span.to(rhs.span);
    let lhs = Box::new(lhs);
    let rhs = Box::new(rhs);
    let kind = match op {
        BinaryLike::Binary(op) => ExprKind::Binary { op, lhs, rhs },
        BinaryLike::String(op) => ExprKind::StringPredicate { op, lhs, rhs },
        BinaryLike::In => ExprKind::In {
            expr: lhs,
            list: rhs,
        },
    };
    Expr::new(kind, span)
}

/// `expr IS [NOT] NULL`, ending at `end`.
fn null_test(expr: Expr, negated: bool, end: Span) -> Expr {
    let span = expr.span.to(end);
    Expr::new(
        ExprKind::IsNull {
            expr: Box::new(expr),
            negated,
        },
        span,
    )
}

/// `op operand`, the operator at `start`.
fn unary(op: UnaryOp, start: Span, operand: Expr) -> Expr {
    let span = start.to(operand.span);
    Expr::new(
        ExprKind::Unary {
            op,
            expr: Box::new(operand),
        },
        span,
    )
}

impl Parser<'_> {
    /// A full expression.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.expr_above(0)
    }

    /// An expression whose operators all bind tighter than level `min`.
    fn expr_above(&mut self, min: u8) -> PResult<Expr> {
        let saved = self.depth;
        let result = self.expr_above_inner(min);
        self.depth = saved;
        result
    }

    fn expr_above_inner(&mut self, min: u8) -> PResult<Expr> {
        self.descend()?;
        let mut lhs = self.prefix(min)?;
        // After a comparison, its right operand: `a < b < c` is `a < b AND b < c`.
        let mut compared: Option<Expr> = None;
        while let Some(op) = self.infix() {
            if op.precedence() <= min {
                break;
            }
            // Every operator applied in this loop deepens the tree by one level.
            self.descend()?;
            match (op, compared.take()) {
                (_, Some(middle)) if op.is_comparison() => {
                    let link = self.apply_infix(op, middle)?;
                    compared = match &link.kind {
                        ExprKind::Binary { rhs, .. } => Some((**rhs).clone()),
                        _ => None,
                    };
                    lhs = combine(BinaryLike::Binary(BinaryOp::And), lhs, link);
                }
                _ => {
                    lhs = self.apply_infix(op, lhs)?;
                    if op.is_comparison() {
                        compared = match &lhs.kind {
                            ExprKind::Binary { rhs, .. } => Some((**rhs).clone()),
                            _ => None,
                        };
                    }
                }
            }
        }
        Ok(lhs)
    }

    /// The operator at the next token, without consuming it.
    fn infix(&self) -> Option<Infix> {
        let binary = |op| Some(Infix::Operator(BinaryLike::Binary(op)));
        let string = |op| Some(Infix::Operator(BinaryLike::String(op)));
        match self.peek_kind() {
            TokenKind::Keyword(Keyword::Or) => binary(BinaryOp::Or),
            TokenKind::Keyword(Keyword::Xor) => binary(BinaryOp::Xor),
            TokenKind::Keyword(Keyword::And) => binary(BinaryOp::And),
            TokenKind::Eq => binary(BinaryOp::Eq),
            TokenKind::Ne => binary(BinaryOp::Ne),
            TokenKind::Lt => binary(BinaryOp::Lt),
            TokenKind::Le => binary(BinaryOp::Le),
            TokenKind::Gt => binary(BinaryOp::Gt),
            TokenKind::Ge => binary(BinaryOp::Ge),
            TokenKind::Plus => binary(BinaryOp::Add),
            TokenKind::Minus => binary(BinaryOp::Sub),
            TokenKind::Star => binary(BinaryOp::Mul),
            TokenKind::Slash => binary(BinaryOp::Div),
            TokenKind::Percent => binary(BinaryOp::Mod),
            TokenKind::RegexMatch => string(StringOp::Regex),
            TokenKind::Keyword(Keyword::Contains) => string(StringOp::Contains),
            TokenKind::Keyword(Keyword::Starts) => string(StringOp::StartsWith),
            TokenKind::Keyword(Keyword::Ends) => string(StringOp::EndsWith),
            TokenKind::Keyword(Keyword::In) => Some(Infix::Operator(BinaryLike::In)),
            TokenKind::Keyword(Keyword::Is) => Some(Infix::NullTest),
            _ => None,
        }
    }

    /// Consumes operator `op` and its right operand, combining them with `lhs`.
    fn apply_infix(&mut self, op: Infix, lhs: Expr) -> PResult<Expr> {
        self.advance();
        match op {
            Infix::NullTest => {
                let negated = self.null_test_rest()?;
                Ok(null_test(lhs, negated, self.prev_span))
            }
            Infix::Operator(op) => {
                self.operator_rest(op)?;
                let rhs = self.expr_above(Infix::Operator(op).precedence())?;
                Ok(combine(op, lhs, rhs))
            }
        }
    }

    /// The `WITH` of `STARTS WITH` and `ENDS WITH`.
    fn operator_rest(&mut self, op: BinaryLike) -> PResult<()> {
        match op {
            BinaryLike::String(StringOp::StartsWith) => {
                self.expect_keyword(Keyword::With, "WITH after STARTS")?;
            }
            BinaryLike::String(StringOp::EndsWith) => {
                self.expect_keyword(Keyword::With, "WITH after ENDS")?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `[NOT] NULL` after `IS`; true for `IS NOT NULL`.
    fn null_test_rest(&mut self) -> PResult<bool> {
        let negated = self.eat_keyword(Keyword::Not).is_some();
        let what = if negated {
            "NULL after IS NOT"
        } else {
            "NULL or NOT after IS"
        };
        self.expect_keyword(Keyword::Null, what)?;
        Ok(negated)
    }

    /// Prefix operators, then an atom with its postfix operators. `min` is the caller's level.
    fn prefix(&mut self, min: u8) -> PResult<Expr> {
        match self.peek_kind() {
            TokenKind::Keyword(Keyword::Not) => self.not_expr(min),
            TokenKind::Minus => self.negation(),
            _ => {
                let atom = self.atom()?;
                self.postfix(atom)
            }
        }
    }

    /// `NOT operand`. `NOT` binds looser than comparisons, so `a = NOT b` needs parentheses.
    fn not_expr(&mut self, min: u8) -> PResult<Expr> {
        if min >= prec::NOT {
            return Err(self.misplaced_not_error());
        }
        let start = self.advance();
        let operand = self.expr_above(prec::NOT - 1)?;
        Ok(unary(UnaryOp::Not, start, operand))
    }

    /// `-operand`, or a negative number literal (so that `-9223372036854775808` is an `Int`).
    fn negation(&mut self) -> PResult<Expr> {
        let start = self.advance();
        if let Some(literal) = self.negative_number()? {
            return Ok(Expr::new(
                ExprKind::Literal(literal),
                start.to(self.prev_span),
            ));
        }
        let operand = self.expr_above(prec::NEGATION)?;
        Ok(unary(UnaryOp::Neg, start, operand))
    }

    /// After a `-`: a number literal, negated.
    fn negative_number(&mut self) -> PResult<Option<Literal>> {
        match self.peek_kind() {
            TokenKind::Integer(_) => Ok(Some(Literal::Int(self.integer(true)?))),
            TokenKind::Float(x) => {
                let x = -*x;
                self.advance();
                Ok(Some(Literal::Float(x)))
            }
            _ => Ok(None),
        }
    }

    /// Consumes an integer literal token, negated when `negative`, checking it fits an `i64`.
    pub(super) fn integer(&mut self, negative: bool) -> PResult<i64> {
        let TokenKind::Integer(magnitude) = *self.peek_kind() else {
            return Err(self.error_expected("an integer").into());
        };
        let value = if negative {
            -i128::from(magnitude)
        } else {
            i128::from(magnitude)
        };
        let Ok(value) = i64::try_from(value) else {
            return Err(Box::new(
                QueryError::syntax("integer literal does not fit in 64 bits", self.peek().span)
                    .with_help(format!("integers range from {} to {}", i64::MIN, i64::MAX)),
            ));
        };
        self.advance();
        Ok(value)
    }

    /// `.key` property accesses and `:Label` tests after an atom.
    fn postfix(&mut self, mut expr: Expr) -> PResult<Expr> {
        loop {
            if self.at(&TokenKind::Dot) && !self.at_range_dots() {
                self.advance();
                let key = self.symbolic_name("a property key after '.'")?;
                if self.at(&TokenKind::LParen) {
                    return Err(Box::new(QueryError::unsupported(
                        "a namespaced or user-defined function",
                        expr.span.to(key.span),
                    )));
                }
                self.descend()?;
                let span = expr.span.to(key.span);
                let base = Box::new(expr);
                expr = Expr::new(ExprKind::Property { base, key }, span);
            } else if self.at(&TokenKind::Colon) && matches!(expr.kind, ExprKind::Var(_)) {
                let labels = self.label_expr()?;
                self.descend()?;
                let span = expr.span.to(self.prev_span);
                let base = Box::new(expr);
                expr = Expr::new(ExprKind::HasLabels { base, labels }, span);
            } else if self.at(&TokenKind::LBracket) {
                self.descend_extra(2)?;
                expr = self.index_or_slice(expr)?;
            } else {
                return Ok(expr);
            }
        }
    }

    /// True at `..` (two adjacent dots).
    fn at_range_dots(&self) -> bool {
        self.at(&TokenKind::Dot) && self.peek_nth(1) == &TokenKind::Dot && self.tokens_adjacent(0)
    }

    /// True when token `n` ends where token `n + 1` starts.
    fn tokens_adjacent(&self, n: usize) -> bool {
        self.peek_token(n).span.end == self.peek_token(n + 1).span.start
    }

    /// `[index]` or `[from..to]` after `base`, at `[`.
    fn index_or_slice(&mut self, base: Expr) -> PResult<Expr> {
        self.advance();
        let from = if self.at_range_dots() {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let kind = if self.at_range_dots() {
            self.advance();
            self.advance();
            let to = if self.at(&TokenKind::RBracket) {
                None
            } else {
                Some(Box::new(self.expr()?))
            };
            ExprKind::Slice {
                base: Box::new(base.clone()),
                from,
                to,
            }
        } else {
            match from {
                Some(index) => ExprKind::Index {
                    base: Box::new(base.clone()),
                    index,
                },
                None => return Err(self.error_expected("an index").into()),
            }
        };
        let close = self.expect(&TokenKind::RBracket, "']' after the index or slice")?;
        Ok(Expr::new(kind, base.span.to(close)))
    }

    /// At `[`: a list comprehension `[x IN …` rather than a list literal?
    fn at_comprehension(&self, n: usize) -> bool {
        matches!(
            self.peek_nth(n),
            TokenKind::Ident(_) | TokenKind::QuotedIdent(_)
        ) && self.peek_nth(n + 1) == &TokenKind::Keyword(Keyword::In)
    }

    /// `var IN list [WHERE filter] [| map]` up to (not including) the closing token.
    fn comprehension_body(&mut self, kind: ComprehensionKind) -> PResult<Comprehension> {
        let var = self.symbolic_name("a variable")?;
        self.expect_keyword(Keyword::In, "IN after the variable")?;
        let list = self.expr()?;
        let filter = match self.eat_keyword(Keyword::Where) {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        let map = if kind == ComprehensionKind::List && self.eat(&TokenKind::Pipe).is_some() {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Comprehension {
            kind,
            var,
            list,
            filter,
            map,
        })
    }

    /// `[x IN list WHERE p | e]`, at `[`.
    fn list_comprehension(&mut self) -> PResult<Expr> {
        self.descend_extra(2)?;
        let open = self.advance();
        let c = self.comprehension_body(ComprehensionKind::List)?;
        let close = self.expect(&TokenKind::RBracket, "']' to close the list comprehension")?;
        Ok(Expr::new(
            ExprKind::Comprehension(Box::new(c)),
            open.to(close),
        ))
    }

    /// `any|all|none|single(x IN list WHERE p)`, at the name.
    fn list_predicate(&mut self, kind: ComprehensionKind) -> PResult<Expr> {
        self.descend_extra(2)?;
        let start = self.advance();
        self.advance();
        let c = self.comprehension_body(kind)?;
        if c.filter.is_none() {
            return Err(Box::new(
                QueryError::syntax("a list predicate needs a WHERE condition", start)
                    .with_help("write `any(x IN list WHERE condition)`"),
            ));
        }
        let close = self.expect(&TokenKind::RParen, "')' to close the list predicate")?;
        Ok(Expr::new(
            ExprKind::Comprehension(Box::new(c)),
            start.to(close),
        ))
    }

    /// The list predicate named by the token at the cursor, when a `x IN` follows its `(`.
    fn list_predicate_kind(&self) -> Option<ComprehensionKind> {
        let name = match self.peek_kind() {
            TokenKind::Ident(n) => n.to_ascii_lowercase(),
            TokenKind::Keyword(_) => self.text(self.peek().span).to_ascii_lowercase(),
            _ => return None,
        };
        let kind = match name.as_str() {
            "any" => ComprehensionKind::Any,
            "all" => ComprehensionKind::All,
            "none" => ComprehensionKind::None,
            "single" => ComprehensionKind::Single,
            _ => return None,
        };
        (self.peek_nth(1) == &TokenKind::LParen && self.at_comprehension(2)).then_some(kind)
    }

    /// Dispatches on the next tokens to the kinds of atoms.
    fn atom(&mut self) -> PResult<Expr> {
        if let Some(kind) = self.list_predicate_kind() {
            return self.list_predicate(kind);
        }
        match (self.peek_nth(0), self.peek_nth(1)) {
            (TokenKind::LBracket, _) if self.at_comprehension(1) => self.list_comprehension(),
            (TokenKind::LBracket, _) => self.list(),
            (TokenKind::LParen, _) if self.parenthesis_starts_pattern() => self.pattern_predicate(),
            (TokenKind::LParen, _) => self.parenthesized(),
            (
                TokenKind::Ident(_)
                | TokenKind::QuotedIdent(_)
                | TokenKind::Keyword(Keyword::Exists),
                TokenKind::LParen,
            ) => self.function_call(),
            (TokenKind::Keyword(Keyword::Exists), _) => self.exists(),
            (TokenKind::Ident(_), TokenKind::Dot) if self.at_namespaced_call() => {
                self.function_call()
            }
            _ => self.simple_atom(),
        }
    }

    /// Atoms without sub-expressions: literals, parameters and variables.
    fn simple_atom(&mut self) -> PResult<Expr> {
        let span = self.peek().span;
        let kind = match self.peek_kind() {
            TokenKind::Integer(_) => {
                let value = self.integer(false)?;
                return Ok(Expr::new(ExprKind::Literal(Literal::Int(value)), span));
            }
            TokenKind::Float(x) => ExprKind::Literal(Literal::Float(*x)),
            TokenKind::String(s) => ExprKind::Literal(Literal::String(s.clone())),
            TokenKind::Keyword(Keyword::True) => ExprKind::Literal(Literal::Bool(true)),
            TokenKind::Keyword(Keyword::False) => ExprKind::Literal(Literal::Bool(false)),
            TokenKind::Keyword(Keyword::Null) => ExprKind::Literal(Literal::Null),
            TokenKind::Param(name) => ExprKind::Param(name.clone()),
            TokenKind::Ident(name) | TokenKind::QuotedIdent(name) => {
                if self.peek_nth(1) == &TokenKind::LBrace
                    && (name.eq_ignore_ascii_case("count") || name.eq_ignore_ascii_case("collect"))
                {
                    return Err(Box::new(
                        QueryError::unsupported(
                            "a COUNT { ... } or COLLECT { ... } subquery",
                            span,
                        )
                        .with_help("EXISTS { ... } is the only subquery gemp supports"),
                    ));
                }
                ExprKind::Var(name.clone())
            }
            TokenKind::Keyword(Keyword::Case) => return self.case_expr(),
            TokenKind::LBrace => {
                self.descend_extra(1)?;
                let entries = self.property_map()?;
                return Ok(Expr::new(ExprKind::Map(entries), span.to(self.prev_span)));
            }
            _ => return Err(self.error_expected("an expression").into()),
        };
        self.advance();
        Ok(Expr::new(kind, span))
    }

    /// `CASE [subject] (WHEN expr THEN expr)+ [ELSE expr] END`, at `CASE`.
    fn case_expr(&mut self) -> PResult<Expr> {
        self.descend_extra(2)?;
        let start = self.advance();
        let subject = if self.at_keyword(Keyword::When) {
            None
        } else if self.at_keyword(Keyword::End) || self.at_keyword(Keyword::Else) {
            return Err(self.error_expected("WHEN in CASE expression").into());
        } else {
            Some(self.expr()?)
        };
        let mut branches = Vec::new();
        while self.eat_keyword(Keyword::When).is_some() {
            let when = self.expr()?;
            self.expect_keyword(Keyword::Then, "THEN after the WHEN expression")?;
            branches.push((when, self.expr()?));
        }
        if branches.is_empty() {
            let e = self.error_expected("WHEN in CASE expression");
            return Err(Box::new(e.with_help(
                "write `CASE WHEN condition THEN value [ELSE value] END`",
            )));
        }
        let default = match self.eat_keyword(Keyword::Else) {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        if self.eat_keyword(Keyword::End).is_none() {
            let what = if default.is_some() {
                "END to close the CASE expression"
            } else {
                "WHEN, ELSE or END in CASE expression"
            };
            return Err(self.error_expected(what).into());
        }
        let kind = ExprKind::Case(Box::new(CaseExpr {
            subject,
            branches,
            default,
        }));
        Ok(Expr::new(kind, start.to(self.prev_span)))
    }

    /// `(expr)`, at `(`.
    fn parenthesized(&mut self) -> PResult<Expr> {
        let open = self.advance();
        let inner = self.expr()?;
        let close = self.expect(&TokenKind::RParen, "')' to close '('")?;
        Ok(Expr {
            span: open.to(close),
            ..inner
        })
    }

    /// A path pattern used as a boolean, at its first `(`.
    fn pattern_predicate(&mut self) -> PResult<Expr> {
        self.descend_extra(2)?;
        let path = self.path_pattern()?;
        let span = path.span;
        Ok(Expr::new(ExprKind::PatternPredicate(path), span))
    }

    /// `EXISTS { ... }`, at `EXISTS`.
    fn exists(&mut self) -> PResult<Expr> {
        self.descend_extra(2)?;
        let sub = self.exists_subquery()?;
        let span = sub.span;
        Ok(Expr::new(ExprKind::Exists(Box::new(sub)), span))
    }

    /// `[expr, ...]`, at `[`.
    fn list(&mut self) -> PResult<Expr> {
        self.descend_extra(1)?;
        let open = self.advance();
        let items = self.expr_list(&TokenKind::RBracket, "',' or ']' in list", open)?;
        Ok(Expr::new(ExprKind::List(items), open.to(self.prev_span)))
    }

    /// Comma-separated expressions through the `close` token (already past the opening one), where
    /// `|` or `WHERE` after an item means a comprehension or list predicate starting at `start`.
    fn expr_list(&mut self, close: &TokenKind, what: &str, start: Span) -> PResult<Vec<Expr>> {
        let mut items = Vec::new();
        if self.eat(close).is_some() {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            // A list of millions of elements takes seconds: it stops at the run's deadline.
            if items.len() % 4096 == 0 && crate::util::deadline::current_passed() {
                return Err(self.out_of_time());
            }
            self.reject_comprehension(start)?;
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect(close, what)?;
        Ok(items)
    }

    /// `name([DISTINCT] args)` or `count(*)`, at the name.
    fn function_call(&mut self) -> PResult<Expr> {
        self.descend_extra(1)?;
        let name = self.function_name()?;
        if name.name.eq_ignore_ascii_case("count") && self.eat(&TokenKind::Star).is_some() {
            let close = self.expect(&TokenKind::RParen, "')' after count(*")?;
            return Ok(Expr::new(ExprKind::CountStar, name.span.to(close)));
        }
        let distinct = self.eat_keyword(Keyword::Distinct).is_some();
        let args = self.expr_list(&TokenKind::RParen, "',' or ')' in function call", name.span)?;
        let span = name.span.to(self.prev_span);
        Ok(Expr::new(
            ExprKind::FunctionCall {
                name,
                distinct,
                args,
            },
            span,
        ))
    }

    /// At `name.name(`: a namespaced function call (`datetime.fromepoch(…)`).
    fn at_namespaced_call(&self) -> bool {
        matches!(
            (
                self.peek_nth(0),
                self.peek_nth(1),
                self.peek_nth(2),
                self.peek_nth(3)
            ),
            (
                TokenKind::Ident(_),
                TokenKind::Dot,
                TokenKind::Ident(_),
                TokenKind::LParen
            )
        )
    }

    /// The function name and `(`.
    fn function_name(&mut self) -> PResult<Name> {
        let span = self.peek().span;
        let name = match self.peek_kind() {
            TokenKind::Ident(name) | TokenKind::QuotedIdent(name) => name.clone(),
            _ => self.text(span).to_string(),
        };
        if is_shortest_path(&name) {
            return Err(self.shortest_path_error(&name).into());
        }
        self.advance();
        // `namespace.name(`: `datetime.fromepoch(…)`, `date.truncate(…)`.
        let mut name = name;
        let mut span = span;
        while let (TokenKind::Dot, TokenKind::Ident(part)) = (self.peek_nth(0), self.peek_nth(1)) {
            name = format!("{name}.{part}");
            self.advance();
            span = span.to(self.advance());
        }
        self.expect(&TokenKind::LParen, "'(' after function name")?;
        Ok(Name { name, span })
    }

    /// At `(`: does a path pattern start here, i.e. is the matching `)` followed by `-[`, `--`, `<-[`
    /// or `<--`? Decided by looking ahead, so nothing is parsed twice.
    fn parenthesis_starts_pattern(&self) -> bool {
        let mut depth = 0usize;
        let mut n = 0;
        loop {
            match self.peek_nth(n) {
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => depth += 1,
                TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                TokenKind::Eof => return false,
                _ => {}
            }
            n += 1;
        }
        let arrow_body = |k: &TokenKind| matches!(k, TokenKind::LBracket | TokenKind::Minus);
        match (self.peek_nth(n + 1), self.peek_nth(n + 2)) {
            (TokenKind::Minus, next) => arrow_body(next),
            (TokenKind::Lt, TokenKind::Minus) => arrow_body(self.peek_nth(n + 3)),
            _ => false,
        }
    }

    /// Atoms whose nested expressions sit under several parser functions cost `levels` more levels of
    /// [`MAX_DEPTH`](super::MAX_DEPTH), keeping the stack used per level roughly even. The enclosing
    /// `expr_above` restores the depth.
    fn descend_extra(&mut self, levels: usize) -> PResult<()> {
        for _ in 0..levels {
            self.descend()?;
        }
        Ok(())
    }

    // ----- errors -----

    #[cold]
    fn misplaced_not_error(&self) -> Box<QueryError> {
        Box::new(
            QueryError::syntax(
                "NOT cannot appear inside a comparison or arithmetic expression",
                self.peek().span,
            )
            .with_help("put the NOT expression in parentheses"),
        )
    }

    /// `|` or `WHERE` after the first element of a list: a list or pattern comprehension.
    fn reject_comprehension(&self, start: Span) -> PResult<()> {
        if self.at(&TokenKind::Pipe) || self.at_keyword(Keyword::Where) {
            return Err(Box::new(
                QueryError::unsupported(
                    "a list comprehension, pattern comprehension or list predicate",
                    start.to(self.peek().span),
                )
                .with_help("test list membership with `IN`"),
            ));
        }
        Ok(())
    }
}
