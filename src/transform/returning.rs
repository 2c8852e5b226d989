//! What an updating statement returns: its `(WITH …)* RETURN …` run on the rows its updates leave,
//! in the model they leave.
//!
//! The rows of the updates ([`TailRows`]) name nodes and relationships of the model the statement
//! read or of its [`Delta`]; they are mapped to the new model's ids (nodes by key, relationships
//! by their ends, type and properties: parallel relationships that agree on all of these are
//! interchangeable and get distinct ids). Each variable becomes a column of a query that starts
//! with one `UNWIND` per variable, whose projection stages then run over the mapped rows
//! ([`crate::engines::gemp::clauses::project_rows`]). Returning a deleted node or relationship
//! is refused.

use hashbrown::{HashMap, HashSet};

use super::delta::{Delta, EdgeId, NodeId};
use super::execute::{Bound, RunContext, TailRows};
use crate::error::Result;
use crate::exec::eval::Val;
use crate::model::{Model, Value};
use crate::pattern::ast::{self, ExprKind, Literal, Name, Query, Unwind};
use crate::pattern::error::QueryError;
use crate::pattern::ir::ReadStep;

/// The rows an updating statement returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Returned {
    /// The column names.
    pub columns: Vec<String>,
    /// The rows; nodes and relationships are ids of the model right after the statement.
    pub rows: Vec<Vec<Val<'static>>>,
}

