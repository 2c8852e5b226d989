//! A query's rows as Arrow columns, built once on the graph's thread (no Python object per
//! row), and their cells as Python values for row iteration.
//!
//! Column types, from the values the column holds (nulls fit any):
//!
//! | values                         | Arrow type                                                   |
//! |--------------------------------|--------------------------------------------------------------|
//! | booleans                       | `bool`                                                       |
//! | integers                       | `int64`                                                      |
//! | floats, or integers and floats | `double`                                                     |
//! | strings                        | `string` (`large_string` past 2 GiB)                         |
//! | nodes                          | `struct<id: int64, key: string, labels: list<string>, properties: string>` |
//! | relationships                  | `struct<id: int64, type: string, src: int64, dst: int64, properties: string>` |
//! | lists                          | `list<…>` of the type of all their elements                  |
//! | only nulls                     | `null`                                                       |
//! | anything else (mixed types)    | `string`: each value as `gemp match` prints it in a table    |
//!
//! `properties` is a JSON object (text); `src` and `dst` are node ids, as in `gemp match
//! --format jsonl`.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, LargeStringBuilder, StringBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{
    new_null_array, Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray,
    RecordBatch, RecordBatchOptions, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use gemp::api::embedding::Val;
use gemp::api::{Matches, NodeRef, RelRef};
use gemp::model::ValueRef;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value as Json;

/// The rows of one run, column by column.
#[derive(Debug, Clone)]
pub struct Table {
    pub batch: RecordBatch,
}

impl Table {
    /// Builds the columns of `matches` from its rows in place (strings are copied once, into
    /// the Arrow buffers; nodes and relationships are read from the graph). One pass over the
    /// rows fills a column whose values share one scalar type straight into its Arrow builder
    /// (the type read from its first non-null value); any other column is built after it, by
    /// type inference over the column's values.
    pub fn build(matches: &Matches<'_>) -> Result<Table, arrow_schema::ArrowError> {
        let out = matches.output();
        let rows = out.rows.len();
        let width = out.columns.len();
        let mut columns: Vec<Column> = (0..width).map(|_| Column::Pending(0)).collect();
        for row in &out.rows {
            for (c, v) in columns.iter_mut().zip(row) {
                c.push(v, rows);
            }
        }
        let mut fields = Vec::with_capacity(width);
        let mut arrays = Vec::with_capacity(width);
        for (i, (name, column)) in out.columns.iter().zip(columns).enumerate() {
            let array = column.finish(|| {
                let values: Vec<&Val<'_>> = out.rows.iter().map(|r| &r[i]).collect();
                let kind = values.iter().fold(Kind::Null, |k, v| unify(k, kind(v)));
                build(matches, &kind, &values)
            });
            fields.push(Field::new(name, array.data_type().clone(), true));
            arrays.push(array);
        }
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new_with_options(
            schema,
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        Ok(Table { batch })
    }

    pub fn rows(&self) -> usize {
        self.batch.num_rows()
    }
}

/// A column being filled, row by row.
enum Column {
    /// Only nulls so far (how many).
    Pending(usize),
    Bool(BooleanBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    /// Strings, with their bytes so far (past `i32::MAX` the column is built as `Other`).
    Str(StringBuilder, usize),
    /// Values of several types, or nodes, relationships or lists: built column-wise at the end.
    Other,
}

impl Column {
    fn push(&mut self, v: &Val<'_>, rows: usize) {
        match (&mut *self, v) {
            (_, Val::Null) => match self {
                Column::Pending(n) => *n += 1,
                Column::Bool(b) => b.append_null(),
                Column::Int(b) => b.append_null(),
                Column::Float(b) => b.append_null(),
                Column::Str(b, _) => b.append_null(),
                Column::Other => {}
            },
            (Column::Bool(b), Val::Bool(x)) => b.append_value(*x),
            (Column::Int(b), Val::Int(x)) => b.append_value(*x),
            (Column::Float(b), Val::Float(x)) => b.append_value(*x),
            (Column::Float(b), Val::Int(x)) => b.append_value(*x as f64),
            (Column::Str(b, bytes), Val::Str(x)) if *bytes + x.len() < i32::MAX as usize => {
                *bytes += x.len();
                b.append_value(x);
            }
            (Column::Pending(nulls), v) => {
                let nulls = *nulls;
                *self = match v {
                    Val::Bool(_) => Column::Bool(BooleanBuilder::with_capacity(rows)),
                    Val::Int(_) => Column::Int(Int64Builder::with_capacity(rows)),
                    Val::Float(_) => Column::Float(Float64Builder::with_capacity(rows)),
                    Val::Str(_) => Column::Str(StringBuilder::with_capacity(rows, rows * 8), 0),
                    _ => Column::Other,
                };
                match self {
                    Column::Bool(b) => b.append_nulls(nulls),
                    Column::Int(b) => b.append_nulls(nulls),
                    Column::Float(b) => b.append_nulls(nulls),
                    Column::Str(b, _) => b.append_nulls(nulls),
                    _ => {}
                }
                if !matches!(self, Column::Other) {
                    self.push(v, rows);
                }
            }
            (Column::Other, _) => {}
            // A second type (an integer column meeting a float included: rebuilt as doubles).
            _ => *self = Column::Other,
        }
    }

