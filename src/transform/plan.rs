//! Binding a rule statement: its variables are checked (each updating clause may use variables the
//! read part binds, or that an earlier clause of the statement creates), its updating clauses
//! become [`Op`]s, and its read part becomes a query whose `RETURN` lists the matched variables and
//! the values the updates need, evaluated by the matcher on the model as the statement starts.

use hashbrown::HashMap;

use crate::model::{Model, Value};
use crate::pattern::ast::{
    self, Direction, ExprKind, LabelExpr, Literal, Name, NodePattern, PathPattern, Projection,
    RemoveItem, ReturnItem, SetItem, Span, Statement, UnaryOp, UpdateKind,
};
use crate::pattern::error::QueryError;
use crate::pattern::Params;

/// A node an operation works on: a column of the read part's rows, or a node variable of the
/// statement itself (created by `CREATE`, bound by `MERGE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    /// Column of the read rows.
    Column(usize),
    /// Statement-local node slot.
    Local(usize),
}

/// A relationship an operation works on (see [`NodeRef`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelRef {
    /// Column of the read rows.
    Column(usize),
    /// Statement-local relationship slot.
    Local(usize),
}

/// A node or a relationship.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElemRef {
    /// A node.
    Node(NodeRef),
    /// A relationship.
    Rel(RelRef),
}

/// Where a written value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueSrc {
    /// A column of the read rows (an expression the matcher evaluated).
    Column(usize),
    /// A constant.
    Const(Value),
}

/// The map of `SET x = map` / `SET x += map`.
#[derive(Debug, Clone, PartialEq)]
pub enum MapSrc {
    /// Its entries (a literal map or a map parameter).
    Entries(Vec<(String, ValueSrc)>),
    /// A value of the read rows: a map, a node or a relationship.
    Column(usize),
}

/// A node to create (or to merge).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    /// The local slot it is bound to.
    pub slot: usize,
    /// Its labels, the first one primary.
    pub labels: Vec<String>,
    /// Its properties.
    pub props: Vec<(String, ValueSrc)>,
}

/// A relationship to create (or to merge).
#[derive(Debug, Clone, PartialEq)]
pub struct RelSpec {
    /// The local slot it is bound to, when it has a variable.
    pub slot: Option<usize>,
    /// Source node.
    pub src: NodeRef,
    /// Target node.
    pub dst: NodeRef,
    /// Its type.
    pub rel_type: String,
    /// Its properties.
    pub props: Vec<(String, ValueSrc)>,
}

/// One elementary update, done once per row.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `CREATE (n:L {…})`.
    CreateNode(NodeSpec),
    /// `CREATE (a)-[:T {…}]->(b)`.
    CreateRel(RelSpec),
    /// `MERGE (n:L {…})`: every node with these labels and properties, or a new one.
    MergeNode(NodeSpec),
    /// `MERGE (a)-[:T {…}]->(b)`: every such relationship, or a new one.
    MergeRel(RelSpec),
    /// `SET x.key = value` (and each entry of `SET x += {…}`).
    SetProperty {
        /// The element.
        target: ElemRef,
        /// The property.
        key: String,
        /// The value.
        value: ValueSrc,
    },
    /// `SET x = map` / `SET x += map` with a map computed per row, or a node or relationship
    /// whose properties are copied.
    SetMap {
        /// The element.
        target: ElemRef,
        /// The map: its entries, or a column of the read rows.
        entries: MapSrc,
        /// `=`: the properties not in the map are removed.
        replace: bool,
    },
    /// `SET n:L`.
    AddLabels {
        /// The node.
        node: NodeRef,
        /// The labels.
        labels: Vec<String>,
    },
    /// `REMOVE x.key`.
    RemoveProperty {
        /// The element.
        target: ElemRef,
        /// The property.
        key: String,
    },
    /// `REMOVE n:L`.
    RemoveLabels {
        /// The node.
        node: NodeRef,
        /// The labels.
        labels: Vec<String>,
    },
    /// `[DETACH] DELETE x`.
    Delete {
        /// The element.
        target: ElemRef,
        /// Its relationships go with a node.
        detach: bool,
    },
}

/// An operation with the variable it names and where it was written, for error messages.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedOp {
    /// The operation.
    pub op: Op,
    /// The variable it is about (empty for anonymous elements).
    pub var: String,
    /// Its text.
    pub span: Span,
    /// `ON CREATE` (`Some(true)`) or `ON MATCH` (`Some(false)`) of the last `MERGE`: done only
    /// when that `MERGE` created (matched) the row's element.
    pub when: Option<bool>,
}

