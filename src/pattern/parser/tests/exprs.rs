//! Expressions: precedence, predicates, pattern predicates, literals.

use super::*;

use BinaryOp::*;

#[test]
fn boolean_precedence() {
    // OR < XOR < AND < NOT
    assert_same(
        &where_expr("a OR b AND NOT c XOR d"),
        &bin(
            Or,
            var("a"),
            bin(Xor, bin(And, var("b"), not(var("c"))), var("d")),
        ),
    );
    assert_same(
        &where_expr("NOT a AND b OR c"),
        &bin(Or, bin(And, not(var("a")), var("b")), var("c")),
    );
    assert_same(
        &where_expr("a AND b AND c"),
        &bin(And, bin(And, var("a"), var("b")), var("c")),
    );
    assert_same(
        &where_expr("(a OR b) AND c"),
        &bin(And, bin(Or, var("a"), var("b")), var("c")),
    );
    assert_same(&where_expr("NOT NOT a"), &not(not(var("a"))));
    assert_same(
        &where_expr("NOT a.x = 1"),
        &not(bin(Eq, vp("a", "x"), int(1))),
    );
}

#[test]
fn comparisons() {
    for (text, op) in [
        ("=", Eq),
        ("<>", Ne),
        ("!=", Ne),
        ("<", Lt),
        ("<=", Le),
        (">", Gt),
        (">=", Ge),
    ] {
        assert_same(
            &where_expr(&format!("a.x {text} $p")),
            &bin(op, vp("a", "x"), param("p")),
        );
    }
    assert_same(
        &where_expr("id(a) < id(b) AND a.x >= 1.5"),
        &bin(
            And,
            bin(Lt, id("a"), id("b")),
            bin(Ge, vp("a", "x"), float(1.5)),
        ),
    );
}

#[test]
fn arithmetic_precedence() {
    assert_same(
        &where_expr("a.x + a.y * 2 - a.z % 3 / 4 > 0"),
        &bin(
            Gt,
            bin(
                Sub,
                bin(Add, vp("a", "x"), bin(Mul, vp("a", "y"), int(2))),
                bin(Div, bin(Mod, vp("a", "z"), int(3)), int(4)),
            ),
            int(0),
        ),
    );
    assert_same(
        &return_expr("-a.x * 2"),
        &bin(Mul, unary(UnaryOp::Neg, vp("a", "x")), int(2)),
    );
    assert_same(&return_expr("1 - -2"), &bin(Sub, int(1), int(-2)));
    assert_same(&return_expr("1-2"), &bin(Sub, int(1), int(2)));
    assert_same(
        &return_expr("-(1 + 2)"),
        &unary(UnaryOp::Neg, bin(Add, int(1), int(2))),
    );
    assert_same(
        &return_expr("- -a"),
        &unary(UnaryOp::Neg, unary(UnaryOp::Neg, var("a"))),
    );
    assert_same(&return_expr("-9223372036854775808"), &int(i64::MIN));
    assert_same(&return_expr("-1.5e3"), &float(-1500.0));
}

#[test]
fn string_predicates() {
    for (text, op) in [
        ("CONTAINS", StringOp::Contains),
        ("STARTS WITH", StringOp::StartsWith),
        ("ENDS WITH", StringOp::EndsWith),
        ("=~", StringOp::Regex),
    ] {
        assert_same(
            &where_expr(&format!("a.name {text} 'Jo' AND true")),
            &bin(
                And,
                string_op(op, vp("a", "name"), string("Jo")),
                boolean(true),
            ),
        );
    }
    // String predicates bind tighter than comparisons, looser than arithmetic.
    assert_same(
        &where_expr("a.x + 'b' CONTAINS 'c' = true"),
        &bin(
            Eq,
            string_op(
                StringOp::Contains,
                bin(Add, vp("a", "x"), string("b")),
                string("c"),
            ),
            boolean(true),
        ),
    );
}

