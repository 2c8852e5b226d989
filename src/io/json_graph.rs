//! The JSON graph format, for import and export:
//!
//! ```json
//! { "nodes": [ {"id": "n1", "labels": ["Task"], "properties": {"name": "cut", "amount": 2}} ],
//!   "edges": [ {"source": "n1", "target": "n2", "type": "CONTROL_FLOW", "properties": {}} ] }
//! ```
//!
//! - `id`, `source`, `target`: a string or an integer (an integer id is the same node as its
//!   decimal string). A node's `id` is its key in the model.
//! - `labels` and `properties` are optional; `type` is required on edges; other fields (layout,
//!   comments) are ignored.
//! - Property values: strings, integers, floats and booleans are stored as such; `null` is no
//!   value; nested objects and arrays are stored as their JSON text (a string property), and
//!   exported back as that string.
//! - Non-finite floats, which JSON numbers cannot hold, are written as `{"$float": "NaN"}`,
//!   `{"$float": "Infinity"}` and `{"$float": "-Infinity"}`, and read back as floats, so an export
//!   loads back to the same values and column types. An object is never otherwise written as a
//!   property value (nested values are exported as their text, a string), so the form cannot be
//!   mistaken for another value of an exported model; a string `"NaN"` stays a string.
//! - An edge naming an id that no node has (in its file or one loaded before it) is a dangling
//!   reference: with `--strict` an error naming the file, line and column of the edge; otherwise
//!   the edge is kept, to a node without labels (a dangling node, counted in the load report). A repeated node id and an edge with an empty
//!   type are malformed entries, reported with their line (skipped, or an error with `--strict`).
//!
//! Export writes one node or edge per line, nodes in model order, edges by source.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::error::{Error, Result};
use crate::io::metamodel::{Metamodel, Opposites};
use crate::io::report::{LoadOptions, LoadReport};
use crate::model::{Model, ModelBuilder, Value, ValueRef};
use crate::util::safe_write::{SafeFile, WriteOptions};

/// A node or edge id: a string or an integer.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Id {
    Int(i64),
    Str(String),
}