/// A bound statement.
#[derive(Debug, Clone)]
pub struct StatementPlan {
    /// The read part returning the needed columns; `None`: no `MATCH`, the updates run once.
    pub read: Option<ast::Query>,
    /// Set when the read part's patterns name a label or relationship type the model does not
    /// have: the statement has no match.
    pub no_match: Option<String>,
    /// The updating clauses' operations, clause by clause.
    pub clauses: Vec<Vec<PlannedOp>>,
    /// Number of statement-local node slots.
    pub local_nodes: usize,
    /// Number of statement-local relationship slots.
    pub local_rels: usize,
    /// What the statement returns after its updates.
    pub tail: Option<TailPlan>,
}

/// The variables a statement's `RETURN` (and the `WITH` clauses before it) reads after the
/// updates, and where each one's value is.
#[derive(Debug, Clone)]
pub struct TailPlan {
    /// The clauses.
    pub tail: ast::Tail,
    /// Each variable the clauses read, with its element or value.
    pub vars: Vec<(String, TailVar)>,
}

/// Where a variable read after the updates gets its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailVar {
    /// A node.
    Node(NodeRef),
    /// A relationship.
    Rel(RelRef),
    /// A value of the read rows (a node or relationship inside it is mapped to the new model).
    Value(usize),
}

/// What a variable names in the statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    /// A node / relationship / other value of the read part (column assigned on first use).
    ReadNode,
    ReadRel,
    ReadValue,
    LocalNode(usize),
    LocalRel(usize),
}

type PResult<T> = Result<T, QueryError>;

/// Binds `stmt` for `model` (the model is read only to see which labels and types exist).
pub fn plan(stmt: &Statement, model: &Model, params: &Params) -> PResult<StatementPlan> {
    let mut p = Planner {
        scope: read_scope(stmt),
        columns: Vec::new(),
        column_of: HashMap::new(),
        local_nodes: 0,
        local_rels: 0,
        params,
    };
    let mut clauses = Vec::new();
    for clause in &stmt.updates {
        clauses.push(p.clause(clause)?);
    }
    let mut stmt = stmt.clone();
    prune_unknown_alternatives(&mut stmt.matches, model);
    let tail = match &stmt.tail {
        Some(t) => Some(p.tail(t)?),
        None => None,
    };
    let read = if p.columns.is_empty() {
        let one = ast::Expr::new(ExprKind::Literal(Literal::Int(1)), stmt.span);
        Some(stmt.read_query(projection(vec![item(one, "_one")], stmt.span)))
    } else {
        Some(stmt.read_query(projection(p.columns, stmt.span)))
    };
    Ok(StatementPlan {
        read,
        no_match: missing_name(&stmt.matches, model),
        clauses,
        local_nodes: p.local_nodes,
        local_rels: p.local_rels,
        tail,
    })
}

fn projection(items: Vec<ReturnItem>, span: Span) -> Projection {
    Projection {
        distinct: false,
        star: false,
        items,
        order_by: Vec::new(),
        skip: None,
        limit: None,
        span,
    }
}

fn item(expr: ast::Expr, alias: &str) -> ReturnItem {
    let span = expr.span;
    ReturnItem {
        expr,
        alias: Some(Name {
            name: alias.to_owned(),
            span,
        }),
        span,
    }
}

/// A label or relationship type written in the `MATCH` patterns that the model lacks (a label
/// group none of whose alternatives exists; a type list none of whose types exists).
fn missing_name(paths: &[PathPattern], model: &Model) -> Option<String> {
    for path in paths {
        for n in &path.nodes {
            for group in &n.labels.all_of {
                if group.iter().all(|l| model.labels().get(&l.name).is_none()) {
                    return group.first().map(|l| format!("label `{}`", l.name));
                }
            }
        }
        for r in &path.rels {
            if !r.types.is_empty()
                && r.types
                    .iter()
                    .all(|t| model.rel_types().get(&t.name).is_none())
            {
                return r
                    .types
                    .first()
                    .map(|t| format!("relationship type `{}`", t.name));
            }
        }
    }
    None
}

