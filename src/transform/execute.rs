//! Running one statement: all matches of its read part are found on the model as it stands (the
//! host matcher, through [`Session`]), then every updating clause is applied to every row, clause
//! by clause, into a [`Delta`]. Nothing touches the model: a statement that fails leaves no trace.

use std::collections::BTreeMap;

use hashbrown::HashMap;

use super::delta::{Delta, EdgeId, NodeId};
use super::plan::{
    self, ElemRef, MapSrc, NodeRef, NodeSpec, Op, PlannedOp, RelRef, RelSpec, ValueSrc,
};
use super::report::{Counts, StatementReport};
use crate::error::{Error, Result};
use crate::exec::eval::Val;
use crate::exec::MatchOptions;
use crate::model::{Model, PropType, Value};
use crate::pattern::ast::{self, Span, Statement};
use crate::pattern::error::QueryError;
use crate::pattern::ir::{BoundQuery, ErrorSlot, Expr};
use crate::pattern::Params;
use crate::session::Session;
use crate::util::deadline::Deadline;

/// The rule text errors are rendered against.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The rule file's text.
    pub text: &'a str,
    /// Its name, shown in error locations.
    pub file: Option<&'a str>,
}

impl Source<'_> {
    /// `e` as an [`Error::Query`] showing the offending line.
    pub fn error(&self, e: QueryError) -> Error {
        e.into_error(self.text, self.file)
    }
}

/// A variable's binding in a row after a statement's updates, for its `RETURN`.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// Null (an `OPTIONAL MATCH` without a match).
    Null,
    /// A node (of the model the statement read, or created by it).
    Node(NodeId),
    /// A relationship.
    Rel(EdgeId),
    /// Another value of the read rows (nodes and relationships in it are the model's).
    Value(Val<'static>),
}

/// The rows a statement's `RETURN` reads: its plan, and per row after the updates each of the
/// plan's variables, in order.
#[derive(Debug, Clone)]
pub struct TailRows {
    /// What the statement returns.
    pub plan: plan::TailPlan,
    /// The rows.
    pub rows: Vec<Vec<Bound>>,
}

/// Runs `stmt` (number `index`, 1-based) on `model`: its changes, and the report.
pub fn run_statement(
    model: &Model,
    stmt: &Statement,
    index: usize,
    params: &Params,
    source: Source<'_>,
    deadline: Option<&Deadline>,
) -> Result<(Delta, StatementReport)> {
    let cx = RunContext {
        params,
        source,
        deadline,
        semantics: None,
    };
    run_statement_returning(model, stmt, index, &cx).map(|(d, r, _)| (d, r))
}

/// What a statement runs with.
#[derive(Debug, Clone, Copy)]
pub struct RunContext<'a> {
    /// Query parameters.
    pub params: &'a Params,
    /// The rule text.
    pub source: Source<'a>,
    /// The run's time limit.
    pub deadline: Option<&'a Deadline>,
    /// How the read part matches (`None`: the matcher's default).
    pub semantics: Option<crate::exec::Semantics>,
}

