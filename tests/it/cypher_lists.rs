//! List comprehensions, list predicates, indexing and slicing, and the scalar, string and list
//! functions, on an empty graph. Every expected value is worked out by hand from Cypher's rules;
//! a value of the wrong type fails the query instead of reading as null.

use crate::common::cypher::{empty, one};
use gemp::api::RunOptions;

/// True when `query` fails when it runs (or is refused).
fn fails(query: &str) -> bool {
    let g = empty();
    let options = RunOptions::host().cypher();
    match g.query_with(query, &options) {
        Ok(q) => g.execute(&q, &options).is_err(),
        Err(_) => true,
    }
}

#[test]
fn list_comprehensions_filter_and_map() {
    assert_eq!(
        one("RETURN [x IN [1, 2, 3, 4] WHERE x % 2 = 0 | x * 10] AS l"),
        "[20, 40]"
    );
    assert_eq!(
        one("RETURN [x IN [1, 2, 3] | x + 0.5] AS l"),
        "[1.5, 2.5, 3.5]"
    );
    assert_eq!(one("RETURN [x IN [1, null, 3] WHERE x > 1] AS l"), "[3]");
    assert_eq!(one("RETURN [x IN range(1, 3)] AS l"), "[1, 2, 3]");
    assert_eq!(one("RETURN [x IN null | x] AS l"), "null");
    // Nested, the inner variable shadowing the outer one's name.
    assert_eq!(
        one("RETURN [x IN [1, 2] | [y IN [10, 20] | x + y]] AS l"),
        "[[11, 21], [12, 22]]"
    );
    assert_eq!(
        one("RETURN [x IN [[1], [2]] | [x IN x | x * 3]] AS l"),
        "[[3], [6]]"
    );
    assert_eq!(
        one("WITH 2 AS k RETURN [x IN [1, 2, 3] WHERE x >= k] AS l"),
        "[2, 3]"
    );
}

#[test]
fn list_predicates_follow_three_valued_logic() {
    assert_eq!(one("RETURN any(x IN [1, 2, 3] WHERE x > 2) AS a"), "true");
    assert_eq!(one("RETURN any(x IN [1, null] WHERE x > 2) AS a"), "null");
    assert_eq!(one("RETURN any(x IN [] WHERE x > 2) AS a"), "false");
    assert_eq!(one("RETURN all(x IN [1, 2] WHERE x > 0) AS a"), "true");
    assert_eq!(
        one("RETURN all(x IN [1, null, 0] WHERE x > 0) AS a"),
        "false"
    );
    assert_eq!(one("RETURN all(x IN [] WHERE x > 0) AS a"), "true");
    assert_eq!(one("RETURN none(x IN [1, 2] WHERE x > 5) AS a"), "true");
    assert_eq!(one("RETURN none(x IN [1, null] WHERE x > 5) AS a"), "null");
    assert_eq!(
        one("RETURN single(x IN [1, 2, 3] WHERE x = 2) AS a"),
        "true"
    );
    assert_eq!(one("RETURN single(x IN [2, 2] WHERE x = 2) AS a"), "false");
    assert_eq!(
        one("RETURN single(x IN [2, null, 2] WHERE x = 2) AS a"),
        "false"
    );
    assert!(fails("RETURN any(x IN 'abc' WHERE x = 'a') AS a"));
}

#[test]
fn indexing_and_slicing() {
    assert_eq!(one("RETURN [1, 2, 3][0] AS a, [1, 2, 3][-1] AS b"), "1 | 3");
    assert_eq!(
        one("RETURN [1, 2, 3][3] AS a, [1, 2, 3][null] AS b"),
        "null | null"
    );
    assert_eq!(one("RETURN [1, 2, 3, 4][1..3] AS a"), "[2, 3]");
    assert_eq!(
        one("RETURN [1, 2, 3, 4][..2] AS a, [1, 2, 3, 4][-2..] AS b"),
        "[1, 2] | [3, 4]"
    );
    assert_eq!(
        one("RETURN [1, 2, 3][2..1] AS a, [1, 2, 3][0..10] AS b"),
        "[] | [1, 2, 3]"
    );
    assert_eq!(one("RETURN [1, 2, 3][null..2] AS a"), "null");
    assert_eq!(one("WITH [[1, 2], [3]] AS l RETURN l[0][1] AS a"), "2");
    assert!(fails("RETURN [1, 2][1.0] AS a"));
}

