//! `gemp generate trust` and `gemp trust` end to end: the planted template comes back as the best
//! matching (JSON output), bad arguments are one-line errors.

use crate::common;
use common::gemp;

#[test]
fn generated_plant_is_found_by_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("inst");
    let out_s = out.to_str().unwrap();
    let g = gemp(&[
        "-q",
        "generate",
        "trust",
        "--data-nodes",
        "500",
        "--data-edges",
        "1500",
        "--template-nodes",
        "5",
        "--template-edges",
        "7",
        "--seed",
        "4",
        "-o",
        out_s,
    ]);
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let planted: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(out.join("planted.json")).unwrap()).unwrap();
    let template = out.join("template.gemp");
    let data = out.join("data.gemp");
    // The top two matchings as JSON, with `extra` arguments.
    let top_two = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "-q",
            "trust",
            "--template",
            template.to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
            "--top",
            "2",
            "--json",
        ];
        args.extend_from_slice(extra);
        let r = gemp(&args);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        serde_json::from_slice(&r.stdout).unwrap()
    };
    let v = top_two(&[]);
    let best = &v["matchings"][0];
    let nodes = best["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 5);
    for n in nodes {
        let t: usize = n["template"].as_str().unwrap()[1..].parse().unwrap();
        assert_eq!(n["data"].as_str().unwrap(), planted[t]);
    }
    assert!(best["score"].as_f64().unwrap() > 0.5);
    assert_eq!(v["matchings"].as_array().unwrap().len(), 2);
    // Text output names the pairs; `--k0 all --beam all` is accepted.
    let r = gemp(&[
        "-q",
        "trust",
        "--template",
        template.to_str().unwrap(),
        "--data",
        data.to_str().unwrap(),
        "--k0",
        "all",
        "--beam",
        "all",
        "--top",
        "1",
    ]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.starts_with("#1 score"), "{text}");
    assert!(text.contains(&format!("-> {} ", planted[0])), "{text}");
    // `--backend auto` (the host here unless a GPU is found, as for `gemp match`) prints the same
    // matchings.
    let a = top_two(&["--backend", "auto"]);
    assert_eq!(a["matchings"], v["matchings"]);
    // The OpenCL backend prints the same matchings.
    #[cfg(feature = "opencl")]
    if common::gpu("generated_plant_is_found_by_the_cli (opencl)").is_some() {
        let w = top_two(&["--backend", "opencl"]);
        assert_eq!(w["matchings"], v["matchings"]);
        assert_eq!(w["levels"], v["levels"]);
    }
}

#[test]
fn bad_arguments_are_errors() {
    let r = gemp(&[
        "trust",
        "--template",
        "/nonexistent/t.gemp",
        "--data",
        "/nonexistent/d.gemp",
    ]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.starts_with("error:") && err.contains("template"),
        "{err}"
    );
    let r = gemp(&["trust", "--template", "a", "--data", "b", "--beam", "0"]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("positive number or `all`"));
    let r = gemp(&[
        "generate",
        "trust",
        "--template-nodes",
        "4",
        "--template-edges",
        "9",
        "-o",
        "/tmp/x",
    ]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("between 3 and 6 edges"));
}
