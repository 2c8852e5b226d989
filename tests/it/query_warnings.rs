//! Comparisons that can never be true (a string property with a number, a `--param` string with
//! a number property) bind, but give one warning per query naming the expression and its place.

use crate::common;
use common::gemp;

use std::path::PathBuf;

use gemp::io::{Format, LoadOptions};
use gemp::pattern::binder::{compile_with_warnings, parse_param_value, Params};

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/imdb-sample")
}

#[test]
fn mismatched_comparisons_warn_once_with_their_position() {
    let (model, _) = gemp::io::load(&[sample()], Format::Auto, &LoadOptions::default()).unwrap();
    let params = Params::new();
    let q = "MATCH (p:Person)\nWHERE p.primaryName > 3 AND p.primaryName > 3\nRETURN p";
    let (_, warnings) = compile_with_warnings(q, &model, &params).unwrap();
    // Two conjuncts at two places: two warnings; the same place is never reported twice.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(
        warnings[0].to_string(),
        "line 2, column 7: `p.primaryName > 3` compares a string property with a number: \
         it is never true"
    );
    assert_eq!((warnings[1].span.line, warnings[1].span.column), (2, 29));

    let mut params = Params::new();
    params.insert("year".into(), parse_param_value("abc"));
    let q = "MATCH (t:Title) WHERE t.startYear = $year RETURN count(*)";
    let (_, warnings) = compile_with_warnings(q, &model, &params).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].message,
        "`t.startYear = $year` compares a number property with $year (the string \"abc\"): \
         it is never true"
    );
    // Comparable kinds, or kinds the binder cannot know, give no warning.
    params.insert("year".into(), parse_param_value("1990"));
    for q in [
        "MATCH (t:Title) WHERE t.startYear = $year RETURN count(*)",
        "MATCH (t:Title) WHERE t.startYear > 1.5 AND t.primaryTitle < 'B' RETURN count(*)",
        "MATCH (t:Title) WITH t.startYear AS y WHERE y > 'x' RETURN count(*)",
        "MATCH (t:Title) WHERE t.startYear = null RETURN count(*)",
    ] {
        let (_, warnings) = compile_with_warnings(q, &model, &params).unwrap();
        assert!(warnings.is_empty(), "{q}: {warnings:?}");
    }
}

#[test]
fn the_cli_prints_the_warning_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("q.cypher");
    std::fs::write(
        &q,
        "MATCH (t:Title)\nWHERE t.startYear = $year\nRETURN count(*)",
    )
    .unwrap();
    let out = gemp(&[
        "match",
        "--model",
        sample().to_str().unwrap(),
        "--param",
        "year=abc",
        q.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("never true"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("line 2, column 7: `t.startYear = $year`"),
        "{stderr}"
    );
}
