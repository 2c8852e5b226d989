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

use arrow_array::builder::{Int64Builder, LargeStringBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{
    new_null_array, Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray,
    RecordBatch, RecordBatchOptions, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use gemp::api::{Item, Matches, NodeRef, RelRef};
use gemp::model::{Model, Value, ValueRef};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value as Json;

/// The rows of one run, column by column.
#[derive(Debug, Clone)]
pub struct Table {
    pub batch: RecordBatch,
}

impl Table {
    /// Builds the columns of `matches` (on the graph's thread: nodes and relationships are read
    /// from `model`).
    pub fn build(model: &Model, matches: &Matches<'_>) -> Result<Table, arrow_schema::ArrowError> {
        let names = matches.columns();
        let mut columns: Vec<Vec<Item<'_>>> = names.iter().map(|_| Vec::new()).collect();
        for row in matches.rows() {
            for (c, item) in columns.iter_mut().zip(row.items()) {
                c.push(item);
            }
        }
        let rows = columns.first().map_or(0, Vec::len);
        let mut fields = Vec::with_capacity(names.len());
        let mut arrays = Vec::with_capacity(names.len());
        for (name, items) in names.iter().zip(&columns) {
            let kind = items.iter().fold(Kind::Null, |k, i| unify(k, kind(i)));
            let refs: Vec<&Item<'_>> = items.iter().collect();
            let array = build(model, &kind, &refs);
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

fn kind(item: &Item<'_>) -> Kind {
    match item {
        Item::Node(_) => Kind::Node,
        Item::Rel(_) => Kind::Rel,
        Item::List(items) => Kind::List(Box::new(
            items.iter().fold(Kind::Null, |k, i| unify(k, kind(i))),
        )),
        Item::Value(v) => match v {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) => Kind::Int,
            Value::Float(_) => Kind::Float,
            Value::Str(_) => Kind::Str,
        },
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

fn is_null(item: &Item<'_>) -> bool {
    matches!(item, Item::Value(Value::Null))
}

fn nulls(items: &[&Item<'_>]) -> Option<NullBuffer> {
    if !items.iter().any(|i| is_null(i)) {
        return None;
    }
    Some(NullBuffer::from_iter(items.iter().map(|i| !is_null(i))))
}

/// Strings as `string`, or `large_string` when their bytes pass `i32::MAX`.
fn strings(n: usize, values: impl Iterator<Item = Option<String>> + Clone) -> ArrayRef {
    let bytes: usize = values.clone().map(|s| s.map_or(0, |s| s.len())).sum();
    if bytes < i32::MAX as usize {
        let mut b = StringBuilder::with_capacity(n, bytes);
        values.for_each(|v| b.append_option(v));
        Arc::new(b.finish())
    } else {
        let mut b = LargeStringBuilder::with_capacity(n, bytes);
        values.for_each(|v| b.append_option(v));
        Arc::new(b.finish())
    }
}

fn build(model: &Model, kind: &Kind, items: &[&Item<'_>]) -> ArrayRef {
    let n = items.len();
    match kind {
        Kind::Null => new_null_array(&DataType::Null, n),
        Kind::Bool => Arc::new(BooleanArray::from_iter(items.iter().map(|i| match i {
            Item::Value(Value::Bool(b)) => Some(*b),
            _ => None,
        }))),
        Kind::Int => Arc::new(Int64Array::from_iter(items.iter().map(|i| match i {
            Item::Value(Value::Int(x)) => Some(*x),
            _ => None,
        }))),
        Kind::Float => Arc::new(Float64Array::from_iter(items.iter().map(|i| match i {
            Item::Value(Value::Float(x)) => Some(*x),
            Item::Value(Value::Int(x)) => Some(*x as f64),
            _ => None,
        }))),
        Kind::Str => {
            let bytes: usize = items
                .iter()
                .map(|i| match i {
                    Item::Value(Value::Str(s)) => s.len(),
                    _ => 0,
                })
                .sum();
            fn value<'a>(i: &'a Item<'_>) -> Option<&'a str> {
                match i {
                    Item::Value(Value::Str(s)) => Some(s.as_str()),
                    _ => None,
                }
            }
            if bytes < i32::MAX as usize {
                let mut b = StringBuilder::with_capacity(n, bytes);
                items.iter().for_each(|i| b.append_option(value(i)));
                Arc::new(b.finish())
            } else {
                let mut b = LargeStringBuilder::with_capacity(n, bytes);
                items.iter().for_each(|i| b.append_option(value(i)));
                Arc::new(b.finish())
            }
        }
        Kind::Mixed => strings(n, items.iter().map(|i| (!is_null(i)).then(|| text(i)))),
        Kind::Node => nodes(items),
        Kind::Rel => rels(model, items),
        Kind::List(inner) => {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0i32);
            let mut flat: Vec<&Item<'_>> = Vec::new();
            for i in items {
                if let Item::List(xs) = i {
                    flat.extend(xs.iter());
                }
                offsets.push(i32::try_from(flat.len()).expect("a list column under 2^31 values"));
            }
            let values = build(model, inner, &flat);
            let field = Arc::new(Field::new("item", values.data_type().clone(), true));
            Arc::new(ListArray::new(
                field,
                OffsetBuffer::new(offsets.into()),
                values,
                nulls(items),
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

fn nodes(items: &[&Item<'_>]) -> ArrayRef {
    let n = items.len();
    let mut ids = Int64Builder::with_capacity(n);
    let mut keys = StringBuilder::new();
    let mut labels = StringBuilder::new();
    let mut label_offsets = vec![0i32];
    let mut props = StringBuilder::new();
    let mut label_count = 0usize;
    for i in items {
        match i {
            Item::Node(x) => {
                ids.append_value(i64::from(x.id()));
                keys.append_value(x.key());
                for l in x.labels() {
                    labels.append_value(l);
                    label_count += 1;
                }
                props.append_value(node_properties(x));
            }
            _ => {
                ids.append_value(0);
                keys.append_value("");
                props.append_value("{}");
            }
        }
        label_offsets.push(label_count as i32);
    }
    let fields = node_fields();
    let labels = ListArray::new(
        Arc::new(Field::new("item", DataType::Utf8, true)),
        OffsetBuffer::new(label_offsets.into()),
        Arc::new(labels.finish()),
        None,
    );
    Arc::new(StructArray::new(
        fields,
        vec![
            Arc::new(ids.finish()),
            Arc::new(keys.finish()),
            Arc::new(labels),
            Arc::new(props.finish()),
        ],
        nulls(items),
    ))
}

fn rels(model: &Model, items: &[&Item<'_>]) -> ArrayRef {
    let n = items.len();
    let mut ids = Int64Builder::with_capacity(n);
    let mut types = StringBuilder::new();
    let mut srcs = Int64Builder::with_capacity(n);
    let mut dsts = Int64Builder::with_capacity(n);
    let mut props = StringBuilder::new();
    for i in items {
        match i {
            Item::Rel(r) => {
                ids.append_value(i64::from(r.id()));
                types.append_value(r.rel_type());
                srcs.append_value(i64::from(r.source().id()));
                dsts.append_value(i64::from(r.target().id()));
                props.append_value(rel_properties(model, r));
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
        nulls(items),
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

fn node_properties(n: &NodeRef<'_>) -> String {
    let map: serde_json::Map<String, Json> = n
        .properties()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), value_json(v)))
        .collect();
    Json::Object(map).to_string()
}

fn rel_properties(model: &Model, r: &RelRef<'_>) -> String {
    let map: serde_json::Map<String, Json> = model
        .edge_columns()
        .iter()
        .map(|c| (c.name.clone(), c.get(r.id() as usize)))
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k, value_json(v)))
        .collect();
    Json::Object(map).to_string()
}

/// A value as `gemp match` prints it in a table.
fn text(item: &Item<'_>) -> String {
    match item {
        Item::Node(n) => format!("({}:{})", n.key(), n.labels().join(":")),
        Item::Rel(r) => format!("[{}:{}]", r.id(), r.rel_type()),
        Item::List(xs) => {
            let parts: Vec<String> = xs.iter().map(text).collect();
            format!("[{}]", parts.join(", "))
        }
        Item::Value(v) => v.to_string(),
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
