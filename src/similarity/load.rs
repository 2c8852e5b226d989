//! Loading semantic graphs from the shared JSON graph schema: one graph per file
//! (`{"nodes": [...], "edges": [...]}`), a case-base file (`{"graphs": [{"name": ..., "nodes": ...,
//! "edges": ...}, ...]}`) or a directory of such files (read in name order).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::graph::SemanticGraph;
use crate::error::{Error, Location, Result};

/// Loads every graph of `path`: a directory (all `*.json` files in name order that hold a graph
/// or a case base, i.e. have a `nodes` or `graphs` key; others such as `model.json` and
/// taxonomies are skipped), a case-base file or a single-graph file.
pub fn load_graphs(path: &Path) -> Result<Vec<SemanticGraph>> {
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        let mut graphs = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|source| Error::Io {
                path: file.clone(),
                source,
            })?;
            let is_graph = serde_json::from_str::<Value>(&text)
                .map(|v| v.get("nodes").is_some() || v.get("graphs").is_some())
                .unwrap_or(true);
            if is_graph {
                graphs.extend(load_file(&file)?);
            }
        }
        if graphs.is_empty() {
            return Err(Error::BadFile {
                path: path.to_path_buf(),
                message: "the directory holds no .json graph files".into(),
            });
        }
        Ok(graphs)
    } else {
        load_file(path)
    }
}

/// Loads one file: a case base (all its graphs) or a single graph (named after the file stem).
pub fn load_file(path: &Path) -> Result<Vec<SemanticGraph>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let stem = path
        .file_stem()
        .map_or_else(|| "graph".to_string(), |s| s.to_string_lossy().into_owned());
    parse_graphs(&text, &stem).map_err(|e| with_file(e, path))
}

/// Parses a case base or a single graph from JSON text; a single graph is called `default_name`
/// unless it has a `name`.
pub fn parse_graphs(text: &str, default_name: &str) -> Result<Vec<SemanticGraph>> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::Parse {
        location: Location {
            file: None,
            line: e.line() as u64,
            column: e.column() as u64,
        },
        message: format!("invalid JSON: {e}"),
    })?;
    let Value::Object(top) = value else {
        return Err(schema_error("the top level must be an object"));
    };
    if let Some(graphs) = top.get("graphs") {
        let Value::Array(items) = graphs else {
            return Err(schema_error("`graphs` must be an array"));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let Value::Object(obj) = item else {
                    return Err(schema_error(&format!("graphs[{i}] must be an object")));
                };
                parse_graph(obj, &format!("{default_name}-{}", i + 1))
                    .map_err(|e| prefix(e, &format!("graphs[{i}]")))
            })
            .collect()
    } else {
        Ok(vec![parse_graph(&top, default_name)?])
    }
}

/// Serialises graphs as a case-base document in the shared JSON schema.
pub fn to_case_base_json(graphs: &[SemanticGraph]) -> Value {
    Value::Object(Map::from_iter([(
        "graphs".to_string(),
        Value::Array(graphs.iter().map(graph_to_json).collect()),
    )]))
}

/// Serialises one graph in the shared JSON schema (with its `name`).
pub fn graph_to_json(g: &SemanticGraph) -> Value {
    let nodes = g
        .nodes
        .iter()
        .map(|n| {
            let labels = if n.kind.is_empty() {
                vec![]
            } else {
                vec![Value::String(n.kind.clone())]
            };
            serde_json::json!({"id": n.id, "labels": labels, "properties": n.description})
        })
        .collect();
    let edges = g
        .edges
        .iter()
        .map(|e| {
            serde_json::json!({"source": g.nodes[e.source].id, "target": g.nodes[e.target].id,
                "type": e.kind, "properties": e.description})
        })
        .collect();
    let mut m = Map::new();
    m.insert("name".into(), Value::String(g.name.clone()));
    m.insert("nodes".into(), Value::Array(nodes));
    m.insert("edges".into(), Value::Array(edges));
    Value::Object(m)
}