/// Drops the label and relationship-type alternatives of `MATCH` patterns that the model lacks
/// (they cannot match; a group with no known alternative is [`missing_name`]'s case).
fn prune_unknown_alternatives(paths: &mut [PathPattern], model: &Model) {
    for path in paths {
        for n in &mut path.nodes {
            for group in &mut n.labels.all_of {
                if group.iter().any(|l| model.labels().get(&l.name).is_some()) {
                    group.retain(|l| model.labels().get(&l.name).is_some());
                }
            }
        }
        for r in &mut path.rels {
            if r.types
                .iter()
                .any(|t| model.rel_types().get(&t.name).is_some())
            {
                r.types.retain(|t| model.rel_types().get(&t.name).is_some());
            }
        }
    }
}

/// The variables the read part leaves in scope and what they are.
fn read_scope(stmt: &Statement) -> HashMap<String, Var> {
    let mut scope = HashMap::new();
    for path in &stmt.matches {
        for n in &path.nodes {
            if let Some(v) = &n.var {
                scope.insert(v.name.clone(), Var::ReadNode);
            }
        }
        for r in &path.rels {
            if let Some(v) = &r.var {
                scope.insert(v.name.clone(), Var::ReadRel);
            }
        }
    }
    for u in &stmt.leading {
        scope.insert(u.alias.name.clone(), Var::ReadValue);
    }
    for clause in &stmt.trailing {
        match clause {
            ast::ReadingClause::Unwind(u) => {
                scope.insert(u.alias.name.clone(), Var::ReadValue);
            }
            ast::ReadingClause::OptionalMatch(m) => {
                for path in &m.paths {
                    for n in &path.nodes {
                        if let Some(v) = &n.var {
                            scope.entry(v.name.clone()).or_insert(Var::ReadNode);
                        }
                    }
                    for r in &path.rels {
                        if let Some(v) = &r.var {
                            scope.entry(v.name.clone()).or_insert(Var::ReadRel);
                        }
                    }
                }
            }
        }
    }
    for w in &stmt.with_clauses {
        let mut next = if w.projection.star {
            scope.clone()
        } else {
            HashMap::new()
        };
        for it in &w.projection.items {
            let source = match &it.expr.kind {
                ExprKind::Var(v) => scope.get(v).copied(),
                _ => None,
            };
            let name = match (&it.alias, &it.expr.kind) {
                (Some(a), _) => a.name.clone(),
                (None, ExprKind::Var(v)) => v.clone(),
                _ => continue,
            };
            next.insert(name, source.unwrap_or(Var::ReadValue));
        }
        for u in &w.unwinds {
            next.insert(u.alias.name.clone(), Var::ReadValue);
        }
        scope = next;
    }
    scope
}

struct Planner<'a> {
    scope: HashMap<String, Var>,
    /// The read query's return items: variables and value expressions.
    columns: Vec<ReturnItem>,
    /// Column of each read variable already returned.
    column_of: HashMap<String, usize>,
    local_nodes: usize,
    local_rels: usize,
    params: &'a Params,
}

