//! What `gemp match` writes: JSON lines keyed in `RETURN` order, CSV with nulls as empty fields,
//! a streamed table with escaped control characters and no truncation off a terminal, DOT on an
//! aggregate saying why it is empty, and no progress output when stderr is not a terminal.

use crate::common;
use common::gemp;

use std::path::{Path, PathBuf};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes `source` as a query file in `dir`.
fn query(dir: &Path, source: &str) -> PathBuf {
    let q = dir.join("q.cypher");
    std::fs::write(&q, source).unwrap();
    q
}

/// `gemp -q match q --format format` over the bundled sample; stdout, after checking status 0.
fn run(q: &Path, format: &str, extra: &[&str]) -> String {
    let mut args = vec!["-q", "match", q.to_str().unwrap(), "--format", format];
    args.extend_from_slice(extra);
    let out = gemp(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn jsonl_keys_come_in_return_order() {
    let dir = tempfile::tempdir().unwrap();
    let q = query(
        dir.path(),
        "MATCH (p:Person) RETURN p.primaryName AS zeta, 1 AS alpha, p AS mid LIMIT 3",
    );
    let out = run(&q, "jsonl", &[]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for line in lines {
        let (z, a, m) = (
            line.find("\"zeta\"").unwrap(),
            line.find("\"alpha\"").unwrap(),
            line.find("\"mid\"").unwrap(),
        );
        assert!(z < a && a < m, "keys out of RETURN order: {line}");
        // A node stays an object with its id first, then key, labels and properties.
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&String> = v["mid"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "key", "labels", "properties"], "{line}");
        assert_eq!(
            v["mid"]["labels"][0], "Person",
            "the primary label first: {line}"
        );
        assert_eq!(
            v["mid"]["properties"]["primaryName"], v["zeta"],
            "the node's properties are its own: {line}"
        );
    }
}

#[test]
fn csv_writes_null_as_an_empty_field_and_lists_and_nodes_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let q = query(
        dir.path(),
        "MATCH (p:Person) RETURN p.primaryName AS name, null AS nothing, [1, null, 'x'] AS list, \
         p AS node LIMIT 2",
    );
    let out = run(&q, "csv", &[]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("name,nothing,list,node"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2, "{out}");
    for row in rows {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(row.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        assert!(!record[0].is_empty(), "{row}");
        assert_eq!(&record[1], "", "null is an empty field: {row}");
        assert_eq!(&record[2], "[1, null, x]", "{row}");
        assert!(
            record[3].starts_with('(') && record[3].ends_with(":Person)"),
            "{row}"
        );
    }
}

#[test]
fn the_table_escapes_control_characters_and_does_not_cut_cells_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(150);
    let q = query(
        dir.path(),
        &format!(
            "MATCH (p:Person) RETURN 'one\\ntwo\\tthree' AS s, '{long}' AS long, p.primaryName AS n \
             ORDER BY n LIMIT 4"
        ),
    );
    let out = run(&q, "table", &[]);
    let lines: Vec<&str> = out.lines().collect();
    // Header, rule, four rows: an embedded newline does not break a row.
    assert_eq!(lines.len(), 6, "{out}");
    assert!(lines[0].starts_with("s "), "{out}");
    for row in &lines[2..] {
        assert!(row.starts_with("one\\ntwo\\tthree | "), "escaped: {row}");
        assert!(row.contains(&long), "whole, not cut at 60: {row}");
        assert!(!row.contains('…'), "{row}");
    }
    // The columns line up: every row has its separators where the header has them.
    let bars: Vec<usize> = lines[0].match_indices(" | ").map(|(i, _)| i).collect();
    assert_eq!(bars.len(), 2, "{out}");
    for row in &lines[2..] {
        let at: Vec<usize> = row.match_indices(" | ").map(|(i, _)| i).collect();
        assert_eq!(at, bars, "{out}");
    }
    // --no-trunc is accepted and changes nothing off a terminal.
    assert_eq!(run(&q, "table", &["--no-trunc"]), out);
}

#[test]
fn an_empty_table_still_has_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let q = query(
        dir.path(),
        "MATCH (p:Person) WHERE p.primaryName = 'nobody at all' RETURN p.primaryName AS name",
    );
    let out = run(&q, "table", &[]);
    assert_eq!(out, "name\n----\n");
    let out = run(&q, "csv", &[]);
    assert_eq!(out, "name\n");
}

#[test]
fn dot_on_an_aggregate_says_why_it_is_empty_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let q = query(dir.path(), "MATCH (p:Person) RETURN count(*) AS n");
    let out = gemp(&["match", q.to_str().unwrap(), "--format", "dot"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("digraph matches {\n"), "{stdout}");
    assert!(stdout.trim_end().ends_with('}'), "{stdout}");
    assert!(
        stdout.contains("// empty: the rows hold no nodes or relationships"),
        "{stdout}"
    );
    assert!(!stdout.contains(" -> "), "{stdout}");
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("no nodes or relationships"))
            .count(),
        1,
        "one warning line: {stderr}"
    );
    // A query that returns nodes draws them, with no such comment or warning.
    let q = query(dir.path(), "MATCH (p:Person) RETURN p LIMIT 2");
    let out = gemp(&["match", q.to_str().unwrap(), "--format", "dot"]);
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches(" [label=").count(), 2, "{stdout}");
    assert!(!stdout.contains("empty"), "{stdout}");
    assert!(
        !text(&out.stderr).contains("no nodes or relationships"),
        "{}",
        text(&out.stderr)
    );
}

/// Progress bars and spinners are for terminals: with stderr a pipe, a load and a long match write
/// only their messages.
#[test]
fn no_progress_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/imdb-sample");
    let snap = dir.path().join("s.gemp");
    let out = gemp(&[
        "load",
        sample.to_str().unwrap(),
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines[0].starts_with("loaded "), "{stderr}");
    assert!(lines.last().unwrap().starts_with("wrote "), "{stderr}");
    assert!(
        !stderr.contains("loading") && !stderr.contains('\u{1b}') && !stderr.contains('\r'),
        "{stderr}"
    );
    // A search of over a second: no spinner.
    let q = query(
        dir.path(),
        "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(g) RETURN count(*) AS n",
    );
    let out = gemp(&[
        "match",
        "--model",
        snap.to_str().unwrap(),
        q.to_str().unwrap(),
        "--timeout",
        "1.5",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        !stderr.contains("searching") && !stderr.contains('\r'),
        "{stderr}"
    );
}
