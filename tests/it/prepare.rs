//! One way to prepare a query (`Session::prepare`): a query file's `// gemp: semantics=…` line
//! means the same through the command line and the library; a prepared query runs again with new
//! parameters; a `Graph` keeps one session (one device context) across queries.

use std::process::Command;

use gemp::api::{Graph, RunOptions};
use gemp::exec::Semantics;
use gemp::model::Value;
use gemp::session::{PrepareOptions, SemanticsFrom, Session};

/// Two people who know each other both ways and a third known by one: under node-isomorphism
/// `(a)-->(b)-->(c)` needs three distinct nodes; under homomorphism a may be c.
const GRAPH: &str = r#"{"nodes": [
    {"id": "p1", "labels": ["Person"], "properties": {"age": 30}},
    {"id": "p2", "labels": ["Person"], "properties": {"age": 40}},
    {"id": "p3", "labels": ["Person"], "properties": {"age": 50}}],
  "edges": [
    {"source": "p1", "target": "p2", "type": "KNOWS"},
    {"source": "p2", "target": "p1", "type": "KNOWS"},
    {"source": "p2", "target": "p3", "type": "KNOWS"}]}"#;

const QUERY: &str = "// A path of two hops, as a homomorphism counts it.\n\
// gemp: semantics=homomorphism\n\
MATCH (a:Person)-[:KNOWS]->(b:Person)-[:KNOWS]->(c:Person) RETURN count(*) AS n\n";

#[test]
fn a_semantics_line_means_the_same_through_the_cli_and_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let graph_path = dir.path().join("g.json");
    let query_path = dir.path().join("q.cypher");
    std::fs::write(&graph_path, GRAPH).unwrap();
    std::fs::write(&query_path, QUERY).unwrap();

    // By hand: homomorphism counts p1→p2→p1, p1→p2→p3, p2→p1→p2 = 3; isomorphism only p1→p2→p3.
    let graph = Graph::load(&[&graph_path]).unwrap();
    let from_file = graph.query_file(&query_path, &RunOptions::host()).unwrap();
    assert_eq!(from_file.semantics(), Semantics::Homomorphism);
    let library = graph.execute(&from_file, &RunOptions::host()).unwrap();
    let text = graph.query(QUERY).unwrap();
    let library_text = graph.execute(&text, &RunOptions::host()).unwrap();
    let row = |m: &gemp::api::Matches<'_>| m.output().rows[0][0].to_string();
    assert_eq!(row(&library), "3");
    assert_eq!(row(&library_text), "3");
    // The caller's option overrides the line.
    let iso = RunOptions {
        semantics: Some(Semantics::Isomorphism),
        ..RunOptions::host()
    };
    assert_eq!(
        row(&graph.execute(&text, &iso).unwrap()),
        "1",
        "only p1→p2→p3"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args([
            "match",
            "-q",
            "--backend",
            "host",
            "--format",
            "csv",
            "--model",
        ])
        .arg(&graph_path)
        .arg(&query_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(csv.lines().collect::<Vec<_>>(), ["n", "3"]);
}

#[test]
fn a_prepared_query_runs_again_with_new_parameters() {
    let graph = Graph::from_json_str(GRAPH).unwrap();
    let session = Session::host(graph.model());
    let source = "MATCH (p:Person) WHERE p.age >= $min RETURN count(*) AS n";
    let prepared = session
        .prepare(
            source,
            &PrepareOptions {
                params: [("min".to_owned(), Value::Int(40).into())]
                    .into_iter()
                    .collect(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(prepared.semantics_from(), &SemanticsFrom::Default);
    let count = |q: &gemp::session::PreparedQuery| {
        let (out, _) = session.run(q.bound(), &q.options()).unwrap();
        out.rows[0][0].to_string()
    };
    assert_eq!(count(&prepared), "2");
    let again = session
        .rebind(
            &prepared,
            &[("min".to_owned(), Value::Int(31).into())]
                .into_iter()
                .collect(),
        )
        .unwrap();
    assert_eq!(count(&again), "2");
    let all = session
        .rebind(
            &prepared,
            &[("min".to_owned(), Value::Int(0).into())]
                .into_iter()
                .collect(),
        )
        .unwrap();
    assert_eq!(count(&all), "3");
    // Through the API: parameters given at run time bind the prepared query again.
    let q = graph
        .query_with(source, &RunOptions::host().param("min", Value::Int(50)))
        .unwrap();
    assert_eq!(
        graph
            .execute(&q, &RunOptions::host().param("min", Value::Int(50)))
            .unwrap()
            .count(),
        1
    );
    let m = graph
        .execute(&q, &RunOptions::host().param("min", Value::Int(0)))
        .unwrap();
    assert_eq!(m.output().rows[0][0].to_string(), "3");
}

#[test]
fn a_bad_directive_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let query_path = dir.path().join("bad.cypher");
    std::fs::write(
        &query_path,
        "// gemp: semantics=trails\nMATCH (a) RETURN a\n",
    )
    .unwrap();
    let graph = Graph::from_json_str(GRAPH).unwrap();
    let err = graph
        .query_file(&query_path, &RunOptions::host())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bad.cypher: line 1: unknown semantics `trails`"),
        "{err}"
    );
}

#[test]
fn a_second_query_on_one_graph_opens_no_second_device_context() {
    if !matches!(gemp::gpu::platform_count(), Ok(n) if n > 0) {
        eprintln!("skipping: no OpenCL platform found");
        return;
    }
    let graph = Graph::from_json_str(GRAPH).unwrap();
    let q = graph
        .query(
            "// gemp: semantics=isomorphism\n\
             MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN count(*) AS n",
        )
        .unwrap();
    let before = gemp::gpu::contexts_opened_on_this_thread();
    let first = graph.execute(&q, &RunOptions::opencl()).unwrap();
    assert_eq!(first.output().rows[0][0].to_string(), "3");
    let after_first = gemp::gpu::contexts_opened_on_this_thread();
    assert_eq!(after_first, before + 1, "the first query opens the device");
    let second = graph.execute(&q, &RunOptions::opencl()).unwrap();
    assert_eq!(second.output().rows[0][0].to_string(), "3");
    assert_eq!(
        gemp::gpu::contexts_opened_on_this_thread(),
        after_first,
        "the second query reuses the graph's session"
    );
    // A runner of its own opens its own (the count is what shows the kept one is reused).
    let _runner = graph.runner(&RunOptions::opencl()).unwrap();
    assert_eq!(gemp::gpu::contexts_opened_on_this_thread(), after_first + 1);
}

#[test]
fn a_graph_with_its_kept_session_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>(_: &T) {}
    let graph = Graph::from_json_str(GRAPH).unwrap();
    let q = graph
        .query("MATCH (p:Person) RETURN count(*) AS n")
        .unwrap();
    assert_eq!(
        graph
            .execute(&q, &RunOptions::host())
            .unwrap()
            .output()
            .rows[0][0]
            .to_string(),
        "3"
    );
    shared(&graph);
    let counts: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    graph
                        .execute(&q, &RunOptions::host())
                        .unwrap()
                        .output()
                        .rows[0][0]
                        .to_string()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(counts, ["3", "3"]);
}
