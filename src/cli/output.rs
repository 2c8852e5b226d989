//! Result formatting: aligned table, JSON lines, CSV, DOT. Nodes print as their key and labels;
//! in JSON lines a node is `{"id", "key", "labels"}` so a downstream tool can use it; DOT draws the
//! nodes and relationships the rows return as one Graphviz digraph.

use std::io::Write;

use serde_json::{json, Value as Json};

use crate::matcher::eval::Val;
use crate::model::Model;

/// Output formats of `gemp match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// An aligned text table.
    Table,
    /// One JSON object per row.
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// A Graphviz digraph of the returned nodes and relationships (each once).
    Dot,
}

impl OutputFormat {
    /// True when rows can be written batch by batch while the search runs (the table sizes its
    /// columns over all rows; DOT deduplicates nodes and edges over all rows).
    pub fn streams(self) -> bool {
        matches!(self, OutputFormat::Jsonl | OutputFormat::Csv)
    }
}

/// A DOT string literal.
fn dot_quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Collects the nodes and relationships in `v` (lists included).
fn collect_graph(v: &Val<'_>, nodes: &mut Vec<u32>, rels: &mut Vec<u32>) {
    match v {
        Val::Node(n) => nodes.push(*n),
        Val::Rel(r) => rels.push(*r),
        Val::List(items) => items.iter().for_each(|i| collect_graph(i, nodes, rels)),
        _ => {}
    }
}

/// Writes the nodes and relationships of `rows` as one digraph: a node is drawn with its key and
/// labels, a relationship with its type; a relationship's endpoints are drawn even when the rows do
/// not return them.
fn write_dot(out: &mut dyn Write, model: &Model, rows: &[Vec<Val<'_>>]) -> std::io::Result<()> {
    let (mut nodes, mut rels) = (Vec::new(), Vec::new());
    for v in rows.iter().flatten() {
        collect_graph(v, &mut nodes, &mut rels);
    }
    rels.sort_unstable();
    rels.dedup();
    let mut edges = Vec::with_capacity(rels.len());
    for &r in &rels {
        if let (Some(src), Some((dst, ty))) = (model.edge_source(r), model.edge_target(r)) {
            nodes.extend([src, dst]);
            edges.push((r, src, dst, model.rel_types().name(ty).unwrap_or("?")));
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    writeln!(out, "digraph matches {{")?;
    for n in nodes {
        let label = format!(
            "{}\n{}",
            model.node_key(n).unwrap_or("?"),
            label_names(model, n).join(":")
        );
        writeln!(out, "  n{n} [label={}];", dot_quote(&label))?;
    }
    for (r, src, dst, ty) in edges {
        writeln!(
            out,
            "  n{src} -> n{dst} [label={}, id=\"r{r}\"];",
            dot_quote(ty)
        )?;
    }
    writeln!(out, "}}")
}

/// The label names of node `n`.
fn label_names(model: &Model, n: u32) -> Vec<&str> {
    model
        .node_labels(n)
        .iter()
        .filter_map(|&l| model.labels().name(l))
        .collect()
}

/// A value as display text.
pub fn text(model: &Model, v: &Val<'_>) -> String {
    match v {
        Val::Node(n) => {
            let labels = label_names(model, *n);
            format!(
                "({}:{})",
                model.node_key(*n).unwrap_or("?"),
                labels.join(":")
            )
        }
        Val::Rel(r) => {
            let ty = model
                .edge_target(*r)
                .and_then(|(_, t)| model.rel_types().name(t))
                .unwrap_or("?");
            format!("[{r}:{ty}]")
        }
        Val::List(items) => {
            let parts: Vec<String> = items.iter().map(|i| text(model, i)).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// A value as JSON.
pub fn to_json(model: &Model, v: &Val<'_>) -> Json {
    match v {
        Val::Node(n) => {
            let labels = label_names(model, *n);
            json!({"id": n, "key": model.node_key(*n), "labels": labels})
        }
        Val::Rel(r) => {
            let (dst, ty) = model.edge_target(*r).unwrap_or((u32::MAX, u32::MAX));
            json!({"id": r, "type": model.rel_types().name(ty), "src": model.edge_source(*r), "dst": dst})
        }
        Val::List(items) => Json::Array(items.iter().map(|i| to_json(model, i)).collect()),
        Val::Float(f) if !f.is_finite() => Json::String(f.to_string()),
        other => serde_json::to_value(other).unwrap_or(Json::Null),
    }
}

/// Writes rows in `format`, with the header (CSV and table) when `header` is set.
pub fn write_rows(
    out: &mut dyn Write,
    model: &Model,
    format: OutputFormat,
    columns: &[String],
    rows: &[Vec<Val<'_>>],
    header: bool,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Dot => write_dot(out, model, rows)?,
        OutputFormat::Jsonl => {
            for r in rows {
                let obj: serde_json::Map<String, Json> = columns
                    .iter()
                    .cloned()
                    .zip(r.iter().map(|v| to_json(model, v)))
                    .collect();
                writeln!(out, "{}", Json::Object(obj))?;
            }
        }
        OutputFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            if header {
                w.write_record(columns).map_err(csv_io)?;
            }
            for r in rows {
                w.write_record(r.iter().map(|v| text(model, v)))
                    .map_err(csv_io)?;
            }
            w.flush()?;
        }
        OutputFormat::Table => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| r.iter().map(|v| text(model, v)).collect())
                .collect();
            let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
            for r in &cells {
                for (w, c) in widths.iter_mut().zip(r) {
                    *w = (*w).max(c.chars().count()).min(60);
                }
            }
            let line = |vals: &[String]| -> String {
                vals.iter()
                    .zip(&widths)
                    .map(|(v, &w)| {
                        let v: String = v.chars().take(w).collect();
                        format!("{v:<w$}")
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
                    .trim_end()
                    .to_owned()
            };
            if header {
                writeln!(out, "{}", line(columns))?;
            }
            writeln!(
                out,
                "{}",
                widths
                    .iter()
                    .map(|&w| "-".repeat(w))
                    .collect::<Vec<_>>()
                    .join("-+-")
            )?;
            for r in &cells {
                writeln!(out, "{}", line(r))?;
            }
        }
    }
    Ok(())
}

/// A CSV writer's error as the I/O error it is (a closed pipe stays a closed pipe).
fn csv_io(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        other => std::io::Error::other(format!("CSV output: {other:?}")),
    }
}

/// Marks a partial result (a `--timeout` stopped the search) in the output itself, so a
/// partial answer never reads as a complete one: a footer line in a table, a `#` comment line
/// in CSV and DOT (`//`), a final `{"_partial": {…}}` object in JSON lines.
pub fn write_partial_marker(
    out: &mut dyn Write,
    format: OutputFormat,
    rows: u64,
    reason: &str,
) -> std::io::Result<()> {
    let text = format!("partial result: {reason}; {rows} rows so far");
    match format {
        OutputFormat::Table => writeln!(out, "({text})"),
        OutputFormat::Csv => writeln!(out, "# {text}"),
        OutputFormat::Dot => writeln!(out, "// {text}"),
        OutputFormat::Jsonl => writeln!(
            out,
            "{}",
            serde_json::json!({"_partial": {"reason": reason, "rows": rows}})
        ),
    }
}