/// [`run_statement`], also returning the rows its `RETURN` reads (`None` without `RETURN`).
pub fn run_statement_returning(
    model: &Model,
    stmt: &Statement,
    index: usize,
    cx: &RunContext<'_>,
) -> Result<(Delta, StatementReport, Option<TailRows>)> {
    let (params, source, deadline) = (cx.params, cx.source, cx.deadline);
    let plan = plan::plan(stmt, model, params).map_err(|e| source.error(e))?;
    let at = || format!("statement {index} (line {})", stmt.span.line);
    let rows = read_rows(model, &plan, cx, &at)?;
    let mut run = Run {
        model,
        delta: Delta::new(),
        counts: Counts::default(),
        types: PropertyTypes::of(model),
        plain_deletes: Vec::new(),
    };
    let mut states: Vec<RowState> = (0..rows.len())
        .map(|row| RowState {
            row,
            nodes: vec![None; plan.local_nodes],
            rels: vec![None; plan.local_rels],
            merged: None,
        })
        .collect();
    crate::util::memory::enter_stage(&CHANGES_STAGE);
    let mut since_check = 0u32;
    for clause in &plan.clauses {
        let mut next = Vec::with_capacity(states.len());
        for state in states {
            // The deadline and the memory limit, every 1,024 rows: the changes of a statement
            // over millions of rows (a CREATE per pair of a cartesian product) grow with them.
            since_check += 1;
            if since_check >= 1024 {
                since_check = 0;
                if let Some(d) = deadline {
                    d.check(|| format!("applying {}; the model is unchanged", at()))?;
                }
                if crate::util::memory::check(CHANGES_STAGE) {
                    return Err(
                        crate::util::memory::take_error().unwrap_or(Error::MemoryLimit {
                            stage: CHANGES_STAGE.into(),
                            limit: crate::util::memory::limit().unwrap_or(u64::MAX),
                        }),
                    );
                }
            }
            let mut expanded = vec![state];
            for planned in clause {
                let mut out = Vec::with_capacity(expanded.len());
                for st in expanded {
                    run.apply(planned, &rows[st.row], st, &mut out)
                        .map_err(|e| source.error(e))?;
                }
                expanded = out;
            }
            next.extend(expanded);
        }
        states = next;
    }
    run.check_deletes().map_err(|e| source.error(e))?;
    let report = StatementReport {
        statement: index,
        iteration: 1,
        line: stmt.span.line,
        matches: rows.len() as u64,
        counts: run.counts,
    };
    let tail = plan.tail.map(|tail| {
        let rows = states
            .iter()
            .map(|st| {
                tail.vars
                    .iter()
                    .map(|(_, at)| bound(at, &rows[st.row], st))
                    .collect()
            })
            .collect();
        TailRows { plan: tail, rows }
    });
    Ok((run.delta, report, tail))
}

/// Where `at` points in `row` and `st`.
fn bound(at: &plan::TailVar, row: &[Val<'static>], st: &RowState) -> Bound {
    let column = |c: usize| row.get(c).cloned().unwrap_or(Val::Null);
    match *at {
        plan::TailVar::Node(NodeRef::Local(s)) => st
            .nodes
            .get(s)
            .copied()
            .flatten()
            .map_or(Bound::Null, Bound::Node),
        plan::TailVar::Rel(RelRef::Local(s)) => st
            .rels
            .get(s)
            .copied()
            .flatten()
            .map_or(Bound::Null, Bound::Rel),
        plan::TailVar::Node(NodeRef::Column(c))
        | plan::TailVar::Rel(RelRef::Column(c))
        | plan::TailVar::Value(c) => match column(c) {
            Val::Null => Bound::Null,
            Val::Node(n) if n != crate::pattern::ir::NULL_ID => Bound::Node(NodeId::Base(n)),
            Val::Rel(e) if e != crate::pattern::ir::NULL_ID => Bound::Rel(EdgeId::Base(e)),
            Val::Node(_) | Val::Rel(_) => Bound::Null,
            v => Bound::Value(v),
        },
    }
}

/// The stage the memory-limit error names when a statement's changes pass it.
const CHANGES_STAGE: &str = "the changes of a transform statement";

/// The rows of the read part (one empty row without `MATCH`; none when it names a label or type
/// the model lacks). A read the deadline stopped is [`Error::Timeout`]: a statement applied to
/// part of its matches would change the model by half.
fn read_rows(
    model: &Model,
    plan: &plan::StatementPlan,
    cx: &RunContext<'_>,
    at: &dyn Fn() -> String,
) -> Result<Vec<Vec<Val<'static>>>> {
    let (params, source, deadline) = (cx.params, cx.source, cx.deadline);
    let Some(query) = &plan.read else {
        return Ok(vec![Vec::new()]);
    };
    if let Some(why) = &plan.no_match {
        log::debug!("statement has no match: the model has no {why}");
        return Ok(Vec::new());
    }
    let mut bound =
        crate::pattern::binder::bind_lenient(query, model, params).map_err(|e| source.error(e))?;
    let watches = check_arithmetic(&mut bound, query);
    let mut options = MatchOptions {
        timeout: deadline.map(Deadline::left),
        ..MatchOptions::default()
    };
    if let Some(s) = cx.semantics {
        options.semantics = s;
    }
    let (output, _) = Session::host(model).run(&bound, &options)?;
    if output.partial {
        return Err(Error::Timeout {
            stage: format!("matching {}; the model is unchanged", at()),
            limit: deadline.map_or(std::time::Duration::ZERO, Deadline::limit),
        });
    }
    if let Some((message, span)) = watches
        .iter()
        .find_map(|(slot, span)| slot.error().map(|m| (m, *span)))
    {
        let text = source.text.get(span.start..span.end).unwrap_or("");
        return Err(source.error(
            QueryError::semantic(
                format!("`{text}` cannot be computed: {message}"),
                Some(span),
            )
            .with_help(
                "a failing statement changes nothing (the run stops, the model is kept); \
                     guard the value (e.g. with CASE) or change the rule",
            ),
        ));
    }
    Ok(output
        .rows
        .into_iter()
        .map(|r| r.into_iter().map(Val::into_owned).collect())
        .collect())
}