#[test]
fn list_functions() {
    assert_eq!(
        one("RETURN head([1, 2]) AS a, last([1, 2]) AS b, tail([1, 2, 3]) AS c"),
        "1 | 2 | [2, 3]"
    );
    assert_eq!(one("RETURN head([]) AS a, tail([]) AS b"), "null | []");
    assert_eq!(
        one("RETURN reverse([1, 'a']) AS a, reverse('abc') AS b"),
        "['a', 1] | 'cba'"
    );
    assert_eq!(
        one("RETURN size([1, 2, 3]) AS a, size('héllo') AS b"),
        "3 | 5"
    );
    assert_eq!(
        one("RETURN coalesce(null, null, 2, 3) AS a, coalesce(null) AS b"),
        "2 | null"
    );
}

#[test]
fn conversions_keep_integers_and_floats_apart() {
    assert_eq!(
        one("RETURN toInteger(2.9) AS a, toInteger('-7') AS b, toInteger('x') AS c"),
        "2 | -7 | null"
    );
    assert_eq!(
        one("RETURN toFloat(2) AS a, toFloat('1.5') AS b"),
        "2.0 | 1.5"
    );
    assert_eq!(
        one("RETURN toString(1) AS a, toString(2.0) AS b, toString(true) AS c"),
        "'1' | '2.0' | 'true'"
    );
    assert_eq!(
        one("RETURN toBoolean('TRUE') AS a, toBoolean('no') AS b"),
        "true | null"
    );
    assert_eq!(
        one("RETURN abs(-3) AS a, abs(-2.5) AS b, sign(-4) AS c, sign(0.5) AS d"),
        "3 | 2.5 | -1 | 1"
    );
    assert_eq!(
        one("RETURN ceil(1.2) AS a, floor(-1.2) AS b, round(2.4) AS c, sqrt(16) AS d"),
        "2.0 | -2.0 | 2.0 | 4.0"
    );
    assert!(fails("RETURN toInteger([1]) AS a"));
}

#[test]
fn string_functions() {
    assert_eq!(
        one("RETURN split('a,b,,c', ',') AS a"),
        "['a', 'b', '', 'c']"
    );
    assert_eq!(
        one("RETURN substring('hello', 1, 3) AS a, substring('hello', 2) AS b"),
        "'ell' | 'llo'"
    );
    assert_eq!(
        one("RETURN left('hello', 2) AS a, right('hello', 2) AS b, right('hi', 5) AS c"),
        "'he' | 'lo' | 'hi'"
    );
    assert_eq!(
        one("RETURN trim('  a ') AS a, ltrim('  a ') AS b, rtrim('  a ') AS c"),
        "'a' | 'a ' | '  a'"
    );
    assert_eq!(
        one("RETURN toUpper('aB') AS a, toLower('aB') AS b, replace('banana', 'an', 'o') AS c"),
        "'AB' | 'ab' | 'booa'"
    );
    assert_eq!(one("RETURN toUpper(null) AS a"), "null");
    assert!(fails("RETURN toUpper(1) AS a"));
}

#[test]
fn map_literals_keys_and_access() {
    assert_eq!(one("RETURN {a: 1, b: 'x'} AS m"), "{a: 1, b: 'x'}");
    assert_eq!(
        one("WITH {a: 1, b: {c: 2.5}} AS m RETURN m.a AS a, m.b.c AS c, m.z AS z"),
        "1 | 2.5 | null"
    );
    assert_eq!(
        one("WITH {a: 1, b: 2} AS m RETURN m['b'] AS b, keys(m) AS k"),
        "2 | ['a', 'b']"
    );
    assert_eq!(
        one("RETURN {a: 1, b: 2} = {b: 2, a: 1} AS e, {a: 1} = {a: 1, b: 2} AS f"),
        "true | false"
    );
    assert_eq!(one("RETURN {a: null} = {a: 1} AS e"), "null");
    assert_eq!(
        one("RETURN [m IN [{k: 1}, {k: 2}] | m.k * 2] AS l"),
        "[2, 4]"
    );
    assert_eq!(one("RETURN {} AS m, keys({}) AS k"), "{} | []");
    // Equal maps written in another key order are one DISTINCT value.
    assert_eq!(
        one("UNWIND [{a: 1, b: 2}, {b: 2, a: 1}] AS m RETURN count(DISTINCT m) AS n"),
        "1"
    );
    assert!(fails("RETURN {a: 1, a: 2} AS m"));
    assert!(fails("RETURN keys(1) AS k"));
}

#[test]
fn property_access_on_a_value_that_is_no_map_fails() {
    assert!(fails("WITH 123 AS x RETURN x.num AS n"));
    assert!(fails("WITH [1] AS x RETURN x.num AS n"));
    assert_eq!(one("WITH null AS x RETURN x.num AS n"), "null");
}
