//! Printing the syntax tree back as Cypher, for column headers and `gemp explain`.
//!
//! The output is normalised (upper-case keywords, single-quoted strings, minimal parentheses, names
//! backtick-quoted only when needed) and parses back to the same tree, spans aside.

use std::fmt::{self, Display, Formatter, Write};

use super::{
    prec, BinaryOp, Direction, Expr, ExprKind, LabelExpr, Literal, Name, NodePattern, PathPattern,
    Projection, Query, ReadingClause, RelPattern, ReturnItem, SortItem, SubQuery, UnaryOp, Unwind,
    WithClause,
};
use crate::pattern::lexer::{is_identifier, Keyword};

/// True when `e` may print starting with a minus sign (over-approximated: extra parentheses are
/// harmless).
fn starts_with_minus(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Unary {
            op: UnaryOp::Neg, ..
        } => true,
        ExprKind::Literal(Literal::Int(i)) => *i < 0,
        ExprKind::Literal(Literal::Float(x)) => x.is_sign_negative(),
        ExprKind::Binary { lhs, .. } | ExprKind::StringPredicate { lhs, .. } => {
            starts_with_minus(lhs)
        }
        ExprKind::In { expr, .. } | ExprKind::IsNull { expr, .. } => starts_with_minus(expr),
        ExprKind::Property { base, .. }
        | ExprKind::HasLabels { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. } => starts_with_minus(base),
        _ => false,
    }
}

/// True when `e` may print starting with `[` (a list literal, possibly under a property access or
/// as the left operand of an operator).
fn starts_with_bracket(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::List(_) => true,
        ExprKind::Binary { lhs, .. } | ExprKind::StringPredicate { lhs, .. } => {
            starts_with_bracket(lhs)
        }
        ExprKind::In { expr, .. } | ExprKind::IsNull { expr, .. } => starts_with_bracket(expr),
        ExprKind::Property { base, .. }
        | ExprKind::HasLabels { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. } => starts_with_bracket(base),
        ExprKind::Comprehension(c) => c.kind == super::ComprehensionKind::List,
        _ => false,
    }
}

/// True when `e`, printed right after a minus sign that follows a parenthesised operand, could
/// read as a relationship arrow (`(…) - -`, `(…) - [`, `(…) <- [`): such operands are printed
/// in parentheses.
fn reads_like_arrow_body(e: &Expr) -> bool {
    starts_with_minus(e) || starts_with_bracket(e)
}

/// Writes a name that may be a keyword without quoting (labels, types, property keys).
fn write_key(f: &mut Formatter<'_>, name: &str) -> fmt::Result {
    if is_identifier(name) {
        f.write_str(name)
    } else {
        write_quoted_name(f, name)
    }
}

/// Writes a variable or alias name, quoting keywords too.
fn write_ident(f: &mut Formatter<'_>, name: &str) -> fmt::Result {
    if is_identifier(name) && Keyword::from_word(name).is_none() {
        f.write_str(name)
    } else {
        write_quoted_name(f, name)
    }
}

fn write_quoted_name(f: &mut Formatter<'_>, name: &str) -> fmt::Result {
    f.write_char('`')?;
    f.write_str(&name.replace('`', "``"))?;
    f.write_char('`')
}

fn write_string_literal(f: &mut Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '\'' => f.write_str("\\'")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if c.is_control() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(f, "\\u{unit:04X}")?;
                }
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

/// Writes the paths of one or more `MATCH` clauses (the first keyword already written): `, `
/// between the paths of a clause, `between` (ending in `MATCH `) where a new clause starts.
fn write_matches(f: &mut Formatter<'_>, paths: &[PathPattern], between: &str) -> fmt::Result {
    for (i, path) in paths.iter().enumerate() {
        if i > 0 {
            f.write_str(if path.clause == paths[i - 1].clause {
                ", "
            } else {
                between
            })?;
        }
        path.fmt(f)?;
    }
    Ok(())
}

fn write_list<T>(
    f: &mut Formatter<'_>,
    items: &[T],
    mut each: impl FnMut(&mut Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        each(f, item)?;
    }
    Ok(())
}

