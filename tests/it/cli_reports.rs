//! The command line's machine-readable reports (`--json` on `load`, `explain` and `batch`; `info`
//! and `transform` are covered in `cli` and `transform_cli`), shell completions and man pages.

use std::path::PathBuf;

use crate::common::gemp;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn sample() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/imdb-sample")
        .to_string_lossy()
        .into_owned()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "one JSON document ({e}): {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

#[test]
fn load_explain_and_batch_report_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("sample.gemp");
    let out = gemp(&[
        "-q",
        "load",
        &sample(),
        "-o",
        snap.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let load = json(&out);
    // The sample: 3,000 titles and 4,000 persons; 17,827 relationships.
    assert_eq!(load["nodes"], 7000);
    assert_eq!(load["edges"], 17827);
    assert_eq!(load["output"], snap.to_str().unwrap());
    let files = load["report"]["files"].as_array().unwrap();
    let rows = |name: &str| {
        files
            .iter()
            .find(|f| f["file"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} in {files:?}"))["rows"]
            .as_u64()
    };
    assert_eq!(rows("title.basics.tsv"), Some(3000));
    assert_eq!(rows("name.basics.tsv"), Some(4000));
    assert!(load["bytes"].as_u64().unwrap() > 0);
    // A snapshot is opened, not loaded: no load report.
    let out = gemp(&["-q", "load", snap.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(json(&out)["report"], serde_json::Value::Null);

    let model = snap.to_str().unwrap();
    let out = gemp(&[
        "-q",
        "explain",
        "--backend",
        "host",
        "--model",
        model,
        "--semantics",
        "homomorphism",
        "-c",
        "MATCH (p:Person)-[:DIRECTOR]->(t:Title) RETURN p, t",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let explain = json(&out);
    assert_eq!(explain["engine"], "host");
    assert_eq!(explain["semantics"], "homomorphism");
    assert!(explain["notes"].as_array().unwrap().is_empty());
    assert!(
        explain["plan"].as_str().unwrap().contains("Person"),
        "{explain}"
    );
    // The text form is the same content.
    let plain = gemp(&[
        "-q",
        "explain",
        "--backend",
        "host",
        "--model",
        model,
        "--semantics",
        "homomorphism",
        "-c",
        "MATCH (p:Person)-[:DIRECTOR]->(t:Title) RETURN p, t",
    ]);
    assert!(text(&plain.stdout).starts_with("engine: host\nsemantics: homomorphism"));
    assert!(text(&plain.stdout).ends_with(explain["plan"].as_str().unwrap()));

    let results = dir.path().join("results");
    let out = gemp(&[
        "-q",
        "batch",
        "--backend",
        "host",
        "--model",
        model,
        "-c",
        "MATCH (t:Title) RETURN count(*) AS n",
        "-c",
        "MATCH (t:Title RETURN t",
        "--out",
        results.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "one query fails");
    let batch = json(&out);
    assert_eq!(batch["failed"], 1);
    assert_eq!(batch["partial"], 0);
    let queries = batch["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 2);
    assert_eq!(queries[0]["name"], "query-1");
    assert_eq!(queries[0]["status"], "ok");
    assert_eq!(queries[0]["results"], 1, "one row: the count");
    let written = std::fs::read_to_string(queries[0]["output"].as_str().unwrap()).unwrap();
    assert_eq!(written, "{\"n\":3000}\n");
    assert_eq!(queries[1]["status"], "error");
    assert!(queries[1]["error"].as_str().unwrap().contains("query-2"));
}

#[test]
fn completions_and_man_pages_come_from_the_command_definitions() {
    let out = gemp(&["completions", "bash"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bash = text(&out.stdout);
    assert!(
        bash.contains("complete -F _gemp"),
        "a bash completion script"
    );
    for word in ["match", "shell", "--model", "--format"] {
        assert!(bash.contains(word), "{word}");
    }
    let out = gemp(&["completions", "zsh"]);
    assert!(text(&out.stdout).starts_with("#compdef gemp"));

    let out = gemp(&["man"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "roff: {}",
        &page[..80]
    );
    assert!(page.contains(".TH gemp 1"), "{page}");
    assert!(
        page.contains("gemp\\-match(1)"),
        "lists the subcommand pages"
    );
    let out = gemp(&["man", "match"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(page.contains(".TH gemp-match 1"), "{page}");
    assert!(page.contains("\\-\\-model"), "{page}");

    let dir = tempfile::tempdir().unwrap();
    let out = gemp(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for page in ["gemp.1", "gemp-match.1", "gemp-shell.1", "gemp-man.1"] {
        assert!(dir.path().join(page).is_file(), "{page}");
    }
    let out = gemp(&["man", "nope"]);
    assert!(text(&out.stderr).contains("no subcommand `nope`"));
}
