//! Values that cannot be computed fail the query with Cypher's error class, not a silent null:
//! integer division by zero and overflow are `ArithmeticError`s, operands of the wrong types a
//! `TypeError`.

use crate::common::cypher::{empty, one};
use gemp::api::RunOptions;

/// The openCypher class of the error `query` fails with on an empty graph (`None`: it runs).
fn class(query: &str) -> Option<&'static str> {
    let g = empty();
    let options = RunOptions::host().cypher();
    let e = match g.query_with(query, &options) {
        Ok(q) => g.execute(&q, &options).err(),
        Err(e) => Some(e),
    };
    e.and_then(|e| e.cypher_class()).map(|c| c.name())
}

#[test]
fn integer_division_by_zero_and_overflow_are_arithmetic_errors() {
    assert_eq!(class("RETURN 1 / 0 AS x"), Some("ArithmeticError"));
    assert_eq!(class("RETURN 7 % 0 AS x"), Some("ArithmeticError"));
    assert_eq!(
        class("RETURN 9223372036854775807 + 1 AS x"),
        Some("ArithmeticError")
    );
    assert_eq!(
        class("UNWIND [2, 0] AS d RETURN 10 / d AS x"),
        Some("ArithmeticError")
    );
    assert_eq!(
        class("WITH 4611686018427387904 AS big RETURN big * 2 AS x"),
        Some("ArithmeticError")
    );
}

#[test]
fn operands_of_the_wrong_types_are_type_errors() {
    assert_eq!(class("RETURN 'abc' + 1 AS x"), Some("TypeError"));
    assert_eq!(class("RETURN true - 1 AS x"), Some("TypeError"));
    assert_eq!(
        class("WITH {a: 1} AS m RETURN m * 2 AS x"),
        Some("TypeError")
    );
}

#[test]
fn what_can_be_computed_still_is() {
    assert_eq!(
        one("RETURN 7 / 2 AS x, 7 % 3 AS y, -7 / 2 AS z"),
        "3 | 1 | -3"
    );
    assert_eq!(one("RETURN 1 / 0.0 > 1000 AS x"), "true");
    assert_eq!(one("RETURN null / 0 AS x, 1 + null AS y"), "null | null");
    assert_eq!(one("RETURN 'a' + 'b' AS x, [1] + 2 AS y"), "'ab' | [1, 2]");
    assert_eq!(class("RETURN 9223372036854775807 - 1 AS x"), None);
}
