//! The `gemp` binary end to end: load, info, match in every format, explain, batch, timeouts and
//! error reporting (one line on stderr, non-zero exit).

use crate::common;
use common::gemp;

use std::path::{Path, PathBuf};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sample_snapshot(dir: &Path) -> PathBuf {
    let snap = dir.join("sample.gemp");
    let out = gemp(&[
        "-q",
        "load",
        root().join("datasets/imdb-sample").to_str().unwrap(),
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    snap
}

fn query(name: &str) -> String {
    root()
        .join("datasets/queries")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn load_info_and_match_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    let info = gemp(&["info", snap, "--json"]);
    assert!(info.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(schema["nodes"], 7000);
    assert_eq!(schema["edges"], 17827);

    let count = gemp(&[
        "match",
        "--model",
        snap,
        &query("couples.cypher"),
        "--count",
    ]);
    assert!(count.status.success(), "{}", text(&count.stderr));
    let n: usize = text(&count.stdout).trim().parse().unwrap();
    assert!(n > 0);

    let jsonl = gemp(&[
        "match",
        "--model",
        snap,
        &query("couples.cypher"),
        "--format",
        "jsonl",
    ]);
    let lines: Vec<serde_json::Value> = text(&jsonl.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), n);
    assert!(lines[0]["shared"].as_i64().unwrap() >= 3);
    assert!(lines[0]["p1.primaryName"].is_string());

    let csv = gemp(&[
        "match",
        "--model",
        snap,
        &query("couples.cypher"),
        "--format",
        "csv",
    ]);
    let csv = text(&csv.stdout);
    assert_eq!(
        csv.lines().next().unwrap(),
        "p1.primaryName,p2.primaryName,shared"
    );
    assert_eq!(csv.lines().count(), n + 1);

    let table = gemp(&["match", "--model", snap, &query("couples.cypher")]);
    assert_eq!(text(&table.stdout).lines().count(), n + 2);

    // Nodes in JSON lines carry id, key and labels.
    let q = dir.path().join("nodes.cypher");
    std::fs::write(&q, "MATCH (m:Movie) RETURN m ORDER BY id(m) LIMIT 1").unwrap();
    let out = gemp(&[
        "match",
        "--model",
        snap,
        q.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert!(v["m"]["key"].as_str().unwrap().starts_with("tt"));
    assert!(
        v["m"]["properties"]["primaryTitle"].is_string(),
        "nodes carry their properties: {v}"
    );
    assert!(v["m"]["labels"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l == "Movie"));
}

#[test]
fn default_model_is_the_bundled_sample() {
    let out = gemp(&["match", &query("directors-never-acted.cypher"), "--count"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // `RETURN count(DISTINCT d)`: --count prints the aggregate, as the CSV row holds it.
    let rows = gemp(&[
        "match",
        &query("directors-never-acted.cypher"),
        "--format",
        "csv",
    ]);
    let value = text(&rows.stdout)
        .lines()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    assert!(value.parse::<u64>().is_ok_and(|n| n > 1), "{value}");
    assert_eq!(text(&out.stdout).trim(), value);
}

#[test]
fn explain_names_pivot_order_and_phases() {
    let out = gemp(&["explain", &query("four-actors-jack.cypher")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("pivot: scan"), "{s}");
    assert!(s.contains("attribute phase"), "{s}");
    assert!(s.contains("a1.primaryName CONTAINS \"Jack\""), "{s}");
    assert!(s.contains("filter id(a2) < id(a3)"), "{s}");
}

#[test]
fn batch_writes_one_file_per_query_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let out_dir = dir.path().join("out");
    let out = gemp(&[
        "batch",
        "--model",
        snap.to_str().unwrap(),
        "--param",
        "year=2000",
        &query("couples.cypher"),
        &query("costar-triangle.cypher"),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(
        summary.contains("couples")
            && summary.contains("costar-triangle")
            && summary.contains("ok")
    );
    assert!(out_dir.join("couples.jsonl").exists());
    assert!(out_dir.join("costar-triangle.jsonl").exists());
    // A failing query is reported, the others still run, and the exit code says so.
    let bad = dir.path().join("bad.cypher");
    std::fs::write(&bad, "MATCH (p:Persn) RETURN p").unwrap();
    let out = gemp(&[
        "batch",
        "--model",
        snap.to_str().unwrap(),
        bad.to_str().unwrap(),
        &query("couples.cypher"),
        "--out",
        out_dir.to_str().unwrap(),
        "--force",
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("error"));
    assert!(text(&out.stderr).contains("unknown label `Persn`"));
}

#[test]
fn errors_are_reported_with_location_and_nonzero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("q.cypher");
    std::fs::write(&q, "MATCH (p:Person)\nWHERE p.primaryNam = 'x'\nRETURN p").unwrap();
    let out = gemp(&["match", q.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("unknown node property `primaryNam`"), "{err}");
    assert!(err.contains("q.cypher:2:9"), "{err}");
    assert!(err.contains("primaryName"), "{err}");

    let out = gemp(&["load", "/nonexistent/title.basics.tsv"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).starts_with("error: "),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stderr).lines().count(), 1);

    let garbage = dir.path().join("x.gemp");
    std::fs::write(&garbage, b"GEMPSNAP\x01\0\0\0garbage").unwrap();
    let out = gemp(&["info", garbage.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("snapshot"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn timeout_reports_a_partial_result() {
    // Unconstrained paths of length 5 over the HPRD-sized sample explode; a tiny timeout stops them.
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("slow.cypher");
    std::fs::write(
        &q,
        "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(g) RETURN count(*)",
    )
    .unwrap();
    let out = gemp(&["match", q.to_str().unwrap(), "--timeout", "0.2"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("partial"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn streamed_output_equals_collected_output() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    let q = dir.path().join("credits.cypher");
    std::fs::write(&q, "MATCH (p:Person)-[r:ACTOR|ACTRESS]->(t:Title) RETURN p.primaryName, t.primaryTitle, r.ordering").unwrap();
    let q = q.to_str().unwrap();
    let total: usize = text(&gemp(&["match", "--model", snap, q, "--count"]).stdout)
        .trim()
        .parse()
        .unwrap();
    assert_eq!(total, 5640 + 4286);
    // CSV is streamed; the table is collected. Same rows.
    let csv = text(&gemp(&["match", "--model", snap, q, "--format", "csv"]).stdout);
    let mut streamed: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(streamed.len(), total);
    let jsonl = text(&gemp(&["match", "--model", snap, q, "--format", "jsonl"]).stdout);
    assert_eq!(jsonl.lines().count(), total);
    let ordered = dir.path().join("ordered.cypher");
    std::fs::write(&ordered, "MATCH (p:Person)-[r:ACTOR|ACTRESS]->(t:Title) RETURN p.primaryName, t.primaryTitle, r.ordering ORDER BY p.primaryName").unwrap();
    let collected = text(
        &gemp(&[
            "match",
            "--model",
            snap,
            ordered.to_str().unwrap(),
            "--format",
            "csv",
        ])
        .stdout,
    );
    let mut collected: Vec<&str> = collected.lines().skip(1).collect();
    streamed.sort();
    collected.sort();
    assert_eq!(streamed, collected);
    // SKIP and LIMIT are exact when streaming.
    let paged = dir.path().join("paged.cypher");
    std::fs::write(
        &paged,
        "MATCH (p:Person)-[r:ACTOR|ACTRESS]->(t:Title) RETURN p.primaryName SKIP 10 LIMIT 777",
    )
    .unwrap();
    let out = text(
        &gemp(&[
            "match",
            "--model",
            snap,
            paged.to_str().unwrap(),
            "--format",
            "jsonl",
        ])
        .stdout,
    );
    assert_eq!(out.lines().count(), 777);
    std::fs::write(
        &paged,
        "MATCH (p:Person)-[r:ACTOR|ACTRESS]->(t:Title) RETURN p.primaryName SKIP 9900",
    )
    .unwrap();
    let out = text(
        &gemp(&[
            "match",
            "--model",
            snap,
            paged.to_str().unwrap(),
            "--format",
            "csv",
        ])
        .stdout,
    );
    assert_eq!(out.lines().count(), 1 + total - 9900);
}

/// Whether this machine has an OpenCL platform (the OpenCL backend can run).
fn has_opencl() -> bool {
    #[cfg(feature = "opencl")]
    {
        gemp::gpu::platform_count().is_ok_and(|n| n > 0)
    }
    #[cfg(not(feature = "opencl"))]
    {
        false
    }
}

#[test]
fn backends_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    let mut backends = vec!["host", "auto"];
    if has_opencl() {
        backends.push("opencl");
    } else {
        eprintln!("no OpenCL platform: comparing host and auto only");
    }
    for q in [
        "couples.cypher",
        "four-actors-jack.cypher",
        "directors-not-acting.cypher",
        "costar-triangle.cypher",
    ] {
        let outputs: Vec<String> = backends
            .iter()
            .map(|b| {
                let out = gemp(&[
                    "match",
                    "--model",
                    snap,
                    &query(q),
                    "--backend",
                    b,
                    "--format",
                    "csv",
                ]);
                assert!(out.status.success(), "{q} {b}: {}", text(&out.stderr));
                let mut lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
                lines.sort();
                lines.join("\n")
            })
            .collect();
        for (b, o) in backends.iter().zip(&outputs) {
            assert_eq!(o, &outputs[0], "{q}: {b} differs from host");
        }
    }
}

#[test]
fn opencl_timings_name_gemp_measurement_points() {
    if !has_opencl() {
        eprintln!("skipping: no OpenCL platform");
        return;
    }
    let out = gemp(&[
        "match",
        &query("four-actors-jack.cypher"),
        "--backend",
        "opencl",
        "--device",
        "0",
        "--timings",
        "--count",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    for point in [
        "(1) read input",
        "(2) convert",
        "(3) upload",
        "phase 1",
        "(4) read results",
        "(5) phase-2 buffers",
        "(6) phase 2",
        "(7) output",
    ] {
        assert!(err.contains(point), "{point} missing in {err}");
    }
    // A device index that does not exist is an error naming the devices.
    let out = gemp(&[
        "match",
        &query("couples.cypher"),
        "--backend",
        "opencl",
        "--device",
        "999",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("out of range"),
        "{}",
        text(&out.stderr)
    );
    // Batch on the device.
    let dir = tempfile::tempdir().unwrap();
    let out = gemp(&[
        "batch",
        "--backend",
        "opencl",
        "--param",
        "year=2000",
        "--count",
        "--out",
        dir.path().to_str().unwrap(),
        &query("couples.cypher"),
        &query("top-rated-recent.cypher"),
        "--timings",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let couples = std::fs::read_to_string(dir.path().join("couples.count")).unwrap();
    let host = gemp(&[
        "match",
        &query("couples.cypher"),
        "--count",
        "--backend",
        "host",
    ]);
    assert_eq!(couples.trim(), text(&host.stdout).trim());
}

#[test]
fn dot_output_draws_each_node_and_relationship_once() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("credits.cypher");
    // Two rows share the person: it must be drawn once; the relationships' titles are drawn
    // although the rows do not return them.
    std::fs::write(
        &q,
        "MATCH (p:Person {primaryName: 'Mathilde Stone'})-[r:ACTOR|ACTRESS]->(t:Title) RETURN p, r",
    )
    .unwrap();
    let q = q.to_str().unwrap();
    let rows = gemp(&["match", q, "--backend", "host", "--count"]);
    assert!(rows.status.success(), "{}", text(&rows.stderr));
    let n: usize = text(&rows.stdout).trim().parse().unwrap();
    let out = gemp(&["match", q, "--backend", "host", "--format", "dot"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dot = text(&out.stdout);
    assert!(
        dot.starts_with("digraph matches {\n") && dot.ends_with("}\n"),
        "{dot}"
    );
    let edges = dot.lines().filter(|l| l.contains(" -> ")).count();
    let persons = dot.lines().filter(|l| l.contains("\\nPerson\"")).count();
    let titles = dot.lines().filter(|l| l.contains("\\nTitle")).count();
    assert_eq!(n, 6, "the sample's Mathilde Stone has six acting credits");
    assert_eq!(edges, n);
    assert_eq!(persons, 1, "{dot}");
    assert!(titles >= 1 && titles <= n, "{dot}");
}

/// Queries given inline (`-c TEXT`) or on standard input (`-`) run as a query file would, in
/// `match`, `explain` and `batch`; a syntax error points into the text.
#[test]
fn inline_and_piped_queries() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let model = snap.to_str().unwrap();
    // The bundled sample has 3,000 titles and 4,000 persons.
    let out = gemp(&[
        "-q",
        "match",
        "--model",
        model,
        "--format",
        "csv",
        "-c",
        "MATCH (t:Title) RETURN count(*) AS n",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "n\n3000\n");

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(["-q", "match", "--model", model, "--format", "csv", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        "\u{feff}// gemp: semantics=homomorphism\nMATCH (p:Person) RETURN count(*) AS n\n"
            .as_bytes(),
    )
    .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success());
    assert_eq!(text(&piped.stdout), "n\n4000\n");

    let out = gemp(&[
        "-q",
        "explain",
        "--model",
        model,
        "-c",
        "MATCH (t:Title) RETURN t",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("pattern: 1 nodes"),
        "{}",
        text(&out.stdout)
    );

    let results = dir.path().join("results");
    let out = gemp(&[
        "-q",
        "batch",
        "--model",
        model,
        "--count",
        "-o",
        results.to_str().unwrap(),
        "-c",
        "MATCH (t:Title) RETURN t",
        "-c",
        "MATCH (p:Person) RETURN p",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let count = |name: &str| std::fs::read_to_string(results.join(name)).unwrap();
    assert_eq!(count("query-1.count").trim(), "3000");
    assert_eq!(count("query-2.count").trim(), "4000");

    let out = gemp(&[
        "-q",
        "match",
        "--model",
        model,
        "-c",
        "MATCH (t:Title RETURN t",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("--> <query>:1:16"), "{err}");

    let out = gemp(&[
        "-q",
        "match",
        "--model",
        model,
        "q.cypher",
        "-c",
        "MATCH (n) RETURN n",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a file and -c together are a usage error"
    );
}

/// An installed binary (`<prefix>/bin/gemp` with the sample in `<prefix>/share/gemp/imdb-sample`)
/// finds its sample from any directory; `GEMP_SAMPLE` names another; a missing one is a clear
/// error; `info` without a model uses the sample as `match` does.
#[test]
fn an_installed_binary_finds_its_sample_from_anywhere() {
    let prefix = tempfile::tempdir().unwrap();
    let bin = prefix.path().join("bin");
    let share = prefix.path().join("share/gemp/imdb-sample");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&share).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_gemp"), bin.join("gemp")).unwrap();
    for entry in std::fs::read_dir(root().join("datasets/imdb-sample")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), share.join(entry.file_name())).unwrap();
    }
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str], sample: Option<&Path>| {
        let mut cmd = std::process::Command::new(bin.join("gemp"));
        cmd.args(args)
            .current_dir(elsewhere.path())
            .env_remove("GEMP_SAMPLE");
        if let Some(s) = sample {
            cmd.env("GEMP_SAMPLE", s);
        }
        cmd.output().unwrap()
    };
    let out = run(
        &[
            "-v",
            "match",
            "--format",
            "csv",
            "-c",
            "MATCH (t:Title) RETURN count(*) AS n",
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "n\n3000\n");
    let used = text(&out.stderr);
    assert!(
        used.contains("share/gemp/imdb-sample"),
        "the installed copy: {used}"
    );

    let out = run(&["-q", "info", "--json"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Title"));

    let missing = elsewhere.path().join("nowhere");
    let out = run(
        &["-q", "match", "-c", "MATCH (t:Title) RETURN t"],
        Some(&missing),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("bundled sample was not found")
            && err.contains("nowhere")
            && err.contains("GEMP_SAMPLE"),
        "{err}"
    );
}