/// Precedence used when printing: negative number literals print with a leading `-`, so they need
/// parentheses wherever a negation would.
fn print_precedence(expr: &Expr) -> u8 {
    match &expr.kind {
        ExprKind::Literal(Literal::Int(i)) if *i < 0 => prec::NEGATION,
        ExprKind::Literal(Literal::Float(x)) if x.is_sign_negative() => prec::NEGATION,
        kind => kind.precedence(),
    }
}

/// Writes `expr`, in parentheses when its precedence is below `min`.
fn write_expr(f: &mut Formatter<'_>, expr: &Expr, min: u8) -> fmt::Result {
    if print_precedence(expr) < min {
        f.write_char('(')?;
        write_kind(f, &expr.kind)?;
        f.write_char(')')
    } else {
        write_kind(f, &expr.kind)
    }
}

fn write_kind(f: &mut Formatter<'_>, kind: &ExprKind) -> fmt::Result {
    match kind {
        ExprKind::Literal(lit) => lit.fmt(f),
        ExprKind::List(items) => {
            f.write_char('[')?;
            write_list(f, items, |f, e| write_expr(f, e, 0))?;
            f.write_char(']')
        }
        ExprKind::Param(name) => write!(f, "${name}"),
        ExprKind::Var(name) => write_ident(f, name),
        ExprKind::Property { base, key } => {
            write_expr(f, base, prec::ATOM)?;
            f.write_char('.')?;
            write_key(f, &key.name)
        }
        ExprKind::HasLabels { base, labels } => {
            write_expr(f, base, prec::ATOM)?;
            labels.fmt(f)
        }
        ExprKind::FunctionCall {
            name,
            distinct,
            args,
        } => {
            if Keyword::from_word(&name.name) == Some(Keyword::Exists) {
                f.write_str(&name.name)?;
            } else {
                write_ident(f, &name.name)?;
            }
            f.write_str(if *distinct { "(DISTINCT " } else { "(" })?;
            write_list(f, args, |f, e| write_expr(f, e, 0))?;
            f.write_char(')')
        }
        ExprKind::CountStar => f.write_str("count(*)"),
        ExprKind::Unary { op, expr } => match op {
            UnaryOp::Not => {
                f.write_str("NOT ")?;
                write_expr(f, expr, prec::NOT)
            }
            UnaryOp::Neg => {
                f.write_char('-')?;
                // `-5` parses as a negative literal, so a negated number literal needs parentheses
                // to print back to the same tree.
                // `-[…]` and `--…` after a parenthesised operand read like an arrow.
                if matches!(
                    expr.kind,
                    ExprKind::Literal(Literal::Int(_) | Literal::Float(_))
                ) || reads_like_arrow_body(expr)
                {
                    f.write_char('(')?;
                    write_expr(f, expr, 0)?;
                    f.write_char(')')
                } else {
                    write_expr(f, expr, prec::NEGATION)
                }
            }
        },
        ExprKind::Binary { op, lhs, rhs } => {
            let p = op.precedence();
            // Left-associative, except comparisons, which do not chain at all.
            let left_min = if op.is_comparison() { p + 1 } else { p };
            write_expr(f, lhs, left_min)?;
            write!(f, " {} ", op.symbol())?;
            if matches!(op, BinaryOp::Add | BinaryOp::Sub) && reads_like_arrow_body(rhs) {
                // `x - -y` and `x - [1]` read like a `--` or `-[` arrow after a parenthesised
                // operand.
                f.write_char('(')?;
                write_expr(f, rhs, 0)?;
                f.write_char(')')
            } else {
                write_expr(f, rhs, p + 1)
            }
        }
        ExprKind::StringPredicate { op, lhs, rhs } => {
            write_expr(f, lhs, prec::PREDICATE)?;
            write!(f, " {} ", op.symbol())?;
            write_expr(f, rhs, prec::PREDICATE + 1)
        }
        ExprKind::In { expr, list } => {
            write_expr(f, expr, prec::PREDICATE)?;
            f.write_str(" IN ")?;
            write_expr(f, list, prec::PREDICATE + 1)
        }
        ExprKind::IsNull { expr, negated } => {
            write_expr(f, expr, prec::PREDICATE)?;
            f.write_str(if *negated { " IS NOT NULL" } else { " IS NULL" })
        }
        ExprKind::PatternPredicate(path) => path.fmt(f),
        ExprKind::Exists(sub) => sub.fmt(f),
        ExprKind::Case(case) => {
            f.write_str("CASE")?;
            if let Some(subject) = &case.subject {
                f.write_char(' ')?;
                write_expr(f, subject, 0)?;
            }
            for (when, then) in &case.branches {
                f.write_str(" WHEN ")?;
                write_expr(f, when, 0)?;
                f.write_str(" THEN ")?;
                write_expr(f, then, 0)?;
            }
            if let Some(default) = &case.default {
                f.write_str(" ELSE ")?;
                write_expr(f, default, 0)?;
            }
            f.write_str(" END")
        }
        ExprKind::Comprehension(c) => {
            match c.kind.function_name() {
                Some(name) => write!(f, "{name}(")?,
                None => f.write_char('[')?,
            }
            write_ident(f, &c.var.name)?;
            f.write_str(" IN ")?;
            write_expr(f, &c.list, 0)?;
            if let Some(filter) = &c.filter {
                f.write_str(" WHERE ")?;
                write_expr(f, filter, 0)?;
            }
            if let Some(map) = &c.map {
                f.write_str(" | ")?;
                write_expr(f, map, 0)?;
            }
            f.write_char(if c.kind.function_name().is_some() {
                ')'
            } else {
                ']'
            })
        }
        ExprKind::Map(entries) => write_props(f, entries),
        ExprKind::Index { base, index } => {
            write_expr(f, base, prec::ATOM)?;
            f.write_char('[')?;
            write_expr(f, index, 0)?;
            f.write_char(']')
        }
        ExprKind::Slice { base, from, to } => {
            write_expr(f, base, prec::ATOM)?;
            f.write_char('[')?;
            if let Some(from) = from {
                write_expr(f, from, 0)?;
            }
            f.write_str("..")?;
            if let Some(to) = to {
                write_expr(f, to, 0)?;
            }
            f.write_char(']')
        }
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => f.write_str("null"),
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Int(i) => write!(f, "{i}"),
            // `{:?}` keeps a decimal point or exponent ("1.0", "1e300"), so the text reads back as a float.
            Literal::Float(x) => write!(f, "{x:?}"),
            Literal::String(s) => write_string_literal(f, s),
        }
    }
}