#[test]
fn in_lists_and_parameters() {
    assert_same(
        &where_expr("a.x IN [1, 2.5, 'a', null, true, $p, [3]]"),
        &in_list(
            vp("a", "x"),
            list(vec![
                int(1),
                float(2.5),
                string("a"),
                null(),
                boolean(true),
                param("p"),
                list(vec![int(3)]),
            ]),
        ),
    );
    assert_same(
        &where_expr("a.x IN $xs"),
        &in_list(vp("a", "x"), param("xs")),
    );
    assert_same(
        &where_expr("a.x IN []"),
        &in_list(vp("a", "x"), list(vec![])),
    );
    assert_same(
        &where_expr("NOT a.x IN [1] OR b"),
        &bin(Or, not(in_list(vp("a", "x"), list(vec![int(1)]))), var("b")),
    );
}

#[test]
fn null_tests() {
    assert_same(&where_expr("a.x IS NULL"), &is_null(vp("a", "x"), false));
    assert_same(&where_expr("a.x IS NOT NULL"), &is_null(vp("a", "x"), true));
    assert_same(
        &where_expr("a.x is not null AND a.y IS NULL"),
        &bin(
            And,
            is_null(vp("a", "x"), true),
            is_null(vp("a", "y"), false),
        ),
    );
}

#[test]
fn label_tests() {
    let has = |v: &str, ls: &[&[&str]]| {
        ex(ExprKind::HasLabels {
            base: Box::new(var(v)),
            labels: labels(ls),
        })
    };
    assert_same(
        &where_expr("a:Person OR a:Movie|Show:Old"),
        &bin(
            Or,
            has("a", &[&["Person"]]),
            has("a", &[&["Movie", "Show"], &["Old"]]),
        ),
    );
}

#[test]
fn pattern_predicates() {
    let t_path = |d| {
        path(
            vec![node("a", &[]), node("b", &[])],
            vec![rel("", &["TYPE"], d)],
        )
    };
    assert_same(
        &where_expr("NOT (a)-[:TYPE]->(b)"),
        &not(ex(ExprKind::PatternPredicate(t_path(Direction::Right)))),
    );
    assert_same(
        &where_expr("(a)<-[:TYPE]-(b) AND a.x = 1"),
        &bin(
            And,
            ex(ExprKind::PatternPredicate(t_path(Direction::Left))),
            bin(Eq, vp("a", "x"), int(1)),
        ),
    );
    assert_same(
        &where_expr("(a)--(:L {k: 1})"),
        &ex(ExprKind::PatternPredicate(path(
            vec![
                node("a", &[]),
                NodePattern {
                    props: props(vec![("k", int(1))]),
                    has_map: true,
                    ..node("", &["L"])
                },
            ],
            vec![rel("", &[], Direction::Both)],
        ))),
    );
    // Parentheses that do not start a pattern are grouping.
    assert_same(&where_expr("(a) AND (b)"), &bin(And, var("a"), var("b")));
    assert_same(&where_expr("(a.x) < -1"), &bin(Lt, vp("a", "x"), int(-1)));
}

#[test]
fn exists_subqueries() {
    let sub = |where_clause| {
        ex(ExprKind::Exists(Box::new(SubQuery {
            matches: vec![path(
                vec![node("a", &[]), node("x", &["L"])],
                vec![rel("", &["T"], Direction::Right)],
            )],
            where_clause,
            span: Span::default(),
        })))
    };
    let filter = bin(Gt, vp("x", "p"), int(1));
    assert_same(
        &where_expr("NOT EXISTS { MATCH (a)-[:T]->(x:L) WHERE x.p > 1 }"),
        &not(sub(Some(filter.clone()))),
    );
    assert_same(
        &where_expr("exists { match (a)-[:T]->(x:L) where x.p > 1 }"),
        &sub(Some(filter)),
    );
    assert_same(&where_expr("EXISTS { (a)-[:T]->(x:L) }"), &sub(None));
    assert_same(
        &where_expr("EXISTS { MATCH (a)-[:T]->(x:L) } AND a.y = 2"),
        &bin(And, sub(None), bin(Eq, vp("a", "y"), int(2))),
    );
    // Nested, and with several patterns.
    let q = where_expr(
        "EXISTS { MATCH (a)-->(b), (b)-->(c) WHERE NOT EXISTS { (c)-->(a) } MATCH (d) }",
    );
    let ExprKind::Exists(outer) = &q.kind else {
        panic!("not EXISTS: {q:?}")
    };
    assert_eq!(outer.matches.len(), 3);
    assert!(matches!(
        outer.where_clause.as_ref().map(|w| &w.kind),
        Some(ExprKind::Unary {
            op: UnaryOp::Not,
            ..
        })
    ));
}

