//! The reading constructs beyond the core, on tiny graphs with answers worked out by hand: `CASE`,
//! `UNWIND`, `UNION [ALL]`, `OPTIONAL MATCH` and variable-length relationships (null cases
//! included); and property tests comparing the engine with brute-force evaluations on random
//! small graphs.

mod common;

use gemp::matcher::eval::Val;
use gemp::matcher::{execute, MatchOptions, Semantics};
use gemp::model::{Model, ModelBuilder, ValueRef};
use gemp::pattern::binder::Params;
use gemp::session::Session;

/// People `a` (age 30), `b` (age 40), `c` (no age), `d` (age 20) with `a-[:KNOWS]->b`,
/// `a-[:KNOWS]->c`, `b-[:KNOWS]->c`, `c-[:LIKES]->d`; `x` is a `:Thing` with nothing.
fn people() -> Model {
    let mut b = ModelBuilder::new();
    let knows = b.rel_type("KNOWS");
    let likes = b.rel_type("LIKES");
    let name = b.node_property("name");
    let age = b.node_property("age");
    let mut ids = Vec::new();
    for (key, years) in [
        ("a", Some(30)),
        ("b", Some(40)),
        ("c", None),
        ("d", Some(20)),
    ] {
        let n = b.add_node(key, &["Person"]);
        b.set_node_property(n, name, ValueRef::Str(key)).unwrap();
        if let Some(y) = years {
            b.set_node_property(n, age, ValueRef::Int(y)).unwrap();
        }
        ids.push(n);
    }
    let x = b.add_node("x", &["Thing"]);
    b.set_node_property(x, name, ValueRef::Str("x")).unwrap();
    for (s, d, t) in [(0, 1, knows), (0, 2, knows), (1, 2, knows), (2, 3, likes)] {
        b.add_edge(ids[s], ids[d], t).unwrap();
    }
    b.freeze().unwrap()
}

/// One cell as text (`null` for null, lists as `[a, b]`).
fn cell(v: &Val<'_>) -> String {
    v.to_string()
}

/// The rows of `source` under `semantics`, each as its cells joined with `|`, in output order.
fn rows_under(m: &Model, source: &str, semantics: Semantics, params: &Params) -> Vec<String> {
    let q = Session::host(m)
        .compile(source, params)
        .unwrap_or_else(|e| panic!("{source}: {e}"));
    let opts = MatchOptions {
        semantics,
        ..Default::default()
    };
    let out = execute(m, &q, &opts).unwrap_or_else(|e| panic!("{source}: {e}"));
    out.rows
        .iter()
        .map(|r| r.iter().map(cell).collect::<Vec<_>>().join("|"))
        .collect()
}

/// The rows of `source` (default semantics), in output order.
fn ordered(m: &Model, source: &str) -> Vec<String> {
    rows_under(m, source, Semantics::Isomorphism, &Params::default())
}

/// The rows of `source` (default semantics), sorted.
fn rows(m: &Model, source: &str) -> Vec<String> {
    let mut r = ordered(m, source);
    r.sort();
    r
}

/// The error compiling or running `source` (default semantics), rendered.
fn error(m: &Model, source: &str) -> String {
    let session = Session::host(m);
    match session.compile(source, &Params::default()) {
        Err(e) => e.to_string(),
        Ok(q) => match session.run(&q, &MatchOptions::default()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{source}: expected an error"),
        },
    }
}

// ----- CASE -----

#[test]
fn simple_case_compares_with_equals_and_is_null_without_else() {
    let m = people();
    assert_eq!(
        ordered(
            &m,
            "MATCH (p:Person) RETURN p.name, CASE p.age WHEN 30 THEN 'thirty' WHEN 40.0 THEN 'forty' \
             ELSE 'other' END AS a, CASE p.age WHEN 20 THEN 'twenty' END AS b ORDER BY p.name"
        ),
        [
            "a|thirty|null",
            "b|forty|null",
            "c|other|null",
            "d|other|twenty"
        ]
    );
    // A null subject equals nothing, not even a null WHEN value.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person {name: 'c'}) RETURN CASE p.age WHEN null THEN 1 ELSE 2 END"
        ),
        ["2"]
    );
}