impl Display for Name {
    /// Writes the name, backtick-quoted when it is not a plain identifier or is a keyword.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_ident(f, &self.name)
    }
}

impl Display for LabelExpr {
    /// Writes `:A|B:C` (nothing for an empty expression).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for alternatives in &self.all_of {
            f.write_char(':')?;
            for (i, label) in alternatives.iter().enumerate() {
                if i > 0 {
                    f.write_char('|')?;
                }
                write_key(f, &label.name)?;
            }
        }
        Ok(())
    }
}

fn write_props(f: &mut Formatter<'_>, props: &[super::PropertyEntry]) -> fmt::Result {
    f.write_char('{')?;
    write_list(f, props, |f, p| {
        write_key(f, &p.key.name)?;
        f.write_str(": ")?;
        write_expr(f, &p.value, 0)
    })?;
    f.write_char('}')
}

impl Display for NodePattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        if let Some(var) = &self.var {
            var.fmt(f)?;
        }
        self.labels.fmt(f)?;
        if !self.props.is_empty() {
            if self.var.is_some() || !self.labels.is_empty() {
                f.write_char(' ')?;
            }
            write_props(f, &self.props)?;
        }
        f.write_char(')')
    }
}

impl Display for RelPattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(if self.direction == Direction::Left {
            "<-"
        } else {
            "-"
        })?;
        if self.var.is_some()
            || !self.types.is_empty()
            || !self.props.is_empty()
            || self.hops.is_some()
        {
            f.write_char('[')?;
            if let Some(var) = &self.var {
                var.fmt(f)?;
            }
            for (i, ty) in self.types.iter().enumerate() {
                f.write_char(if i == 0 { ':' } else { '|' })?;
                write_key(f, &ty.name)?;
            }
            if let Some(h) = &self.hops {
                f.write_char('*')?;
                match (h.min, h.max) {
                    (Some(k), Some(_)) if h.exact => write!(f, "{k}")?,
                    (None, None) => {}
                    (lo, hi) => {
                        if let Some(lo) = lo {
                            write!(f, "{lo}")?;
                        }
                        f.write_str("..")?;
                        if let Some(hi) = hi {
                            write!(f, "{hi}")?;
                        }
                    }
                }
            }
            if !self.props.is_empty() {
                if self.var.is_some() || !self.types.is_empty() || self.hops.is_some() {
                    f.write_char(' ')?;
                }
                write_props(f, &self.props)?;
            }
            f.write_char(']')?;
        }
        f.write_str(if self.direction == Direction::Right {
            "->"
        } else {
            "-"
        })
    }
}

