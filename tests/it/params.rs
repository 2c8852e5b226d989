//! List and map parameters (issue 33): `--param 'years=[2000,2001]'` and the library's typed
//! values, in `IN $list`, `UNWIND $list AS x` and `$map.key`, on the bundled IMDb sample. Counts
//! by hand from `datasets/imdb-sample/title.basics.tsv` (column `startYear`): 34 titles of 2000,
//! 22 of 2001; `name.basics.tsv`: "Anna Taylor" twice, "Anna Prescott" once.

use std::process::Command;

use gemp::api::{Graph, LoadSpec, ParamValue, RunOptions};
use gemp::io::Format;
use gemp::model::Value;

use crate::common;

const IN_YEARS: &str = "MATCH (t:Title) WHERE t.startYear IN $years RETURN count(*) AS n";
const IN_NAMES: &str = "MATCH (p:Person) WHERE p.primaryName IN $names RETURN count(*) AS n";
const UNWIND_YEARS: &str = "UNWIND $years AS y MATCH (t:Title) WHERE t.startYear = y \
                            RETURN y, count(*) AS n ORDER BY y";
const MAP_YEAR: &str = "MATCH (t:Title) WHERE t.startYear = $m.year RETURN count(*) AS n";

/// `gemp match -c QUERY --param …` on the bundled sample, as CSV: (exit code, stdout, stderr).
fn cli(query: &str, params: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gemp"));
    cmd.args([
        "match",
        "-q",
        "--backend",
        "host",
        "--format",
        "csv",
        "-c",
        query,
    ])
    .arg("--model")
    .arg(common::root().join("datasets/imdb-sample"));
    for p in params {
        cmd.args(["--param", p]);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn list_and_map_parameters_on_the_command_line() {
    let ok = |query: &str, params: &[&str]| {
        let (code, stdout, stderr) = cli(query, params);
        assert_eq!(code, Some(0), "{query}: {stderr}");
        stdout
    };
    assert_eq!(ok(IN_YEARS, &["years=[2000, 2001]"]), "n\n56\n");
    assert_eq!(ok(IN_YEARS, &["years=[]"]), "n\n0\n");
    assert_eq!(
        ok(IN_NAMES, &[r#"names=["Anna Taylor","Anna Prescott"]"#]),
        "n\n3\n"
    );
    assert_eq!(
        ok(UNWIND_YEARS, &["years=[2001,2000]"]),
        "y,n\n2000,34\n2001,22\n"
    );
    assert_eq!(ok(MAP_YEAR, &[r#"m={"year": 2001}"#]), "n\n22\n");
    assert_eq!(ok(MAP_YEAR, &[r#"m={"other": 2001}"#]), "n\n0\n", "null");
    // What cannot take a list or map is an error naming the parameter, never a wrong answer.
    let err = |query: &str, params: &[&str]| {
        let (code, stdout, stderr) = cli(query, params);
        assert_eq!((code, stdout.as_str()), (Some(1), ""), "{query}: {stderr}");
        stderr
    };
    let e = err(MAP_YEAR, &["m=[2001]"]);
    assert!(e.contains("`$m.year` reads a key of a list"), "{e}");
    let e = err(IN_YEARS, &[r#"years={"a": 1}"#]);
    assert!(e.contains("`$years` holds a map"), "{e}");
    let e = err("MATCH (t:Title) RETURN t LIMIT $n", &["n=[1]"]);
    assert!(e.contains("parameter `$n` is a list"), "{e}");
    let e = err(IN_YEARS, &["years=[1, 18446744073709551615]"]);
    assert!(
        e.contains("the integer 18446744073709551615 is out of range"),
        "{e}"
    );
}

fn sample() -> Graph {
    let spec = LoadSpec {
        format: Format::ImdbTsv,
        ..Default::default()
    };
    Graph::load_with(&[common::root().join("datasets/imdb-sample")], &spec).unwrap()
}

#[test]
fn list_and_map_parameters_in_the_library() {
    let g = sample();
    let count = |source: &str, options: &RunOptions| {
        let q = g.query_with(source, options).unwrap();
        let m = g.execute(&q, options).unwrap();
        m.output().rows[0][0].to_string()
    };
    let host = RunOptions::host();
    assert_eq!(
        count(IN_YEARS, &host.clone().param("years", vec![2000i64, 2001])),
        "56"
    );
    assert_eq!(
        count(
            IN_NAMES,
            &host
                .clone()
                .param("names", vec!["Anna Taylor", "Anna Prescott"])
        ),
        "3"
    );
    let m = ParamValue::map([("year", 2000i64)]);
    assert_eq!(count(MAP_YEAR, &host.clone().param("m", m)), "34");
    // Prepared once, run again with another list (bound again, not parsed).
    let first = host.clone().param("years", vec![2000i64]);
    let q = g.query_with(IN_YEARS, &first).unwrap();
    let again = host.clone().param("years", vec![2001i64, 1965]);
    let n = |o: &RunOptions| g.execute(&q, o).unwrap().output().rows[0][0].to_string();
    assert_eq!(n(&first), "34");
    let y1965 = count(
        "MATCH (t:Title) WHERE t.startYear = 1965 RETURN count(*) AS n",
        &host,
    );
    let y1965: u64 = y1965.parse().unwrap();
    assert!(y1965 > 0, "the sample has titles of 1965");
    assert_eq!(n(&again), (22 + y1965).to_string());
    // UNWIND a list parameter.
    let options = host.clone().param("years", vec![2000i64, 2001]);
    let q = g.query_with(UNWIND_YEARS, &options).unwrap();
    let rows: Vec<(Value, Value)> = g
        .execute(&q, &options)
        .unwrap()
        .rows()
        .map(|r| (r.value("y").unwrap(), r.value("n").unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            (Value::Int(2000), Value::Int(34)),
            (Value::Int(2001), Value::Int(22))
        ]
    );
    // A map where a value is needed: an error.
    let err = g
        .query_with(
            IN_YEARS,
            &host.clone().param("years", ParamValue::map([("a", 1i64)])),
        )
        .unwrap_err();
    assert!(err.to_string().contains("`$years` holds a map"), "{err}");
}
