//! `gemp transform` end to end: the snapshot is written, re-read and exported; `--in-place`,
//! `--force`, `--until-fixpoint`, `--json`; a failing rule writes nothing.

use crate::common;

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

const TITLES: &str = r#"{ "nodes": [
    {"id": "t1", "labels": ["Title"], "properties": {"numVotes": 7, "name": "a"}},
    {"id": "t2", "labels": ["Title"], "properties": {"numVotes": 250000, "name": "b"}},
    {"id": "t3", "labels": ["Title"], "properties": {"name": "c"}} ],
  "edges": [] }"#;

/// `numVotes` of every title, by key (`null` where it has none).
fn votes(path: &std::path::Path) -> Vec<String> {
    let g = Graph::open(path).unwrap();
    ["t1", "t2", "t3"]
        .iter()
        .map(|k| {
            let n = g.model().node_by_key(k).unwrap();
            g.model().node_property(n, "numVotes").to_string()
        })
        .collect()
}

#[test]
fn a_value_that_cannot_be_computed_fails_the_transform_and_keeps_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("titles.json");
    std::fs::write(&json, TITLES).unwrap();
    let snap = dir.path().join("titles.gemp");
    let s = snap.to_str().unwrap();
    let out = gemp(&["load", json.to_str().unwrap(), "-o", s, "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before = votes(&snap);
    assert_eq!(before, ["7", "250000", "null"]);
    let output = dir.path().join("out.gemp");
    let o = output.to_str().unwrap();
    // Each used to write null for the values it could not compute (removing the property), exit
    // 0 and report every value as set.
    let cases = [
        (
            "MATCH (t:Title) SET t.numVotes = t.numVotes * 100000000000000",
            "`t.numVotes * 100000000000000` cannot be computed: integer overflow in \
             `250000 * 100000000000000`",
        ),
        (
            "MATCH (t:Title) SET t.numVotes = t.numVotes / (t.numVotes - 7)",
            "integer division by zero in `7 / 0`",
        ),
        (
            "MATCH (t:Title) SET t.numVotes = t.numVotes % 0",
            "integer division by zero in `",
        ),
        (
            "MATCH (t:Title) SET t.numVotes = -t.numVotes - 9223372036854775807",
            "integer overflow in `-",
        ),
        (
            "MATCH (t:Title) SET t.numVotes = t.numVotes + true",
            "cannot apply `+` to an integer and a boolean",
        ),
        (
            "MATCH (t:Title) WITH t, t.numVotes * 100000000000000 AS v SET t.numVotes = v",
            "integer overflow",
        ),
        // A filter that cannot be computed would silently skip matches.
        (
            "MATCH (t:Title) WHERE t.numVotes * 100000000000000 > 0 DETACH DELETE t",
            "integer overflow",
        ),
        // The first statement succeeds, the second fails: the run writes nothing.
        (
            "MATCH (t:Title) SET t.numVotes = 1;\n\
             MATCH (t:Title) CREATE (t)-[:x]->(:Tag {v: t.numVotes * 0 / 0})",
            "rules.cypher:2:",
        ),
    ];
    for (rule, message) in cases {
        let rules = dir.path().join("rules.cypher");
        std::fs::write(&rules, rule).unwrap();
        let r = rules.to_str().unwrap();
        for target in [&["--in-place"][..], &["-o", o][..]] {
            let mut args = vec!["transform", "-m", s, r];
            args.extend_from_slice(target);
            let out = gemp(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{rule}: {err}");
            assert!(err.contains(message), "{rule}: {err}");
            assert!(out.stdout.is_empty(), "{rule}: {}", text(&out.stdout));
            assert_eq!(votes(&snap), before, "{rule}");
            assert!(!output.exists(), "{rule}");
        }
    }

    // Null operands still give null (`t3` has no numVotes), and a guarded value is computed.
    let rules = dir.path().join("ok.cypher");
    std::fs::write(
        &rules,
        "MATCH (t:Title) SET t.numVotes = CASE WHEN t.numVotes > 1000 THEN t.numVotes \
         ELSE t.numVotes * 1000 END, t.name = t.name + '!'",
    )
    .unwrap();
    let out = gemp(&["transform", "-m", s, rules.to_str().unwrap(), "--in-place"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(votes(&snap), ["7000", "250000", "null"]);
}

#[test]
fn re_exporting_neo4j_csv_leaves_only_the_new_export() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    std::fs::write(&json, MODEL).unwrap();
    let snap = dir.path().join("m.gemp");
    let s = snap.to_str().unwrap();
    let out = gemp(&["load", json.to_str().unwrap(), "-o", s, "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Add a second relationship type, export, then delete it and export again over the first.
    let rules = dir.path().join("next.cypher");
    std::fs::write(
        &rules,
        "MATCH (a:Segment)-[:connectsTo]->(b:Segment) CREATE (a)-[:next]->(b)",
    )
    .unwrap();
    let out = gemp(&["transform", "-m", s, rules.to_str().unwrap(), "--in-place"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = dir.path().join("csv");
    let c = csv.to_str().unwrap();
    let files = |d: &std::path::Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let out = gemp(&["export", s, "--format", "neo4j-csv", "-o", c]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        files(&csv),
        [
            "gemp-export.json",
            "nodes-0-Segment.csv",
            "rels-0-connectsTo.csv",
            "rels-1-next.csv"
        ]
    );
    assert_eq!(
        count(&Graph::load(&[&csv]).unwrap(), "MATCH ()-[r]->() RETURN r"),
        4
    );
    std::fs::write(csv.join("notes.txt"), "mine").unwrap();
    std::fs::write(csv.join("extra.csv"), "mine").unwrap();

    let rules = dir.path().join("drop.cypher");
    std::fs::write(&rules, "MATCH ()-[r:next]->() DELETE r").unwrap();
    let out = gemp(&["transform", "-m", s, rules.to_str().unwrap(), "--in-place"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Without --force the earlier export is refused, even the file this one would not write.
    let out = gemp(&["export", s, "--format", "neo4j-csv", "-o", c]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("pass --force"),
        "{}",
        text(&out.stderr)
    );
    // With --force the directory holds exactly the new export and its manifest (and the user's
    // own files): the deleted relationships used to come back from the old `rels-1-next.csv`.
    let out = gemp(&["export", s, "--format", "neo4j-csv", "-o", c, "--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        files(&csv),
        [
            "extra.csv",
            "gemp-export.json",
            "nodes-0-Segment.csv",
            "notes.txt",
            "rels-0-connectsTo.csv"
        ]
    );
    // A CSV file the export did not write is refused by its manifest, named.
    let Err(err) = Graph::load(&[&csv]) else {
        panic!("extra.csv is refused");
    };
    assert!(
        err.to_string()
            .contains("extra.csv: is not part of the export"),
        "{err}"
    );
    std::fs::remove_file(csv.join("extra.csv")).unwrap();
    let again = Graph::load(&[&csv]).unwrap();
    assert_eq!(count(&again, "MATCH ()-[r]->() RETURN r"), 2);
    assert!(again.model().rel_types().get("next").is_none());
    assert_eq!(count(&again, "MATCH (s:Segment) RETURN s"), 3);
}

/// Issue 31, item 6, end to end: a transform makes NaN and ±infinity (float division by zero),
/// `gemp export --format json` writes them, `gemp load` of that export gives float columns with
/// the same values (they were strings, and the columns string columns).
#[test]
fn non_finite_floats_survive_export_and_load_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    std::fs::write(
        p("m.json"),
        r#"{"nodes": [{"id": "a", "labels": ["P"], "properties": {"x": 1.5}},
                      {"id": "b", "labels": ["P"], "properties": {"x": 2.5}},
                      {"id": "c", "labels": ["P"], "properties": {"x": 3.5}}],
            "edges": [{"source": "a", "target": "b", "type": "R", "properties": {"w": 0.5}}]}"#,
    )
    .unwrap();
    std::fs::write(
        p("nan.cypher"),
        "MATCH (n:P) WHERE n.x = 1.5 SET n.x = -1.0 / 0.0;\n\
         MATCH (n:P) WHERE n.x = 2.5 SET n.x = 0.0 / 0.0;\n\
         MATCH (n:P) WHERE n.x = 3.5 SET n.x = 1.0 / 0.0;\n\
         MATCH ()-[r:R]->() SET r.w = 0.0 / 0.0",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = gemp(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    run(&[
        "-q",
        "transform",
        "--model",
        &p("m.json"),
        &p("nan.cypher"),
        "-o",
        &p("t.gemp"),
    ]);
    run(&[
        "-q",
        "export",
        &p("t.gemp"),
        "--format",
        "json",
        "-o",
        &p("e.json"),
    ]);
    let exported = std::fs::read_to_string(p("e.json")).unwrap();
    assert!(
        exported.contains(r#"{"id":"b","labels":["P"],"properties":{"x":{"$float":"NaN"}}}"#),
        "{exported}"
    );
    run(&["-q", "load", &p("e.json"), "-o", &p("back.gemp")]);
    let info = run(&["-q", "info", &p("back.gemp")]);
    let types: Vec<&str> = info
        .lines()
        .filter(|l| l.trim_start().starts_with("P.x") || l.trim_start().starts_with("w "))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(types, ["float", "float"], "{info}");
    std::fs::write(
        p("q.cypher"),
        "MATCH (n:P)-[r:R]->() RETURN n.x AS x, r.w AS w, n.x < 0 AS negative",
    )
    .unwrap();
    let rows = run(&[
        "-q",
        "match",
        "--model",
        &p("back.gemp"),
        &p("q.cypher"),
        "--format",
        "csv",
    ]);
    assert_eq!(rows, "x,w,negative\n-inf,NaN,true\n");
    // Exporting the reloaded model gives the same file.
    run(&[
        "-q",
        "export",
        &p("back.gemp"),
        "--format",
        "json",
        "-o",
        &p("again.json"),
    ]);
    assert_eq!(std::fs::read_to_string(p("again.json")).unwrap(), exported);
}
