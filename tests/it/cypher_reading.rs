//! Reading clauses as Cypher has them: unbounded and zero-length variable-length relationships,
//! the `WHERE` of a `WITH` seeing the variables before it, and a variable used as a node and as
//! a relationship rejected as Cypher rejects it. Answers worked out by hand on small graphs.

use crate::common::cypher::run;
use gemp::api::{Graph, RunOptions};
use gemp::model::{ModelBuilder, ValueRef};
use gemp::pattern::Semantics;

/// Nodes named by their keys with `edges` between them (`(from, to, type)`).
fn graph(keys: &[&str], edges: &[(usize, usize, &str)]) -> Graph {
    let mut b = ModelBuilder::new();
    let name = b.node_property("name");
    let ids: Vec<u32> = keys
        .iter()
        .map(|k| {
            let n = b.add_node(k, &["P"]);
            b.set_node_property(n, name, ValueRef::Str(k)).unwrap();
            n
        })
        .collect();
    for &(s, d, t) in edges {
        let t = b.rel_type(t);
        b.add_edge(ids[s], ids[d], t).unwrap();
    }
    Graph::from_model(b.freeze().unwrap())
}

/// `a-[:KNOWS]->b-[:KNOWS]->c<-[:LIKES]-d`.
fn chain() -> Graph {
    graph(
        &["a", "b", "c", "d"],
        &[(0, 1, "KNOWS"), (1, 2, "KNOWS"), (3, 2, "LIKES")],
    )
}

/// The openCypher class of the error `query` fails with on `g` (`None`: it runs).
fn class(g: &Graph, options: &RunOptions, query: &str) -> Option<&'static str> {
    let e = match g.query_with(query, options) {
        Ok(q) => g.execute(&q, options).err(),
        Err(e) => Some(e),
    };
    e.and_then(|e| e.cypher_class()).map(|c| c.name())
}

#[test]
fn unbounded_variable_length_relationships_go_as_far_as_the_graph() {
    let g = chain();
    assert_eq!(
        run(
            &g,
            "MATCH (x {name: 'a'})-[*]->(y) RETURN y.name ORDER BY y.name"
        )
        .1,
        ["'b'", "'c'"]
    );
    assert_eq!(
        run(
            &g,
            "MATCH (x {name: 'a'})-[rs*]-(y) RETURN y.name, size(rs) ORDER BY size(rs)"
        )
        .1,
        ["'b' | 1", "'c' | 2", "'d' | 3"]
    );
    assert_eq!(
        run(
            &g,
            "MATCH (x {name: 'a'})-[*2..]-(y) RETURN y.name ORDER BY y.name"
        )
        .1,
        ["'c'", "'d'"]
    );
    // Round a triangle: back at the start after three hops, and no further (each
    // relationship once per path).
    let triangle = graph(&["x", "y", "z"], &[(0, 1, "T"), (1, 2, "T"), (2, 0, "T")]);
    assert_eq!(
        run(
            &triangle,
            "MATCH (a {name: 'x'})-[rs*]->(b) RETURN b.name, size(rs) ORDER BY size(rs)"
        )
        .1,
        ["'y' | 1", "'z' | 2", "'x' | 3"]
    );
}

#[test]
fn zero_length_paths_stay_at_their_start() {
    let g = chain();
    assert_eq!(
        run(
            &g,
            "MATCH (x {name: 'a'})-[*0..]->(y) RETURN y.name ORDER BY y.name"
        )
        .1,
        ["'a'", "'b'", "'c'"]
    );
    assert_eq!(
        run(
            &g,
            "MATCH p = (x {name: 'd'})-[*0..1]-(y) RETURN length(p), y.name, p ORDER BY length(p)"
        )
        .1,
        ["0 | 'd' | <d>", "1 | 'c' | <d-[LIKES]->c>"]
    );
}

#[test]
fn unbounded_walks_are_refused_on_large_graphs() {
    // 1,025 relationships: one more than an unbounded walk may go through.
    let keys: Vec<String> = (0..1026).map(|i| format!("n{i}")).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let edges: Vec<(usize, usize, &str)> = (0..1025).map(|i| (i, i + 1, "T")).collect();
    let g = graph(&keys, &edges);
    let options = RunOptions::host().cypher();
    let e = g
        .query_with(
            "MATCH (x {name: 'n0'})-[*]->(y) RETURN count(*) AS n",
            &options,
        )
        .unwrap_err();
    assert!(e.to_string().contains("more than 1024"), "{e}");
    // With a bound it runs: n0 reaches n1..n32.
    assert_eq!(
        run(
            &g,
            "MATCH (x {name: 'n0'})-[*1..32]->(y) RETURN count(*) AS n"
        )
        .1,
        ["32"]
    );
}

#[test]
fn unbounded_walks_are_refused_under_homomorphism() {
    let g = chain();
    let mut options = RunOptions::host();
    options.semantics = Some(Semantics::Homomorphism);
    let q = g
        .query_with("MATCH (x)-[*]->(y) RETURN count(*) AS n", &options)
        .unwrap();
    let e = g.execute(&q, &options).unwrap_err();
    assert!(e.to_string().contains("homomorphism"), "{e}");
}

#[test]
fn the_where_of_a_with_sees_the_variables_before_it() {
    let g = chain();
    // a->b has b->c after it (r bound), b->c has no KNOWS after c (r null).
    assert_eq!(
        run(
            &g,
            "MATCH (x)-[:KNOWS]->(y) OPTIONAL MATCH (y)-[r:KNOWS]->(z) \
             WITH x WHERE r IS NULL RETURN x.name"
        )
        .1,
        ["'b'"]
    );
    let (columns, rows) = run(
        &g,
        "MATCH (x)-[:KNOWS]->(y) WITH y.name AS n WHERE x.name = 'a' RETURN *",
    );
    assert_eq!(
        (columns, rows),
        (vec!["n".to_string()], vec!["'b'".to_string()])
    );
    // After an aggregate, the variables before it are gone.
    let options = RunOptions::host().cypher();
    assert!(g
        .query_with(
            "MATCH (x)-->(y) WITH count(*) AS n WHERE x.name = 'a' RETURN n",
            &options
        )
        .is_err());
}

#[test]
fn a_variable_is_a_node_or_a_relationship_not_both() {
    let g = chain();
    let options = RunOptions::host().cypher();
    assert_eq!(
        class(&g, &options, "MATCH ()-[r]->() MATCH (r) RETURN r"),
        Some("SyntaxError")
    );
    assert_eq!(
        class(&g, &options, "MATCH (r) MATCH ()-[r]->() RETURN r"),
        Some("SyntaxError")
    );
    assert_eq!(
        class(&g, &options, "MATCH r = ()-->() MATCH (r) RETURN r"),
        Some("SyntaxError")
    );
}
