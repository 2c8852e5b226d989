//! The command line on MDE inputs: `gemp load --metamodel`, `gemp export`, and match results as
//! JSON lines carrying node ids, keys, labels and the requested properties.

use crate::common;
use common::gemp;

use std::path::Path;
use std::process::Output;

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

const XCORE: &str = "package p
abstract class Element { int ^id }
class Root { contains Track[] tracks contains Sensor[] sensors }
abstract class Track extends Element { refers Sensor[] monitoredBy opposite monitors }
class Segment extends Track { int length }
class Sensor extends Element { refers Track[] monitors opposite monitoredBy }
";

const XMI: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<p:Root xmlns:xmi="http://www.omg.org/XMI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:p="p">
  <tracks xsi:type="p:Segment" id="1" length="0" monitoredBy="//@sensors.0"/>
  <tracks xsi:type="p:Segment" id="2" length="7"/>
  <sensors id="3" monitors="//@tracks.1"/>
</p:Root>
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn load_export_and_match_an_xmi_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mm = write(d, "p.xcore", XCORE);
    let xmi = write(d, "m.xmi", XMI);
    let snap = d.join("m.gemp").to_string_lossy().into_owned();
    ok(&gemp(&[
        "-q",
        "load",
        &xmi,
        "--metamodel",
        &mm,
        "-o",
        &snap,
    ]));

    let q = write(
        d,
        "q.cypher",
        "MATCH (t:Track)-[:monitoredBy]->(s:Sensor) RETURN t, t.length AS length, s.id AS sensor ORDER BY length",
    );
    let rows = ok(&gemp(&[
        "match",
        "-m",
        &snap,
        &q,
        "--format",
        "jsonl",
        "--backend",
        "host",
    ]));
    let rows: Vec<serde_json::Value> = rows
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        rows.len(),
        2,
        "both segments, one through the completed opposite"
    );
    assert_eq!(rows[0]["t"]["key"], "//@tracks.0");
    assert_eq!(
        rows[0]["t"]["labels"].as_array().unwrap().len(),
        3,
        "Segment, Track, Element: {}",
        rows[0]
    );
    assert!(rows[0]["t"]["id"].is_u64());
    assert_eq!(rows[0]["length"], 0);
    assert_eq!(rows[1]["length"], 7);
    assert_eq!(rows[1]["sensor"], 3);

    // A metamodel among the --model inputs works as well.
    let count = ok(&gemp(&[
        "match",
        "-m",
        &mm,
        "-m",
        &xmi,
        &q,
        "--count",
        "--backend",
        "host",
    ]));
    assert_eq!(count.trim(), "2");

    let json = ok(&gemp(&[
        "export",
        &xmi,
        "--metamodel",
        &mm,
        "--format",
        "json",
    ]));
    let g: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(g["nodes"].as_array().unwrap().len(), 4);
    assert_eq!(g["edges"].as_array().unwrap().len(), 3 + 2 + 2);
    assert_eq!(g["nodes"][0]["labels"][0], "Root");

    let json_file = write(d, "m.json", &json);
    let csv_dir = d.join("csv").to_string_lossy().into_owned();
    ok(&gemp(&[
        "export",
        &json_file,
        "--format",
        "neo4j-csv",
        "-o",
        &csv_dir,
    ]));
    let count = ok(&gemp(&[
        "match",
        "-m",
        &csv_dir,
        &q,
        "--count",
        "--backend",
        "host",
    ]));
    assert_eq!(count.trim(), "2");

    let out = gemp(&["export", &xmi, "--format", "neo4j-csv"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o DIR"));
}

#[test]
fn bad_xmi_fails_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.xmi", "<a>\n<b>\n</c>\n");
    let out = gemp(&["load", &bad]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{bad}:3")), "{err}");
}