#[test]
fn generic_case_takes_the_first_true_branch() {
    let m = people();
    assert_eq!(
        ordered(
            &m,
            "MATCH (p:Person) RETURN p.name, CASE WHEN p.age >= 40 THEN 'old' WHEN p.age >= 30 THEN 'mid' \
             WHEN p.age IS NULL THEN 'unknown' ELSE 'young' END ORDER BY p.name"
        ),
        ["a|mid", "b|old", "c|unknown", "d|young"]
    );
    // A null condition is not true; no branch and no ELSE gives null.
    assert_eq!(
        ordered(
            &m,
            "MATCH (p:Person) RETURN p.name, CASE WHEN p.age > 25 THEN p.age * 2 END ORDER BY p.name"
        ),
        ["a|60", "b|80", "c|null", "d|null"]
    );
}

#[test]
fn case_works_in_where_with_order_by_and_aggregate_arguments() {
    let m = people();
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WHERE CASE WHEN p.age IS NULL THEN true ELSE p.age > 35 END RETURN p.name"
        ),
        ["b", "c"]
    );
    assert_eq!(
        ordered(
            &m,
            "MATCH (p:Person) RETURN p.name AS name ORDER BY CASE name WHEN 'c' THEN 0 WHEN 'a' THEN 1 ELSE 2 END, name"
        ),
        ["c", "a", "b", "d"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) RETURN sum(CASE WHEN p.age > 25 THEN 1 ELSE 0 END) AS older, \
             count(CASE WHEN p.age > 25 THEN p END) AS n"
        ),
        ["2|2"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WITH CASE WHEN p.age > 25 THEN 'old' ELSE 'young' END AS g, count(*) AS n \
             WHERE CASE g WHEN 'old' THEN n > 1 ELSE true END RETURN g, n"
        ),
        ["old|2", "young|2"]
    );
}

#[test]
fn case_errors_name_the_place() {
    let m = people();
    let e = error(
        &m,
        "MATCH (p:Person)\nRETURN CASE WHEN p.age > 1 THEN q END",
    );
    assert!(
        e.contains("variable `q` is not defined") && e.contains("2:"),
        "{e}"
    );
    let e = error(
        &m,
        "MATCH (p:Person) RETURN CASE WHEN count(*) > 1 THEN 1 END",
    );
    assert!(e.contains("aggregate inside a larger expression"), "{e}");
}

// ----- UNWIND -----

#[test]
fn unwind_multiplies_rows_and_skips_null_and_empty_lists() {
    let m = people();
    assert_eq!(
        ordered(&m, "UNWIND [1, 2, 3] AS x RETURN x"),
        ["1", "2", "3"]
    );
    assert_eq!(
        ordered(&m, "UNWIND [1, 2] AS x UNWIND ['a', 'b'] AS y RETURN x, y"),
        ["1|a", "1|b", "2|a", "2|b"]
    );
    assert!(ordered(&m, "UNWIND [] AS x RETURN x").is_empty());
    assert!(ordered(&m, "UNWIND null AS x RETURN x").is_empty());
    assert_eq!(ordered(&m, "UNWIND [null, 1] AS x RETURN x"), ["null", "1"]);
    assert_eq!(rows(&m, "UNWIND [] AS x RETURN count(*)"), ["0"]);
    // Before MATCH: the MATCH runs once per element and may use it.
    assert_eq!(
        rows(
            &m,
            "UNWIND [30, 40, 50] AS age MATCH (p:Person) WHERE p.age = age RETURN age, p.name"
        ),
        ["30|a", "40|b"]
    );
    assert_eq!(
        rows(&m, "UNWIND [1, 2] AS x MATCH (p:Person) RETURN count(*)"),
        ["8"]
    );
    // After MATCH, over the match's values.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WHERE p.age > 25 UNWIND [p.age, p.age + 1] AS y RETURN p.name, y"
        ),
        ["a|30", "a|31", "b|40", "b|41"]
    );
    // After WITH, over a collected list.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WITH collect(p.name) AS names UNWIND names AS n RETURN n"
        ),
        ["a", "b", "c", "d"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WITH p.name AS n, [] AS none UNWIND none AS z RETURN count(*)"
        ),
        ["0"]
    );
}

#[test]
fn unwind_of_a_list_parameter_and_errors() {
    let m = people();
    let mut params = Params::default();
    params.insert("xs".into(), gemp::model::Value::Int(7));
    // A scalar parameter unwinds to itself, as in Cypher.
    assert_eq!(
        rows_under(
            &m,
            "UNWIND $xs AS x RETURN x",
            Semantics::Isomorphism,
            &params
        ),
        ["7"]
    );
    let e = error(&m, "MATCH (p:Person)\nUNWIND [1] AS p RETURN p");
    assert!(e.contains("already bound") && e.contains("2:"), "{e}");
    let e = error(&m, "UNWIND [1] AS x MATCH (x)-->(y) RETURN y");
    assert!(e.contains("`x` is a value, not a node"), "{e}");
}
