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

/// Issue 31, item 17: no `--param` parse changes the type silently. A map where a value is needed
/// and a number out of range (it became a string) are refused with a message saying what to
/// write (a list is a list parameter: see `params.rs`); text that reads as a number
/// but is not JSON is a string with a warning; `IN` over a parameter that is not a list warns.
#[test]
fn every_param_parse_that_changes_the_type_warns_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("q.cypher");
    std::fs::write(
        &q,
        "MATCH (t:Title) WHERE t.startYear IN $p RETURN count(*) AS n",
    )
    .unwrap();
    let run = |value: &str| {
        let out = gemp(&[
            "match",
            q.to_str().unwrap(),
            "--param",
            &format!("p={value}"),
            "--format",
            "csv",
        ]);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let refused = [
        (
            "99999999999999999999",
            "error: --param p=99999999999999999999: the integer is out of range \
             (-9223372036854775808 to 9223372036854775807); write it with a decimal point \
             (`99999999999999999999.0`) for a float; to pass the text as a string, quote it as \
             JSON: --param 'p=\"99999999999999999999\"'\n",
        ),
        (
            "1e400",
            "error: --param p=1e400: the number is out of the float range; to pass the text as a \
             string, quote it as JSON: --param 'p=\"1e400\"'\n",
        ),
    ];
    // A map where a value is needed: the query error points at `$p`.
    let (code, stdout, stderr) = run("{\"a\":1}");
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert!(
        stderr
            .starts_with("error: `$p` holds a map, which gemp reads only by key here (`$p.key`)\n")
            && stderr.contains("q.cypher:1:38"),
        "{stderr}"
    );
    for (value, message) in refused {
        let (code, stdout, stderr) = run(value);
        assert_eq!(code, Some(1), "{value}");
        assert_eq!(stdout, "", "{value}");
        assert_eq!(stderr, message, "{value}");
    }
    let not_a_list = |shown: &str| {
        format!(
            "[WARN] query line 1, column 23: `t.startYear IN $p` looks for a value in $p (the \
             {shown}), which is not a list: it is never true"
        )
    };
    let warned = [
        (
            "007",
            vec![
                "[WARN] --param p=007 is not a JSON number, so it is the string \"007\" (write 7 \
                 for the number; quote it as JSON to pass the string without this warning)"
                    .to_string(),
                not_a_list("string \"007\""),
            ],
        ),
        (
            "NaN",
            vec![
                "[WARN] --param p=NaN is not a JSON number, so it is the string \"NaN\" (JSON \
                 numbers are finite; quote it as JSON to pass the string without this warning)"
                    .to_string(),
                not_a_list("string \"NaN\""),
            ],
        ),
        ("2000", vec![not_a_list("number 2000")]),
        ("\"Jack\"", vec![not_a_list("string \"Jack\"")]),
    ];
    for (value, warnings) in warned {
        let (code, stdout, stderr) = run(value);
        assert_eq!(code, Some(0), "{value}: {stderr}");
        assert_eq!(stdout, "n\n0\n", "{value}");
        assert_eq!(stderr.lines().collect::<Vec<_>>(), warnings, "{value}");
    }
    // Typed scalars as before, without a warning.
    let p =
        |text: &str| gemp::pattern::binder::parse_param("p", text).map(|v| v.as_scalar().cloned());
    use gemp::model::Value;
    assert_eq!(p("42"), Ok(Some(Value::Int(42))));
    assert_eq!(p("-9223372036854775808"), Ok(Some(Value::Int(i64::MIN))));
    assert_eq!(p("1.5e3"), Ok(Some(Value::Float(1500.0))));
    assert_eq!(p("true"), Ok(Some(Value::Bool(true))));
    assert_eq!(p("null"), Ok(Some(Value::Null)));
    assert_eq!(p("\"[1]\""), Ok(Some(Value::Str("[1]".into()))));
    assert_eq!(p("Jack"), Ok(Some(Value::Str("Jack".into()))));
}
