//! Incremental re-checking ([`gemp::api::LiveQuery`]): after random sequences of changes (rule
//! statements through `Graph::apply` and committed transactions) on random small graphs, the
//! refreshed matches equal a full re-run on the changed graph, the reported difference is exactly
//! the change of the match multiset, and the refresh was incremental. Also on the Train
//! Benchmark's inject transformations.

use crate::common;

use std::collections::BTreeMap;

use common::Rng;
use gemp::api::{Graph, LiveQuery};
use proptest::prelude::*;

/// Queries covering named and anonymous nodes, named relationships with properties, negative
/// pattern predicates, `EXISTS` two hops deep, disconnected parts, id ordering and a loop.
const QUERIES: &[&str] = &[
    "MATCH (a:A)-[:R]->(b) RETURN a, b",
    "MATCH (a)-[:R]->(b)-[:S]->(c) WHERE a.v < c.v RETURN a, c",
    "MATCH (a:A)-[:R]->(:B) RETURN a",
    "MATCH (a:A) WHERE NOT (a)-[:S]->() RETURN a",
    "MATCH (a)-[r:R]->(b) WHERE r.w = 1 RETURN a, r, b",
    "MATCH (a:A), (b:B) WHERE id(a) < id(b) AND a.v = b.v RETURN a, b",
    "MATCH (a) WHERE EXISTS { MATCH (a)-[:R]->(x)-[:R]->(:A) } RETURN a",
    "MATCH (a:B)<-[:S]-(b)-[:S]->(c:B) RETURN a, b, c",
    "MATCH (a)-[:R]->(a) RETURN a",
    "MATCH (a:A)-[:R]->(b)<-[:S]-(:B)-[:R]->(c) WHERE b:B RETURN a, c",
];