    fn finish(self, other: impl FnOnce() -> ArrayRef) -> ArrayRef {
        match self {
            Column::Pending(rows) => new_null_array(&DataType::Null, rows),
            Column::Bool(mut b) => Arc::new(b.finish()),
            Column::Int(mut b) => Arc::new(b.finish()),
            Column::Float(mut b) => Arc::new(b.finish()),
            Column::Str(mut b, _) => Arc::new(b.finish()),
            Column::Other => other(),
        }
    }
}

/// The type a column's values share.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Node,
    Rel,
    List(Box<Kind>),
    Mixed,
}

fn kind(v: &Val<'_>) -> Kind {
    match v {
        Val::Null => Kind::Null,
        Val::Bool(_) => Kind::Bool,
        Val::Int(_) => Kind::Int,
        Val::Float(_) => Kind::Float,
        Val::Str(_) => Kind::Str,
        Val::Node(_) => Kind::Node,
        Val::Rel(_) => Kind::Rel,
        Val::List(items) => Kind::List(Box::new(
            items.iter().fold(Kind::Null, |k, i| unify(k, kind(i))),
        )),
        // Maps, paths and temporal values go out as their Cypher text, like values of mixed kinds.
        Val::Map(_) | Val::Path(_) | Val::Temporal(_) => Kind::Mixed,
    }
}

fn unify(a: Kind, b: Kind) -> Kind {
    match (a, b) {
        (Kind::Null, k) | (k, Kind::Null) => k,
        (Kind::Int, Kind::Float) | (Kind::Float, Kind::Int) => Kind::Float,
        (Kind::List(x), Kind::List(y)) => Kind::List(Box::new(unify(*x, *y))),
        (a, b) if a == b => a,
        _ => Kind::Mixed,
    }
}

fn nulls(values: &[&Val<'_>]) -> Option<NullBuffer> {
    if !values.iter().any(|v| v.is_null()) {
        return None;
    }
    Some(NullBuffer::from_iter(values.iter().map(|v| !v.is_null())))
}

/// Strings as `string`, or `large_string` when their bytes pass `i32::MAX`.
fn strings(values: &[Option<&str>]) -> ArrayRef {
    let bytes: usize = values.iter().map(|s| s.map_or(0, str::len)).sum();
    if bytes < i32::MAX as usize {
        let mut b = StringBuilder::with_capacity(values.len(), bytes);
        values.iter().for_each(|v| b.append_option(*v));
        Arc::new(b.finish())
    } else {
        let mut b = LargeStringBuilder::with_capacity(values.len(), bytes);
        values.iter().for_each(|v| b.append_option(*v));
        Arc::new(b.finish())
    }
}

fn build(m: &Matches<'_>, kind: &Kind, values: &[&Val<'_>]) -> ArrayRef {
    let n = values.len();
    match kind {
        Kind::Null => new_null_array(&DataType::Null, n),
        Kind::Bool => Arc::new(BooleanArray::from_iter(values.iter().map(|v| match v {
            Val::Bool(b) => Some(*b),
            _ => None,
        }))),
        Kind::Int => Arc::new(Int64Array::from_iter(values.iter().map(|v| match v {
            Val::Int(x) => Some(*x),
            _ => None,
        }))),
        Kind::Float => Arc::new(Float64Array::from_iter(values.iter().map(|v| match v {
            Val::Float(x) => Some(*x),
            Val::Int(x) => Some(*x as f64),
            _ => None,
        }))),
        Kind::Str => {
            let texts: Vec<Option<&str>> = values
                .iter()
                .map(|v| match v {
                    Val::Str(s) => Some(s.as_ref()),
                    _ => None,
                })
                .collect();
            strings(&texts)
        }
        Kind::Mixed => {
            let texts: Vec<Option<String>> = values
                .iter()
                .map(|v| (!v.is_null()).then(|| text(m, v)))
                .collect();
            let refs: Vec<Option<&str>> = texts.iter().map(|t| t.as_deref()).collect();
            strings(&refs)
        }
        Kind::Node => nodes(m, values),
        Kind::Rel => rels(m, values),
        Kind::List(inner) => {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0i32);
            let mut flat: Vec<&Val<'_>> = Vec::new();
            for v in values {
                if let Val::List(xs) = v {
                    flat.extend(xs.iter());
                }
                offsets.push(i32::try_from(flat.len()).expect("a list column under 2^31 values"));
            }
            let items = build(m, inner, &flat);
            let field = Arc::new(Field::new("item", items.data_type().clone(), true));
            Arc::new(ListArray::new(
                field,
                OffsetBuffer::new(offsets.into()),
                items,
                nulls(values),
            ))
        }
    }
}

