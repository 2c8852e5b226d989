//! The reading constructs beyond the core, on tiny graphs with answers worked out by hand: `CASE`,
//! `UNWIND`, `UNION [ALL]`, `OPTIONAL MATCH` and variable-length relationships (null cases
//! included); and property tests comparing the engine with brute-force evaluations on random
//! small graphs.

use crate::common;

use gemp::engines::gemp::execute;
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
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
    params.insert("xs".into(), gemp::model::Value::Int(7).into());
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

// ----- UNION -----

#[test]
fn union_removes_duplicates_and_union_all_keeps_them() {
    let m = people();
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WHERE p.age > 25 RETURN p.name AS n \
             UNION MATCH (p:Person)-[:KNOWS]->(q) RETURN q.name AS n"
        ),
        ["a", "b", "c"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WHERE p.age > 25 RETURN p.name AS n \
             UNION ALL MATCH (p:Person)-[:KNOWS]->(q) RETURN q.name AS n"
        ),
        ["a", "b", "b", "c", "c"]
    );
    // UNION also removes duplicates within one query.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person)-[:KNOWS]->(q) RETURN q.name AS n UNION UNWIND ['z'] AS n RETURN n"
        ),
        ["b", "c", "z"]
    );
    // Three parts, aggregates per part.
    assert_eq!(
        ordered(
            &m,
            "MATCH (p:Person) RETURN count(*) AS n UNION ALL MATCH (t:Thing) RETURN count(*) AS n \
             UNION ALL MATCH (p:Person)-[:LIKES]->() RETURN count(*) AS n"
        ),
        ["4", "1", "1"]
    );
}

#[test]
fn union_needs_the_same_columns() {
    let m = people();
    let e = error(
        &m,
        "MATCH (p:Person) RETURN p.name AS n\nUNION\nMATCH (p:Person) RETURN p.name AS m",
    );
    assert!(e.contains("same columns") && e.contains("2:1"), "{e}");
    let e = error(
        &m,
        "MATCH (p:Person) RETURN p.name AS n, 1 AS k UNION MATCH (p:Person) RETURN p.name AS n",
    );
    assert!(e.contains("`n, k` before, `n` after"), "{e}");
}

// ----- OPTIONAL MATCH -----

#[test]
fn optional_match_extends_with_nulls() {
    let m = people();
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) OPTIONAL MATCH (p)-[:KNOWS]->(q) RETURN p.name, q.name"
        ),
        ["a|b", "a|c", "b|c", "c|null", "d|null"]
    );
    // WHERE filters the optional part, not the row.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) OPTIONAL MATCH (p)-[:KNOWS]->(q) WHERE q.age > 35 RETURN p.name, q.name"
        ),
        ["a|b", "b|null", "c|null", "d|null"]
    );
    // A WHERE after WITH filters rows.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) OPTIONAL MATCH (p)-[:KNOWS]->(q) WITH p, q WHERE q IS NULL RETURN p.name"
        ),
        ["c", "d"]
    );
    // count(x) ignores nulls; count(*) counts rows.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) OPTIONAL MATCH (p)-[:KNOWS]->(q) RETURN p.name, count(q) AS k, count(*) AS rows"
        ),
        ["a|2|2", "b|1|1", "c|0|1", "d|0|1"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) OPTIONAL MATCH (p)-[:KNOWS]->(q) RETURN count(q) AS k"
        ),
        ["3"]
    );
    // Labels written on a bound node restrict the optional part only.
    assert_eq!(
        rows(
            &m,
            "MATCH (p) OPTIONAL MATCH (p:Thing)-->(q) RETURN p.name, q.name"
        ),
        ["a|null", "b|null", "c|null", "d|null", "x|null"]
    );
}

#[test]
fn optional_match_chains_nulls_and_stands_alone() {
    let m = people();
    // A later optional part through a null node is null too.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person) WHERE p.name IN ['a', 'd'] OPTIONAL MATCH (p)-[:LIKES]->(q) \
             OPTIONAL MATCH (q)-->(r) RETURN p.name, q.name, r.name"
        ),
        ["a|null|null", "d|null|null"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person {name: 'a'}) OPTIONAL MATCH (p)-[:KNOWS]->(q) OPTIONAL MATCH (q)-[:LIKES]->(r) \
             RETURN q.name, r.name"
        ),
        ["b|null", "c|d"]
    );
    // Without MATCH: one row of nulls when nothing matches.
    assert_eq!(
        rows(&m, "OPTIONAL MATCH (t:Thing)-->(y) RETURN t, y"),
        ["null|null"]
    );
    assert_eq!(rows(&m, "OPTIONAL MATCH (t:Thing) RETURN t.name"), ["x"]);
    // A named optional relationship is null too; node-isomorphism keeps q apart from p.
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person {name: 'd'}) OPTIONAL MATCH (p)-[r]-(q) RETURN type(r), q.name"
        ),
        ["LIKES|c"]
    );
    assert_eq!(
        rows(
            &m,
            "MATCH (p:Person {name: 'c'}) OPTIONAL MATCH (p)-[r:LIKES]->(q) OPTIONAL MATCH (q)-[s]->(z) \
             RETURN type(r), q.name, s, z"
        ),
        ["LIKES|d|null|null"]
    );
}