#[test]
fn function_calls() {
    assert_same(
        &return_expr("toLower(a.name)"),
        &call("toLower", vec![vp("a", "name")]),
    );
    assert_same(&return_expr("rand()"), &call("rand", vec![]));
    assert_same(
        &return_expr("foo(1, 'x', a)"),
        &call("foo", vec![int(1), string("x"), var("a")]),
    );
    assert_same(&return_expr("COUNT(*)"), &ex(ExprKind::CountStar));
    assert_same(&return_expr("Count( * )"), &ex(ExprKind::CountStar));
    assert_same(
        &return_expr("exists(a.x)"),
        &call("exists", vec![vp("a", "x")]),
    );
    assert_same(
        &return_expr("sum(DISTINCT a.x)"),
        &ex(ExprKind::FunctionCall {
            name: name("sum"),
            distinct: true,
            args: vec![vp("a", "x")],
        }),
    );
}

#[test]
fn literals() {
    assert_same(&return_expr("42"), &int(42));
    assert_same(&return_expr("0x1F"), &int(31));
    assert_same(&return_expr("0XfF"), &int(255));
    assert_same(&return_expr("9223372036854775807"), &int(i64::MAX));
    assert_same(&return_expr("1.5"), &float(1.5));
    assert_same(&return_expr(".5"), &float(0.5));
    assert_same(&return_expr("1e3"), &float(1000.0));
    assert_same(&return_expr("2.5E-2"), &float(0.025));
    assert_same(&return_expr("1e+2"), &float(100.0));
    assert_same(&return_expr("true"), &boolean(true));
    assert_same(&return_expr("FALSE"), &boolean(false));
    assert_same(&return_expr("Null"), &null());
    assert_same(&return_expr("$name"), &param("name"));
    assert_same(&return_expr("$0"), &param("0"));
    assert_same(&return_expr("$limit"), &param("limit"));
    assert_same(&return_expr("[]"), &list(vec![]));
    assert_same(
        &return_expr("[1, [2, 'b'], -3]"),
        &list(vec![int(1), list(vec![int(2), string("b")]), int(-3)]),
    );
}

#[test]
fn string_escapes() {
    assert_same(&return_expr(r"'it\'s'"), &string("it's"));
    assert_same(&return_expr(r#""say \"hi\"""#), &string("say \"hi\""));
    assert_same(&return_expr(r#""it's""#), &string("it's"));
    assert_same(&return_expr(r#"'say "hi"'"#), &string("say \"hi\""));
    assert_same(
        &return_expr(r"'a\nb\tc\\d\re\bf\fg'"),
        &string("a\nb\tc\\d\re\u{8}f\u{c}g"),
    );
    assert_same(&return_expr(r"'caf\u00e9'"), &string("café"));
    assert_same(&return_expr(r"'\uD83D\uDE00'"), &string("😀"));
    assert_same(&return_expr(r"'\U0001F600'"), &string("😀"));
    assert_same(&return_expr("'multi\nline'"), &string("multi\nline"));
    assert_same(&return_expr("'ünïcödé ✓'"), &string("ünïcödé ✓"));
    assert_same(&return_expr("''"), &string(""));
}

#[test]
fn expression_spans() {
    let src = "MATCH (a) WHERE NOT (a.x + 1 > 2) AND id(a) IN $ids RETURN a";
    let w = parse(src).where_clause.expect("WHERE");
    let text = |s: Span| &src[s.start..s.end];
    assert_eq!(text(w.span), "NOT (a.x + 1 > 2) AND id(a) IN $ids");
    let ExprKind::Binary { lhs, rhs, .. } = &w.kind else {
        panic!("{w:?}")
    };
    assert_eq!(text(lhs.span), "NOT (a.x + 1 > 2)");
    assert_eq!(text(rhs.span), "id(a) IN $ids");
    let ExprKind::Unary { expr, .. } = &lhs.kind else {
        panic!("{lhs:?}")
    };
    assert_eq!(text(expr.span), "(a.x + 1 > 2)");
    let ExprKind::In { expr, list } = &rhs.kind else {
        panic!("{rhs:?}")
    };
    assert_eq!(text(expr.span), "id(a)");
    assert_eq!(text(list.span), "$ids");
    assert_eq!(list.span.column, 48);
}