/// Makes the arithmetic of the read part's computed values and filters strict ([`Expr::Checked`]):
/// a value that cannot be computed (an integer overflow, an integer division by zero, operands of
/// the wrong types) must fail the statement, never become a null that a `SET` would write (which
/// removes the property) or a filter would read as false. Returns each slot with the span of the
/// text it watches (`query`'s, which `bound` was bound from).
pub(super) fn check_arithmetic(
    bound: &mut BoundQuery,
    query: &ast::Query,
) -> Vec<(ErrorSlot, Span)> {
    check_values(bound, query, false)
}

/// [`check_arithmetic`]; `every`: every value and filter is checked, not only arithmetic (a
/// `RETURN` after updates: a value that cannot be computed fails the statement).
pub(super) fn check_values(
    bound: &mut BoundQuery,
    query: &ast::Query,
    every: bool,
) -> Vec<(ErrorSlot, Span)> {
    let mut watches = Vec::new();
    let mut watch = |e: &mut Expr, span: Span| {
        if !every && !can_fail(e) {
            return;
        }
        let slot = ErrorSlot::new();
        let inner = std::mem::replace(e, Expr::Literal(Value::Null));
        *e = Expr::Checked(Box::new(inner), slot.clone());
        watches.push((slot, span));
    };
    if let Some(w) = &query.where_clause {
        for conjunct in &mut bound.filter {
            watch(conjunct, w.span);
        }
    }
    let ast_stages: Vec<(&ast::Projection, Option<&ast::Expr>)> = query
        .with_clauses
        .iter()
        .map(|w| (&w.projection, w.where_clause.as_ref()))
        .chain(query.ret.iter().map(|r| (r, None)))
        .collect();
    for (i, stage) in bound.stages.iter_mut().enumerate() {
        let Some(&(proj, filter)) = ast_stages.get(i) else {
            continue;
        };
        let same_items = proj.items.len() == stage.items.len();
        for (k, item) in stage.items.iter_mut().enumerate() {
            let span = if same_items {
                proj.items[k].expr.span
            } else {
                proj.span
            };
            match &mut item.expr {
                Expr::Aggregate { arg: Some(a), .. } => watch(a, span),
                e if e.has_aggregate() => {}
                e => watch(e, span),
            }
        }
        if let (Some(f), Some(w)) = (&mut stage.filter, filter) {
            if !f.has_aggregate() {
                watch(f, w.span);
            }
        }
    }
    watches
}

/// True when evaluating `e` involves arithmetic (which may fail).
fn can_fail(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Arith(..) | Expr::Neg(_)));
    found
}

/// One row being updated: its read row and the statement-local variables bound so far.
#[derive(Debug, Clone)]
struct RowState {
    row: usize,
    nodes: Vec<Option<NodeId>>,
    rels: Vec<Option<EdgeId>>,
    /// Whether the last `MERGE` created (`Some(true)`) or found its element.
    merged: Option<bool>,
}

/// The kinds of values each existing property name holds, to reject a value of another kind.
struct PropertyTypes {
    node: HashMap<String, PropType>,
    edge: HashMap<String, PropType>,
}

impl PropertyTypes {
    fn of(model: &Model) -> Self {
        let mut node = HashMap::new();
        for g in model.groups() {
            for c in &g.columns {
                node.entry(c.name.clone()).or_insert(c.prop_type());
            }
        }
        let edge = model
            .edge_columns()
            .iter()
            .map(|c| (c.name.clone(), c.prop_type()))
            .collect();
        PropertyTypes { node, edge }
    }

