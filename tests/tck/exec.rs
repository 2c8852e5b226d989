//! Running a scenario's statements on gemp: an empty graph, the setup statements and the query
//! (a reading query through `Graph::query_with`/`execute`, an updating one through
//! `Graph::apply_with`), the rows as [`TVal`]s, and the graph's state for the side effects.

use std::collections::{BTreeMap, BTreeSet};

use gemp::api::{Graph, Item, RunOptions};
use gemp::exec::eval::Val;
use gemp::model::{Model, Value, ValueRef};
use gemp::pattern::{ParamValue, Params, QueryErrorKind};
use gemp::transform::ApplyOptions;

use crate::values::TVal;

/// What gemp made of one statement.
#[derive(Debug)]
pub enum Outcome {
    /// A result: its columns and rows.
    Rows(Vec<String>, Vec<Vec<TVal>>),
    /// An error: its openCypher class when gemp gives one, and the message's first line.
    Error(Option<&'static str>, String),
}

/// A graph that starts empty.
pub fn empty_graph() -> Result<Graph, String> {
    let model = gemp::model::ModelBuilder::new()
        .freeze()
        .map_err(|e| e.to_string())?;
    Ok(Graph::from_model(model))
}

/// The TCK's parameter values as gemp parameters; `Err` names a value gemp cannot take.
pub fn params(list: &[(String, String)]) -> Result<Params, String> {
    let mut out = Params::default();
    for (k, text) in list {
        let v = crate::values::parse(text)?;
        out.insert(k.clone(), param(v)?);
    }
    Ok(out)
}

/// A TCK value as a gemp parameter value (lists and maps nested).
fn param(v: TVal) -> Result<ParamValue, String> {
    Ok(match v {
        TVal::Null => Value::Null.into(),
        TVal::Bool(b) => Value::Bool(b).into(),
        TVal::Int(i) => Value::Int(i).into(),
        TVal::Float(f) => Value::Float(f).into(),
        TVal::Str(s) => Value::Str(s).into(),
        TVal::List(items) => {
            ParamValue::List(items.into_iter().map(param).collect::<Result<_, _>>()?)
        }
        TVal::Map(entries) => ParamValue::Map(
            entries
                .into_iter()
                .map(|(k, v)| Ok((k, param(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        _ => return Err("a graph element parameter".into()),
    })
}

/// The first line of an error message without its `error: ` or `line N, column M: ` prefix.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    match line.strip_prefix("line ").and_then(|r| r.split_once(": ")) {
        Some((pos, rest)) if pos.contains("column") => rest.to_string(),
        _ => line.to_string(),
    }
}

fn failure(e: &gemp::Error) -> Outcome {
    Outcome::Error(
        e.cypher_class().map(|c| c.name()),
        first_line(&e.to_string()),
    )
}

/// True when gemp's query parser refused `text` because it updates the graph (it then runs as a
/// rule file).
fn is_updating(text: &str) -> bool {
    match gemp::pattern::parse_query(text) {
        Err(e) => {
            e.kind == QueryErrorKind::Unsupported
                && [
                    "CREATE",
                    "MERGE",
                    "SET",
                    "DELETE",
                    "DETACH DELETE",
                    "REMOVE",
                ]
                .iter()
                .any(|c| e.message.starts_with(&format!("unsupported: {c} is not")))
        }
        Ok(_) => false,
    }
}

/// Runs one statement on `graph`.
pub fn run(graph: &mut Graph, text: &str, params: &Params) -> Outcome {
    run_counting(graph, text, params).0
}

/// Relationships created and deleted by an updating statement (from its change report: the
/// graph's state cannot tell a deleted relationship from a created one between the same nodes).
pub type RelCounts = Option<(u64, u64)>;

/// [`run`], also giving the relationships an updating statement created and deleted.
pub fn run_counting(graph: &mut Graph, text: &str, params: &Params) -> (Outcome, RelCounts) {
    if is_updating(text) {
        let options = ApplyOptions {
            params: params.clone(),
            semantics: Some(gemp::exec::Semantics::Cypher),
            ..Default::default()
        };
        let (outcome, counts) = match graph.apply_with(text, &options) {
            Ok(report) => {
                let t = report.totals();
                let counts = Some((t.relationships_created, t.relationships_deleted));
                (updated(graph, report), counts)
            }
            Err(e) => (failure(&e), None),
        };
        return (outcome, counts);
    }
    (read(graph, text, params), None)
}

/// The rows an updating statement returned.
fn updated(graph: &Graph, report: gemp::transform::ChangeReport) -> Outcome {
    match report.returned {
        Some(r) => {
            let model = graph.model();
            let rows = r
                .rows
                .iter()
                .map(|row| row.iter().map(|v| val(model, v)).collect())
                .collect();
            Outcome::Rows(r.columns, rows)
        }
        None => Outcome::Rows(Vec::new(), Vec::new()),
    }
}

/// Runs a reading query.
fn read(graph: &Graph, text: &str, params: &Params) -> Outcome {
    // Cypher reads a label, type or property the graph lacks as matching nothing / null.
    let mut options = RunOptions::host().cypher().lenient();
    options.params = params.clone();
    let query = match graph.query_with(text, &options) {
        Ok(q) => q,
        Err(e) => return failure(&e),
    };
    let matches = match graph.execute(&query, &options) {
        Ok(m) => m,
        Err(e) => return failure(&e),
    };
    let model = graph.model();
    let rows = matches
        .rows()
        .map(|r| r.items().iter().map(|i| item(model, i)).collect())
        .collect();
    Outcome::Rows(matches.columns().to_vec(), rows)
}

fn scalar(v: ValueRef<'_>) -> TVal {
    match v {
        ValueRef::Null => TVal::Null,
        ValueRef::Bool(b) => TVal::Bool(b),
        ValueRef::Int(i) => TVal::Int(i),
        ValueRef::Float(f) => TVal::Float(f),
        ValueRef::Str(s) => TVal::Str(s.to_string()),
    }
}

fn node_props(model: &Model, id: u32) -> BTreeMap<String, TVal> {
    let Some(g) = model.group_of(id) else {
        return BTreeMap::new();
    };
    let row = (id - g.start) as usize;
    g.columns
        .iter()
        .map(|c| (c.name.clone(), scalar(c.get(row))))
        .filter(|(_, v)| !matches!(v, TVal::Null))
        .collect()
}

fn rel_props(model: &Model, id: u32) -> BTreeMap<String, TVal> {
    model
        .edge_columns()
        .iter()
        .map(|c| (c.name.clone(), scalar(model.edge_property(id, &c.name))))
        .filter(|(_, v)| !matches!(v, TVal::Null))
        .collect()
}

fn node_labels(model: &Model, id: u32) -> Vec<String> {
    let mut l: Vec<String> = model
        .node_labels(id)
        .iter()
        .filter_map(|&l| model.labels().name(l))
        .map(str::to_string)
        .collect();
    l.sort();
    l
}

fn rel_type(model: &Model, id: u32) -> String {
    model
        .edge_target(id)
        .and_then(|(_, t)| model.rel_types().name(t))
        .unwrap_or("")
        .to_string()
}

/// A value an updating query returned as a TCK value.
fn val(model: &Model, v: &Val<'_>) -> TVal {
    match v {
        Val::Null => TVal::Null,
        Val::Bool(b) => TVal::Bool(*b),
        Val::Int(i) => TVal::Int(*i),
        Val::Float(f) => TVal::Float(*f),
        Val::Str(s) => TVal::Str(s.to_string()),
        Val::Node(n) => TVal::Node(node_labels(model, *n), node_props(model, *n)),
        Val::Rel(r) => TVal::Rel(rel_type(model, *r), rel_props(model, *r)),
        Val::List(items) => TVal::List(items.iter().map(|x| val(model, x)).collect()),
        Val::Map(entries) => TVal::Map(
            entries
                .iter()
                .map(|(k, x)| (k.clone(), val(model, x)))
                .collect(),
        ),
        // The TCK writes a temporal value as its text in quotes (`'1984-10-11'`).
        Val::Temporal(t) => TVal::Str(t.to_string()),
        Val::Path(p) => TVal::Path(
            p.nodes
                .iter()
                .map(|&n| TVal::Node(node_labels(model, n), node_props(model, n)))
                .collect(),
            p.rels
                .iter()
                .zip(&p.nodes)
                .map(|(&r, &from)| {
                    let forward = model.edge_source(r) == Some(from);
                    (TVal::Rel(rel_type(model, r), rel_props(model, r)), forward)
                })
                .collect(),
        ),
    }
}

/// A result item as a TCK value.
fn item(model: &Model, i: &Item<'_>) -> TVal {
    match i {
        Item::Node(n) => TVal::Node(node_labels(model, n.id()), node_props(model, n.id())),
        Item::Rel(r) => TVal::Rel(rel_type(model, r.id()), rel_props(model, r.id())),
        Item::List(items) => TVal::List(items.iter().map(|x| item(model, x)).collect()),
        Item::Map(entries) => TVal::Map(
            entries
                .iter()
                .map(|(k, x)| (k.clone(), item(model, x)))
                .collect(),
        ),
        Item::Path { nodes, rels } => TVal::Path(
            nodes
                .iter()
                .map(|n| TVal::Node(node_labels(model, n.id()), node_props(model, n.id())))
                .collect(),
            rels.iter()
                .zip(nodes)
                .map(|(r, from)| {
                    let forward = model.edge_source(r.id()) == Some(from.id());
                    (
                        TVal::Rel(rel_type(model, r.id()), rel_props(model, r.id())),
                        forward,
                    )
                })
                .collect(),
        ),
        Item::Value(v) => scalar(v.as_ref()),
        // The TCK writes a temporal value as its text in quotes (`'1984-10-11'`).
        Item::Temporal(t) => TVal::Str(t.to_string()),
    }
}

/// What the TCK's side effects count: nodes, relationships, labels in use and properties.
#[derive(Debug, Default)]
pub struct State {
    nodes: BTreeSet<String>,
    rels: BTreeSet<String>,
    labels: BTreeSet<String>,
    props: BTreeSet<String>,
}

/// The state of `model`. Nodes are told apart by key (stable across changes); relationships by
/// their ends, type and rank among their parallel relationships.
pub fn state(model: &Model) -> State {
    let mut s = State::default();
    for n in 0..model.node_count() as u32 {
        let key = model.node_key(n).unwrap_or("").to_string();
        for l in node_labels(model, n) {
            s.labels.insert(l);
        }
        for (k, v) in node_props(model, n) {
            s.props.insert(format!("n {key} {k} {v}"));
        }
        s.nodes.insert(key);
    }
    let mut rank: BTreeMap<String, usize> = BTreeMap::new();
    for e in 0..model.edge_count() as u32 {
        let src = model
            .edge_source(e)
            .and_then(|n| model.node_key(n))
            .unwrap_or("");
        let dst = model
            .edge_target(e)
            .and_then(|(n, _)| model.node_key(n))
            .unwrap_or("");
        let base = format!("{src} -[{}]-> {dst}", rel_type(model, e));
        let k = rank.entry(base.clone()).or_default();
        *k += 1;
        let id = format!("{base} #{k}");
        for (p, v) in rel_props(model, e) {
            s.props.insert(format!("r {id} {p} {v}"));
        }
        s.rels.insert(id);
    }
    s
}

/// The side effects from `before` to `after`, as the TCK names them (zero counts left out);
/// `rels`: the relationships created and deleted, where known.
pub fn side_effects(before: &State, after: &State, rels: RelCounts) -> BTreeMap<String, i64> {
    fn diff(
        name: &str,
        a: &BTreeSet<String>,
        b: &BTreeSet<String>,
        out: &mut BTreeMap<String, i64>,
    ) {
        let added = b.difference(a).count() as i64;
        let removed = a.difference(b).count() as i64;
        if added > 0 {
            out.insert(format!("+{name}"), added);
        }
        if removed > 0 {
            out.insert(format!("-{name}"), removed);
        }
    }
    let mut out = BTreeMap::new();
    diff("nodes", &before.nodes, &after.nodes, &mut out);
    diff("relationships", &before.rels, &after.rels, &mut out);
    diff("labels", &before.labels, &after.labels, &mut out);
    diff("properties", &before.props, &after.props, &mut out);
    if let Some((created, deleted)) = rels {
        out.remove("+relationships");
        out.remove("-relationships");
        if created > 0 {
            out.insert("+relationships".into(), created as i64);
        }
        if deleted > 0 {
            out.insert("-relationships".into(), deleted as i64);
        }
    }
    out
}