/// Runs the `RETURN` of a statement: `old` is the model it read, `delta` its changes, `new` the
/// model they made (`old` itself when nothing changed) and `created` the keys of the nodes it
/// created (as [`super::compact::compact_keyed`] gives them).
pub fn evaluate(
    old: &Model,
    new: &Model,
    delta: &Delta,
    created: &[String],
    tail: &TailRows,
    cx: &RunContext<'_>,
) -> Result<Returned> {
    let (params, source, semantics) = (cx.params, cx.source, cx.semantics);
    let span = tail.plan.tail.span;
    let refuse = |what: &str| {
        source.error(
            QueryError::unsupported(&format!("RETURN of {what}"), span)
                .with_help("return the values you need before deleting (in another statement)"),
        )
    };
    let mut map = IdMap::new(old, new, delta, created);
    let mut rows: Vec<Vec<Val<'static>>> = Vec::with_capacity(tail.rows.len());
    for r in &tail.rows {
        let mut row = Vec::with_capacity(r.len());
        for b in r {
            let v = match b {
                Bound::Null => Val::Null,
                Bound::Node(n) => Val::Node(map.node(*n).ok_or_else(|| refuse("a deleted node"))?),
                Bound::Rel(e) => Val::Rel(
                    map.edge(*e)
                        .ok_or_else(|| refuse("a deleted relationship"))?,
                ),
                Bound::Value(v) => map
                    .value(v)
                    .ok_or_else(|| refuse("a deleted node or relationship"))?,
            };
            row.push(v);
        }
        rows.push(row);
    }
    let query = tail_query(&tail.plan.tail, &tail.plan.vars);
    let mut bound =
        crate::pattern::binder::bind_lenient(&query, new, params).map_err(|e| source.error(e))?;
    let watches = super::execute::check_values(&mut bound, &query, true);
    // The columns the UNWINDs fill, in the variables' order.
    let columns: Vec<usize> = bound
        .clauses
        .as_deref()
        .map(|c| {
            c.steps
                .iter()
                .filter_map(|s| match s {
                    ReadStep::Unwind { column, .. } => Some(*column),
                    ReadStep::Match(_) => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let width = bound.clauses.as_deref().map_or(0, |c| c.columns);
    if columns.len() != tail.plan.vars.len() {
        return Err(refuse("these variables"));
    }
    let seeded: Vec<Vec<Val<'_>>> = rows
        .into_iter()
        .map(|r| {
            let mut values = vec![Val::Null; width];
            for (v, &c) in r.into_iter().zip(&columns) {
                if let Some(slot) = values.get_mut(c) {
                    *slot = v;
                }
            }
            values
        })
        .collect();
    let semantics = semantics.unwrap_or(crate::exec::MatchOptions::default().semantics);
    let (out, names) =
        crate::engines::gemp::clauses::project_rows(new, &bound, &seeded, semantics)?;
    if let Some((message, at)) = watches
        .iter()
        .find_map(|(slot, at)| slot.error().map(|m| (m, *at)))
    {
        let text = source.text.get(at.start..at.end).unwrap_or("");
        return Err(source.error(QueryError::semantic(
            format!("`{text}` cannot be computed: {message}"),
            Some(at),
        )));
    }
    Ok(Returned {
        columns: names,
        rows: out
            .into_iter()
            .map(|r| r.into_iter().map(Val::into_owned).collect())
            .collect(),
    })
}

/// `UNWIND null AS v …` for every variable, then the tail's clauses.
fn tail_query(tail: &ast::Tail, vars: &[(String, super::plan::TailVar)]) -> Query {
    let span = tail.span;
    Query {
        matches: Vec::new(),
        where_clause: None,
        with_clauses: tail.with_clauses.clone(),
        ret: Some(tail.ret.clone()),
        span,
        leading: vars
            .iter()
            .map(|(name, _)| Unwind {
                list: ast::Expr::new(ExprKind::Literal(Literal::Null), span),
                alias: Name {
                    name: name.clone(),
                    span,
                },
                span,
            })
            .collect(),
        trailing: Vec::new(),
        union: Vec::new(),
    }
}

/// Node and relationship ids of the statement's view mapped to the new model.
struct IdMap<'a> {
    old: &'a Model,
    new: &'a Model,
    delta: &'a Delta,
    /// Created node `i` → its key (`None`: deleted again).
    created: Vec<Option<&'a str>>,
    edges: HashMap<EdgeId, Option<u32>>,
    used: HashSet<u32>,
}

impl<'a> IdMap<'a> {
    fn new(old: &'a Model, new: &'a Model, delta: &'a Delta, created: &'a [String]) -> Self {
        let mut keys = created.iter();
        let created = delta
            .new_nodes()
            .iter()
            .map(|n| {
                if n.deleted {
                    None
                } else {
                    keys.next().map(String::as_str)
                }
            })
            .collect();
        IdMap {
            old,
            new,
            delta,
            created,
            edges: HashMap::new(),
            used: HashSet::new(),
        }
    }

    /// The new id of `node`; `None` when it was deleted.
    fn node(&self, node: NodeId) -> Option<u32> {
        if !self.delta.node_alive(self.old, node) {
            return None;
        }
        let key = match node {
            NodeId::Base(n) => self.old.node_key(n)?,
            NodeId::New(i) => self.created.get(i as usize).copied().flatten()?,
        };
        self.new.node_by_key(key)
    }

    /// The new id of `edge`; `None` when it was deleted.
    fn edge(&mut self, edge: EdgeId) -> Option<u32> {
        if let Some(&id) = self.edges.get(&edge) {
            return id;
        }
        let id = self.find_edge(edge);
        if let Some(i) = id {
            self.used.insert(i);
        }
        self.edges.insert(edge, id);
        id
    }

    fn find_edge(&self, edge: EdgeId) -> Option<u32> {
        if !self.delta.edge_alive(self.old, edge) {
            return None;
        }
        let (src, dst, rel_type) = self.delta.edge_ends(self.old, edge)?;
        let (src, dst) = (self.node(src)?, self.node(dst)?);
        let ty = self.new.rel_types().get(&rel_type)?;
        let props: Vec<Value> = self
            .new
            .edge_columns()
            .iter()
            .map(|c| self.delta.edge_property(self.old, edge, &c.name))
            .collect();
        self.new.out().range(src).map(|p| p as u32).find(|&e| {
            !self.used.contains(&e)
                && self.new.edge_target(e) == Some((dst, ty))
                && self
                    .new
                    .edge_columns()
                    .iter()
                    .zip(&props)
                    .all(|(c, v)| self.new.edge_property(e, &c.name).to_owned() == *v)
        })
    }

    /// `v` with its nodes and relationships mapped; `None` when one was deleted.
    fn value(&mut self, v: &Val<'static>) -> Option<Val<'static>> {
        Some(match v {
            Val::Node(n) => Val::Node(self.node(NodeId::Base(*n))?),
            Val::Rel(e) => Val::Rel(self.edge(EdgeId::Base(*e))?),
            Val::List(items) => Val::List(
                items
                    .iter()
                    .map(|x| self.value(x))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Val::Map(entries) => Val::Map(
                entries
                    .iter()
                    .map(|(k, x)| Some((k.clone(), self.value(x)?)))
                    .collect::<Option<Vec<_>>>()?,
            ),
            other => other.clone(),
        })
    }
}
