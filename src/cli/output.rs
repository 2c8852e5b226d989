//! Result formatting: aligned table, JSON lines, CSV. Nodes print as their key and labels;
//! in JSON lines a node is `{"id", "key", "labels"}` so a downstream tool can use it.

use std::io::Write;

use serde_json::{json, Value as Json};

use crate::model::Model;
use crate::pattern::eval::Val;

/// Output formats of `gemp match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// An aligned text table.
    Table,
    /// One JSON object per row.
    Jsonl,
    /// CSV with a header row.
    Csv,
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
                w.write_record(columns)?;
            }
            for r in rows {
                w.write_record(r.iter().map(|v| text(model, v)))?;
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