impl Planner<'_> {
    /// The variables `tail` reads (every one in scope for `RETURN *` or `WITH *`), each with
    /// where its value is after the updates.
    fn tail(&mut self, tail: &ast::Tail) -> PResult<TailPlan> {
        let stages: Vec<&Projection> = tail
            .with_clauses
            .iter()
            .map(|w| &w.projection)
            .chain(std::iter::once(&tail.ret))
            .collect();
        let mut names: Vec<String> = Vec::new();
        let add = |n: &str, names: &mut Vec<String>| {
            if !names.iter().any(|x| x == n) {
                names.push(n.to_owned());
            }
        };
        if stages.first().is_some_and(|p| p.star) {
            let mut all: Vec<&String> = self.scope.keys().collect();
            all.sort();
            for n in all {
                add(n, &mut names);
            }
        }
        // Variables named anywhere in the clauses; those the clauses define themselves are
        // not in scope and are skipped.
        let mut visit = |e: &ast::Expr| {
            walk(e, &mut |x| {
                if let ExprKind::Var(v) = &x.kind {
                    add(v, &mut names);
                }
            })
        };
        for w in &tail.with_clauses {
            for it in &w.projection.items {
                visit(&it.expr);
            }
            w.projection.order_by.iter().for_each(|o| visit(&o.expr));
            w.where_clause.iter().for_each(&mut visit);
            w.unwinds.iter().for_each(|u| visit(&u.list));
        }
        for it in &tail.ret.items {
            visit(&it.expr);
        }
        tail.ret.order_by.iter().for_each(|o| visit(&o.expr));
        let mut vars = Vec::new();
        for n in names {
            let Some(&var) = self.scope.get(&n) else {
                continue;
            };
            let name = Name {
                name: n.clone(),
                span: tail.span,
            };
            let at = match var {
                Var::ReadNode => TailVar::Node(NodeRef::Column(self.column(&name))),
                Var::ReadRel => TailVar::Rel(RelRef::Column(self.column(&name))),
                Var::ReadValue => TailVar::Value(self.column(&name)),
                Var::LocalNode(s) => TailVar::Node(NodeRef::Local(s)),
                Var::LocalRel(s) => TailVar::Rel(RelRef::Local(s)),
            };
            vars.push((n, at));
        }
        Ok(TailPlan {
            tail: tail.clone(),
            vars,
        })
    }

    fn clause(&mut self, clause: &ast::UpdateClause) -> PResult<Vec<PlannedOp>> {
        let mut ops = Vec::new();
        match &clause.kind {
            UpdateKind::Create(paths) => {
                for path in paths {
                    self.create_path(path, &mut ops)?;
                }
            }
            UpdateKind::Merge(path) => self.merge(path, &mut ops)?,
            UpdateKind::Set(items) => {
                for it in items {
                    self.set_item(it, &mut ops)?;
                }
            }
            UpdateKind::OnCreate(items) | UpdateKind::OnMatch(items) => {
                let when = matches!(clause.kind, UpdateKind::OnCreate(_));
                for it in items {
                    self.set_item(it, &mut ops)?;
                }
                for o in &mut ops {
                    o.when = Some(when);
                }
            }
            UpdateKind::Remove(items) => {
                for it in items {
                    self.remove_item(it, &mut ops)?;
                }
            }
            UpdateKind::Delete { detach, targets } => {
                for t in targets {
                    let target = self.element(t)?;
                    ops.push(op(
                        Op::Delete {
                            target,
                            detach: *detach,
                        },
                        t,
                        t.span,
                    ));
                }
            }
        }
        Ok(ops)
    }

    /// The column returning read variable `name`.
    fn column(&mut self, name: &Name) -> usize {
        if let Some(&c) = self.column_of.get(&name.name) {
            return c;
        }
        let c = self.columns.len();
        let var = ast::Expr::new(ExprKind::Var(name.name.clone()), name.span);
        self.columns.push(item(var, &format!("_c{c}")));
        self.column_of.insert(name.name.clone(), c);
        c
    }

    fn lookup(&self, name: &Name) -> PResult<Var> {
        self.scope.get(&name.name).copied().ok_or_else(|| {
            QueryError::semantic(
                format!("variable `{}` is not defined", name.name),
                Some(name.span),
            )
            .with_class(crate::error::CypherClass::SyntaxError)
            .with_help("use a variable the MATCH binds or that an earlier clause creates")
        })
    }

    fn node(&mut self, name: &Name) -> PResult<NodeRef> {
        match self.lookup(name)? {
            Var::ReadNode => Ok(NodeRef::Column(self.column(name))),
            Var::LocalNode(s) => Ok(NodeRef::Local(s)),
            // A value carried through WITH may hold a node: checked per row.
            Var::ReadValue => Ok(NodeRef::Column(self.column(name))),
            Var::ReadRel | Var::LocalRel(_) => Err(QueryError::semantic(
                format!("`{}` is a relationship, not a node", name.name),
                Some(name.span),
            )),
        }
    }

    fn element(&mut self, name: &Name) -> PResult<ElemRef> {
        match self.lookup(name)? {
            Var::ReadRel => Ok(ElemRef::Rel(RelRef::Column(self.column(name)))),
            Var::LocalRel(s) => Ok(ElemRef::Rel(RelRef::Local(s))),
            _ => self.node(name).map(ElemRef::Node),
        }
    }

    /// A value to write: a constant when it is one, else a column of the read rows.
    fn value(&mut self, e: &ast::Expr) -> PResult<ValueSrc> {
        if let Some(v) = self.constant(e)? {
            return Ok(ValueSrc::Const(v));
        }
        self.check_reads(e)?;
        let c = self.columns.len();
        self.columns.push(item(e.clone(), &format!("_c{c}")));
        Ok(ValueSrc::Column(c))
    }

    /// The value of a literal, a parameter or a negated number; `None` for anything else.
    fn constant(&self, e: &ast::Expr) -> PResult<Option<Value>> {
        Ok(match &e.kind {
            ExprKind::Literal(l) => Some(match l {
                Literal::Null => Value::Null,
                Literal::Bool(b) => Value::Bool(*b),
                Literal::Int(i) => Value::Int(*i),
                Literal::Float(f) => Value::Float(*f),
                Literal::String(s) => Value::Str(s.clone()),
            }),
            ExprKind::Param(name) => match self.params.get(name) {
                Some(crate::pattern::ParamValue::Scalar(v)) => Some(v.clone()),
                Some(other) => {
                    return Err(QueryError::semantic(
                        format!(
                            "parameter `${name}` is {}: a property is set to a number, string, \
                             boolean or null",
                            other.kind_name()
                        ),
                        Some(e.span),
                    ))
                }
                None => {
                    return Err(QueryError::semantic(
                        format!("parameter `${name}` has no value"),
                        Some(e.span),
                    )
                    .with_help(format!("give it with --param {name}=VALUE")))
                }
            },
            ExprKind::Unary {
                op: UnaryOp::Neg,
                expr,
            } => match self.constant(expr)? {
                Some(Value::Int(i)) => i.checked_neg().map(Value::Int),
                Some(Value::Float(f)) => Some(Value::Float(-f)),
                _ => None,
            },
            _ => None,
        })
    }

    /// Rejects expressions reading statement-local variables, undefined ones, or aggregates.
    fn check_reads(&self, e: &ast::Expr) -> PResult<()> {
        let mut error = None;
        walk(e, &mut |x| {
            if error.is_some() {
                return;
            }
            match &x.kind {
                ExprKind::Var(v) => match self.scope.get(v) {
                    Some(Var::LocalNode(_) | Var::LocalRel(_)) => {
                        error = Some(QueryError::semantic(
                            format!("`{v}` is created by this statement; a written value can only read matched variables"),
                            Some(x.span),
                        ).with_help("compute the value from the MATCH's variables, or set it in a later statement"));
                    }
                    Some(_) => {}
                    None => {
                        error = Some(
                            QueryError::semantic(
                                format!("variable `{v}` is not defined"),
                                Some(x.span),
                            )
                            .with_class(crate::error::CypherClass::SyntaxError),
                        )
                    }
                },
                ExprKind::CountStar => {
                    error = Some(aggregate_error(x.span));
                }
                ExprKind::FunctionCall { name, .. }
                    if ["count", "min", "max", "avg", "sum", "collect"]
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(&name.name)) =>
                {
                    error = Some(aggregate_error(x.span));
                }
                _ => {}
            }
        });
        error.map_or(Ok(()), Err)
    }

    fn props(&mut self, entries: &[ast::PropertyEntry]) -> PResult<Vec<(String, ValueSrc)>> {
        entries
            .iter()
            .map(|e| Ok((e.key.name.clone(), self.value(&e.value)?)))
            .collect()
    }

    /// A node pattern of `CREATE`: a bound variable (no labels or properties) or a new node.
    fn create_node(&mut self, n: &NodePattern, ops: &mut Vec<PlannedOp>) -> PResult<NodeRef> {
        if let Some(v) = &n.var {
            if self.scope.contains_key(&v.name) {
                if !n.labels.is_empty() || n.has_map {
                    return Err(QueryError::semantic(
                        format!(
                            "`{}` is already bound; CREATE cannot add labels or properties to it",
                            v.name
                        ),
                        Some(n.span),
                    )
                    .with_help(format!(
                        "write `({})` and use SET for its labels and properties",
                        v.name
                    ))
                    .with_class(crate::error::CypherClass::SyntaxError));
                }
                return self.node(v);
            }
        }
        let spec = self.node_spec(n)?;
        let slot = spec.slot;
        ops.push(PlannedOp {
            op: Op::CreateNode(spec),
            var: n.var.as_ref().map(|v| v.name.clone()).unwrap_or_default(),
            span: n.span,
            when: None,
        });
        Ok(NodeRef::Local(slot))
    }

    /// A new statement-local node from its pattern (the variable, if any, enters the scope).
    fn node_spec(&mut self, n: &NodePattern) -> PResult<NodeSpec> {
        let labels = simple_labels(&n.labels)?;
        let props = self.props(&n.props)?;
        let slot = self.local_nodes;
        self.local_nodes += 1;
        if let Some(v) = &n.var {
            self.scope.insert(v.name.clone(), Var::LocalNode(slot));
        }
        Ok(NodeSpec {
            slot,
            labels,
            props,
        })
    }

    fn rel_spec(
        &mut self,
        r: &ast::RelPattern,
        a: NodeRef,
        b: NodeRef,
        clause: &str,
    ) -> PResult<RelSpec> {
        if let Some(hops) = &r.hops {
            return Err(QueryError::semantic(
                format!("{clause} cannot make a variable-length relationship"),
                Some(hops.span),
            )
            .with_class(crate::error::CypherClass::SyntaxError));
        }
        let rel_type = match &r.types[..] {
            [t] => t.name.clone(),
            _ => {
                return Err(QueryError::semantic(
                    format!("{clause} needs exactly one relationship type"),
                    Some(r.span),
                ))
            }
        };
        let (src, dst) = match r.direction {
            Direction::Right => (a, b),
            Direction::Left => (b, a),
            Direction::Both => {
                return Err(QueryError::semantic(
                    format!("{clause} needs a relationship direction (`->` or `<-`)"),
                    Some(r.span),
                ))
            }
        };
        let props = self.props(&r.props)?;
        let slot = match &r.var {
            Some(v) if self.scope.contains_key(&v.name) => {
                return Err(QueryError::semantic(
                    format!("`{}` is already bound", v.name),
                    Some(v.span),
                ))
            }
            Some(v) => {
                let s = self.local_rels;
                self.local_rels += 1;
                self.scope.insert(v.name.clone(), Var::LocalRel(s));
                Some(s)
            }
            None => None,
        };
        Ok(RelSpec {
            slot,
            src,
            dst,
            rel_type,
            props,
        })
    }

    fn create_path(&mut self, path: &PathPattern, ops: &mut Vec<PlannedOp>) -> PResult<()> {
        if let ([n], []) = (&path.nodes[..], &path.rels[..]) {
            if let Some(v) = n.var.as_ref().filter(|v| self.scope.contains_key(&v.name)) {
                return Err(QueryError::semantic(
                    format!(
                        "`{}` is already bound; CREATE ({}) would create nothing",
                        v.name, v.name
                    ),
                    Some(n.span),
                )
                .with_class(crate::error::CypherClass::SyntaxError));
            }
        }
        let mut prev = self.create_node(&path.nodes[0], ops)?;
        for (r, n) in path.rels.iter().zip(&path.nodes[1..]) {
            let next = self.create_node(n, ops)?;
            let spec = self.rel_spec(r, prev, next, "CREATE")?;
            ops.push(PlannedOp {
                op: Op::CreateRel(spec),
                var: r.var.as_ref().map(|v| v.name.clone()).unwrap_or_default(),
                span: r.span,
                when: None,
            });
            prev = next;
        }
        Ok(())
    }

    fn merge(&mut self, path: &PathPattern, ops: &mut Vec<PlannedOp>) -> PResult<()> {
        // A null property value can never be found again: Cypher refuses it.
        let entries = path
            .nodes
            .iter()
            .flat_map(|n| n.props.iter())
            .chain(path.rels.iter().flat_map(|r| r.props.iter()));
        for e in entries {
            if matches!(
                e.value.kind,
                crate::pattern::ast::ExprKind::Literal(crate::pattern::ast::Literal::Null)
            ) {
                return Err(QueryError::semantic(
                    format!("MERGE cannot match a null value for `{}`", e.key.name),
                    Some(e.value.span),
                )
                .with_class(crate::error::CypherClass::SemanticError));
            }
        }
        match (&path.nodes[..], &path.rels[..]) {
            ([n], []) => {
                if let Some(v) = n.var.as_ref().filter(|v| self.scope.contains_key(&v.name)) {
                    return Err(QueryError::unsupported("MERGE on a bound variable", v.span)
                        .with_help("MERGE a new variable, or use SET on the bound one"));
                }
                let spec = self.node_spec(n)?;
                ops.push(PlannedOp {
                    op: Op::MergeNode(spec),
                    var: n.var.as_ref().map(|v| v.name.clone()).unwrap_or_default(),
                    span: path.span,
                    when: None,
                });
                Ok(())
            }
            ([a, b], [r]) => {
                let ends = [a, b].map(|n| {
                    let bound = n.var.as_ref().filter(|v| self.scope.contains_key(&v.name));
                    match bound {
                        Some(v) if n.labels.is_empty() && n.props.is_empty() => Some(v.clone()),
                        _ => None,
                    }
                });
                let [Some(va), Some(vb)] = ends else {
                    return Err(QueryError::unsupported(
                        "MERGE of a relationship whose end nodes are not both bound variables",
                        path.span,
                    )
                    .with_help("MATCH or MERGE the end nodes first, then MERGE (a)-[:T]->(b)"));
                };
                let (na, nb) = (self.node(&va)?, self.node(&vb)?);
                let spec = self.rel_spec(r, na, nb, "MERGE")?;
                ops.push(PlannedOp {
                    op: Op::MergeRel(spec),
                    var: r.var.as_ref().map(|v| v.name.clone()).unwrap_or_default(),
                    span: path.span,
                    when: None,
                });
                Ok(())
            }
            _ => Err(QueryError::unsupported(
                "MERGE of a path longer than one relationship",
                path.span,
            )
            .with_help("MERGE one node or one relationship per clause")),
        }
    }

    fn set_item(&mut self, it: &SetItem, ops: &mut Vec<PlannedOp>) -> PResult<()> {
        match it {
            SetItem::Property { var, key, value } => {
                let target = self.element(var)?;
                let value = self.value(value)?;
                let span = var.span.to(key.span);
                ops.push(op(
                    Op::SetProperty {
                        target,
                        key: key.name.clone(),
                        value,
                    },
                    var,
                    span,
                ));
            }
            SetItem::Labels { var, labels } => {
                let node = self.node(var)?;
                let labels = labels.iter().map(|l| l.name.clone()).collect();
                ops.push(op(Op::AddLabels { node, labels }, var, var.span));
            }
            SetItem::Map {
                var,
                value,
                replace,
            } => {
                let target = self.element(var)?;
                let entries = match &value.kind {
                    ExprKind::Map(entries) => MapSrc::Entries(self.props(entries)?),
                    ExprKind::Param(name) => match self.params.get(name) {
                        Some(crate::pattern::ParamValue::Map(m)) => MapSrc::Entries(
                            m.iter()
                                .map(|(k, v)| match v {
                                    crate::pattern::ParamValue::Scalar(x) => {
                                        Ok((k.clone(), ValueSrc::Const(x.clone())))
                                    }
                                    other => Err(QueryError::semantic(
                                        format!(
                                            "parameter `${name}`: entry `{k}` is {}: a property \
                                             is set to a number, string, boolean or null",
                                            other.kind_name()
                                        ),
                                        Some(value.span),
                                    )),
                                })
                                .collect::<PResult<_>>()?,
                        ),
                        _ => {
                            return Err(QueryError::semantic(
                                format!("parameter `${name}` is not a map"),
                                Some(value.span),
                            )
                            .with_class(crate::error::CypherClass::TypeError))
                        }
                    },
                    _ => match self.value(value)? {
                        ValueSrc::Column(c) => MapSrc::Column(c),
                        ValueSrc::Const(_) => {
                            return Err(QueryError::semantic(
                                "SET needs a map, a node or a relationship after `=` or `+=`",
                                Some(value.span),
                            )
                            .with_class(crate::error::CypherClass::TypeError))
                        }
                    },
                };
                ops.push(op(
                    Op::SetMap {
                        target,
                        entries,
                        replace: *replace,
                    },
                    var,
                    var.span,
                ));
            }
            SetItem::MergeMap { var, entries } => {
                let target = self.element(var)?;
                for (key, value) in self.props(entries)? {
                    ops.push(op(Op::SetProperty { target, key, value }, var, var.span));
                }
            }
        }
        Ok(())
    }

    fn remove_item(&mut self, it: &RemoveItem, ops: &mut Vec<PlannedOp>) -> PResult<()> {
        match it {
            RemoveItem::Property { var, key } => {
                let target = self.element(var)?;
                let span = var.span.to(key.span);
                ops.push(op(
                    Op::RemoveProperty {
                        target,
                        key: key.name.clone(),
                    },
                    var,
                    span,
                ));
            }
            RemoveItem::Labels { var, labels } => {
                let node = self.node(var)?;
                let labels = labels.iter().map(|l| l.name.clone()).collect();
                ops.push(op(Op::RemoveLabels { node, labels }, var, var.span));
            }
        }
        Ok(())
    }
}

