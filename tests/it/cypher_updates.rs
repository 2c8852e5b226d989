//! Cypher updating queries through the library: results from updating queries (`RETURN` after
//! the updates), statements without `MATCH` computing their values, `UNWIND` before updates,
//! `MERGE … ON CREATE / ON MATCH`, `SET x = map` / `SET x += map`; each result hand-computed,
//! and a failing statement changes nothing.

use gemp::api::Graph;
use gemp::pattern::{ParamValue, Params};
use gemp::transform::ApplyOptions;

use crate::common::cypher::{empty, run, show};

/// Applies `rules` and gives the returned columns and rows (cells joined by ` | `).
fn apply(graph: &mut Graph, rules: &str) -> (Vec<String>, Vec<String>) {
    let report = graph
        .apply(rules)
        .unwrap_or_else(|e| panic!("{rules}: {e}"));
    match graph.returned(&report) {
        Some((columns, rows)) => (
            columns,
            rows.iter()
                .map(|r| r.iter().map(show).collect::<Vec<_>>().join(" | "))
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    }
}

/// The sorted rows of a read query.
fn rows(graph: &Graph, query: &str) -> Vec<String> {
    let mut r = run(graph, query).1;
    r.sort();
    r
}

#[test]
fn create_returns_what_it_created() {
    let mut g = empty();
    let (cols, out) = apply(
        &mut g,
        "CREATE (a:A {num: 1}), (b:B {num: 2}) RETURN a.num AS x, b.num + 10 AS y, labels(b) AS l",
    );
    assert_eq!(cols, ["x", "y", "l"]);
    assert_eq!(out, ["1 | 12 | ['B']"]);
    assert_eq!(rows(&g, "MATCH (n) RETURN n.num"), ["1", "2"]);
}

#[test]
fn set_returns_the_new_values() {
    let mut g = empty();
    apply(&mut g, "CREATE (:A {num: 1}), (:A {num: 5})");
    let (_, mut out) = apply(
        &mut g,
        "MATCH (n:A) SET n.num = n.num * 2 RETURN n.num AS num",
    );
    out.sort();
    assert_eq!(out, ["10", "2"]);
    let (cols, out) = apply(
        &mut g,
        "MATCH (n:A) SET n.seen = true RETURN sum(n.num) AS total, count(*) AS c",
    );
    assert_eq!(cols, ["total", "c"]);
    assert_eq!(out, ["12 | 2"]);
}

#[test]
fn created_relationships_are_returned_with_their_properties() {
    let mut g = empty();
    apply(&mut g, "CREATE (:A {k: 1}), (:B {k: 2}), (:B {k: 3})");
    let (_, mut out) = apply(
        &mut g,
        "MATCH (a:A), (b:B) CREATE (a)-[r:R {w: b.k * 10}]->(b) RETURN type(r) AS t, r.w AS w, b.k AS k",
    );
    out.sort();
    assert_eq!(out, ["'R' | 20 | 2", "'R' | 30 | 3"]);
}

#[test]
fn delete_then_count_and_deleted_elements_are_not_returned() {
    let mut g = empty();
    apply(&mut g, "CREATE (:A)-[:R]->(:B), (:A)");
    let (_, out) = apply(&mut g, "MATCH (n:A) DETACH DELETE n RETURN count(*) AS c");
    assert_eq!(out, ["2"]);
    assert_eq!(rows(&g, "MATCH (n) RETURN labels(n)"), ["['B']"]);
    let err = g.apply("MATCH (n:B) DELETE n RETURN n").unwrap_err();
    assert!(err.to_string().contains("deleted node"), "{err}");
    assert_eq!(rows(&g, "MATCH (n) RETURN count(*)"), ["1"]);
}

#[test]
fn statements_without_match_compute_their_values() {
    let mut g = empty();
    apply(
        &mut g,
        "CREATE (:N {v: 1 + 2, s: 'a' + 'b', t: size('xyz') * 2})",
    );
    assert_eq!(
        rows(&g, "MATCH (n:N) RETURN n.v, n.s, n.t"),
        ["3 | 'ab' | 6"]
    );
}

#[test]
fn unwind_drives_updates() {
    let mut g = empty();
    apply(&mut g, "UNWIND [1, 2, 3] AS i CREATE (:N {v: i})");
    assert_eq!(rows(&g, "MATCH (n:N) RETURN sum(n.v), count(*)"), ["6 | 3"]);
    apply(
        &mut g,
        "MATCH (n:N) UNWIND [10, 20] AS k WITH n, k WHERE n.v = 2 CREATE (:M {v: n.v + k})",
    );
    assert_eq!(rows(&g, "MATCH (m:M) RETURN m.v"), ["12", "22"]);
    let (_, out) = apply(&mut g, "WITH 7 AS x CREATE (n:W {v: x}) RETURN n.v");
    assert_eq!(out, ["7"]);
}

#[test]
fn merge_on_create_and_on_match() {
    let mut g = empty();
    let q = "MERGE (a:A {k: 1}) ON CREATE SET a.created = 1 ON MATCH SET a.matched = 2 \
             RETURN a.created AS c, a.matched AS m";
    assert_eq!(apply(&mut g, q).1, ["1 | null"]);
    assert_eq!(apply(&mut g, q).1, ["1 | 2"]);
    assert_eq!(rows(&g, "MATCH (a:A) RETURN count(*)"), ["1"]);
    // One row per person: the first creates the city, the second finds it.
    apply(&mut g, "CREATE (:P {born: 'X'}), (:P {born: 'Y'})");
    apply(
        &mut g,
        "MATCH (p:P) WITH p ORDER BY p.born MERGE (c:City) ON CREATE SET c.first = p.born ON MATCH SET c.last = p.born",
    );
    assert_eq!(
        rows(&g, "MATCH (c:City) RETURN c.first, c.last"),
        ["'X' | 'Y'"]
    );
}

#[test]
fn set_replaces_or_merges_maps() {
    let mut g = empty();
    apply(&mut g, "CREATE (:A {a: 1, b: 2}), (:B {z: 9, b: 7})");
    // The RETURN binds leniently: a property no element has any more reads as null.
    let (_, out) = apply(
        &mut g,
        "MATCH (n:A) SET n = {b: 3, c: 4} RETURN n.a, n.b, n.c",
    );
    assert_eq!(out, ["null | 3 | 4"]);
    let (_, out) = apply(
        &mut g,
        "MATCH (n:A) SET n += {a: 5, c: null} RETURN n.a, n.b, n.c",
    );
    assert_eq!(out, ["5 | 3 | null"]);
    // A node's properties copied: every one of A's replaced by B's.
    let (_, out) = apply(&mut g, "MATCH (n:A), (m:B) SET n = m RETURN n.a, n.b, n.z");
    assert_eq!(out, ["null | 7 | 9"]);
    let mut params = Params::default();
    let mut map = std::collections::BTreeMap::new();
    map.insert(
        "q".to_string(),
        ParamValue::Scalar(gemp::model::Value::Int(8)),
    );
    params.insert("m".to_string(), ParamValue::Map(map));
    let options = ApplyOptions {
        params,
        ..Default::default()
    };
    g.apply_with("MATCH (n:B) SET n += $m", &options).unwrap();
    assert_eq!(rows(&g, "MATCH (n:B) RETURN n.b, n.q"), ["7 | 8"]);
    g.apply_with("MATCH (n:B) SET n = $m", &options).unwrap();
    assert_eq!(
        rows(&g, "MATCH (n:B) RETURN n.b, n.z, n.q"),
        ["null | null | 8"]
    );
    // The property a is gone from every node.
    let err = g.query("MATCH (n) RETURN n.a").unwrap_err();
    assert!(
        err.to_string().contains("unknown node property `a`"),
        "{err}"
    );
}

#[test]
fn a_failing_statement_or_return_changes_nothing() {
    let mut g = empty();
    apply(&mut g, "CREATE (:X {v: 1})");
    let err = g
        .apply("UNWIND [1, 0] AS d CREATE (:X {v: 10 / d})")
        .unwrap_err();
    assert!(err.to_string().contains("cannot be computed"), "{err}");
    assert_eq!(rows(&g, "MATCH (n:X) RETURN n.v"), ["1"]);
    assert!(g.apply("CREATE (:X {v: 2}) RETURN 1 / 0").is_err());
    assert_eq!(rows(&g, "MATCH (n:X) RETURN n.v"), ["1"]);
}

#[test]
fn clause_order_errors_are_clear() {
    let mut g = empty();
    let err = g.apply("CREATE (a) WITH a MATCH (b) RETURN b").unwrap_err();
    assert!(
        err.to_string()
            .contains("read clause after an updating clause"),
        "{err}"
    );
    let err = g.apply("MATCH (n) RETURN n").unwrap_err();
    assert!(err.to_string().contains("without updates"), "{err}");
}
