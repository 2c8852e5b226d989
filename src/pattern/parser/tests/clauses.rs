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
