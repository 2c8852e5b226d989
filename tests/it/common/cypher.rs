//! Running Cypher text on small graphs and showing the answers as Cypher writes values (for the
//! value and list tests).

use gemp::api::{Graph, Item, RunOptions};
use gemp::model::{ModelBuilder, Value};

/// A graph without nodes.
pub fn empty() -> Graph {
    Graph::from_model(ModelBuilder::new().freeze().unwrap())
}

/// An item as Cypher writes it (strings quoted, floats with a fraction).
pub fn show(i: &Item<'_>) -> String {
    match i {
        Item::List(items) => {
            let parts: Vec<String> = items.iter().map(show).collect();
            format!("[{}]", parts.join(", "))
        }
        Item::Value(Value::Str(s)) => format!("'{s}'"),
        Item::Value(Value::Float(f)) => format!("{f:?}"),
        Item::Value(v) => v.to_string(),
        // Unquoted: strings are quoted, so a date and its text read apart.
        Item::Temporal(t) => t.to_string(),
        Item::Node(n) => format!("node {}", n.key()),
        Item::Rel(r) => format!("rel {}", r.id()),
        // `<a-[KNOWS]->b<-[LIKES]-c>`: node keys, relationship types pointing as in the graph.
        Item::Path { nodes, rels } => {
            let mut t = String::from("<");
            for (i, n) in nodes.iter().enumerate() {
                if let Some(r) = i.checked_sub(1).and_then(|j| rels.get(j)) {
                    if r.source().id() == nodes[i - 1].id() {
                        t += &format!("-[{}]->", r.rel_type());
                    } else {
                        t += &format!("<-[{}]-", r.rel_type());
                    }
                }
                t += n.key();
            }
            t + ">"
        }
        Item::Map(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, x)| format!("{k}: {}", show(x)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// The columns and rows (cells joined by ` | `) of `query` on `graph` (host, Cypher semantics).
pub fn run(graph: &Graph, query: &str) -> (Vec<String>, Vec<String>) {
    let options = RunOptions::host().cypher();
    let q = graph
        .query_with(query, &options)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let m = graph
        .execute(&q, &options)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let rows = m
        .rows()
        .map(|r| {
            let cells: Vec<String> = r.items().iter().map(show).collect();
            cells.join(" | ")
        })
        .collect();
    (m.columns().to_vec(), rows)
}

/// The one row of `query` on an empty graph.
pub fn one(query: &str) -> String {
    let (_, rows) = run(&empty(), query);
    assert_eq!(rows.len(), 1, "{query}: {rows:?}");
    rows[0].clone()
}