fn node_fields() -> Fields {
    Fields::from(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("key", DataType::Utf8, false),
        Field::new(
            "labels",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        ),
        Field::new("properties", DataType::Utf8, false),
    ])
}

fn rel_fields() -> Fields {
    Fields::from(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("type", DataType::Utf8, false),
        Field::new("src", DataType::Int64, false),
        Field::new("dst", DataType::Int64, false),
        Field::new("properties", DataType::Utf8, false),
    ])
}

fn nodes(m: &Matches<'_>, values: &[&Val<'_>]) -> ArrayRef {
    let n = values.len();
    let mut ids = Int64Builder::with_capacity(n);
    let mut keys = StringBuilder::new();
    let mut labels = StringBuilder::new();
    let mut label_offsets = Vec::with_capacity(n + 1);
    label_offsets.push(0i32);
    let mut props = StringBuilder::new();
    let mut label_count = 0usize;
    for v in values {
        match v {
            Val::Node(id) => {
                let x = m.node(*id);
                ids.append_value(i64::from(*id));
                keys.append_value(x.key());
                for l in x.labels() {
                    labels.append_value(l);
                    label_count += 1;
                }
                props.append_value(node_properties(&x));
            }
            _ => {
                ids.append_value(0);
                keys.append_value("");
                props.append_value("{}");
            }
        }
        label_offsets.push(i32::try_from(label_count).expect("under 2^31 labels"));
    }
    let labels = ListArray::new(
        Arc::new(Field::new("item", DataType::Utf8, true)),
        OffsetBuffer::new(label_offsets.into()),
        Arc::new(labels.finish()),
        None,
    );
    Arc::new(StructArray::new(
        node_fields(),
        vec![
            Arc::new(ids.finish()),
            Arc::new(keys.finish()),
            Arc::new(labels),
            Arc::new(props.finish()),
        ],
        nulls(values),
    ))
}

fn rels(m: &Matches<'_>, values: &[&Val<'_>]) -> ArrayRef {
    let n = values.len();
    let mut ids = Int64Builder::with_capacity(n);
    let mut types = StringBuilder::new();
    let mut srcs = Int64Builder::with_capacity(n);
    let mut dsts = Int64Builder::with_capacity(n);
    let mut props = StringBuilder::new();
    for v in values {
        match v {
            Val::Rel(id) => {
                let r = m.rel(*id);
                ids.append_value(i64::from(*id));
                types.append_value(r.rel_type());
                srcs.append_value(i64::from(r.source().id()));
                dsts.append_value(i64::from(r.target().id()));
                props.append_value(rel_properties(&r));
            }
            _ => {
                ids.append_value(0);
                types.append_value("");
                srcs.append_value(0);
                dsts.append_value(0);
                props.append_value("{}");
            }
        }
    }
    Arc::new(StructArray::new(
        rel_fields(),
        vec![
            Arc::new(ids.finish()),
            Arc::new(types.finish()),
            Arc::new(srcs.finish()),
            Arc::new(dsts.finish()),
            Arc::new(props.finish()),
        ],
        nulls(values),
    ))
}

