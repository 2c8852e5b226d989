//! `gemp similarity` and `gemp recipes` end to end: the generated case base loads back, the
//! query retrieves itself first with similarity 1, JSON output with mappings, bad input errors.

use crate::common;
use common::gemp;

#[test]
fn recipes_then_similarity_table_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("recipes");
    let o = gemp(&[
        "recipes",
        "--count",
        "6",
        "--seed",
        "3",
        "-o",
        out.to_str().unwrap(),
        "--stats",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("wrote 6 recipes") && text.contains("data-flow edges"),
        "{text}"
    );
    let cases = out.join("cases.json");
    // The smallest generated recipe as query (fast), against the directory (model.json found there).
    // The two best cases for recipe-01 as JSON, with `extra` arguments.
    let best_two = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "similarity",
            "--query",
            cases.to_str().unwrap(),
            "--query-name",
            "recipe-01",
            "--cases",
            out.to_str().unwrap(),
            "--k",
            "2",
            "--format",
            "json",
            "--time-limit",
            "1",
        ];
        args.extend_from_slice(extra);
        let o = gemp(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let v = best_two(&["--mappings"]);
    assert_eq!(v["variant"], "A*III-RMS");
    let first = &v["results"][0];
    assert_eq!(first["case"], "recipe-01");
    assert_eq!(first["similarity"], 1.0);
    let nodes = first["mapping"]["nodes"].as_array().unwrap();
    // Similarity 1 needs every query node mapped (to an equal node).
    assert!(
        !nodes.is_empty() && nodes.iter().all(|m| m["case"].is_string()),
        "complete mapping expected: {nodes:?}"
    );
    assert!(v["results"].as_array().unwrap().len() <= 2);
    // `--backend auto` (AMonG only on a GPU or accelerator, else the host) finds the query first
    // and reports the backend that ran.
    let a = best_two(&["--backend", "auto"]);
    // (Only the best case is compared: with a time limit, a lower-ranked case's similarity is the
    // best found in time.)
    assert_eq!(a["results"][0]["case"], "recipe-01");
    assert_eq!(a["results"][0]["similarity"], 1.0);
    assert!(
        ["host", "opencl"].contains(&a["backend"].as_str().unwrap()),
        "{}",
        a["backend"]
    );
    let o = gemp(&[
        "similarity",
        "--query",
        cases.to_str().unwrap(),
        "--query-name",
        "recipe-01",
        "--cases",
        cases.to_str().unwrap(),
        "--k",
        "1",
        "--algorithm",
        "astar2",
        "--improvements",
        "rm",
        "--time-limit",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("A*II-RM") && text.contains("recipe-01") && text.contains("1.0000"),
        "{text}"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"nodes\": [\n {\"id\": \"a\"},\n {\"id\": }]}").unwrap();
    let o = gemp(&[
        "similarity",
        "--query",
        bad.to_str().unwrap(),
        "--cases",
        bad.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.json:3:"), "{err}");
    let o = gemp(&[
        "similarity",
        "--query",
        bad.to_str().unwrap(),
        "--cases",
        bad.to_str().unwrap(),
        "--algorithm",
        "astar2",
        "--improvements",
        "s",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("astar3"));
}