impl Display for PathPattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(name) = &self.name {
            write!(f, "{name} = ")?;
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if i > 0 {
                if let Some(rel) = self.rels.get(i - 1) {
                    rel.fmt(f)?;
                }
            }
            node.fmt(f)?;
        }
        Ok(())
    }
}

impl Display for SubQuery {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("EXISTS { MATCH ")?;
        write_matches(f, &self.matches, " MATCH ")?;
        if let Some(w) = &self.where_clause {
            write!(f, " WHERE {w}")?;
        }
        f.write_str(" }")
    }
}

impl Display for ReturnItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.expr.fmt(f)?;
        if let Some(alias) = &self.alias {
            write!(f, " AS {alias}")?;
        }
        Ok(())
    }
}

impl Display for SortItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.expr.fmt(f)?;
        if self.descending {
            f.write_str(" DESC")?;
        }
        Ok(())
    }
}

impl Display for Projection {
    /// Writes the clause body, without the `RETURN`/`WITH` keyword.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        if self.star {
            f.write_char('*')?;
            if !self.items.is_empty() {
                f.write_str(", ")?;
            }
        }
        write_list(f, &self.items, |f, item| item.fmt(f))?;
        if !self.order_by.is_empty() {
            f.write_str(" ORDER BY ")?;
            write_list(f, &self.order_by, |f, item| item.fmt(f))?;
        }
        if let Some(skip) = &self.skip {
            write!(f, " SKIP {skip}")?;
        }
        if let Some(limit) = &self.limit {
            write!(f, " LIMIT {limit}")?;
        }
        Ok(())
    }
}

impl Display for WithClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "WITH {}", self.projection)?;
        if let Some(w) = &self.where_clause {
            write!(f, " WHERE {w}")?;
        }
        Ok(())
    }
}

impl Display for Query {
    /// Writes the query with one clause per line.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for unwind in &self.leading {
            write!(f, "{sep}{unwind}")?;
            sep = "\n";
        }
        if !self.matches.is_empty() {
            write!(f, "{sep}MATCH ")?;
            write_matches(f, &self.matches, "\nMATCH ")?;
            sep = "\n";
        }
        if let Some(w) = &self.where_clause {
            write!(f, "{sep}WHERE {w}")?;
        }
        for clause in &self.trailing {
            match clause {
                ReadingClause::Unwind(unwind) => write!(f, "{sep}{unwind}")?,
                ReadingClause::OptionalMatch(m) => {
                    write!(f, "{sep}OPTIONAL MATCH ")?;
                    write_list(f, &m.paths, |f, p| p.fmt(f))?;
                    if let Some(w) = &m.where_clause {
                        write!(f, "\nWHERE {w}")?;
                    }
                }
            }
            sep = "\n";
        }
        for with in &self.with_clauses {
            write!(f, "{sep}{with}")?;
            for unwind in &with.unwinds {
                write!(f, "\n{unwind}")?;
            }
            // A query may start with WITH: what follows goes on its own line.
            sep = "\n";
        }
        if let Some(ret) = &self.ret {
            write!(f, "{sep}RETURN {ret}")?;
        }
        for u in &self.union {
            let keyword = if u.all { "UNION ALL" } else { "UNION" };
            write!(f, "\n{keyword}\n{}", u.query)?;
        }
        Ok(())
    }
}

impl Display for Unwind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("UNWIND ")?;
        write_expr(f, &self.list, 0)?;
        f.write_str(" AS ")?;
        write_ident(f, &self.alias.name)
    }
}
