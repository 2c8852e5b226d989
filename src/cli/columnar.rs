//! `--format arrow` (an Arrow IPC stream) and `--format parquet`: result rows as typed columns,
//! one column per RETURN item, built once from the collected rows.
//!
//! A column's type is the common type of its non-null values: integers `Int64`, floats (or
//! integers mixed with floats) `Float64`, strings `Utf8`, booleans `Boolean`, only nulls `Null`.
//! Nodes, relationships, lists and columns of mixed kinds are `Utf8` holding each value's JSON
//! text, exactly as JSON lines writes it (`{"id", "key", "labels", "properties"}` for a node);
//! such a field carries the metadata `gemp.encoding = json`.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, NullArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema};

use gemp::exec::eval::Val;
use gemp::model::Model;

use super::output::to_json;

/// The field metadata key naming how a `Utf8` column encodes its values.
pub const ENCODING_KEY: &str = "gemp.encoding";

/// What a column holds, widened value by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Only nulls so far.
    Null,
    Int,
    Float,
    Bool,
    Str,
    /// Nodes, relationships, lists, or values of different kinds: JSON text.
    Json,
}

impl Kind {
    fn of(v: &Val<'_>) -> Kind {
        match v {
            Val::Null => Kind::Null,
            Val::Int(_) => Kind::Int,
            Val::Float(_) => Kind::Float,
            Val::Bool(_) => Kind::Bool,
            // Temporal values as their ISO 8601 text, as in every other format.
            Val::Str(_) | Val::Temporal(_) => Kind::Str,
            Val::Node(_) | Val::Rel(_) | Val::List(_) | Val::Map(_) | Val::Path(_) => Kind::Json,
        }
    }

    /// The kind of a column holding values of kinds `self` and `other`.
    fn widen(self, other: Kind) -> Kind {
        match (self, other) {
            (a, b) if a == b => a,
            (Kind::Null, k) | (k, Kind::Null) => k,
            (Kind::Int, Kind::Float) | (Kind::Float, Kind::Int) => Kind::Float,
            _ => Kind::Json,
        }
    }
}

/// Column `i` of `rows` as an Arrow array, with its field.
fn column(model: &Model, name: &str, rows: &[Vec<Val<'_>>], i: usize) -> (Field, ArrayRef) {
    let values = || rows.iter().map(move |r| r.get(i).unwrap_or(&Val::Null));
    let kind = values().fold(Kind::Null, |k, v| k.widen(Kind::of(v)));
    let array: ArrayRef = match kind {
        Kind::Null => Arc::new(NullArray::new(rows.len())),
        Kind::Int => {
            let mut b = Int64Builder::with_capacity(rows.len());
            for v in values() {
                b.append_option(match v {
                    Val::Int(x) => Some(*x),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
        Kind::Float => {
            let mut b = Float64Builder::with_capacity(rows.len());
            for v in values() {
                b.append_option(match v {
                    Val::Float(x) => Some(*x),
                    Val::Int(x) => Some(*x as f64),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
        Kind::Bool => {
            let mut b = BooleanBuilder::with_capacity(rows.len());
            for v in values() {
                b.append_option(match v {
                    Val::Bool(x) => Some(*x),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
        Kind::Str | Kind::Json => {
            let mut b = StringBuilder::with_capacity(rows.len(), rows.len() * 16);
            for v in values() {
                match v {
                    Val::Null => b.append_null(),
                    Val::Str(s) if kind == Kind::Str => b.append_value(s),
                    Val::Temporal(t) if kind == Kind::Str => b.append_value(t.to_string()),
                    v => b.append_value(to_json(model, v).to_string()),
                }
            }
            Arc::new(b.finish())
        }
    };
    let mut field = Field::new(name, array.data_type().clone(), true);
    if kind == Kind::Json {
        field = field.with_metadata(HashMap::from([(ENCODING_KEY.into(), "json".into())]));
    }
    (field, array)
}

/// The rows as one record batch.
pub fn record_batch(
    model: &Model,
    columns: &[String],
    rows: &[Vec<Val<'_>>],
) -> std::io::Result<RecordBatch> {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns
        .iter()
        .enumerate()
        .map(|(i, name)| column(model, name, rows, i))
        .unzip();
    let schema = Arc::new(Schema::new(fields));
    let options = RecordBatchOptions::new().with_row_count(Some(rows.len()));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(std::io::Error::other)
}

/// Writes the rows as an Arrow IPC stream (one batch; an empty result is a schema and no
/// batch).
pub fn write_arrow(
    out: &mut dyn Write,
    model: &Model,
    columns: &[String],
    rows: &[Vec<Val<'_>>],
) -> std::io::Result<()> {
    let batch = record_batch(model, columns, rows)?;
    let mut w = arrow_ipc::writer::StreamWriter::try_new(out, &batch.schema())
        .map_err(std::io::Error::other)?;
    if batch.num_rows() > 0 {
        w.write(&batch).map_err(std::io::Error::other)?;
    }
    w.finish().map_err(std::io::Error::other)
}

/// Writes the rows as a Parquet file (Snappy-compressed; built in memory, then written).
pub fn write_parquet(
    out: &mut dyn Write,
    model: &Model,
    columns: &[String],
    rows: &[Vec<Val<'_>>],
) -> std::io::Result<()> {
    let batch = record_batch(model, columns, rows)?;
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut bytes = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut bytes, batch.schema(), Some(props))
        .map_err(std::io::Error::other)?;
    w.write(&batch).map_err(std::io::Error::other)?;
    w.close().map_err(std::io::Error::other)?;
    out.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_takes_the_common_type_of_its_values() {
        use Kind::*;
        assert_eq!(Null.widen(Int), Int);
        assert_eq!(Int.widen(Float), Float);
        assert_eq!(Float.widen(Null).widen(Int), Float);
        assert_eq!(Int.widen(Str), Json);
        assert_eq!(Bool.widen(Bool), Bool);
        assert_eq!(Str.widen(Json), Json);
    }
}