impl Id {
    fn key(&self) -> String {
        match self {
            Id::Int(i) => i.to_string(),
            Id::Str(s) => s.clone(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct JsonNode {
    id: Id,
    #[serde(default)]
    labels: Vec<String>,
    #[serde(default)]
    properties: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
struct JsonEdge {
    source: Id,
    target: Id,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    properties: Map<String, Json>,
}

#[derive(Debug, Deserialize)]
struct JsonGraph {
    #[serde(default)]
    nodes: Vec<JsonNode>,
    #[serde(default)]
    edges: Vec<JsonEdge>,
}

/// The key of the one-entry object that holds a non-finite float (see the module docs).
pub const NON_FINITE_KEY: &str = "$float";

/// A JSON property value as a model value (nested values as JSON text; `{"$float": "NaN"}`,
/// `{"$float": "Infinity"}`, `{"$float": "-Infinity"}` as the non-finite floats).
pub fn json_to_value(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::Str(s.clone()),
        Json::Object(o) if o.len() == 1 => match non_finite(o) {
            Some(f) => Value::Float(f),
            None => Value::Str(v.to_string()),
        },
        other => Value::Str(other.to_string()),
    }
}

/// The float of `{"$float": "NaN" | "Infinity" | "-Infinity"}` (also `inf`, `-inf`, `+Infinity`).
fn non_finite(o: &Map<String, Json>) -> Option<f64> {
    match o.get(NON_FINITE_KEY)?.as_str()? {
        "NaN" => Some(f64::NAN),
        "Infinity" | "+Infinity" | "inf" | "+inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// A model value as JSON (non-finite floats, which JSON numbers cannot hold, as
/// `{"$float": "NaN" | "Infinity" | "-Infinity"}`, which [`json_to_value`] reads back).
pub fn value_to_json(v: ValueRef<'_>) -> Json {
    match v {
        ValueRef::Null => Json::Null,
        ValueRef::Bool(b) => Json::Bool(b),
        ValueRef::Int(i) => Json::from(i),
        ValueRef::Float(f) => serde_json::Number::from_f64(f)
            .map(Json::Number)
            .unwrap_or_else(|| {
                let name = if f.is_nan() {
                    "NaN"
                } else if f > 0.0 {
                    "Infinity"
                } else {
                    "-Infinity"
                };
                let mut o = Map::new();
                o.insert(NON_FINITE_KEY.into(), Json::String(name.into()));
                Json::Object(o)
            }),
        ValueRef::Str(s) => Json::String(s.to_owned()),
    }
}

/// The lower-cased endings of JSON graph file names: a directory's files with these are loaded.
pub const EXTENSIONS: &[&str] = &[".json", ".json.gz"];

/// Loads JSON graph files (directories: their `.json` files) into `builder`. A metamodel adds
/// superclass labels and completes opposite references.
pub fn load_into(
    builder: &mut ModelBuilder,
    paths: &[PathBuf],
    metamodel: Option<&Metamodel>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    let mut opposites = Opposites::new(metamodel);
    for path in super::expand::expand_paths_with(paths, EXTENSIONS)? {
        let mut input = super::input::open(&path)?;
        let file = report.begin_file(&path, input.size);
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut input.reader, &mut text)
            .map_err(|e| super::input::read_error(&path, e))?;
        // A byte-order mark (some Windows editors write one) is not JSON: skipped.
        let text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&text);
        let graph: JsonGraph = serde_json::from_slice(text).map_err(|e| {
            Error::parse(
                Some(path.clone()),
                e.line() as u64,
                e.column() as u64,
                e.to_string(),
            )
        })?;
        add_graph(
            builder,
            &graph,
            metamodel,
            &mut opposites,
            &mut Locator::new(text),
            file,
            options,
            report,
        )?;
    }
    opposites.finish(builder)?;
    Ok(())
}

/// Reads one JSON graph from memory into a model (for tests and the library API), with the
/// default (non-strict) options.
pub fn read_str(text: &str, metamodel: Option<&Metamodel>) -> Result<(Model, LoadReport)> {
    read_str_with(text, metamodel, &LoadOptions::default())
}

/// Reads one JSON graph from memory into a model with `options` (strict: a dangling reference
/// or malformed entry is an error with line and column).
pub fn read_str_with(
    text: &str,
    metamodel: Option<&Metamodel>,
    options: &LoadOptions,
) -> Result<(Model, LoadReport)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let graph: JsonGraph = serde_json::from_str(text)
        .map_err(|e| Error::parse(None, e.line() as u64, e.column() as u64, e.to_string()))?;
    let mut builder = ModelBuilder::new();
    let mut report = LoadReport::default();
    let path = Path::new("<memory>");
    let file = report.begin_file(path, text.len() as u64);
    let mut opposites = Opposites::new(metamodel);
    add_graph(
        &mut builder,
        &graph,
        metamodel,
        &mut opposites,
        &mut Locator::new(text.as_bytes()),
        file,
        options,
        &mut report,
    )?;
    opposites.finish(&mut builder)?;
    Ok((builder.freeze()?, report))
}

/// Finds the line and column of the entries of the `nodes` and `edges` arrays in the text of a
/// JSON graph, for messages; scanned once, on the first message that needs it.
struct Locator<'t> {
    text: &'t [u8],
    nodes: Option<Vec<(u64, u64)>>,
    edges: Option<Vec<(u64, u64)>>,
}

impl<'t> Locator<'t> {
    fn new(text: &'t [u8]) -> Self {
        Locator {
            text,
            nodes: None,
            edges: None,
        }
    }

    /// (line, column) of entry `index` of the top-level array `key` (`(0, 0)`: not found).
    fn at(&mut self, key: &str, index: usize) -> (u64, u64) {
        let text = self.text;
        let slot = if key == "nodes" {
            &mut self.nodes
        } else {
            &mut self.edges
        };
        slot.get_or_insert_with(|| array_item_positions(text, key))
            .get(index)
            .copied()
            .unwrap_or((0, 0))
    }
}

/// The 1-based (line, column) where each entry of the array under top-level key `key` starts;
/// columns count characters. One pass over the text, no allocation per entry but the result.
fn array_item_positions(text: &[u8], key: &str) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let (mut line, mut column) = (1u64, 0u64);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut string_start = 0usize;
    let mut last_key: Option<(usize, usize)> = None;
    let (mut in_target, mut expect_item) = (false, false);
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            line += 1;
            column = 0;
        } else if b & 0xC0 != 0x80 {
            column += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 1 {
                    last_key = Some((string_start, i));
                }
            }
            continue;
        }
        if in_target && depth == 2 && expect_item && !b.is_ascii_whitespace() && b != b']' {
            out.push((line, column));
            expect_item = false;
        }
        match b {
            b'"' => {
                in_string = true;
                string_start = i + 1;
            }
            b'{' | b'[' => {
                if depth == 1 && b == b'[' {
                    in_target = last_key.is_some_and(|(s, e)| &text[s..e] == key.as_bytes());
                    expect_item = true;
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth <= 1 {
                    in_target = false;
                }
            }
            b',' if in_target && depth == 2 => expect_item = true,
            _ => {}
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn add_graph(
    builder: &mut ModelBuilder,
    graph: &JsonGraph,
    metamodel: Option<&Metamodel>,
    opposites: &mut Opposites,
    locator: &mut Locator<'_>,
    file: usize,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    let path = report.files[file].file.clone();
    let prop_error = |what: String, e: Error| Error::BadFile {
        path: path.clone(),
        message: format!("{what}: {e}"),
    };
    let mut class_of: hashbrown::HashMap<u32, String> = hashbrown::HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        let key = n.id.key();
        let (node, created) = builder.ensure_node(&key);
        if !created && class_of.contains_key(&node) {
            let (line, column) = locator.at("nodes", i);
            report.bad_row_at(
                options,
                file,
                line,
                column,
                format!("node {} (`{key}`) repeats an id", i + 1),
            )?;
            continue;
        }
        let labels: Vec<String> = match metamodel {
            Some(mm) => n.labels.iter().flat_map(|l| mm.labels_of(l)).collect(),
            None => n.labels.clone(),
        };
        for l in &labels {
            let lid = builder.label(l);
            builder.add_label(node, lid);
        }
        class_of.insert(node, n.labels.first().cloned().unwrap_or_default());
        for (name, v) in &n.properties {
            let k = builder.node_property(name);
            builder
                .set_node_property(node, k, json_to_value(v).as_ref())
                .map_err(|e| prop_error(format!("node `{key}`"), e))?;
        }
        report.files[file].rows += 1;
    }
    for (i, e) in graph.edges.iter().enumerate() {
        if e.ty.is_empty() {
            let (line, column) = locator.at("edges", i);
            report.bad_row_at(
                options,
                file,
                line,
                column,
                format!("edge {} has an empty type", i + 1),
            )?;
            continue;
        }
        let (source, target) = (e.source.key(), e.target.key());
        if options.strict {
            for (what, key) in [("source", &source), ("target", &target)] {
                if builder.node_id(key).is_none() {
                    let (line, column) = locator.at("edges", i);
                    return Err(Error::parse(
                        Some(path.clone()),
                        line,
                        column,
                        format!(
                            "edge {}: dangling reference: {what} `{key}` is not the id of a node",
                            i + 1
                        ),
                    ));
                }
            }
        }
        let (src, s_new) = builder.ensure_node(&source);
        let (dst, d_new) = builder.ensure_node(&target);
        report.dangling_nodes += u64::from(s_new) + u64::from(d_new);
        let ty = builder.rel_type(&e.ty);
        let edge = builder.add_edge(src, dst, ty)?;
        for (name, v) in &e.properties {
            let k = builder.edge_property(name);
            builder
                .set_edge_property(edge, k, json_to_value(v).as_ref())
                .map_err(|err| prop_error(format!("edge {}", i + 1), err))?;
        }
        let opposite =
            metamodel.and_then(|mm| mm.opposite(class_of.get(&src).map(String::as_str), &e.ty));
        opposites.record(builder, (src, &e.ty, ty, dst), opposite);
        report.files[file].rows += 1;
    }
    Ok(())
}

/// The label names of node `n`, its primary label (where its properties live) first.
pub fn label_names(model: &Model, n: u32) -> Vec<&str> {
    let primary = model.group_of(n).map(|g| g.label);
    let mut out: Vec<&str> = primary
        .and_then(|l| model.labels().name(l))
        .into_iter()
        .collect();
    out.extend(
        model
            .node_labels(n)
            .iter()
            .filter(|&&l| Some(l) != primary)
            .filter_map(|&l| model.labels().name(l)),
    );
    out
}

/// The properties of node `n` as a JSON object (in column order).
pub fn node_properties(model: &Model, n: u32) -> Map<String, Json> {
    let mut props = Map::new();
    if let Some(g) = model.group_of(n) {
        let row = (n - g.start) as usize;
        for c in &g.columns {
            let v = c.get(row);
            if !v.is_null() {
                props.insert(c.name.clone(), value_to_json(v));
            }
        }
    }
    props
}

/// The properties of relationship `e` as a JSON object (in column order).
pub fn edge_properties(model: &Model, e: u32) -> Map<String, Json> {
    let mut props = Map::new();
    for c in model.edge_columns() {
        let v = c.get(e as usize);
        if !v.is_null() {
            props.insert(c.name.clone(), value_to_json(v));
        }
    }
    props
}

/// Writes `model` in the JSON graph format.
pub fn write(model: &Model, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{{\"nodes\": [")?;
    let n = model.node_count() as u32;
    for v in 0..n {
        let labels = label_names(model, v);
        let node = serde_json::json!({
            "id": model.node_key(v).unwrap_or(""),
            "labels": labels,
            "properties": node_properties(model, v),
        });
        let sep = if v + 1 < n { "," } else { "" };
        writeln!(out, "  {node}{sep}")?;
    }
    writeln!(out, "],\n\"edges\": [")?;
    let m = model.edge_count();
    let out_adj = model.out();
    let mut written = 0usize;
    for src in 0..n {
        for e in out_adj.range(src) {
            let dst = out_adj.neighbors[e];
            let ty = model.rel_types().name(out_adj.types[e]).unwrap_or("");
            let props = edge_properties(model, e as u32);
            let edge = serde_json::json!({
                "source": model.node_key(src).unwrap_or(""),
                "target": model.node_key(dst).unwrap_or(""),
                "type": ty,
                "properties": props,
            });
            written += 1;
            let sep = if written < m { "," } else { "" };
            writeln!(out, "  {edge}{sep}")?;
        }
    }
    writeln!(out, "]}}")
}

/// Writes `model` as a JSON graph file, replacing an existing regular file: [`write_file_with`]
/// with [`WriteOptions::REPLACE`].
pub fn write_file(model: &Model, path: &Path) -> Result<()> {
    write_file_with(model, path, &WriteOptions::REPLACE)
}

/// Writes `model` as a JSON graph file through [`crate::util::safe_write`] (refuses what is not a
/// regular file, and an existing file without `options.force`).
pub fn write_file_with(model: &Model, path: &Path, options: &WriteOptions) -> Result<()> {
    let mut w = std::io::BufWriter::new(SafeFile::create(path, options)?);
    write(model, &mut w)
        .and_then(|()| w.flush())
        .map_err(|e| Error::io(path, e))?;
    w.into_inner()
        .map_err(|e| Error::io(path, e.into_error()))?
        .commit()
}