// ----- variable-length relationships -----

/// A chain a→b→c→d and a shortcut a→c, all `:T`.
fn chain() -> Model {
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    let name = b.node_property("name");
    let ids: Vec<u32> = ["a", "b", "c", "d"]
        .iter()
        .map(|k| {
            let n = b.add_node(k, &["N"]);
            b.set_node_property(n, name, ValueRef::Str(k)).unwrap();
            n
        })
        .collect();
    for (s, d) in [(0, 1), (1, 2), (2, 3), (0, 2)] {
        b.add_edge(ids[s], ids[d], t).unwrap();
    }
    b.freeze().unwrap()
}

#[test]
fn variable_length_paths_by_hand() {
    let m = chain();
    let iso = |q: &str| {
        let mut r = rows_under(&m, q, Semantics::Isomorphism, &Params::default());
        r.sort();
        r
    };
    assert_eq!(
        iso("MATCH (x {name: 'a'})-[:T*1..3]->(y) RETURN y.name"),
        ["b", "c", "c", "d", "d"]
    );
    assert_eq!(
        iso("MATCH (x {name: 'a'})-[:T*2]->(y) RETURN y.name"),
        ["c", "d"]
    );
    assert_eq!(
        iso("MATCH (x {name: 'a'})-[:T*..2]->(y) RETURN y.name"),
        ["b", "c", "c", "d"]
    );
    // Backwards, and with a named list.
    assert_eq!(
        iso("MATCH (y {name: 'd'})<-[r:T*2..3]-(x) RETURN x.name, size(r)"),
        ["a|2", "a|3", "b|2"]
    );
    // Undirected: simple paths only under isomorphism.
    assert_eq!(
        iso("MATCH (x {name: 'b'})-[:T*2]-(y) RETURN y.name"),
        ["a", "c", "d"]
    );
    // Both ends bound: the paths between them.
    assert_eq!(
        iso("MATCH (x {name: 'a'}), (y {name: 'd'}) MATCH (x)-[:T*1..3]->(y) RETURN count(*)"),
        ["2"]
    );
}

#[test]
fn variable_length_semantics_differ_on_cycles() {
    // a→b, b→a: a 2-cycle.
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    let x = b.add_node("a", &["N"]);
    let y = b.add_node("b", &["N"]);
    b.add_edge(x, y, t).unwrap();
    b.add_edge(y, x, t).unwrap();
    let m = b.freeze().unwrap();
    let count = |s: Semantics| {
        rows_under(
            &m,
            "MATCH (p)-[:T*1..3]->(q) RETURN count(*)",
            s,
            &Params::default(),
        )
    };
    // Isomorphism: simple paths with p ≠ q: a→b, b→a.
    assert_eq!(count(Semantics::Isomorphism), ["2"]);
    // Cypher: trails (no repeated edge): a→b, a→b→a, b→a, b→a→b.
    assert_eq!(count(Semantics::Cypher), ["4"]);
    // Homomorphism: walks of 1 to 3 hops from each node: 2 + 2 + 2.
    assert_eq!(count(Semantics::Homomorphism), ["6"]);
}

#[test]
fn variable_length_errors() {
    let m = chain();
    // Unbounded and zero-length ones: see `cypher_reading`.
    // An empty interval (`*3..2`) is no error: it matches nothing (`cypher_functions`).
    let e = error(&m, "MATCH (x)-[:T*1..33]->(y) RETURN y");
    assert!(
        e.contains("0 <= min <= max <= 32") && e.contains("1:14"),
        "{e}"
    );
    let e = error(&m, "MATCH (x) WHERE (x)-[:T*1..2]->() RETURN x");
    assert!(e.contains("inside EXISTS"), "{e}");
    let e = error(&m, "MATCH (x)-[:T*1..2 {w: 1}]->(y) RETURN y");
    assert!(e.contains("property map on a variable-length"), "{e}");
}

// ----- property tests against brute force -----

mod brute {
    use super::*;
    use common::random_graphs::{add_graph, graph, G};
    use proptest::prelude::*;

    /// The model of `g` (node keys are the node numbers).
    fn model_of(g: &G) -> Model {
        let mut b = ModelBuilder::new();
        add_graph(&mut b, g);
        b.freeze().unwrap()
    }

