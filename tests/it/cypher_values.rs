//! Cypher's answers and error classes on queries the openCypher TCK found gemp answering
//! differently (tests/tck): list concatenation and comparison, NaN, mixed-type ordering,
//! `range()`, `RETURN *`, column names as written, queries starting with `WITH`/`RETURN`, and the
//! openCypher class of compile-time errors. Every expected value is worked out by hand from
//! Cypher's rules.

use crate::common::cypher::{empty, one, run};
use gemp::api::{Graph, RunOptions};
use gemp::error::CypherClass;

fn class_of(query: &str) -> Option<CypherClass> {
    let g = empty();
    let options = RunOptions::host().cypher();
    match g.query_with(query, &options) {
        Ok(q) => match g.execute(&q, &options) {
            Ok(_) => panic!("{query}: no error"),
            Err(e) => e.cypher_class(),
        },
        Err(e) => e.cypher_class(),
    }
}

#[test]
fn a_query_may_start_with_return_or_with() {
    assert_eq!(one("RETURN 1 + 2 AS x"), "3");
    assert_eq!(one("WITH 2 AS a RETURN a * 5 AS b"), "10");
    assert_eq!(run(&empty(), "RETURN count(*) AS n").1, vec!["1"]);
}

#[test]
fn lists_concatenate_and_take_elements_at_either_end() {
    assert_eq!(one("RETURN [1, 2] + [3] AS l"), "[1, 2, 3]");
    assert_eq!(one("RETURN [1] + 2 AS l"), "[1, 2]");
    assert_eq!(one("RETURN 0 + [1] AS l"), "[0, 1]");
    assert_eq!(one("RETURN size([[], []] + [[]]) AS n"), "3");
    let (_, rows) = run(
        &empty(),
        "WITH [1, 2] AS a, [3] AS b UNWIND (a + b) AS x RETURN x",
    );
    assert_eq!(rows, vec!["1", "2", "3"]);
}

#[test]
fn lists_compare_element_by_element_with_nulls() {
    // Different lengths: unequal, whatever the elements.
    assert_eq!(one("RETURN [1, 2] = [1] AS e"), "false");
    // A pair that is null and none unequal: null; an unequal pair wins over a null one.
    assert_eq!(one("RETURN [null] = [1] AS e"), "null");
    assert_eq!(one("RETURN [[1], [2]] = [[1], [null]] AS e"), "null");
    assert_eq!(one("RETURN [[1], [2, 3]] = [[1], [null]] AS e"), "false");
    assert_eq!(one("RETURN ['a'] = [1] AS e"), "false");
    // Ordering: the first unequal pair decides; a prefix comes first.
    assert_eq!(one("RETURN [1, 2] < [1, 3] AS l"), "true");
    assert_eq!(one("RETURN [1] < [1, 0] AS l"), "true");
    assert_eq!(
        one("RETURN [1, 2] < [3, 4] IN [[3, 4], false] AS a"),
        "null"
    );
}

#[test]
fn nan_is_unequal_to_everything() {
    assert_eq!(
        one("RETURN 0.0 / 0.0 = 0.0 / 0.0 AS e, 0.0 / 0.0 <> 1 AS n"),
        "false | true"
    );
}

#[test]
fn mixed_types_order_as_cypher_orders_them() {
    // Lists before strings before booleans before numbers before null; lists element-wise,
    // a shorter prefix first.
    let (_, rows) = run(
        &empty(),
        "UNWIND [1, null, 'a', [1, 'a'], true, [1], ['a'], []] AS x RETURN x ORDER BY x",
    );
    assert_eq!(
        rows,
        vec!["[]", "['a']", "[1]", "[1, 'a']", "'a'", "true", "1", "null"]
    );
}

#[test]
fn range_with_a_step_away_from_the_end_is_empty() {
    assert_eq!(one("RETURN range(0, 1, -1) AS r"), "[]");
    assert_eq!(one("RETURN range(0, -1, 1) AS r"), "[]");
    assert_eq!(one("RETURN range(0, 0, -1) AS r"), "[0]");
    assert_eq!(one("RETURN range(10, -10, -7) AS r"), "[10, 3, -4]");
}

#[test]
fn columns_are_named_as_written_and_star_by_name() {
    let (columns, rows) = run(&empty(), "RETURN 1 + 1, cOuNt( * )");
    assert_eq!(columns, vec!["1 + 1", "cOuNt( * )"]);
    assert_eq!(rows, vec!["2 | 1"]);
    let (columns, rows) = run(&empty(), "WITH 1 AS b, 2 AS a RETURN *");
    assert_eq!(columns, vec!["a", "b"]);
    assert_eq!(rows, vec!["2 | 1"]);
}

#[test]
fn compile_time_errors_carry_their_cypher_class() {
    use CypherClass::*;
    assert_eq!(class_of("RETURN 123 AND true"), Some(SyntaxError));
    assert_eq!(class_of("RETURN NOT 'x'"), Some(SyntaxError));
    assert_eq!(class_of("MATCH (n) WHERE (n) RETURN n"), Some(SyntaxError));
    assert_eq!(
        class_of("MATCH (n) WHERE (n)-->(m) RETURN n"),
        Some(SyntaxError)
    );
    assert_eq!(class_of("MATCH (n) RETURN (n)-->()"), Some(SyntaxError));
    assert_eq!(
        class_of("MATCH (n) RETURN size((n)-->())"),
        Some(SyntaxError)
    );
    assert_eq!(class_of("RETURN x"), Some(SyntaxError));
    assert_eq!(class_of("RETURN (1"), Some(SyntaxError));
    assert_eq!(class_of("RETURN range(1, 5, 0)"), Some(ArgumentError));
    assert_eq!(class_of("RETURN range(1, 'x')"), Some(ArgumentError));
    assert_eq!(class_of("RETURN $p"), Some(ParameterMissing));
    // Refusals of what gemp does not support have no class.
    assert_eq!(class_of("RETURN log(2.0)"), None);
    assert_eq!(class_of("WITH 1 AS x MATCH (n) RETURN n"), None);
    assert_eq!(class_of("MATCH (a) RETURN a WITH a"), None);
}

#[test]
fn updating_errors_carry_their_cypher_class() {
    let mut g = empty();
    let class = |g: &mut Graph, rules: &str| g.apply(rules).unwrap_err().cypher_class();
    assert_eq!(
        class(&mut g, "MERGE (n {p: null})"),
        Some(CypherClass::SemanticError)
    );
    assert_eq!(
        class(&mut g, "CREATE (a) CREATE (b) MERGE (a)-[:T*2]->(b)"),
        Some(CypherClass::SyntaxError)
    );
    g.apply("CREATE (:A)-[:T]->(:B)").unwrap();
    assert_eq!(
        class(&mut g, "MATCH (a:A) CREATE (a)"),
        Some(CypherClass::SyntaxError)
    );
    assert_eq!(
        class(&mut g, "MATCH (a:A) DELETE a"),
        Some(CypherClass::ConstraintVerificationFailed)
    );
    assert_eq!(
        class(&mut g, "MATCH (a:A) SET a.x = y"),
        Some(CypherClass::SyntaxError)
    );
}

#[test]
fn a_relationship_has_its_type_as_label() {
    let mut g = empty();
    g.apply("CREATE (:T2)-[:T1]->(), ()-[:T2]->()").unwrap();
    let (_, mut rows) = run(&g, "MATCH ()-[r]->() RETURN type(r), r:T2");
    rows.sort();
    assert_eq!(rows, vec!["'T1' | false", "'T2' | true"]);
}
