//! The reading constructs beyond the core: `CASE`, `UNWIND`, `UNION`, `OPTIONAL MATCH` and
//! variable-length relationships — their trees and their malformed forms (line and column).

use super::*;

/// Asserts `src` fails with a syntax error at `line:column` whose message contains `needle`.
#[track_caller]
fn syntax_at(src: &str, line: u32, column: u32, needle: &str) {
    let e = parse_err_kind(src, QueryErrorKind::Syntax);
    let span = e.span.expect("a span");
    assert_eq!((span.line, span.column), (line, column), "{src:?}: {e}");
    assert!(e.message.contains(needle), "{src:?}: {e}");
}

fn case(subject: Option<Expr>, branches: Vec<(Expr, Expr)>, default: Option<Expr>) -> Expr {
    ex(ExprKind::Case(Box::new(CaseExpr {
        subject,
        branches,
        default,
    })))
}

#[test]
fn case_expressions_parse_in_both_forms() {
    assert_same(
        &return_expr("CASE a.x WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END"),
        &case(
            Some(vp("a", "x")),
            vec![(int(1), string("one")), (int(2), string("two"))],
            Some(string("many")),
        ),
    );
    assert_same(
        &where_expr("CASE WHEN a.x > 1 THEN true END"),
        &case(
            None,
            vec![(bin(BinaryOp::Gt, vp("a", "x"), int(1)), boolean(true))],
            None,
        ),
    );
    // A CASE is an atom: operators around it bind as around a variable.
    assert_same(
        &where_expr("CASE WHEN a THEN 1 END + 2 = 3"),
        &bin(
            BinaryOp::Eq,
            bin(
                BinaryOp::Add,
                case(None, vec![(var("a"), int(1))], None),
                int(2),
            ),
            int(3),
        ),
    );
}

#[test]
fn malformed_case_expressions_name_line_and_column() {
    syntax_at("MATCH (a) RETURN CASE END", 1, 23, "expected WHEN");
    syntax_at(
        "MATCH (a)\nRETURN CASE a.x ELSE 1 END",
        2,
        17,
        "expected WHEN",
    );
    syntax_at(
        "MATCH (a) RETURN CASE WHEN a.x 1 END",
        1,
        32,
        "expected THEN",
    );
    syntax_at(
        "MATCH (a) RETURN CASE WHEN a.x THEN 1",
        1,
        38,
        "expected WHEN, ELSE or END",
    );
    syntax_at(
        "MATCH (a) RETURN CASE WHEN a.x THEN 1 ELSE 2 WHEN",
        1,
        46,
        "expected END",
    );
}

#[test]
fn unwind_optional_match_and_union_parse_in_order() {
    let q = parse(
        "UNWIND [1, 2] AS x MATCH (a) WHERE a.v = x OPTIONAL MATCH (a)-->(b) WHERE b.w > 1 \
         UNWIND [a] AS c WITH a, c UNWIND [3] AS y RETURN a, y UNION ALL MATCH (z) RETURN z AS a, 1 AS y",
    );
    assert_eq!(q.leading.len(), 1);
    assert_eq!(q.leading[0].alias.name, "x");
    assert_eq!(q.matches.len(), 1);
    assert_eq!(q.trailing.len(), 2);
    let ReadingClause::OptionalMatch(m) = &q.trailing[0] else {
        panic!("OPTIONAL MATCH first");
    };
    assert!(m.where_clause.is_some());
    // The optional clause is numbered after the MATCH clauses (Cypher semantics keeps each
    // clause's edges distinct).
    assert_eq!(m.paths[0].clause, 1);
    assert!(matches!(&q.trailing[1], ReadingClause::Unwind(u) if u.alias.name == "c"));
    assert_eq!(q.with_clauses[0].unwinds.len(), 1);
    let [union] = &q.union[..] else {
        panic!("one UNION");
    };
    assert!(union.all);
    assert_eq!(union.query.matches.len(), 1);
    assert!(union.query.union.is_empty());
}

#[test]
fn hop_bounds_parse_in_every_form() {
    let hops = |src: &str| {
        let q = parse(&format!("MATCH (a)-[{src}]->(b)"));
        let h = q.matches[0].rels[0].hops.expect("hops");
        (h.min, h.max, h.exact)
    };
    assert_eq!(hops(":T*1..3"), (Some(1), Some(3), false));
    assert_eq!(hops("r:T*2"), (Some(2), Some(2), true));
    assert_eq!(hops("*..4"), (None, Some(4), false));
    assert_eq!(hops("*2.."), (Some(2), None, false));
    assert_eq!(hops("*"), (None, None, false));
    assert_eq!(hops(":T *1..2"), (Some(1), Some(2), false));
}

#[test]
fn malformed_clauses_name_line_and_column() {
    syntax_at("UNWIND [1, 2] x RETURN x", 1, 15, "expected AS");
    syntax_at("UNWIND [1] AS RETURN 1", 1, 15, "expected a variable name");
    syntax_at("MATCH (a)\nRETURN a\nUNION\nCASE", 4, 1, "expected MATCH");
    syntax_at(
        "MATCH (a) RETURN a UNION MATCH (b) RETURN b AS a UNION ALL MATCH (c) RETURN c AS a",
        1,
        50,
        "UNION and UNION ALL cannot be mixed",
    );
    syntax_at(
        "MATCH (a) WITH a UNION MATCH (b) RETURN b",
        1,
        18,
        "must end with RETURN",
    );
    syntax_at(
        "MATCH (a) RETURN a UNION MATCH (b)",
        1,
        35,
        "expected RETURN",
    );
    syntax_at("MATCH (a) OPTIONAL MATCH RETURN a", 1, 26, "expected '('");
    syntax_at("MATCH (a)-[:T*1..x]->(b)", 1, 18, "expected");
    syntax_at("MATCH (a)-[:T*1...3]->(b)", 1, 14, "malformed hop bounds");
    syntax_at(
        "MATCH (a)-[:T {w: 1}*2]->(b)",
        1,
        21,
        "hop bounds go before the property map",
    );
    let e = parse_err_kind(
        "MATCH (a)\nOPTIONAL MATCH (a)-->(b)\nMATCH (c) RETURN c",
        QueryErrorKind::Unsupported,
    );
    assert_eq!(e.span.map(|s| (s.line, s.column)), Some((3, 1)));
    let e = parse_err_kind(
        "MATCH (a) WITH a OPTIONAL MATCH (a)-->(b) RETURN b",
        QueryErrorKind::Unsupported,
    );
    assert!(e.message.contains("MATCH after WITH"), "{e}");
}
