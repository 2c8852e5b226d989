//! `gemp transform` end to end: the snapshot is written, re-read and exported; `--in-place`,
//! `--force`, `--until-fixpoint`, `--json`; a failing rule writes nothing.

mod common;

use common::gemp;
use gemp::api::Graph;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const MODEL: &str = r#"{ "nodes": [
    {"id": "s1", "labels": ["Segment"], "properties": {"length": -2}},
    {"id": "s2", "labels": ["Segment"], "properties": {"length": 0}},
    {"id": "s3", "labels": ["Segment"], "properties": {"length": 4}} ],
  "edges": [ {"source": "s1", "target": "s2", "type": "connectsTo"},
             {"source": "s2", "target": "s3", "type": "connectsTo"} ] }"#;

fn count(g: &Graph, q: &str) -> u64 {
    let options = gemp::api::RunOptions::host().count_only();
    let query = g.query_with(q, &options).unwrap();
    g.execute(&query, &options).unwrap().count()
}

#[test]
fn transform_writes_a_snapshot_that_reads_back_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    std::fs::write(&json, MODEL).unwrap();
    let input = dir.path().join("m.gemp");
    let out = gemp(&[
        "load",
        json.to_str().unwrap(),
        "-o",
        input.to_str().unwrap(),
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rules = dir.path().join("fix.cypher");
    std::fs::write(
        &rules,
        "// repair lengths, then tag the chain\n\
         MATCH (s:Segment) WHERE s.length <= 0 SET s.length = -s.length + 1;\n\
         MATCH (a:Segment)-[:connectsTo]->(b:Segment) MERGE (a)-[:next]->(b)",
    )
    .unwrap();
    let output = dir.path().join("out.gemp");
    let (i, r, o) = (
        input.to_str().unwrap(),
        rules.to_str().unwrap(),
        output.to_str().unwrap(),
    );
    let out = gemp(&["transform", "--model", i, r, "-o", o]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.starts_with("pass"), "{table}");
    // Statement 1 (line 2): 2 matches, 2 properties; statement 2 (line 3): 2 relationships.
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[1],
        ["1", "1", "2", "2", "0", "0", "0", "0", "2", "0", "0"]
    );
    assert_eq!(
        rows[2],
        ["1", "2", "3", "2", "0", "0", "2", "0", "0", "0", "0"]
    );
    assert_eq!(rows[3][0], "total");

    let g = Graph::open(&output).unwrap();
    assert_eq!(
        count(&g, "MATCH (s:Segment) WHERE s.length > 0 RETURN s"),
        3
    );
    assert_eq!(count(&g, "MATCH (a)-[:next]->(b) RETURN a"), 2);
    let s1 = g.model().node_by_key("s1").unwrap();
    assert_eq!(g.model().node_property(s1, "length").to_string(), "3");
    // The input is untouched.
    let before = Graph::open(&input).unwrap();
    assert_eq!(
        count(&before, "MATCH (s:Segment) WHERE s.length > 0 RETURN s"),
        1
    );

    // An existing output needs --force.
    let out = gemp(&["transform", "--model", i, r, "-o", o]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    let out = gemp(&["transform", "--model", i, r, "-o", o, "--force", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["totals"]["properties_set"], 2);
    assert_eq!(report["totals"]["relationships_created"], 2);
    assert_eq!(report["statements"][1]["line"], 3);

    // The transformed model exports.
    let exported = dir.path().join("out.json");
    let out = gemp(&[
        "export",
        o,
        "--format",
        "json",
        "-o",
        exported.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let again = Graph::load(&[&exported]).unwrap();
    assert_eq!(count(&again, "MATCH (a)-[:next]->(b) RETURN a"), 2);

    // --in-place replaces the input; a second run changes nothing.
    let out = gemp(&["transform", "--model", i, r, "--in-place"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let g = Graph::open(&input).unwrap();
    assert_eq!(count(&g, "MATCH (a)-[:next]->(b) RETURN a"), 2);
    let out = gemp(&["transform", "--model", i, r, "--in-place", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["totals"]["relationships_created"], 0);
}

#[test]
fn a_failing_statement_writes_nothing_and_fixpoints_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    std::fs::write(&json, MODEL).unwrap();
    let j = json.to_str().unwrap();
    let bad = dir.path().join("bad.cypher");
    std::fs::write(
        &bad,
        "MATCH (s:Segment) SET s.length = 1;\nMATCH (s:Segment {length: 1}) DELETE s",
    )
    .unwrap();
    let output = dir.path().join("out.gemp");
    let o = output.to_str().unwrap();
    let out = gemp(&["transform", "-m", j, bad.to_str().unwrap(), "-o", o]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot delete node `s`") && err.contains("bad.cypher:2:"),
        "{err}"
    );
    assert!(!output.exists());

    // Shift lengths down until none is positive: 4 -> 0 takes 4 passes that change, one that
    // does not.
    let rule = dir.path().join("down.cypher");
    std::fs::write(
        &rule,
        "MATCH (s:Segment) WHERE s.length > 0 SET s.length = s.length - 1",
    )
    .unwrap();
    let r = rule.to_str().unwrap();
    let out = gemp(&[
        "transform",
        "-m",
        j,
        r,
        "-o",
        o,
        "--until-fixpoint",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["iterations"], 5);
    assert_eq!(report["fixpoint_reached"], true);
    assert_eq!(
        count(
            &Graph::open(&output).unwrap(),
            "MATCH (s:Segment) WHERE s.length > 0 RETURN s"
        ),
        0
    );
    let out = gemp(&[
        "transform",
        "-m",
        j,
        r,
        "-o",
        o,
        "--force",
        "--until-fixpoint",
        "--max-iterations",
        "2",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["fixpoint_reached"], false);
    assert!(
        text(&out.stderr).contains("no fixpoint"),
        "{}",
        text(&out.stderr)
    );
}