fn op(op: Op, var: &Name, span: Span) -> PlannedOp {
    PlannedOp {
        op,
        var: var.name.clone(),
        span,
        when: None,
    }
}

fn aggregate_error(span: Span) -> QueryError {
    QueryError::semantic("aggregates cannot be written directly", Some(span))
        .with_help("compute the aggregate in a WITH clause and write its alias")
}

/// The labels of a node pattern to create: `:A:B`, no alternatives.
fn simple_labels(labels: &LabelExpr) -> PResult<Vec<String>> {
    labels
        .all_of
        .iter()
        .map(|group| match &group[..] {
            [l] => Ok(l.name.clone()),
            _ => Err(QueryError::semantic(
                "label alternatives (`|`) cannot be created",
                group.first().map(|l| l.span),
            )),
        })
        .collect()
}

/// Visits `e` and its sub-expressions (not the inside of pattern predicates and subqueries).
fn walk(e: &ast::Expr, f: &mut dyn FnMut(&ast::Expr)) {
    f(e);
    match &e.kind {
        ExprKind::List(items) => items.iter().for_each(|x| walk(x, f)),
        ExprKind::Property { base, .. } | ExprKind::HasLabels { base, .. } => walk(base, f),
        ExprKind::FunctionCall { args, .. } => args.iter().for_each(|x| walk(x, f)),
        ExprKind::Unary { expr, .. } | ExprKind::IsNull { expr, .. } => walk(expr, f),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::StringPredicate { lhs, rhs, .. } => {
            walk(lhs, f);
            walk(rhs, f);
        }
        ExprKind::In { expr, list } => {
            walk(expr, f);
            walk(list, f);
        }
        ExprKind::Case(case) => {
            let branches = case.branches.iter().flat_map(|(w, t)| [w, t]);
            case.subject
                .iter()
                .chain(branches)
                .chain(case.default.iter())
                .for_each(|x| walk(x, f));
        }
        ExprKind::Comprehension(c) => {
            walk(&c.list, f);
            c.filter.iter().chain(c.map.iter()).for_each(|x| walk(x, f));
        }
        ExprKind::Map(entries) => entries.iter().for_each(|e| walk(&e.value, f)),
        ExprKind::Index { base, index } => {
            walk(base, f);
            walk(index, f);
        }
        ExprKind::Slice { base, from, to } => {
            walk(base, f);
            from.iter().chain(to.iter()).for_each(|x| walk(x, f));
        }
        ExprKind::Literal(_)
        | ExprKind::Param(_)
        | ExprKind::Var(_)
        | ExprKind::CountStar
        | ExprKind::PatternPredicate(_)
        | ExprKind::Exists(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;
    use crate::pattern::parser::parse_rules;

    fn model() -> Model {
        let mut b = ModelBuilder::new();
        b.add_node("a", &["A"]);
        b.rel_type("R");
        b.freeze().unwrap()
    }

    #[test]
    fn variables_and_values_become_return_columns() {
        let stmt = &parse_rules("MATCH (a:A) CREATE (a)-[:R]->(n:N {v: a.x + 1}) SET n.k = 2, a:Z")
            .unwrap()[0];
        let p = plan(stmt, &model(), &Params::default()).unwrap();
        let read = p.read.unwrap().to_string();
        assert!(read.ends_with("RETURN a AS _c0, a.x + 1 AS _c1"), "{read}");
        assert_eq!(p.local_nodes, 1);
        let ops: Vec<&Op> = p.clauses.iter().flatten().map(|o| &o.op).collect();
        assert!(
            matches!(ops[0], Op::CreateNode(NodeSpec { slot: 0, props, .. })
            if props == &vec![("v".to_string(), ValueSrc::Column(1))])
        );
        assert!(matches!(
            ops[1],
            Op::CreateRel(RelSpec {
                src: NodeRef::Column(0),
                dst: NodeRef::Local(0),
                ..
            })
        ));
        assert!(matches!(
            ops[2],
            Op::SetProperty {
                target: ElemRef::Node(NodeRef::Local(0)),
                value: ValueSrc::Const(Value::Int(2)),
                ..
            }
        ));
        assert!(matches!(
            ops[3],
            Op::AddLabels {
                node: NodeRef::Column(0),
                ..
            }
        ));
    }

    #[test]
    fn unknown_names_in_match_mean_no_match() {
        let stmt = &parse_rules("MATCH (c:Couple)-[:R|X]->(a:A) DETACH DELETE c").unwrap()[0];
        let p = plan(stmt, &model(), &Params::default()).unwrap();
        assert_eq!(p.no_match.as_deref(), Some("label `Couple`"));
        let stmt = &parse_rules("MATCH (a:A)-[:R|X]->(b:A) DELETE a").unwrap()[0];
        let p = plan(stmt, &model(), &Params::default()).unwrap();
        assert_eq!(p.no_match, None);
        assert!(p.read.unwrap().to_string().contains("[:R]"));
    }
}