    /// The rows of `source` as sorted tuples of node numbers (`None` for null).
    fn node_rows(m: &Model, source: &str, semantics: Semantics) -> Vec<Vec<Option<usize>>> {
        let q = Session::host(m)
            .compile(source, &Params::default())
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let opts = MatchOptions {
            semantics,
            ..Default::default()
        };
        let out = execute(m, &q, &opts).unwrap();
        let mut rows: Vec<Vec<Option<usize>>> = out
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v| match v {
                        Val::Node(n) => m.node_key(*n).and_then(|k| k.parse().ok()),
                        Val::Null => None,
                        other => panic!("unexpected {other}"),
                    })
                    .collect()
            })
            .collect();
        rows.sort();
        rows
    }

    /// Every path of `min..=max` hops along `T0` edges from each node, as (start, end), the way
    /// `semantics` counts them: simple node sequences (isomorphism), node-sequence walks
    /// (homomorphism), trails of edges (Cypher).
    fn paths(g: &G, min: usize, max: usize, semantics: Semantics) -> Vec<Vec<Option<usize>>> {
        let edges: Vec<(usize, usize)> = g
            .edges
            .iter()
            .filter(|e| e.2 == 0)
            .map(|e| (e.0, e.1))
            .collect();
        let mut out = Vec::new();
        fn go(
            edges: &[(usize, usize)],
            semantics: Semantics,
            (min, max): (usize, usize),
            nodes: &mut Vec<usize>,
            used: &mut Vec<usize>,
            out: &mut Vec<Vec<Option<usize>>>,
        ) {
            let hops = nodes.len() - 1;
            let cur = nodes[hops];
            if hops >= min {
                out.push(vec![Some(nodes[0]), Some(cur)]);
            }
            if hops == max {
                return;
            }
            let mut next: Vec<(usize, usize)> = edges
                .iter()
                .enumerate()
                .filter(|(_, e)| e.0 == cur)
                .map(|(i, e)| (e.1, i))
                .collect();
            if semantics != Semantics::Cypher {
                next.sort_by_key(|x| x.0);
                next.dedup_by_key(|x| x.0);
            }
            for (v, e) in next {
                if semantics == Semantics::Isomorphism && nodes.contains(&v) {
                    continue;
                }
                if semantics == Semantics::Cypher && used.contains(&e) {
                    continue;
                }
                nodes.push(v);
                used.push(e);
                go(edges, semantics, (min, max), nodes, used, out);
                nodes.pop();
                used.pop();
            }
        }
        for start in 0..g.labels.len() {
            go(
                &edges,
                semantics,
                (min, max),
                &mut vec![start],
                &mut Vec::new(),
                &mut out,
            );
        }
        out.sort();
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn variable_length_paths_equal_brute_force(
            g in graph(6, 10),
            min in 1usize..3,
            extra in 0usize..3,
        ) {
            let m = model_of(&g);
            let max = min + extra;
            for semantics in [Semantics::Isomorphism, Semantics::Homomorphism, Semantics::Cypher] {
                let q = format!("MATCH (x)-[:T0*{min}..{max}]->(y) RETURN x, y");
                prop_assert_eq!(
                    node_rows(&m, &q, semantics),
                    paths(&g, min, max, semantics),
                    "{} under {}", q, semantics
                );
            }
        }

        #[test]
        fn optional_match_equals_brute_force(g in graph(6, 10)) {
            let m = model_of(&g);
            let n = g.labels.len();
            let mut want = Vec::new();
            for x in (0..n).filter(|&x| g.labels[x] == 0) {
                let mut ys: Vec<usize> = g
                    .edges
                    .iter()
                    .filter(|e| e.0 == x && e.2 == 1 && e.1 != x && g.labels[e.1] == 1)
                    .map(|e| e.1)
                    .collect();
                ys.sort();
                ys.dedup();
                if ys.is_empty() {
                    want.push(vec![Some(x), None]);
                }
                want.extend(ys.into_iter().map(|y| vec![Some(x), Some(y)]));
            }
            want.sort();
            let q = "MATCH (x:L0) OPTIONAL MATCH (x)-[:T1]->(y:L1) RETURN x, y";
            prop_assert_eq!(node_rows(&m, q, Semantics::Isomorphism), want);
        }

        #[test]
        fn union_equals_brute_force(g in graph(6, 10)) {
            let m = model_of(&g);
            let n = g.labels.len();
            let first: Vec<usize> = (0..n).filter(|&x| g.labels[x] == 0).collect();
            // One row per binding of x and the anonymous node (parallel edges count once).
            let mut pairs: Vec<(usize, usize)> = g
                .edges
                .iter()
                .filter(|e| e.2 == 0 && e.0 != e.1)
                .map(|e| (e.0, e.1))
                .collect();
            pairs.sort();
            pairs.dedup();
            let second: Vec<usize> = pairs.iter().map(|p| p.0).collect();
            let mut all: Vec<Vec<Option<usize>>> =
                first.iter().chain(&second).map(|&x| vec![Some(x)]).collect();
            all.sort();
            let mut distinct = all.clone();
            distinct.dedup();
            let q = "MATCH (x:L0) RETURN x UNION ALL MATCH (x)-[:T0]->() RETURN x";
            prop_assert_eq!(node_rows(&m, q, Semantics::Isomorphism), all);
            let q = "MATCH (x:L0) RETURN x UNION MATCH (x)-[:T0]->() RETURN x";
            prop_assert_eq!(node_rows(&m, q, Semantics::Isomorphism), distinct);
        }
    }
}
