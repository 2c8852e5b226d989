//! `gemp match --format arrow|parquet`: typed columns read back with the arrow and parquet crates
//! equal the CSV output of the same query, cell by cell; binary output is refused on a terminal.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;

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

/// Integers, floats (with nulls: not every title is rated), strings, booleans, an all-null
/// column and nodes, in a fixed order.
const QUERY: &str = "MATCH (t:Title) WHERE t.startYear >= 2020 \
     RETURN t.primaryTitle AS title, t.startYear AS year, t.averageRating AS rating, \
     t.startYear > 2022 AS recent, null AS nothing, t ORDER BY title, id(t) LIMIT 300";

fn run(format: &str, out: Option<&Path>) -> Vec<u8> {
    let mut args = vec!["-q", "match", "--backend", "host", "--model"];
    let model = sample();
    args.push(&model);
    args.extend(["-c", QUERY, "--format", format]);
    let out_str;
    if let Some(o) = out {
        out_str = o.to_string_lossy().into_owned();
        args.extend(["-o", &out_str]);
    }
    let run = gemp(&args);
    assert!(run.status.success(), "{format}: {}", text(&run.stderr));
    run.stdout
}

/// Cell `row` of `column` as the CSV output writes it.
fn cell(batch: &RecordBatch, column: usize, row: usize) -> String {
    let array = batch.column(column);
    // A `Null` column has no validity buffer: every value is null all the same.
    if array.data_type() == &DataType::Null || array.is_null(row) {
        return String::new();
    }
    match array.data_type() {
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::Float64 => array.as_primitive::<Float64Type>().value(row).to_string(),
        DataType::Boolean => array.as_boolean().value(row).to_string(),
        DataType::Utf8 => {
            let s = array.as_string::<i32>().value(row);
            let field = batch.schema().field(column).clone();
            if field.metadata().get("gemp.encoding").map(String::as_str) == Some("json") {
                // A node as JSON text; the CSV shows `(key:Labels)`: compare by key.
                let v: serde_json::Value = serde_json::from_str(s).unwrap();
                format!("({}:", v["key"].as_str().unwrap())
            } else {
                s.to_owned()
            }
        }
        other => panic!("unexpected column type {other}"),
    }
}

/// Checks `batches` against the CSV of the same query.
fn same_as_csv(batches: &[RecordBatch], csv: &str, what: &str) {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 300, "{what}: the CSV has the LIMIT's rows");
    let schema = batches[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, header, "{what}");
    let types: Vec<&DataType> = schema.fields().iter().map(|f| f.data_type()).collect();
    assert_eq!(
        types,
        [
            &DataType::Utf8,
            &DataType::Int64,
            &DataType::Float64,
            &DataType::Boolean,
            &DataType::Null,
            &DataType::Utf8
        ],
        "{what}"
    );
    let mut i = 0;
    for batch in batches {
        for row in 0..batch.num_rows() {
            let record = &records[i];
            for c in 0..batch.num_columns() {
                let got = cell(batch, c, row);
                if c == 5 {
                    assert!(
                        record[c].starts_with(&got),
                        "{what} row {i}: {got} {record:?}"
                    );
                } else {
                    assert_eq!(got, record[c], "{what} row {i} column {}", header[c]);
                }
            }
            i += 1;
        }
    }
    assert_eq!(i, records.len(), "{what}: every row");
    // Not a vacuous comparison: the float column has both values and nulls.
    let ratings: Vec<&str> = records.iter().map(|r| &r[2]).collect();
    assert!(ratings.iter().any(|r| r.is_empty()) && ratings.iter().any(|r| r.contains('.')));
}

#[test]
fn arrow_and_parquet_hold_the_csv_rows_in_typed_columns() {
    let dir = tempfile::tempdir().unwrap();
    let csv = text(&run("csv", None));

    let arrow_file = dir.path().join("rows.arrows");
    run("arrow", Some(&arrow_file));
    let reader =
        arrow_ipc::reader::StreamReader::try_new(std::fs::File::open(&arrow_file).unwrap(), None)
            .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    same_as_csv(&batches, &csv, "arrow");
    // To stdout (a pipe here) the same bytes.
    assert_eq!(run("arrow", None), std::fs::read(&arrow_file).unwrap());

    let parquet_file = dir.path().join("rows.parquet");
    run("parquet", Some(&parquet_file));
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&parquet_file).unwrap(),
    )
    .unwrap();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    same_as_csv(&batches, &csv, "parquet");

    // An existing output file is kept unless --force.
    let again = gemp(&[
        "-q",
        "match",
        "--model",
        &sample(),
        "-c",
        QUERY,
        "--format",
        "parquet",
        "-o",
        parquet_file.to_str().unwrap(),
    ]);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("--force"),
        "{}",
        text(&again.stderr)
    );
}

/// Binary output to a terminal is refused with a message saying what to do.
#[cfg(unix)]
#[test]
fn binary_output_is_refused_on_a_terminal() {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gemp"));
    command.args([
        "-q",
        "match",
        "--backend",
        "host",
        "--model",
        &sample(),
        "-c",
        "MATCH (t:Title) RETURN t LIMIT 1",
        "--format",
        "parquet",
    ]);
    let mut p = rexpect::session::spawn_command(command, Some(60_000)).unwrap();
    p.exp_string("--format parquet writes binary data, not for a terminal: give -o FILE")
        .unwrap();
    p.exp_eof().unwrap();
    let status = p.process().wait().unwrap();
    assert!(format!("{status:?}").ends_with(", 1)"), "{status:?}");
}