/// A random graph of 3..12 nodes as a JSON graph document. Node 0 is an `A` with `v`, node 1 a
/// `B`, and the first two edges are `R {w}` and `S`, so that every name the queries use exists.
fn random_graph(rng: &mut Rng) -> String {
    let n = 3 + rng.below(10);
    let mut nodes = Vec::new();
    for i in 0..n {
        let mut labels = Vec::new();
        if i == 0 || rng.chance(50) {
            labels.push("\"A\"");
        }
        if i == 1 || rng.chance(40) {
            labels.push("\"B\"");
        }
        let props = if i == 0 || rng.chance(70) {
            format!(r#", "properties": {{"v": {}}}"#, rng.below(3))
        } else {
            String::new()
        };
        nodes.push(format!(
            r#"{{"id": "n{i}", "labels": [{}]{props}}}"#,
            labels.join(", ")
        ));
    }
    let mut edges = vec![
        format!(
            r#"{{"source": "n0", "target": "n1", "type": "R", "properties": {{"w": {}}}}}"#,
            rng.below(2)
        ),
        r#"{"source": "n1", "target": "n2", "type": "S"}"#.to_string(),
    ];
    for _ in 0..rng.below(2 * n + 1) {
        let (s, t) = (rng.below(n), rng.below(n));
        let ty = if rng.chance(55) { "R" } else { "S" };
        let props = if rng.chance(50) {
            format!(r#", "properties": {{"w": {}}}"#, rng.below(2))
        } else {
            String::new()
        };
        edges.push(format!(
            r#"{{"source": "n{s}", "target": "n{t}", "type": "{ty}"{props}}}"#
        ));
    }
    format!(
        r#"{{"nodes": [{}], "edges": [{}]}}"#,
        nodes.join(", "),
        edges.join(", ")
    )
}

/// A random updating statement over a graph of `n` nodes.
fn random_change(rng: &mut Rng, n: usize) -> String {
    let n = n.max(1);
    let (i, j, k) = (rng.below(n), rng.below(n), rng.below(3));
    let ty = if rng.chance(55) { "R" } else { "S" };
    match rng.below(11) {
        0 => format!("MATCH (n) WHERE id(n) = {i} SET n.v = {k}"),
        1 => format!("MATCH (n) WHERE id(n) = {i} REMOVE n.v"),
        2 => format!("MATCH (n) WHERE id(n) = {i} SET n:A"),
        3 => format!("MATCH (n) WHERE id(n) = {i} REMOVE n:A SET n:B"),
        4 if i != j => format!(
            "MATCH (a), (b) WHERE id(a) = {i} AND id(b) = {j} CREATE (a)-[:{ty} {{w: {}}}]->(b)",
            k % 2
        ),
        4 => format!("MATCH (a) WHERE id(a) = {i} CREATE (a)-[:R]->(a)"),
        5 => format!("MATCH (a)-[r:{ty}]->() WHERE id(a) = {i} DELETE r"),
        6 => format!("MATCH (n) WHERE id(n) = {i} DETACH DELETE n"),
        7 => format!("MATCH (n) WHERE id(n) = {i} CREATE (n)-[:S]->(:B {{v: {k}}})"),
        8 => format!("MATCH (a)-[r:R]->() WHERE id(a) = {i} SET r.w = {}", k % 2),
        9 => format!("CREATE (:A {{v: {k}}})-[:R {{w: 1}}]->(:A:B)"),
        _ => format!("MATCH (a)<-[r]-() WHERE id(a) = {i} DELETE r"),
    }
}

fn multiset(rows: &[Vec<String>]) -> BTreeMap<Vec<String>, usize> {
    let mut m = BTreeMap::new();
    for r in rows {
        *m.entry(r.clone()).or_default() += 1;
    }
    m
}

/// Refreshes `live`, checks it against a full run on `graph`, and the diff against the change.
fn check(graph: &Graph, live: &mut LiveQuery, context: &str, incremental: bool) {
    let before = multiset(&live.matches());
    let diff = live.refresh(graph).unwrap();
    let full = graph.live_query(live.source()).unwrap().matches();
    assert_eq!(
        live.matches(),
        full,
        "{context}\nquery: {}\ndiff: {diff:?}",
        live.source()
    );
    let mut expected = before;
    for a in &diff.added {
        *expected.entry(a.clone()).or_default() += 1;
    }
    for r in &diff.removed {
        let c = expected.get_mut(r).expect("a removed match was there");
        *c -= 1;
    }
    expected.retain(|_, c| *c > 0);
    assert_eq!(
        expected,
        multiset(&full),
        "{context}: the diff is not the change"
    );
    assert!(
        diff.incremental || !incremental,
        "{context}: {} ran in full",
        live.source()
    );
}

fn run_case(seed: u64) {
    let mut rng = Rng(seed);
    let text = random_graph(&mut rng);
    let mut graph = Graph::from_json_str(&text).unwrap();
    let mut live: Vec<LiveQuery> = QUERIES
        .iter()
        .map(|q| graph.live_query(q).unwrap())
        .collect();
    let mut log = vec![format!("graph: {text}")];
    for _ in 0..1 + rng.below(6) {
        let n = graph.model().node_count();
        if rng.chance(25) {
            // Two changes in one committed transaction.
            let (a, b) = (random_change(&mut rng, n), random_change(&mut rng, n));
            let mut tx = graph.transaction();
            let ok = tx.apply(&a).is_ok() && tx.apply(&b).is_ok();
            if ok {
                tx.commit();
                log.push(format!("tx: {a}; {b}"));
            } else {
                tx.rollback();
            }
        } else {
            let change = random_change(&mut rng, n);
            if graph.apply(&change).is_ok() {
                log.push(change);
            }
        }
        // Not every query is refreshed after every change: some catch up on several at once.
        for l in live.iter_mut() {
            if rng.chance(70) {
                check(&graph, l, &log.join("\n"), true);
            }
        }
    }
    for l in live.iter_mut() {
        check(&graph, l, &log.join("\n"), true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn incremental_refresh_equals_a_full_run(seed in any::<u64>()) {
        run_case(seed);
    }
}

#[test]
fn refresh_reports_added_and_removed_matches() {
    let mut g = Graph::from_json_str(
        r#"{"nodes": [{"id": "a", "labels": ["A"]}, {"id": "b", "labels": ["B"]},
                      {"id": "c", "labels": ["B"]}],
            "edges": [{"source": "a", "target": "b", "type": "R"}]}"#,
    )
    .unwrap();
    let mut live = g.live_query("MATCH (x:A)-[:R]->(y:B) RETURN x, y").unwrap();
    assert_eq!(live.columns(), ["x", "y"]);
    assert_eq!(live.matches(), vec![vec!["a".to_string(), "b".into()]]);
    g.apply(
        "MATCH (x:A)-[r:R]->(y:B) DELETE r; MATCH (x:A), (c:B) WHERE NOT (x)-[:R]->(c) \
         AND id(c) = 2 CREATE (x)-[:R]->(c)",
    )
    .unwrap();
    let diff = live.refresh(&g).unwrap();
    assert_eq!(diff.added, vec![vec!["a".to_string(), "c".into()]]);
    assert_eq!(diff.removed, vec![vec!["a".to_string(), "b".into()]]);
    assert!(diff.incremental);
    assert_eq!(diff.affected, 3);
    // Nothing changed since: an empty diff.
    assert!(live.refresh(&g).unwrap().is_empty());
    // A rolled-back transaction changes nothing either.
    let mut tx = g.transaction();
    tx.apply("MATCH (x:A) DETACH DELETE x").unwrap();
    tx.rollback();
    assert!(live.refresh(&g).unwrap().is_empty());
    // Another graph's query is refused; unsupported queries are errors.
    let other = Graph::from_json_str(r#"{"nodes": [], "edges": []}"#).unwrap();
    assert!(live.refresh(&other).is_err());
    for q in [
        "MATCH (x:A) RETURN count(x)",
        "MATCH (x:A) WITH x RETURN x",
        "MATCH (x:A) RETURN x LIMIT 1",
        "MATCH (x:A) OPTIONAL MATCH (x)-[:R]->(y:B) RETURN x, y",
        "MATCH (x:A)-[:R*1..2]->(y) RETURN x, y",
        "UNWIND [1, 2] AS i MATCH (x:A) RETURN x, i",
    ] {
        let err = g.live_query(q).unwrap_err().to_string();
        assert!(err.contains("live query"), "{q}: {err}");
    }
    // A part without a named node: correct, by a full re-run.
    let mut full = g.live_query("MATCH (x:A), (:B)-[:R]->() RETURN x").unwrap();
    g.apply("MATCH (b:B) CREATE (b)-[:R]->(:A)").unwrap();
    let diff = full.refresh(&g).unwrap();
    assert!(!diff.incremental);
    assert_eq!(full.len(), 3);
}

/// On the Train Benchmark's scale-1 inject model, each inject transformation followed by a
/// refresh of all six queries gives what a full run gives; the injected query grows as
/// `tests/transform_trainbenchmark.rs` counts.
#[test]
fn train_benchmark_inject_refreshes_incrementally() {
    let Some(dir) = common::trainbenchmark_dir("live_query") else {
        return;
    };
    let queries = common::root().join("datasets/queries/trainbenchmark");
    let read = |f: &str| std::fs::read_to_string(queries.join(f)).unwrap();
    let names = [
        "PosLength",
        "SwitchMonitored",
        "RouteSensor",
        "SemaphoreNeighbor",
        "SwitchSet",
        "ConnectedSegments",
    ];
    for (i, name) in names.iter().enumerate() {
        let mut g =
            Graph::load(&[dir.join("railway.xcore"), dir.join("railway-inject-1.xmi")]).unwrap();
        let mut live: Vec<LiveQuery> = names
            .iter()
            .map(|n| g.live_query(&read(&format!("{n}.cypher"))).unwrap())
            .collect();
        let before = live[i].len();
        g.apply(&read(&format!("{name}.inject.cypher"))).unwrap();
        for l in live.iter_mut() {
            check(&g, l, name, false);
        }
        let grown = if *name == "SemaphoreNeighbor" { 25 } else { 10 };
        assert_eq!(live[i].len(), before + grown, "{name}");
    }
}
