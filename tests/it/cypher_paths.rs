//! Named paths `p = (…)` as values: returned, carried through `WITH`, tested in `WHERE`, and taken
//! apart by `length`, `nodes` and `relationships`, on a four-node graph whose answers are worked
//! out by hand.

use crate::common::cypher::run;
use gemp::api::Graph;
use gemp::model::{ModelBuilder, ValueRef};

/// `a-[:KNOWS]->b-[:KNOWS]->c<-[:LIKES]-d`, each node's `name` its key.
fn chain() -> Graph {
    let mut b = ModelBuilder::new();
    let knows = b.rel_type("KNOWS");
    let likes = b.rel_type("LIKES");
    let name = b.node_property("name");
    let mut ids = Vec::new();
    for key in ["a", "b", "c", "d"] {
        let n = b.add_node(key, &["P"]);
        b.set_node_property(n, name, ValueRef::Str(key)).unwrap();
        ids.push(n);
    }
    for (s, d, t) in [(0, 1, knows), (1, 2, knows), (3, 2, likes)] {
        b.add_edge(ids[s], ids[d], t).unwrap();
    }
    Graph::from_model(b.freeze().unwrap())
}

fn rows(query: &str) -> Vec<String> {
    run(&chain(), query).1
}

#[test]
fn a_named_path_is_returned_with_its_relationships_directions() {
    assert_eq!(
        rows("MATCH p = (x {name: 'a'})-->(y) RETURN p, length(p)"),
        ["<a-[KNOWS]->b> | 1"]
    );
    // Written right to left: the path starts at `c`, its relationship pointing back at it.
    assert_eq!(
        rows("MATCH p = (x {name: 'c'})<-[:LIKES]-(y) RETURN p"),
        ["<c<-[LIKES]-d>"]
    );
    assert_eq!(
        rows("MATCH p = (x {name: 'b'})--(y) RETURN p, y.name ORDER BY y.name"),
        ["<b<-[KNOWS]-a> | 'a'", "<b-[KNOWS]->c> | 'c'"]
    );
    // One node: a path of length 0.
    assert_eq!(
        rows("MATCH p = (x {name: 'd'}) RETURN p, length(p), size(nodes(p))"),
        ["<d> | 0 | 1"]
    );
}

#[test]
fn variable_length_paths_list_their_nodes_in_order() {
    assert_eq!(
        rows(
            "MATCH p = (x {name: 'a'})-[*1..2]->(y) \
             RETURN length(p), [n IN nodes(p) | n.name], size(relationships(p)) \
             ORDER BY length(p)"
        ),
        ["1 | ['a', 'b'] | 1", "2 | ['a', 'b', 'c'] | 2"]
    );
    assert_eq!(
        rows("MATCH p = (x {name: 'c'})<-[:KNOWS*2]-(y) RETURN [n IN nodes(p) | n.name], p"),
        ["['c', 'b', 'a'] | <c<-[KNOWS]-b<-[KNOWS]-a>"]
    );
    assert_eq!(
        rows("MATCH p = (x {name: 'a'})-[rs*2]-(y) RETURN p, size(rs)"),
        ["<a-[KNOWS]->b-[KNOWS]->c> | 2"]
    );
}

#[test]
fn paths_are_tested_in_where_and_carried_through_with() {
    assert_eq!(
        rows("MATCH p = (x)-[*1..3]-(y) WHERE length(p) = 3 RETURN x.name, y.name ORDER BY x.name"),
        ["'a' | 'd'", "'d' | 'a'"]
    );
    assert_eq!(
        rows(
            "MATCH p = (x {name: 'a'})-->()-->() WITH p, x \
             RETURN length(p), nodes(p)[2].name, relationships(p)[0] = relationships(p)[1]"
        ),
        ["2 | 'c' | false"]
    );
    // Two matches of one path pattern are different paths; a path equals itself.
    assert_eq!(
        rows(
            "MATCH p = (x {name: 'b'})--() WITH collect(p) AS ps \
             RETURN size(ps), ps[0] = ps[1], ps[0] = ps[0]"
        ),
        ["2 | false | true"]
    );
}

#[test]
fn an_optional_path_without_a_match_is_null() {
    assert_eq!(
        rows("MATCH (x {name: 'd'}) OPTIONAL MATCH p = (x)-[:KNOWS]->() RETURN p, length(p)"),
        ["null | null"]
    );
}

#[test]
fn path_functions_refuse_other_values_and_path_names_clash() {
    let g = chain();
    let options = gemp::api::RunOptions::host().cypher();
    let class = |q: &str| {
        let e = match g.query_with(q, &options) {
            Ok(query) => g.execute(&query, &options).err(),
            Err(e) => Some(e),
        };
        e.and_then(|e| e.cypher_class()).map(|c| c.name())
    };
    assert_eq!(class("RETURN length(1) AS l"), Some("TypeError"));
    assert_eq!(
        class("UNWIND ['a'] AS x RETURN relationships(x) AS l"),
        Some("TypeError")
    );
    // A node variable is never a path: known before the query runs.
    assert_eq!(class("MATCH (x) RETURN nodes(x) AS l"), Some("SyntaxError"));
    assert_eq!(
        class("MATCH ()-[r]->() RETURN length(r) AS l"),
        Some("SyntaxError")
    );
    assert_eq!(
        class("MATCH p = ()-->() RETURN size(p) AS l"),
        Some("SyntaxError")
    );
    assert_eq!(
        class("MATCH p = ()-->() RETURN p.name AS l"),
        Some("SyntaxError")
    );
    assert_eq!(
        class("MATCH p = (x)-->(y), p = (y)-->() RETURN p"),
        Some("SyntaxError")
    );
}
