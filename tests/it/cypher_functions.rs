//! Cypher functions and expressions the openCypher TCK found missing (tests/tck): `rand()`,
//! `properties()`, `keys()` of nodes and relationships, octal literals, chained comparisons,
//! and names the graph does not have read as Cypher reads them under `RunOptions::lenient`.
//! Every expected value is worked out by hand.

use crate::common::cypher::{empty, one, run};
use gemp::api::{Graph, RunOptions};

/// `(a:P {name: 'a', age: 3})-[:R {w: 2}]->(b:P {name: 'b'})`.
fn pair() -> Graph {
    let mut g = empty();
    g.apply("CREATE (:P {name: 'a', age: 3})-[:R {w: 2}]->(:P {name: 'b'})")
        .unwrap();
    g
}

/// The rows of `query` on `g` under `options`, or the openCypher class of its error.
fn outcome(g: &Graph, options: &RunOptions, query: &str) -> Result<usize, Option<&'static str>> {
    let q = g
        .query_with(query, options)
        .map_err(|e| e.cypher_class().map(|c| c.name()))?;
    let m = g
        .execute(&q, options)
        .map_err(|e| e.cypher_class().map(|c| c.name()))?;
    Ok(m.rows().count())
}

/// The sorted rows of `query` on `g`, run leniently (host, Cypher semantics).
fn lenient(g: &Graph, query: &str) -> Vec<String> {
    let options = RunOptions::host().cypher().lenient();
    let q = g
        .query_with(query, &options)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let m = g
        .execute(&q, &options)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let mut rows: Vec<String> = m
        .rows()
        .map(|r| {
            let cells: Vec<String> = r.items().iter().map(crate::common::cypher::show).collect();
            cells.join(" | ")
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn rand_draws_a_new_float_in_the_unit_interval_at_each_evaluation() {
    let (_, rows) = run(
        &empty(),
        "UNWIND range(1, 50) AS i WITH rand() AS r \
         WITH min(r) AS lo, max(r) AS hi, count(DISTINCT r) AS k \
         RETURN lo >= 0.0 AND hi < 1.0 AS inside, k",
    );
    // 50 draws of a 53-bit float: equal ones are (all but) impossible.
    assert_eq!(rows, vec!["true | 50"]);
}

#[test]
fn properties_and_keys_read_nodes_relationships_and_maps() {
    let g = pair();
    let (_, rows) = run(
        &g,
        "MATCH (n:P) RETURN n.name AS name, size(keys(n)) AS k, 'age' IN keys(n) AS aged, \
         properties(n) = {name: n.name, age: n.age} AS same ORDER BY name",
    );
    // `b` has no `age`: it is not among its keys, and its properties are `{name: 'b'}`, which
    // is not `{name: 'b', age: null}` (a map with a null entry has that key).
    assert_eq!(
        rows,
        vec!["'a' | 2 | true | true", "'b' | 1 | false | false"]
    );
    let (_, rows) = run(
        &g,
        "MATCH ()-[r:R]->() RETURN keys(r) AS k, properties(r).w AS w",
    );
    assert_eq!(rows, vec!["['w'] | 2"]);
    assert_eq!(
        one("RETURN properties({a: 1, b: 'x'}) AS m"),
        "{a: 1, b: 'x'}"
    );
    assert_eq!(one("RETURN properties(null) AS m"), "null");
    assert_eq!(one("RETURN keys({b: 1, a: 2}) AS k"), "['b', 'a']");
}

#[test]
fn properties_of_a_literal_is_a_syntax_error() {
    let options = RunOptions::host().cypher();
    for q in [
        "RETURN properties(1)",
        "RETURN properties('x')",
        "RETURN properties([true])",
    ] {
        assert_eq!(
            outcome(&empty(), &options, q),
            Err(Some("SyntaxError")),
            "{q}"
        );
    }
}

#[test]
fn octal_literals_read_base_eight() {
    assert_eq!(one("RETURN 0o17 AS x"), "15");
    assert_eq!(one("RETURN [0o0, -0o10, 0x1F] AS x"), "[0, -8, 31]");
    let options = RunOptions::host().cypher();
    assert_eq!(
        outcome(&empty(), &options, "RETURN 0o8 AS x"),
        Err(Some("SyntaxError"))
    );
}

#[test]
fn comparisons_chain_as_conjunctions() {
    assert_eq!(one("RETURN 1 < 2 < 3 AS x"), "true");
    assert_eq!(one("RETURN 1 < 3 < 2 AS x"), "false");
    assert_eq!(one("RETURN 1 <= 1 < 2 <= 2 AS x"), "true");
    // `1 < null AND null < 3`: null; `3 < 2 AND 2 < null`: false.
    assert_eq!(one("RETURN 1 < null < 3 AS x"), "null");
    assert_eq!(one("RETURN 3 < 2 < null AS x"), "false");
    // The middle operand is a whole arithmetic expression; AND binds looser.
    assert_eq!(one("RETURN 1 < 1 + 1 < 3 AND true AS x"), "true");
    let (_, rows) = run(
        &empty(),
        "UNWIND [1, 2, 3, 4] AS n WITH n WHERE 1 < n <= 3 RETURN n",
    );
    assert_eq!(rows, vec!["2", "3"]);
}

#[test]
fn unknown_names_match_nothing_when_lenient() {
    let g = pair();
    assert!(lenient(&g, "MATCH (n:Nope) RETURN n").is_empty());
    assert_eq!(
        lenient(&g, "MATCH (n:Nope) RETURN count(n) AS c"),
        vec!["0"]
    );
    assert_eq!(
        lenient(&g, "OPTIONAL MATCH (n:Nope) RETURN n"),
        vec!["null"]
    );
    // A group with a known alternative keeps it.
    assert_eq!(
        lenient(&g, "MATCH (n:Nope|P) RETURN n.name AS m"),
        vec!["'a'", "'b'"]
    );
    assert_eq!(
        lenient(&g, "MATCH (n:P) RETURN n.name AS m, n:Nope AS l"),
        vec!["'a' | false", "'b' | false"]
    );
    assert!(lenient(&g, "MATCH (a)-[:NOPE]->(b) RETURN a").is_empty());
    assert_eq!(
        lenient(&g, "MATCH (a)-[r:NOPE|R]->(b) RETURN r.w AS w"),
        vec!["2"]
    );
    assert_eq!(
        lenient(
            &g,
            "MATCH (a:P {name: 'a'}) OPTIONAL MATCH (a)-[:NOPE*]->(b) RETURN a.name AS m, b"
        ),
        vec!["'a' | null"]
    );
    assert_eq!(
        lenient(
            &g,
            "MATCH (n:P) WHERE n.missing IS NULL RETURN count(*) AS c"
        ),
        vec!["2"]
    );
    // Zero hops of an unknown type would still match: refused, not answered wrongly.
    let options = RunOptions::host().cypher().lenient();
    assert!(outcome(&g, &options, "MATCH (a)-[:NOPE*0..1]->(b) RETURN a").is_err());
    // Without the option, unknown names are errors.
    let strict = RunOptions::host().cypher();
    assert!(outcome(&g, &strict, "MATCH (n:Nope) RETURN n").is_err());
}

#[test]
fn a_pattern_is_no_function_argument() {
    let options = RunOptions::host().cypher();
    assert_eq!(
        outcome(&pair(), &options, "MATCH (n) RETURN head((n)-->()) AS h"),
        Err(Some("SyntaxError"))
    );
}

#[test]
fn create_refuses_an_empty_property_map_on_a_bound_node() {
    let mut g = empty();
    let e = g
        .apply("CREATE (n:Foo) CREATE (n {})-[:OWNS]->(:Dog)")
        .unwrap_err();
    assert_eq!(e.cypher_class().map(|c| c.name()), Some("SyntaxError"));
    // The statement failed as a whole: nothing was created.
    assert_eq!(g.model().node_count(), 0);
    // Without the map the bound node is reused.
    g.apply("CREATE (n:Foo) CREATE (n)-[:OWNS]->(:Dog)")
        .unwrap();
    assert_eq!(g.model().node_count(), 2);
    assert_eq!(g.model().edge_count(), 1);
}

#[test]
fn arithmetic_on_a_literal_list_of_strings_or_booleans_is_a_syntax_error() {
    let options = RunOptions::host().cypher();
    for q in [
        "RETURN none(x IN ['Clara'] WHERE x % 2 = 0) AS r",
        "RETURN any(x IN [false, true] WHERE x * 2 = 0) AS r",
        "RETURN [x IN ['a', 'b'] | -x] AS r",
    ] {
        assert_eq!(
            outcome(&empty(), &options, q),
            Err(Some("SyntaxError")),
            "{q}"
        );
    }
    // `+` concatenates strings; numbers take arithmetic.
    assert_eq!(
        one("RETURN [x IN ['a', 'b'] | x + 'c'] AS r"),
        "['ac', 'bc']"
    );
    assert_eq!(one("RETURN all(x IN [2, 4] WHERE x % 2 = 0) AS r"), "true");
}

#[test]
fn an_empty_hop_interval_matches_nothing() {
    let g = pair();
    let (_, rows) = run(&g, "MATCH (a)-[:R*2..1]->(b) RETURN a");
    assert!(rows.is_empty());
    let (_, rows) = run(&g, "MATCH (a)-[:R*..0]->(b) RETURN a");
    assert!(rows.is_empty());
    // An OPTIONAL MATCH of one gives its nulls; the interval `*1..1` still matches the one hop.
    let (_, rows) = run(
        &g,
        "MATCH (a:P {name: 'a'}) OPTIONAL MATCH (a)-[:R*1..0]->(b) RETURN a.name, b",
    );
    assert_eq!(rows, vec!["'a' | null"]);
    let (_, rows) = run(&g, "MATCH (a)-[:R*1..1]->(b) RETURN b.name");
    assert_eq!(rows, vec!["'b'"]);
}