pub fn value_json(v: ValueRef<'_>) -> Json {
    match v {
        ValueRef::Null => Json::Null,
        ValueRef::Bool(b) => Json::Bool(b),
        ValueRef::Int(i) => Json::from(i),
        ValueRef::Float(f) => serde_json::Number::from_f64(f)
            .map(Json::Number)
            .unwrap_or_else(|| Json::String(f.to_string())),
        ValueRef::Str(s) => Json::String(s.to_owned()),
    }
}

fn properties_json<'g>(props: Vec<(&'g str, ValueRef<'g>)>) -> String {
    let map: serde_json::Map<String, Json> = props
        .into_iter()
        .map(|(k, v)| (k.to_owned(), value_json(v)))
        .collect();
    Json::Object(map).to_string()
}

fn node_properties(n: &NodeRef<'_>) -> String {
    properties_json(n.properties())
}

fn rel_properties(r: &RelRef<'_>) -> String {
    properties_json(r.properties())
}

/// A value as `gemp match` prints it in a table.
fn text(m: &Matches<'_>, v: &Val<'_>) -> String {
    match v {
        Val::Node(id) => {
            let n = m.node(*id);
            format!("({}:{})", n.key(), n.labels().join(":"))
        }
        Val::Rel(id) => format!("[{id}:{}]", m.rel(*id).rel_type()),
        Val::List(xs) => {
            let parts: Vec<String> = xs.iter().map(|x| text(m, x)).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// JSON as Python values (objects as dicts, in their order).
pub fn json_to_py(py: Python<'_>, v: &Json) -> PyResult<PyObject> {
    Ok(match v {
        Json::Null => py.None(),
        Json::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any().unbind(),
            _ => n
                .as_f64()
                .unwrap_or(f64::NAN)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        },
        Json::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Json::Array(items) => {
            let list = PyList::empty(py);
            for i in items {
                list.append(json_to_py(py, i)?)?;
            }
            list.into_any().unbind()
        }
        Json::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// Cell `i` of `array` as a Python value: nodes and relationships as dicts (their
/// `properties` as a dict), lists as lists.
pub fn cell(py: Python<'_>, array: &dyn Array, i: usize) -> PyResult<PyObject> {
    if array.is_null(i) {
        return Ok(py.None());
    }
    Ok(match array.data_type() {
        DataType::Null => py.None(),
        DataType::Boolean => array
            .as_boolean()
            .value(i)
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind(),
        DataType::Int64 => array
            .as_primitive::<Int64Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Float64 => array
            .as_primitive::<Float64Type>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::Utf8 => array
            .as_string::<i32>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::LargeUtf8 => array
            .as_string::<i64>()
            .value(i)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        DataType::List(_) => {
            let values = array.as_list::<i32>().value(i);
            let list = PyList::empty(py);
            for j in 0..values.len() {
                list.append(cell(py, values.as_ref(), j)?)?;
            }
            list.into_any().unbind()
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let dict = PyDict::new(py);
            for (f, child) in fields.iter().zip(s.columns()) {
                if f.name() == "properties" {
                    let text = child.as_string::<i32>().value(i);
                    let json: Json = serde_json::from_str(text).unwrap_or(Json::Null);
                    dict.set_item(f.name(), json_to_py(py, &json)?)?;
                } else {
                    dict.set_item(f.name(), cell(py, child.as_ref(), i)?)?;
                }
            }
            dict.into_any().unbind()
        }
        other => {
            return Err(crate::errors::internal(&format!(
                "no Python value for Arrow type {other}"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unify_widens_ints_to_floats_and_mixes_the_rest() {
        assert_eq!(unify(Kind::Int, Kind::Float), Kind::Float);
        assert_eq!(unify(Kind::Null, Kind::Str), Kind::Str);
        assert_eq!(unify(Kind::Str, Kind::Int), Kind::Mixed);
        assert_eq!(
            unify(
                Kind::List(Box::new(Kind::Int)),
                Kind::List(Box::new(Kind::Null))
            ),
            Kind::List(Box::new(Kind::Int))
        );
    }
}
