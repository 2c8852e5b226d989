#![no_main]
//! Rule files (the updating clauses) never panic: any text is parsed as a rule file; what parses
//! is applied to a small model (errors allowed, panics not). When the application succeeds, the
//! changed model answers queries, and a live query refreshed after the change equals a full run.

use gemp::api::Graph;
use gemp::model::{Model, ModelBuilder, ValueRef};
use gemp::transform::{ApplyOptions, Rules};
use libfuzzer_sys::fuzz_target;

/// Three nodes and three edges (built afresh for each input: a model is not `Clone`).
fn model() -> Model {
    let mut b = ModelBuilder::new();
    let actor = b.rel_type("ACTOR");
    let next = b.rel_type("NEXT");
    let name = b.node_property("primaryName");
    let length = b.node_property("length");
    let p = b.add_node("p", &["Person"]);
    let q = b.add_node("q", &["Person"]);
    let m = b.add_node("m", &["Title", "Movie"]);
    b.set_node_property(p, name, ValueRef::Str("Jack")).unwrap();
    b.set_node_property(m, length, ValueRef::Int(-2)).unwrap();
    b.add_edge(p, m, actor).unwrap();
    b.add_edge(q, m, actor).unwrap();
    b.add_edge(p, q, next).unwrap();
    b.freeze().unwrap()
}

const LIVE: &str = "MATCH (a)-[:ACTOR]->(b) WHERE NOT (a)-[:NEXT]->() RETURN a, b";

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rules) = Rules::parse(text, Some("fuzz.cypher")) else {
        return;
    };
    let options = ApplyOptions {
        until_fixpoint: data.first().is_some_and(|b| b % 2 == 0),
        max_iterations: 2,
        ..Default::default()
    };
    if gemp::transform::apply(&model(), &rules, &options).is_err() {
        return;
    }
    let mut graph = Graph::from_model(model());
    let mut live = graph.live_query(LIVE).expect("the live query binds");
    if graph.apply_with(text, &options).is_err() {
        return;
    }
    let nodes = graph.model().node_count() as u64;
    assert_eq!(
        graph.count("MATCH (n) RETURN n").expect("counting nodes"),
        nodes
    );
    live.refresh(&graph).expect("refresh");
    let full = graph.live_query(LIVE).expect("the live query binds");
    assert_eq!(live.matches(), full.matches());
});
