//! Parser tests. Expected trees are built with the helpers below, with default spans; trees are
//! compared after serialising them and dropping every `span` field ([`assert_same`]). Spans are checked
//! by dedicated tests.

use serde::Serialize;
use serde_json::Value;

use super::parse_query;
use crate::pattern::ast::*;
use crate::pattern::error::{QueryError, QueryErrorKind};

mod clauses;
mod errors;
mod exprs;
mod fuzz;
mod patterns;
mod queries;
mod roundtrip;
mod updates;

// ----- running the parser -----

/// Parses `src`, failing the test with the rendered error.
fn parse(src: &str) -> Query {
    parse_query(src).unwrap_or_else(|e| panic!("{}", e.render(src, Some("test.cypher"))))
}

/// Parses `src`, which must fail.
fn parse_err(src: &str) -> QueryError {
    match parse_query(src) {
        Ok(q) => panic!("expected an error for {src:?}, got {q:#?}"),
        Err(e) => e,
    }
}

/// Parses `src`, which must fail with an error of `kind`.
fn parse_err_kind(src: &str, kind: QueryErrorKind) -> QueryError {
    let e = parse_err(src);
    assert_eq!(e.kind, kind, "{src:?}: {e}");
    e
}

/// The WHERE expression of `MATCH (a) WHERE {condition}`.
fn where_expr(condition: &str) -> Expr {
    parse(&format!("MATCH (a) WHERE {condition}"))
        .where_clause
        .expect("a WHERE clause")
}

/// The first item of `MATCH (a) RETURN {item}`.
fn return_expr(item: &str) -> Expr {
    let mut q = parse(&format!("MATCH (a) RETURN {item}"));
    q.ret.take().expect("RETURN").items.remove(0).expr
}

// ----- comparing trees -----

fn strip_spans(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| k != "span")
                .map(|(k, v)| (k, strip_spans(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_spans).collect()),
        other => other,
    }
}

/// The tree as pretty JSON without spans.
fn shape<T: Serialize>(tree: &T) -> String {
    let value = serde_json::to_value(tree).expect("serialisable");
    serde_json::to_string_pretty(&strip_spans(value)).expect("printable")
}

/// Asserts two trees are equal, spans aside.
#[track_caller]
fn assert_same<T: Serialize>(actual: &T, expected: &T) {
    assert_eq!(shape(actual), shape(expected));
}

// ----- building expected trees (all spans default) -----

fn name(s: &str) -> Name {
    Name {
        name: s.to_string(),
        span: Span::default(),
    }
}

fn ex(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

fn var(s: &str) -> Expr {
    ex(ExprKind::Var(s.to_string()))
}

fn int(i: i64) -> Expr {
    ex(ExprKind::Literal(Literal::Int(i)))
}

fn float(x: f64) -> Expr {
    ex(ExprKind::Literal(Literal::Float(x)))
}

fn string(s: &str) -> Expr {
    ex(ExprKind::Literal(Literal::String(s.to_string())))
}

fn boolean(b: bool) -> Expr {
    ex(ExprKind::Literal(Literal::Bool(b)))
}

fn null() -> Expr {
    ex(ExprKind::Literal(Literal::Null))
}

fn param(s: &str) -> Expr {
    ex(ExprKind::Param(s.to_string()))
}

fn list(items: Vec<Expr>) -> Expr {
    ex(ExprKind::List(items))
}

fn prop(base: Expr, key: &str) -> Expr {
    ex(ExprKind::Property {
        base: Box::new(base),
        key: name(key),
    })
}

/// `v.key`
fn vp(v: &str, key: &str) -> Expr {
    prop(var(v), key)
}

fn bin(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    ex(ExprKind::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    })
}

fn unary(op: UnaryOp, e: Expr) -> Expr {
    ex(ExprKind::Unary {
        op,
        expr: Box::new(e),
    })
}

fn not(e: Expr) -> Expr {
    unary(UnaryOp::Not, e)
}

fn string_op(op: StringOp, lhs: Expr, rhs: Expr) -> Expr {
    ex(ExprKind::StringPredicate {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    })
}

fn is_null(e: Expr, negated: bool) -> Expr {
    ex(ExprKind::IsNull {
        expr: Box::new(e),
        negated,
    })
}

fn in_list(e: Expr, l: Expr) -> Expr {
    ex(ExprKind::In {
        expr: Box::new(e),
        list: Box::new(l),
    })
}

fn call(f: &str, args: Vec<Expr>) -> Expr {
    ex(ExprKind::FunctionCall {
        name: name(f),
        distinct: false,
        args,
    })
}

/// `id(v)`
fn id(v: &str) -> Expr {
    call("id", vec![var(v)])
}

fn labels(all_of: &[&[&str]]) -> LabelExpr {
    LabelExpr {
        all_of: all_of
            .iter()
            .map(|alternatives| alternatives.iter().map(|l| name(l)).collect())
            .collect(),
    }
}

/// `(v:L1|L2)`: `var` "" is anonymous; `alternatives` one conjunct (none when empty).
fn node(v: &str, alternatives: &[&str]) -> NodePattern {
    NodePattern {
        var: (!v.is_empty()).then(|| name(v)),
        labels: if alternatives.is_empty() {
            LabelExpr::default()
        } else {
            labels(&[alternatives])
        },
        props: Vec::new(),
        has_map: false,
        span: Span::default(),
    }
}

fn props(entries: Vec<(&str, Expr)>) -> Vec<PropertyEntry> {
    entries
        .into_iter()
        .map(|(k, value)| PropertyEntry {
            key: name(k),
            value,
        })
        .collect()
}

/// `-[v:T1|T2]->` etc.: `var` "" is anonymous.
fn rel(v: &str, types: &[&str], direction: Direction) -> RelPattern {
    RelPattern {
        var: (!v.is_empty()).then(|| name(v)),
        types: types.iter().map(|t| name(t)).collect(),
        direction,
        props: Vec::new(),
        hops: None,
        span: Span::default(),
    }
}

fn path(nodes: Vec<NodePattern>, rels: Vec<RelPattern>) -> PathPattern {
    PathPattern {
        nodes,
        rels,
        clause: 0,
        name: None,
        span: Span::default(),
    }
}

fn item(expr: Expr, alias: Option<&str>) -> ReturnItem {
    ReturnItem {
        expr,
        alias: alias.map(name),
        span: Span::default(),
    }
}

fn sort(expr: Expr, descending: bool) -> SortItem {
    SortItem {
        expr,
        descending,
        span: Span::default(),
    }
}

/// A projection of `items` with no DISTINCT, star, ordering or paging.
fn projection(items: Vec<ReturnItem>) -> Projection {
    Projection {
        distinct: false,
        star: false,
        items,
        order_by: Vec::new(),
        skip: None,
        limit: None,
        span: Span::default(),
    }
}

/// A query with just these patterns.
fn query(matches: Vec<PathPattern>) -> Query {
    Query {
        matches,
        where_clause: None,
        with_clauses: Vec::new(),
        ret: None,
        span: Span::default(),
        leading: Vec::new(),
        trailing: Vec::new(),
        union: Vec::new(),
    }
}