fn parse_graph(obj: &Map<String, Value>, default_name: &str) -> Result<SemanticGraph> {
    let name = match obj.get("name") {
        Some(Value::String(s)) => s.clone(),
        None => default_name.to_string(),
        Some(_) => return Err(schema_error("`name` must be a string")),
    };
    let mut g = SemanticGraph::new(name);
    let mut index: HashMap<String, usize> = HashMap::new();
    let nodes = match obj.get("nodes") {
        Some(Value::Array(a)) => a.as_slice(),
        None => &[],
        Some(_) => return Err(schema_error("`nodes` must be an array")),
    };
    for (i, node) in nodes.iter().enumerate() {
        let at = |m: &str| schema_error(&format!("nodes[{i}]: {m}"));
        let Value::Object(n) = node else {
            return Err(at("must be an object"));
        };
        let id = id_of(n.get("id")).ok_or_else(|| at("`id` must be a string or an integer"))?;
        let kind = match n.get("labels") {
            None | Some(Value::Null) => String::new(),
            Some(Value::Array(ls)) => match ls.first() {
                None => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(_) => return Err(at("labels must be strings")),
            },
            Some(_) => return Err(at("`labels` must be an array of strings")),
        };
        let props = properties(n.get("properties")).map_err(|m| at(&m))?;
        if index.contains_key(&id) {
            return Err(at(&format!("duplicate node id `{id}`")));
        }
        index.insert(id.clone(), g.add_node(id, kind, props));
    }
    let edges = match obj.get("edges") {
        Some(Value::Array(a)) => a.as_slice(),
        None => &[],
        Some(_) => return Err(schema_error("`edges` must be an array")),
    };
    for (i, edge) in edges.iter().enumerate() {
        let at = |m: &str| schema_error(&format!("edges[{i}]: {m}"));
        let Value::Object(e) = edge else {
            return Err(at("must be an object"));
        };
        let end = |key: &str| -> Result<usize> {
            let id = id_of(e.get(key))
                .ok_or_else(|| at(&format!("`{key}` must be a string or an integer")))?;
            index
                .get(&id)
                .copied()
                .ok_or_else(|| at(&format!("`{key}` names the unknown node `{id}`")))
        };
        let source = end("source")?;
        let target = end("target")?;
        let kind = match e.get("type") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(at("`type` (a string) is required")),
        };
        let props = properties(e.get("properties")).map_err(|m| at(&m))?;
        g.add_edge(source, target, kind, props)?;
    }
    Ok(g)
}

fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

fn properties(v: Option<&Value>) -> std::result::Result<Value, String> {
    match v {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(Value::Object(m)) => Ok(Value::Object(m.clone())),
        Some(_) => Err("`properties` must be an object".into()),
    }
}

fn schema_error(message: &str) -> Error {
    Error::InvalidArgument(format!("graph JSON: {message}"))
}

fn prefix(e: Error, what: &str) -> Error {
    match e {
        Error::InvalidArgument(m) => {
            Error::InvalidArgument(m.replacen("graph JSON: ", &format!("graph JSON: {what}."), 1))
        }
        other => other,
    }
}

fn with_file(e: Error, path: &Path) -> Error {
    match e {
        Error::Parse {
            mut location,
            message,
        } => {
            location.file = Some(path.to_path_buf());
            Error::Parse { location, message }
        }
        Error::InvalidArgument(message) => Error::BadFile {
            path: path.to_path_buf(),
            message,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_case_base_with_integer_ids() {
        let text = r#"{"graphs": [{"name": "g", "nodes": [{"id": 1, "labels": ["Task"],
            "properties": {"name": "cut"}}, {"id": "2"}],
            "edges": [{"source": 1, "target": 2, "type": "DATA_FLOW"}]}]}"#;
        let gs = parse_graphs(text, "x").unwrap();
        assert_eq!(gs.len(), 1);
        assert_eq!(gs[0].name, "g");
        assert_eq!(gs[0].nodes[0].kind, "Task");
        assert_eq!(gs[0].nodes[1].kind, "");
        assert_eq!(gs[0].edges[0].target, 1);
        let back = parse_graphs(&to_case_base_json(&gs).to_string(), "y").unwrap();
        assert_eq!(back, gs);
    }

    #[test]
    fn bad_input_is_an_error_with_a_position() {
        let e = parse_graphs("{\"nodes\": [\n  {\"id\": }]}", "x").unwrap_err();
        assert!(e.to_string().starts_with("2:"), "{e}");
        let e = parse_graphs(
            r#"{"nodes": [{"id": "a"}], "edges": [{"source": "a", "target": "b", "type": "T"}]}"#,
            "x",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("edges[0]") && e.to_string().contains("unknown node `b`"),
            "{e}"
        );
        let e = parse_graphs(
            r#"{"nodes": [{"id": "a"}], "edges": [{"source": "a", "target": "a"}]}"#,
            "x",
        )
        .unwrap_err();
        assert!(e.to_string().contains("`type`"), "{e}");
    }
}