    /// Checks `value` against property `key`'s type, recording the type of a new property.
    fn check(
        &mut self,
        on_edge: bool,
        key: &str,
        value: &Value,
    ) -> std::result::Result<(), String> {
        let Some(t) = value.prop_type() else {
            return Ok(());
        };
        let map = if on_edge {
            &mut self.edge
        } else {
            &mut self.node
        };
        match map.get(key) {
            None => {
                map.insert(key.to_owned(), t);
                Ok(())
            }
            Some(&have) if kind(have) == kind(t) => Ok(()),
            Some(&have) => Err(format!(
                "property `{key}` holds {} values; {value} is {}",
                have.name(),
                t.name()
            )),
        }
    }
}

/// Int and float are both numbers.
fn kind(t: PropType) -> u8 {
    match t {
        PropType::Int | PropType::Float => 0,
        PropType::Str => 1,
        PropType::Bool => 2,
    }
}

struct Run<'m> {
    model: &'m Model,
    delta: Delta,
    counts: Counts,
    types: PropertyTypes,
    /// Nodes deleted without DETACH, checked for relationships at the end of the statement.
    plain_deletes: Vec<(NodeId, String, Span)>,
}

impl Run<'_> {
    fn apply(
        &mut self,
        planned: &PlannedOp,
        row: &[Val<'static>],
        mut st: RowState,
        out: &mut Vec<RowState>,
    ) -> std::result::Result<(), QueryError> {
        let span = planned.span;
        let err = |m: String| QueryError::semantic(m, Some(span));
        if planned.when.is_some() && planned.when != st.merged {
            out.push(st);
            return Ok(());
        }
        match &planned.op {
            Op::CreateNode(spec) => {
                let n = self.create_node(spec, row, span)?;
                st.nodes[spec.slot] = Some(n);
            }
            Op::CreateRel(spec) => {
                let e = self.create_rel(spec, row, &st, planned)?;
                if let Some(s) = spec.slot {
                    st.rels[s] = e;
                }
            }
            Op::MergeNode(spec) => {
                let props = self.props(&spec.props, row, span)?;
                let found = self.find_nodes(&spec.labels, &props);
                if found.is_empty() {
                    let n = self.create_node(spec, row, span)?;
                    st.nodes[spec.slot] = Some(n);
                    st.merged = Some(true);
                } else {
                    for n in found {
                        let mut s = st.clone();
                        s.nodes[spec.slot] = Some(n);
                        s.merged = Some(false);
                        out.push(s);
                    }
                    return Ok(());
                }
            }
            Op::MergeRel(spec) => {
                let ends = (
                    self.node(spec.src, row, &st, planned)?,
                    self.node(spec.dst, row, &st, planned)?,
                );
                let (Some(src), Some(dst)) = ends else {
                    return Err(err(format!("MERGE `{}`: an end node is null", planned.var)));
                };
                let props = self.props(&spec.props, row, span)?;
                let found = self.find_edges(src, dst, &spec.rel_type, &props);
                if found.is_empty() {
                    let e = self.create_rel(spec, row, &st, planned)?;
                    if let Some(s) = spec.slot {
                        st.rels[s] = e;
                    }
                    st.merged = Some(true);
                } else {
                    for e in found {
                        let mut s = st.clone();
                        s.merged = Some(false);
                        if let Some(slot) = spec.slot {
                            s.rels[slot] = Some(e);
                        }
                        out.push(s);
                    }
                    return Ok(());
                }
            }
            Op::SetProperty { target, key, value } => {
                let value = self.value(value, row, span)?;
                self.set_property(*target, key, value, row, &st, planned)?;
            }
            Op::SetMap {
                target,
                entries,
                replace,
            } => {
                let pairs = match entries {
                    MapSrc::Entries(list) => self.props(list, row, span)?,
                    MapSrc::Column(c) => self.map_value(row.get(*c).unwrap_or(&Val::Null), span)?,
                };
                if *replace {
                    let on_edge = matches!(target, ElemRef::Rel(_));
                    let mut keys: Vec<String> = if on_edge {
                        self.types.edge.keys().cloned().collect()
                    } else {
                        self.types.node.keys().cloned().collect()
                    };
                    keys.sort();
                    for key in keys.iter().filter(|k| !pairs.contains_key(*k)) {
                        self.set_property(*target, key, Value::Null, row, &st, planned)?;
                    }
                }
                for (key, value) in pairs {
                    self.set_property(*target, &key, value, row, &st, planned)?;
                }
            }
            Op::RemoveProperty { target, key } => {
                self.set_property(*target, key, Value::Null, row, &st, planned)?;
            }
            Op::AddLabels { node, labels } => {
                if let Some(n) = self.live_node(*node, row, &st, planned)? {
                    for l in labels {
                        self.counts.labels_added +=
                            u64::from(self.delta.add_label(self.model, n, l));
                    }
                }
            }
            Op::RemoveLabels { node, labels } => {
                if let Some(n) = self.live_node(*node, row, &st, planned)? {
                    for l in labels {
                        self.counts.labels_removed +=
                            u64::from(self.delta.remove_label(self.model, n, l));
                    }
                }
            }
            Op::Delete { target, detach } => self.delete(*target, *detach, row, &st, planned)?,
        }
        out.push(st);
        Ok(())
    }

    fn value(
        &self,
        src: &ValueSrc,
        row: &[Val<'static>],
        span: Span,
    ) -> std::result::Result<Value, QueryError> {
        let v = match src {
            ValueSrc::Const(v) => return Ok(v.clone()),
            ValueSrc::Column(c) => row.get(*c).cloned().unwrap_or(Val::Null),
        };
        let what = match v {
            Val::Null => return Ok(Value::Null),
            Val::Bool(b) => return Ok(Value::Bool(b)),
            Val::Int(i) => return Ok(Value::Int(i)),
            Val::Float(f) => return Ok(Value::Float(f)),
            Val::Str(s) => return Ok(Value::Str(s.into_owned())),
            Val::List(_) => "a list",
            Val::Map(_) => "a map",
            Val::Node(_) => "a node",
            Val::Rel(_) => "a relationship",
            Val::Path(_) => "a path",
            Val::Temporal(t) => {
                return Err(QueryError::unsupported(
                    &format!("storing {} as a property value", t.kind_name()),
                    span,
                ))
            }
        };
        Err(QueryError::semantic(
            format!("{what} cannot be stored as a property value"),
            Some(span),
        ))
    }

    /// The entries of a map value for `SET x = map` / `SET x += map`: a map's, or the properties
    /// of a node or relationship (as this statement has left them so far).
    fn map_value(
        &self,
        v: &Val<'static>,
        span: Span,
    ) -> std::result::Result<BTreeMap<String, Value>, QueryError> {
        let mut out = BTreeMap::new();
        match v {
            Val::Map(entries) => {
                for (k, x) in entries {
                    out.insert(
                        k.clone(),
                        self.value(&ValueSrc::Column(0), std::slice::from_ref(x), span)?,
                    );
                }
            }
            Val::Node(n) => {
                for key in self.types.node.keys() {
                    let x = self.delta.node_property(self.model, NodeId::Base(*n), key);
                    if x != Value::Null {
                        out.insert(key.clone(), x);
                    }
                }
            }
            Val::Rel(e) => {
                for key in self.types.edge.keys() {
                    let x = self.delta.edge_property(self.model, EdgeId::Base(*e), key);
                    if x != Value::Null {
                        out.insert(key.clone(), x);
                    }
                }
            }
            _ => {
                return Err(QueryError::semantic(
                    "SET needs a map, a node or a relationship after `=` or `+=`",
                    Some(span),
                )
                .with_class(crate::error::CypherClass::TypeError))
            }
        }
        Ok(out)
    }

    fn props(
        &self,
        props: &[(String, ValueSrc)],
        row: &[Val<'static>],
        span: Span,
    ) -> std::result::Result<BTreeMap<String, Value>, QueryError> {
        let mut out = BTreeMap::new();
        for (k, v) in props {
            out.insert(k.clone(), self.value(v, row, span)?);
        }
        Ok(out)
    }

    /// The node `r` names in this row (`None` for null).
    fn node(
        &self,
        r: NodeRef,
        row: &[Val<'static>],
        st: &RowState,
        planned: &PlannedOp,
    ) -> std::result::Result<Option<NodeId>, QueryError> {
        match r {
            NodeRef::Local(s) => Ok(st.nodes.get(s).copied().flatten()),
            NodeRef::Column(c) => match row.get(c) {
                Some(Val::Node(n)) => Ok(Some(NodeId::Base(*n))),
                None | Some(Val::Null) => Ok(None),
                Some(_) => Err(QueryError::semantic(
                    format!("`{}` is not a node", planned.var),
                    Some(planned.span),
                )),
            },
        }
    }

    /// The node `r` names, which must not have been deleted (`None` for null).
    fn live_node(
        &self,
        r: NodeRef,
        row: &[Val<'static>],
        st: &RowState,
        planned: &PlannedOp,
    ) -> std::result::Result<Option<NodeId>, QueryError> {
        let n = self.node(r, row, st, planned)?;
        match n {
            Some(id) if !self.delta.node_alive(self.model, id) => Err(QueryError::semantic(
                format!(
                    "node `{}` ({}) was deleted by this statement",
                    planned.var,
                    self.describe(id)
                ),
                Some(planned.span),
            )),
            _ => Ok(n),
        }
    }

    fn rel(
        &self,
        r: RelRef,
        row: &[Val<'static>],
        st: &RowState,
        planned: &PlannedOp,
    ) -> std::result::Result<Option<EdgeId>, QueryError> {
        match r {
            RelRef::Local(s) => Ok(st.rels.get(s).copied().flatten()),
            RelRef::Column(c) => match row.get(c) {
                Some(Val::Rel(e)) => Ok(Some(EdgeId::Base(*e))),
                None | Some(Val::Null) => Ok(None),
                Some(_) => Err(QueryError::semantic(
                    format!("`{}` is not a relationship", planned.var),
                    Some(planned.span),
                )),
            },
        }
    }

    /// How a node is named in messages: its key, or "a node created by this statement".
    fn describe(&self, n: NodeId) -> String {
        match n {
            NodeId::Base(id) => match self.model.node_key(id) {
                Some(k) => format!("key `{k}`"),
                None => format!("id {id}"),
            },
            NodeId::New(_) => "created by this statement".into(),
        }
    }

    fn create_node(
        &mut self,
        spec: &NodeSpec,
        row: &[Val<'static>],
        span: Span,
    ) -> std::result::Result<NodeId, QueryError> {
        let props = self.props(&spec.props, row, span)?;
        for (k, v) in &props {
            self.types
                .check(false, k, v)
                .map_err(|m| QueryError::semantic(m, Some(span)))?;
        }
        self.counts.nodes_created += 1;
        self.counts.properties_set +=
            props.values().filter(|v| !matches!(v, Value::Null)).count() as u64;
        Ok(self.delta.create_node(spec.labels.clone(), props))
    }

    fn create_rel(
        &mut self,
        spec: &RelSpec,
        row: &[Val<'static>],
        st: &RowState,
        planned: &PlannedOp,
    ) -> std::result::Result<Option<EdgeId>, QueryError> {
        let span = planned.span;
        let src = self.live_node(spec.src, row, st, planned)?;
        let dst = self.live_node(spec.dst, row, st, planned)?;
        let (Some(src), Some(dst)) = (src, dst) else {
            return Err(QueryError::semantic(
                format!(
                    "cannot create a `{}` relationship with a null end node",
                    spec.rel_type
                ),
                Some(span),
            ));
        };
        let props = self.props(&spec.props, row, span)?;
        for (k, v) in &props {
            self.types
                .check(true, k, v)
                .map_err(|m| QueryError::semantic(m, Some(span)))?;
        }
        self.counts.relationships_created += 1;
        self.counts.properties_set +=
            props.values().filter(|v| !matches!(v, Value::Null)).count() as u64;
        Ok(Some(self.delta.create_edge(
            src,
            dst,
            spec.rel_type.clone(),
            props,
        )))
    }

    fn set_property(
        &mut self,
        target: ElemRef,
        key: &str,
        value: Value,
        row: &[Val<'static>],
        st: &RowState,
        planned: &PlannedOp,
    ) -> std::result::Result<(), QueryError> {
        let span = planned.span;
        match target {
            ElemRef::Node(r) => {
                let Some(n) = self.live_node(r, row, st, planned)? else {
                    return Ok(());
                };
                self.types.check(false, key, &value).map_err(|m| {
                    QueryError::semantic(
                        format!("node `{}` ({}): {m}", planned.var, self.describe(n)),
                        Some(span),
                    )
                })?;
                self.counts.properties_set +=
                    u64::from(self.delta.set_node_property(self.model, n, key, value));
            }
            ElemRef::Rel(r) => {
                let Some(e) = self.rel(r, row, st, planned)? else {
                    return Ok(());
                };
                if !self.delta.edge_alive(self.model, e) {
                    return Err(QueryError::semantic(
                        format!(
                            "relationship `{}` was deleted by this statement",
                            planned.var
                        ),
                        Some(span),
                    ));
                }
                self.types.check(true, key, &value).map_err(|m| {
                    QueryError::semantic(format!("relationship `{}`: {m}", planned.var), Some(span))
                })?;
                self.counts.properties_set +=
                    u64::from(self.delta.set_edge_property(self.model, e, key, value));
            }
        }
        Ok(())
    }

    fn delete(
        &mut self,
        target: ElemRef,
        detach: bool,
        row: &[Val<'static>],
        st: &RowState,
        planned: &PlannedOp,
    ) -> std::result::Result<(), QueryError> {
        match target {
            ElemRef::Node(r) => {
                let Some(n) = self.node(r, row, st, planned)? else {
                    return Ok(());
                };
                if detach {
                    for e in self.delta.incident_edges(self.model, n) {
                        self.counts.relationships_deleted +=
                            u64::from(self.delta.delete_edge(self.model, e));
                    }
                } else {
                    self.plain_deletes
                        .push((n, planned.var.clone(), planned.span));
                }
                self.counts.nodes_deleted += u64::from(self.delta.delete_node(self.model, n));
            }
            ElemRef::Rel(r) => {
                if let Some(e) = self.rel(r, row, st, planned)? {
                    self.counts.relationships_deleted +=
                        u64::from(self.delta.delete_edge(self.model, e));
                }
            }
        }
        Ok(())
    }

    /// A node deleted without `DETACH` must have no relationship left once the statement is done.
    fn check_deletes(&self) -> std::result::Result<(), QueryError> {
        for (n, var, span) in &self.plain_deletes {
            let left = self.delta.incident_edges(self.model, *n).len();
            if left > 0 {
                return Err(QueryError::semantic(
                    format!(
                        "cannot delete node `{var}` ({}): it still has {left} relationship{}",
                        self.describe(*n),
                        if left == 1 { "" } else { "s" }
                    ),
                    Some(*span),
                )
                .with_help(
                    "use DETACH DELETE to delete its relationships too, or delete them first",
                )
                .with_class(crate::error::CypherClass::ConstraintVerificationFailed));
            }
        }
        Ok(())
    }

    /// Live nodes carrying every label of `labels` and every property of `props`.
    fn find_nodes(&self, labels: &[String], props: &BTreeMap<String, Value>) -> Vec<NodeId> {
        let model = self.model;
        let mut candidates: Vec<NodeId> = match labels.first() {
            Some(l) => {
                let mut c: Vec<NodeId> = model
                    .labels()
                    .get(l)
                    .map(|id| {
                        model
                            .nodes_with_label(id)
                            .iter()
                            .map(|&n| NodeId::Base(n))
                            .collect()
                    })
                    .unwrap_or_default();
                c.extend(
                    self.delta
                        .labels_added
                        .iter()
                        .filter(|(_, added)| added.contains(l))
                        .map(|(&n, _)| NodeId::Base(n)),
                );
                c
            }
            None => (0..model.node_count() as u32).map(NodeId::Base).collect(),
        };
        candidates.extend((0..self.delta.new_nodes().len() as u32).map(NodeId::New));
        candidates.sort_unstable();
        candidates.dedup();
        candidates.retain(|&n| {
            self.delta.node_alive(model, n)
                && labels.iter().all(|l| self.delta.has_label(model, n, l))
                && props
                    .iter()
                    .all(|(k, v)| same_value(&self.delta.node_property(model, n, k), v))
        });
        candidates
    }

    /// Live `src -[rel_type]-> dst` relationships with every property of `props`.
    fn find_edges(
        &self,
        src: NodeId,
        dst: NodeId,
        rel_type: &str,
        props: &BTreeMap<String, Value>,
    ) -> Vec<EdgeId> {
        let model = self.model;
        self.delta
            .incident_edges(model, src)
            .into_iter()
            .filter(|&e| {
                self.delta.edge_alive(model, e)
                    && self
                        .delta
                        .edge_ends(model, e)
                        .is_some_and(|(s, d, t)| s == src && d == dst && t == rel_type)
                    && props
                        .iter()
                        .all(|(k, v)| same_value(&self.delta.edge_property(model, e, k), v))
            })
            .collect()
    }
}

/// Property equality as MERGE sees it: numbers compare by value (`1 = 1.0`), null equals nothing.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => (*x as f64) == *y,
        _ => a == b,
    }
}
