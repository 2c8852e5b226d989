//! The binder: checks a parsed query against a model's schema and produces a [`BoundQuery`].
//!
//! - labels, relationship types and property keys are resolved; unknown ones are errors naming the
//!   nearest known names;
//! - variables become slots; a variable used twice is the same node;
//! - inline property maps become `WHERE` conjuncts; the `WHERE` is split into conjuncts;
//! - `$params` are substituted; `=~` patterns are compiled (whole-string match);
//! - `WITH`/`RETURN` become projection stages whose later expressions read earlier columns;
//! - a comparison whose sides can never be of comparable types (a string property with a number,
//!   a `--param` string with a number property, …) binds, but gives a [`QueryWarning`] (logged
//!   with `log::warn!` once per query, and returned by [`compile_with_warnings`] and
//!   [`bind_with_warnings`]): in Cypher such a comparison is never true (`<>`: always true).

use std::cell::{Cell, RefCell};

use hashbrown::HashMap;

use super::ast::{
    self, BinaryOp, ComprehensionKind, Direction, ExprKind, Literal, StringOp, UnaryOp,
};
use super::error::{nearest_names, QueryError};
use super::ir::{
    AggFn, ArithOp, BoundQuery, CaseOf, Clauses, CmpOp, Comprehension, ComprehensionOp, ErrorSlot,
    Expr, Func, ListFn, MatchStep, NodeVar, Pattern, ProjItem, Projection, ReadStep, RelVar, StrOp,
    SubPattern, UnionPart, VarLength, WholeRegex, MAX_HOPS, UNKNOWN_NAME,
};
use crate::model::{Model, PropType, Value};

/// Query parameters (`$name`), from the command line or an embedding program.
pub type Params = HashMap<String, ParamValue>;

pub use super::params::ParamValue;

/// Parses a `--param name=value` value leniently, as [`parse_param`] does, except that what
/// `parse_param` refuses (a number out of range) becomes the string `text`, with
/// a warning logged (`log::warn!`) saying so. Type-changing parses are warned about either way.
pub fn parse_param_value(text: &str) -> ParamValue {
    parse_param("", text).unwrap_or_else(|e| {
        log::warn!("{e}; it is passed as the string {text:?}");
        ParamValue::Scalar(Value::Str(text.to_owned()))
    })
}

/// Parses the value of `--param name=value`: a JSON scalar is typed (`42`, `1.5`, `true`, `null`,
/// `"x"`); other text is a string (`Jack`). Nothing changes type silently:
/// - a JSON list or map is a list or map parameter (`["Ann", "Bob"]`, `{"k": 1}`), its numbers
///   typed as above (an element out of range is refused);
/// - a JSON number out of range is refused (an integer beyond 64 bits, a float beyond `f64`):
///   it was a string or a rounded float;
/// - text that reads as a number but is not JSON (`007`, `+5`, `.5`, `NaN`) is the string, with a
///   warning (`log::warn!`) naming the number it is not.
pub fn parse_param(name: &str, text: &str) -> Result<ParamValue, String> {
    let shown = if name.is_empty() {
        format!("parameter value `{text}`")
    } else {
        format!("--param {name}={text}")
    };
    let quote = |what: &str| {
        format!(
            "{what}; to pass the text as a string, quote it as JSON: --param '{}=\"{text}\"'",
            if name.is_empty() { "NAME" } else { name }
        )
    };
    let trimmed = text.trim();
    // JSON's number syntax (which serde_json refuses beyond the float range).
    static JSON_NUMBER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let json_number = |t: &str| {
        JSON_NUMBER
            .get_or_init(|| {
                regex::Regex::new(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$")
                    .expect("a valid pattern")
            })
            .is_match(t)
    };
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v @ (serde_json::Value::Array(_) | serde_json::Value::Object(_))) => {
            json_param(&v).map_err(|e| quote(&format!("{shown}: {e}")))
        }
        Ok(v) => parse_scalar(v, text, &shown, &quote).map(ParamValue::Scalar),
        Err(_) if json_number(trimmed) => Err(quote(&format!(
            "{shown}: the number is out of the float range"
        ))),
        Err(_) => {
            let number = trimmed
                .parse::<i64>()
                .map(|i| i.to_string())
                .ok()
                .or_else(|| trimmed.parse::<f64>().ok().map(|f| format!("{f:?}")));
            if let Some(number) = number {
                let hint = if number.parse::<f64>().is_ok_and(|f| f.is_finite()) {
                    format!("write {number} for the number")
                } else {
                    "JSON numbers are finite".to_string()
                };
                log::warn!(
                    "{shown} is not a JSON number, so it is the string {text:?} ({hint}; quote it as \
                     JSON to pass the string without this warning)"
                );
            }
            Ok(ParamValue::Scalar(Value::Str(text.to_owned())))
        }
    }
}

/// A JSON list or map as a parameter value (numbers typed as [`parse_param`] types them).
fn json_param(v: &serde_json::Value) -> Result<ParamValue, String> {
    Ok(match v {
        serde_json::Value::Null => ParamValue::Scalar(Value::Null),
        serde_json::Value::Bool(b) => ParamValue::Scalar(Value::Bool(*b)),
        serde_json::Value::Number(n) => ParamValue::Scalar(match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(_)) => {
                return Err(format!(
                    "the integer {n} is out of range ({} to {})",
                    i64::MIN,
                    i64::MAX
                ))
            }
            _ => match n.as_f64() {
                Some(f) if f.is_finite() => Value::Float(f),
                _ => return Err(format!("the number {n} is out of the float range")),
            },
        }),
        serde_json::Value::String(s) => ParamValue::Scalar(Value::Str(s.clone())),
        serde_json::Value::Array(items) => {
            ParamValue::List(items.iter().map(json_param).collect::<Result<_, _>>()?)
        }
        serde_json::Value::Object(entries) => ParamValue::Map(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), json_param(v)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// A JSON scalar as [`parse_param`] types it.
fn parse_scalar(
    v: serde_json::Value,
    text: &str,
    shown: &str,
    quote: &dyn Fn(&str) -> String,
) -> Result<Value, String> {
    let trimmed = text.trim();
    match v {
        serde_json::Value::Null => Ok(Value::Null),
        serde_json::Value::Bool(b) => Ok(Value::Bool(b)),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                return Ok(Value::Int(i));
            }
            let integer = !trimmed.contains(['.', 'e', 'E']);
            match n.as_f64() {
                Some(f) if !integer && f.is_finite() => Ok(Value::Float(f)),
                _ if integer => Err(quote(&format!(
                    "{shown}: the integer is out of range ({} to {}); write it with a decimal point \
                     (`{trimmed}.0`) for a float",
                    i64::MIN,
                    i64::MAX
                ))),
                _ => Err(quote(&format!("{shown}: the number is out of the float range"))),
            }
        }
        serde_json::Value::String(s) => Ok(Value::Str(s)),
        _ => Ok(Value::Str(text.to_owned())),
    }
}

type BResult<T> = Result<T, QueryError>;

/// What a name refers to in the current scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    Node(usize),
    Rel(usize),
    Column(usize),
    /// The variable of a list comprehension (an [`Expr::Local`]).
    Local(usize),
    /// A named path: its [`Expr::Path`] in [`Binder::paths`].
    Path(usize),
}

struct Binder<'a> {
    model: &'a Model,
    params: &'a Params,
    node_props: Vec<String>,
    edge_props: Vec<String>,
    /// The kinds of value each node / edge property name holds (over all labels).
    node_kinds: HashMap<String, Vec<Kind>>,
    edge_kinds: HashMap<String, Vec<Kind>>,
    /// The query text, to quote expressions in warnings (absent when binding a bare AST).
    source: Option<&'a str>,
    warnings: RefCell<Vec<QueryWarning>>,
    /// Unknown property keys read as null, unknown labels and relationship types match nothing,
    /// instead of being errors (rule files: a property may be created by an earlier statement;
    /// [`bind_lenient`]).
    lenient_properties: bool,
    /// Values a row holds before the first projection (unwound values, variable-length
    /// relationship lists), while binding a query with [`Clauses`].
    columns: Cell<usize>,
    /// The variable-length relationships bound so far (see [`Clauses::var_length`]).
    var_lengths: RefCell<Vec<VarLength>>,
    /// Variable-length relationships are allowed (not in `EXISTS` and pattern predicates).
    allow_hops: Cell<bool>,
    /// The named paths' values ([`Binding::Path`]).
    paths: RefCell<Vec<Expr>>,
}

/// Something suspicious in a query that binds: reported, never an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryWarning {
    /// What is wrong, quoting the expression.
    pub message: String,
    /// Where the expression is.
    pub span: ast::Span,
}

impl std::fmt::Display for QueryWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.span.line, self.span.column, self.message
        )
    }
}

/// The kind of a value, as far as comparisons go: values of different kinds never compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    Str,
    Bool,
}

impl Kind {
    fn of_type(t: PropType) -> Kind {
        match t {
            PropType::Int | PropType::Float => Kind::Number,
            PropType::Str => Kind::Str,
            PropType::Bool => Kind::Bool,
        }
    }

    fn of_value(v: &Value) -> Option<Kind> {
        match v {
            Value::Int(_) | Value::Float(_) => Some(Kind::Number),
            Value::Str(_) => Some(Kind::Str),
            Value::Bool(_) => Some(Kind::Bool),
            Value::Null => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Number => "number",
            Kind::Str => "string",
            Kind::Bool => "boolean",
        }
    }
}

/// Parses and binds `source`. Warnings are logged (see [`compile_with_warnings`]).
pub fn compile(source: &str, model: &Model, params: &Params) -> BResult<BoundQuery> {
    compile_with_warnings(source, model, params).map(|(q, _)| q)
}

/// Parses and binds `source`, returning the query's warnings too (each is also logged once).
pub fn compile_with_warnings(
    source: &str,
    model: &Model,
    params: &Params,
) -> BResult<(BoundQuery, Vec<QueryWarning>)> {
    let ast = super::parse_query(source)?;
    bind_inner(&ast, model, params, Some(source), false)
}

/// Binds a parsed query against `model`. Warnings are logged (see [`bind_with_warnings`]).
pub fn bind(query: &ast::Query, model: &Model, params: &Params) -> BResult<BoundQuery> {
    bind_with_warnings(query, model, params).map(|(q, _)| q)
}

/// Binds a parsed query against `model`, returning its warnings too (each is also logged once).
pub fn bind_with_warnings(
    query: &ast::Query,
    model: &Model,
    params: &Params,
) -> BResult<(BoundQuery, Vec<QueryWarning>)> {
    bind_inner(query, model, params, None, false)
}

/// Binds a query parsed from `source` against `model` (warnings point into `source`): what a
/// prepared query does for each new set of parameters, without parsing again. `lenient`: property
/// keys the model does not have read as null (see [`bind_lenient`]).
pub fn bind_parsed(
    query: &ast::Query,
    source: &str,
    model: &Model,
    params: &Params,
    lenient: bool,
) -> BResult<(BoundQuery, Vec<QueryWarning>)> {
    bind_inner(query, model, params, Some(source), lenient)
}

/// Binds a parsed query against `model` like [`bind`], except that names the model does not have
/// are not errors: a property key reads as null, a label or relationship type in a pattern
/// matches nothing ([`UNKNOWN_NAME`]) and `n:Unknown` is false, as in Cypher. The read part of a
/// rule statement may test properties that an earlier statement creates (or that no element has
/// yet). Warnings are logged.
pub fn bind_lenient(query: &ast::Query, model: &Model, params: &Params) -> BResult<BoundQuery> {
    bind_inner(query, model, params, None, true).map(|(q, _)| q)
}

fn bind_inner(
    query: &ast::Query,
    model: &Model,
    params: &Params,
    source: Option<&str>,
    lenient_properties: bool,
) -> BResult<(BoundQuery, Vec<QueryWarning>)> {
    let schema = crate::model::Schema::properties_of(model);
    let kinds = |props: &[crate::model::PropertyInfo]| {
        let mut map: HashMap<String, Vec<Kind>> = HashMap::new();
        for p in props {
            let k = Kind::of_type(p.prop_type);
            let list = map.entry(p.name.clone()).or_default();
            if !list.contains(&k) {
                list.push(k);
            }
        }
        map
    };
    let node_kinds = kinds(&schema.node_properties);
    let edge_kinds = kinds(&schema.edge_properties);
    let mut node_props: Vec<String> = schema
        .node_properties
        .iter()
        .map(|p| p.name.clone())
        .collect();
    node_props.sort();
    node_props.dedup();
    let mut edge_props: Vec<String> = schema
        .edge_properties
        .iter()
        .map(|p| p.name.clone())
        .collect();
    edge_props.sort();
    edge_props.dedup();
    let b = Binder {
        model,
        params,
        node_props,
        edge_props,
        node_kinds,
        edge_kinds,
        source,
        warnings: RefCell::new(Vec::new()),
        lenient_properties,
        columns: Cell::new(0),
        var_lengths: RefCell::new(Vec::new()),
        allow_hops: Cell::new(false),
        paths: RefCell::new(Vec::new()),
    };
    let bound = b.query(query)?;
    let warnings = b.warnings.into_inner();
    for w in &warnings {
        log::warn!("query {w}");
    }
    Ok((bound, warnings))
}

/// The most relationships a graph may have for an unbounded variable-length relationship (`*`,
/// `*2..`): its walk goes as deep as the graph has relationships.
const MAX_UNBOUNDED_EDGES: u32 = 1024;

fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let near = nearest_names(name, known, 3);
    (!near.is_empty()).then(|| {
        let list: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
        format!("did you mean {}?", list.join(" or "))
    })
}

impl Binder<'_> {
    /// A query and the queries joined to it by `UNION [ALL]`, which must return the same columns.
    fn query(&self, q: &ast::Query) -> BResult<BoundQuery> {
        if q.union.is_empty() {
            return self.query_part(q);
        }
        let mut head = self.query_part(q)?;
        let columns = |b: &BoundQuery| -> Vec<String> {
            b.stages
                .last()
                .map(|s| s.items.iter().map(|i| i.name.clone()).collect())
                .unwrap_or_default()
        };
        let want = columns(&head);
        let mut parts = Vec::with_capacity(q.union.len());
        for next in &q.union {
            let part = self.query_part(&next.query)?;
            let got = columns(&part);
            if got != want {
                return Err(QueryError::semantic(
                    format!(
                        "the queries of a UNION must return the same columns in the same order: \
                         `{}` before, `{}` after",
                        want.join(", "),
                        got.join(", ")
                    ),
                    Some(next.span),
                )
                .with_help(
                    "rename the columns with AS so that every query returns the same names",
                ));
            }
            parts.push(UnionPart {
                all: next.all,
                query: part,
            });
        }
        head.clauses.get_or_insert_with(Default::default).union = parts;
        Ok(head)
    }

    /// One query (of a `UNION`).
    fn query_part(&self, q: &ast::Query) -> BResult<BoundQuery> {
        let extended = !q.leading.is_empty()
            || !q.trailing.is_empty()
            || q.with_clauses.iter().any(|w| !w.unwinds.is_empty())
            || q.matches
                .iter()
                .any(|p| p.rels.iter().any(|r| r.hops.is_some()));
        self.columns.set(0);
        self.var_lengths.borrow_mut().clear();
        self.allow_hops.set(extended);
        let mut pattern = Pattern::default();
        let mut scope: HashMap<String, Binding> = HashMap::new();
        let mut filter = Vec::new();
        let mut steps = Vec::new();
        if extended {
            for u in &q.leading {
                steps.push(self.unwind_step(u, &mut scope, &pattern)?);
            }
            if !q.matches.is_empty() {
                let step = self.match_step(
                    &q.matches,
                    q.where_clause.as_ref(),
                    false,
                    &mut pattern,
                    &mut scope,
                )?;
                steps.push(ReadStep::Match(step));
            }
            for clause in &q.trailing {
                steps.push(match clause {
                    ast::ReadingClause::Unwind(u) => self.unwind_step(u, &mut scope, &pattern)?,
                    ast::ReadingClause::OptionalMatch(m) => ReadStep::Match(self.match_step(
                        &m.paths,
                        m.where_clause.as_ref(),
                        true,
                        &mut pattern,
                        &mut scope,
                    )?),
                });
            }
        } else {
            for path in &q.matches {
                self.path(path, &mut pattern, &mut scope, &mut filter, 0)?;
            }
            if let Some(w) = &q.where_clause {
                let e = self.condition(w, &scope, &pattern)?;
                split_and(e, &mut filter);
            }
        }
        let mut unwinds_after = Vec::new();
        let mut stages = Vec::new();
        let mut scope_names: Vec<(String, Binding)> =
            scope.iter().map(|(k, v)| (k.clone(), *v)).collect();
        scope_names.sort_by_key(|(_, b)| match b {
            Binding::Node(s) => (0, *s),
            Binding::Rel(s) => (1, *s),
            Binding::Column(s) => (2, *s),
            Binding::Local(s) => (3, *s),
            Binding::Path(s) => (4, *s),
        });
        let mut current: HashMap<String, Binding> = scope.clone();
        for w in &q.with_clauses {
            let (proj, next) = self.projection(
                &w.projection,
                w.where_clause.as_ref(),
                &current,
                &pattern,
                &scope_names,
            )?;
            let mut next = next;
            let mut unwinds = Vec::new();
            for u in &w.unwinds {
                let list = self.expr(&u.list, &next, &pattern, false)?;
                let column = proj.items.len() + unwinds.len();
                bind_new(&mut next, &u.alias, Binding::Column(column))?;
                unwinds.push(list);
            }
            unwinds_after.push(unwinds);
            stages.push(proj);
            scope_names = next.iter().map(|(k, v)| (k.clone(), *v)).collect();
            scope_names.sort_by_key(|(_, b)| match b {
                Binding::Column(s) => *s,
                _ => 0,
            });
            current = next;
        }
        match &q.ret {
            Some(r) => {
                let (proj, _) = self.projection(r, None, &current, &pattern, &scope_names)?;
                stages.push(proj);
            }
            None if q.with_clauses.is_empty() => {
                let named: Vec<usize> = (0..pattern.nodes.len())
                    .filter(|&s| pattern.nodes[s].named)
                    .collect();
                let slots: Vec<usize> = if named.is_empty() {
                    (0..pattern.nodes.len()).collect()
                } else {
                    named
                };
                stages.push(Projection {
                    items: slots
                        .into_iter()
                        .map(|s| ProjItem {
                            expr: Expr::Id(Box::new(Expr::Node(s))),
                            name: pattern.nodes[s].name.clone(),
                        })
                        .collect(),
                    distinct: false,
                    filter: None,
                    order_by: Vec::new(),
                    skip: None,
                    limit: None,
                });
            }
            None => {
                return Err(QueryError::semantic(
                    "a query with WITH must end with RETURN",
                    Some(q.span),
                ))
            }
        }
        let clauses = extended.then(|| {
            Box::new(Clauses {
                steps,
                columns: self.columns.get(),
                unwinds_after,
                var_length: self.var_lengths.take(),
                union: Vec::new(),
            })
        });
        Ok(BoundQuery {
            pattern,
            filter,
            stages,
            clauses,
        })
    }

    /// `UNWIND list AS x` over the variables in `scope`: `x` becomes a new column.
    fn unwind_step(
        &self,
        u: &ast::Unwind,
        scope: &mut HashMap<String, Binding>,
        pattern: &Pattern,
    ) -> BResult<ReadStep> {
        let list = self.expr(&u.list, scope, pattern, false)?;
        let column = self.new_column();
        bind_new(scope, &u.alias, Binding::Column(column))?;
        Ok(ReadStep::Unwind { list, column })
    }

    /// A new column of the rows before the first projection.
    fn new_column(&self) -> usize {
        let c = self.columns.get();
        self.columns.set(c + 1);
        c
    }

    /// The `MATCH` clauses before the first `OPTIONAL MATCH` (as one step), or one `OPTIONAL MATCH`.
    fn match_step(
        &self,
        paths: &[ast::PathPattern],
        where_clause: Option<&ast::Expr>,
        optional: bool,
        pattern: &mut Pattern,
        scope: &mut HashMap<String, Binding>,
    ) -> BResult<MatchStep> {
        let (nodes_before, rels_before) = (pattern.nodes.len(), pattern.rels.len());
        let mut filter = Vec::new();
        let mut old_nodes = Vec::new();
        for path in paths {
            for n in &path.nodes {
                let bound = n.var.as_ref().and_then(|v| scope.get(&v.name));
                if let Some(Binding::Node(s)) = bound {
                    if *s < nodes_before && !old_nodes.contains(s) {
                        old_nodes.push(*s);
                    }
                }
            }
            self.path(path, pattern, scope, &mut filter, nodes_before)?;
        }
        if let Some(w) = where_clause {
            let e = self.condition(w, scope, pattern)?;
            split_and(e, &mut filter);
        }
        Ok(MatchStep {
            optional,
            new_nodes: (nodes_before..pattern.nodes.len()).collect(),
            old_nodes,
            rels: (rels_before..pattern.rels.len()).collect(),
            filter,
        })
    }

    /// The hop bounds of a variable-length relationship, checked (min above max: an empty
    /// interval).
    fn hop_bounds(&self, hops: &ast::Hops) -> BResult<(u32, u32)> {
        if !self.allow_hops.get() {
            return Err(QueryError::unsupported(
                "a variable-length relationship inside EXISTS or a pattern predicate",
                hops.span,
            ));
        }
        let min = hops.min.unwrap_or(1);
        let max = match hops.max {
            Some(max) => max,
            // Unbounded: a path repeats no relationship (Cypher's semantics) and no inner node
            // (isomorphism), so it has at most as many hops as the graph has relationships (or
            // 2: there and back along one). Homomorphism is refused when the query runs.
            None => {
                let edges = self.model.edge_count() as u64;
                if edges > u64::from(MAX_UNBOUNDED_EDGES) {
                    return Err(QueryError::semantic(
                        format!(
                            "an unbounded variable-length relationship on a graph of more than \
                             {MAX_UNBOUNDED_EDGES} relationships"
                        ),
                        Some(hops.span),
                    )
                    .with_help(format!("write `*{min}..k` with k at most {MAX_HOPS}")));
                }
                edges.max(2).max(min)
            }
        };
        if hops.max.is_some() && max > u64::from(MAX_HOPS) {
            return Err(QueryError::semantic(
                format!("hop bounds must satisfy 0 <= min <= max <= {MAX_HOPS}"),
                Some(hops.span),
            ));
        }
        // `*2..1`: an empty interval (no path), given back as `(max + 1, max)` for the caller
        // to match nothing.
        if max < min {
            return Ok((max as u32 + 1, max as u32));
        }
        Ok((min as u32, max as u32))
    }

    /// The label ids of `:A:B|C…`; when binding leniently, a label the model lacks is
    /// [`UNKNOWN_NAME`] (no node has it), else an error.
    fn labels(&self, l: &ast::LabelExpr) -> BResult<Vec<Vec<u32>>> {
        l.all_of
            .iter()
            .map(|group| {
                group
                    .iter()
                    .map(|n| match resolve(self.model.labels(), n, "label") {
                        Err(_) if self.lenient_properties => Ok(UNKNOWN_NAME),
                        other => other,
                    })
                    .collect()
            })
            .collect()
    }

    /// A pattern node's label groups without the labels the model lacks, and whether a group
    /// had only such labels (then no node matches).
    fn pattern_labels(&self, l: &ast::LabelExpr) -> BResult<(Vec<Vec<u32>>, bool)> {
        let mut impossible = false;
        let mut groups = Vec::new();
        for mut group in self.labels(l)? {
            group.retain(|&id| id != UNKNOWN_NAME);
            if group.is_empty() {
                impossible = true;
            } else {
                groups.push(group);
            }
        }
        Ok((groups, impossible))
    }

    /// The type ids of `[:A|B…]`, each once (a repeated type must not multiply named matches),
    /// and whether types were written but the model has none of them (leniently bound: then no
    /// relationship matches; otherwise an unknown type is an error).
    fn rel_types(&self, types: &[ast::Name]) -> BResult<(Vec<u32>, bool)> {
        let mut distinct = Vec::with_capacity(types.len());
        for n in types {
            let t = match resolve(self.model.rel_types(), n, "relationship type") {
                Ok(t) => t,
                Err(_) if self.lenient_properties => continue,
                Err(e) => return Err(e),
            };
            if !distinct.contains(&t) {
                distinct.push(t);
            }
        }
        let impossible = !types.is_empty() && distinct.is_empty();
        Ok((distinct, impossible))
    }

    fn check_property(&self, key: &ast::Name, on_rel: Option<bool>) -> BResult<()> {
        let known: Vec<&str> = match on_rel {
            Some(true) => self.edge_props.iter().map(String::as_str).collect(),
            Some(false) => self.node_props.iter().map(String::as_str).collect(),
            None => self
                .node_props
                .iter()
                .chain(&self.edge_props)
                .map(String::as_str)
                .collect(),
        };
        if self.lenient_properties || known.contains(&key.name.as_str()) {
            return Ok(());
        }
        let what = match on_rel {
            Some(true) => "relationship property",
            Some(false) => "node property",
            None => "property",
        };
        let mut e = QueryError::semantic(format!("unknown {what} `{}`", key.name), Some(key.span));
        if let Some(h) = did_you_mean(&key.name, known) {
            e = e.with_help(h);
        }
        Err(e)
    }

    /// Adds a path's nodes and relationships; inline properties become conjuncts. Labels written
    /// on a node bound by an earlier step (slot below `fixed`) become conjuncts too: they filter
    /// this step's matches, not the earlier ones.
    fn path(
        &self,
        path: &ast::PathPattern,
        pattern: &mut Pattern,
        scope: &mut HashMap<String, Binding>,
        filter: &mut Vec<Expr>,
        fixed: usize,
    ) -> BResult<()> {
        let mut slots = Vec::with_capacity(path.nodes.len());
        for n in &path.nodes {
            let (labels, impossible) = self.pattern_labels(&n.labels)?;
            let slot = match &n.var {
                Some(v) => match scope.get(&v.name) {
                    Some(Binding::Node(s)) if *s < fixed => {
                        if !labels.is_empty() {
                            filter.push(Expr::HasLabels(Box::new(Expr::Node(*s)), labels));
                        }
                        *s
                    }
                    Some(Binding::Node(s)) => {
                        pattern.nodes[*s].labels.extend(labels);
                        *s
                    }
                    Some(Binding::Column(_)) => {
                        return Err(QueryError::semantic(
                            format!("`{}` is a value, not a node", v.name),
                            Some(v.span),
                        ))
                    }
                    Some(Binding::Path(_)) => {
                        return Err(QueryError::semantic(
                            format!("`{}` is a path, not a node", v.name),
                            Some(v.span),
                        )
                        .with_class(crate::error::CypherClass::SyntaxError))
                    }
                    Some(Binding::Rel(_)) => {
                        return Err(QueryError::semantic(
                            format!("`{}` is a relationship variable, not a node", v.name),
                            Some(v.span),
                        )
                        .with_class(crate::error::CypherClass::SyntaxError))
                    }
                    Some(_) => {
                        return Err(QueryError::semantic(
                            format!("`{}` is not a node variable", v.name),
                            Some(v.span),
                        ))
                    }
                    None => {
                        let s = pattern.nodes.len();
                        pattern.nodes.push(NodeVar {
                            name: v.name.clone(),
                            named: true,
                            labels,
                        });
                        scope.insert(v.name.clone(), Binding::Node(s));
                        s
                    }
                },
                None => {
                    let s = pattern.nodes.len();
                    pattern.nodes.push(NodeVar {
                        name: format!("_n{s}"),
                        named: false,
                        labels,
                    });
                    s
                }
            };
            if impossible {
                // A label the model lacks: no node matches.
                filter.push(Expr::HasLabels(
                    Box::new(Expr::Node(slot)),
                    vec![vec![UNKNOWN_NAME]],
                ));
            }
            for p in &n.props {
                self.check_property(&p.key, Some(false))?;
                let value = self.expr(&p.value, scope, pattern, false)?;
                filter.push(Expr::Compare(
                    CmpOp::Eq,
                    Box::new(Expr::Property(
                        Box::new(Expr::Node(slot)),
                        p.key.name.clone(),
                    )),
                    Box::new(value),
                ));
            }
            slots.push(slot);
        }
        // A named path's parts: its nodes and, between them, its relationships (a
        // variable-length one as the column of its relationship list).
        let mut parts = vec![Expr::Node(slots[0])];
        for (i, r) in path.rels.iter().enumerate() {
            let (types, impossible) = self.rel_types(&r.types)?;
            let (left, right) = (slots[i], slots[i + 1]);
            let (src, dst) = match r.direction {
                Direction::Left => (right, left),
                _ => (left, right),
            };
            let slot = pattern.rels.len();
            let mut hops = r.hops.as_ref().map(|h| self.hop_bounds(h)).transpose()?;
            if let Some((min, max)) = hops {
                if min > max {
                    // An empty hop interval (`*2..1`): no path, so this pattern matches nothing.
                    hops = Some((max, max));
                    filter.push(Expr::HasLabels(
                        Box::new(Expr::Node(right)),
                        vec![vec![UNKNOWN_NAME]],
                    ));
                }
            }
            match hops {
                // A variable-length relationship of no type the model has still matches with
                // zero hops: not handled.
                Some((0, _)) if impossible => {
                    let unknown = r.types.first().map_or(String::new(), |t| t.name.clone());
                    return Err(QueryError::semantic(
                        format!(
                            "unknown relationship type `{unknown}` on a variable-length \
                             relationship that may have no hop"
                        ),
                        r.types.first().map(|t| t.span),
                    ));
                }
                // At least one hop of a type the model lacks: this pattern matches nothing.
                Some(_) if impossible => filter.push(Expr::HasLabels(
                    Box::new(Expr::Node(right)),
                    vec![vec![UNKNOWN_NAME]],
                )),
                _ => {}
            }
            if let (Some(_), Some(p)) = (hops, r.props.first()) {
                return Err(QueryError::unsupported(
                    "a property map on a variable-length relationship",
                    p.key.span,
                )
                .with_help("test the relationships' properties in a later WITH or UNWIND"));
            }
            let (name, named) = match &r.var {
                Some(v) => {
                    if let Some(b) = scope.get(&v.name) {
                        let e = QueryError::semantic(
                            format!("variable `{}` is already bound; a relationship variable can be used in one place only", v.name),
                            Some(v.span),
                        );
                        // A node or path variable used as a relationship is Cypher's error too.
                        return Err(match b {
                            Binding::Node(_) | Binding::Path(_) => {
                                e.with_class(crate::error::CypherClass::SyntaxError)
                            }
                            _ => e,
                        });
                    }
                    let binding = match hops {
                        Some(_) => Binding::Column(self.new_column()),
                        None => Binding::Rel(slot),
                    };
                    scope.insert(v.name.clone(), binding);
                    (v.name.clone(), true)
                }
                None => (format!("_r{slot}"), false),
            };
            if let Some((min, max)) = hops {
                let column = match r.var.as_ref().and_then(|v| scope.get(&v.name)) {
                    Some(Binding::Column(c)) => Some(*c),
                    // A named path needs the list of an anonymous one too.
                    _ if path.name.is_some() => Some(self.new_column()),
                    _ => None,
                };
                parts.push(column.map_or(Expr::Literal(Value::Null), Expr::Column));
                self.var_lengths.borrow_mut().push(VarLength {
                    rel: slot,
                    min,
                    max,
                    column,
                    unbounded: r.hops.as_ref().is_some_and(|h| h.max.is_none()),
                });
            }
            if hops.is_none() {
                parts.push(Expr::Rel(slot));
            }
            parts.push(Expr::Node(slots[i + 1]));
            // A named path reads every relationship: each match must be its own row.
            let named = named || !r.props.is_empty() || path.name.is_some();
            pattern.rels.push(RelVar {
                name,
                named,
                src,
                dst,
                types,
                undirected: r.direction == Direction::Both,
                clause: path.clause,
            });
            if impossible && hops.is_none() {
                // No relationship has a type the model lacks (`r:T` of an unknown `T` is false).
                filter.push(Expr::HasLabels(
                    Box::new(Expr::Rel(slot)),
                    vec![vec![UNKNOWN_NAME]],
                ));
            }
            for p in &r.props {
                self.check_property(&p.key, Some(true))?;
                let value = self.expr(&p.value, scope, pattern, false)?;
                filter.push(Expr::Compare(
                    CmpOp::Eq,
                    Box::new(Expr::Property(
                        Box::new(Expr::Rel(slot)),
                        p.key.name.clone(),
                    )),
                    Box::new(value),
                ));
            }
        }
        if let Some(name) = &path.name {
            if scope.contains_key(&name.name) {
                return Err(QueryError::semantic(
                    format!("variable `{}` is already bound", name.name),
                    Some(name.span),
                )
                .with_class(crate::error::CypherClass::SyntaxError));
            }
            let mut paths = self.paths.borrow_mut();
            scope.insert(name.name.clone(), Binding::Path(paths.len()));
            paths.push(Expr::Path(parts));
        }
        Ok(())
    }

    /// The value a variable bound as `b` reads.
    fn binding_expr(&self, b: Binding) -> Expr {
        match b {
            Binding::Node(s) => Expr::Node(s),
            Binding::Rel(s) => Expr::Rel(s),
            Binding::Column(c) => Expr::Column(c),
            Binding::Local(l) => Expr::Local(l),
            Binding::Path(p) => self.path_value(p),
        }
    }

    /// The value of named path `p` ([`Binding::Path`]).
    fn path_value(&self, p: usize) -> Expr {
        self.paths
            .borrow()
            .get(p)
            .cloned()
            .unwrap_or(Expr::Literal(Value::Null))
    }

    /// The kinds of value a bound expression can have, when the binder knows them: a literal or
    /// parameter's kind, or the kinds a property holds in the model. `None`: unknown.
    fn kinds(&self, e: &Expr) -> Option<Vec<Kind>> {
        match e {
            Expr::Literal(v) => Kind::of_value(v).map(|k| vec![k]),
            Expr::Property(base, key) => match **base {
                Expr::Node(_) => self.node_kinds.get(key).cloned(),
                Expr::Rel(_) => self.edge_kinds.get(key).cloned(),
                _ => None,
            },
            _ => None,
        }
    }

    /// Records a warning when comparison `e` (`op` of `lhs` and `rhs`, bound as `l` and `r`)
    /// compares values of kinds that never compare: never true (`<>`: always true).
    fn check_comparison(
        &self,
        op: BinaryOp,
        e: &ast::Expr,
        (lhs, l): (&ast::Expr, &Expr),
        (rhs, r): (&ast::Expr, &Expr),
    ) {
        let always = match op {
            BinaryOp::Eq | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                "never true"
            }
            BinaryOp::Ne => "always true",
            _ => return,
        };
        let (Some(lk), Some(rk)) = (self.kinds(l), self.kinds(r)) else {
            return;
        };
        if lk.iter().any(|k| rk.contains(k)) {
            return;
        }
        let side = |a: &ast::Expr, b: &Expr, kinds: &[Kind]| {
            let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            let names = names.join(" or ");
            match (&a.kind, b) {
                (ExprKind::Param(p), Expr::Literal(v)) => {
                    format!("${p} (the {names} {})", shown(v))
                }
                (_, Expr::Property(..)) => format!("a {names} property"),
                _ => format!("a {names}"),
            }
        };
        let message = format!(
            "`{}` compares {} with {}: it is {always}",
            self.text_of(e),
            side(lhs, l, &lk),
            side(rhs, r, &rk)
        );
        let mut warnings = self.warnings.borrow_mut();
        if !warnings
            .iter()
            .any(|w| w.span == e.span && w.message == message)
        {
            warnings.push(QueryWarning {
                message,
                span: e.span,
            });
        }
    }

    /// Records a warning when the right side of `x IN list` (`list`, bound as `bound`) is a
    /// literal or parameter that is not a list (nor null): `IN` is then never true.
    fn check_in_list(&self, e: &ast::Expr, list: &ast::Expr, bound: &Expr) {
        let Expr::Literal(v) = bound else { return };
        let Some(kind) = Kind::of_value(v) else {
            return;
        };
        let what = match &list.kind {
            ExprKind::Param(p) => format!("${p} (the {} {})", kind.name(), shown(v)),
            _ => format!("a {}", kind.name()),
        };
        let message = format!(
            "`{}` looks for a value in {what}, which is not a list: it is never true",
            self.text_of(e)
        );
        self.warnings.borrow_mut().push(QueryWarning {
            message,
            span: e.span,
        });
    }

    /// The query text of `e` (a short rendering when the text is not at hand).
    fn text_of(&self, e: &ast::Expr) -> String {
        if let Some(t) = self.source.and_then(|s| s.get(e.span.start..e.span.end)) {
            return t.to_owned();
        }
        fn render(e: &ast::Expr) -> String {
            match &e.kind {
                ExprKind::Var(v) => v.clone(),
                ExprKind::Param(p) => format!("${p}"),
                ExprKind::Property { base, key } => format!("{}.{}", render(base), key.name),
                ExprKind::Literal(l) => shown(&literal(l)),
                ExprKind::Binary { lhs, rhs, .. } => format!("{} … {}", render(lhs), render(rhs)),
                _ => "…".into(),
            }
        }
        render(e)
    }

    fn param(&self, name: &str, span: ast::Span) -> BResult<&ParamValue> {
        self.params.get(name).ok_or_else(|| {
            QueryError::semantic(format!("parameter `${name}` has no value"), Some(span))
                .with_help(format!("give it with --param {name}=VALUE"))
                .with_class(crate::error::CypherClass::ParameterMissing)
        })
    }

    /// A scalar parameter (`SKIP $n`, `LIMIT $n`): a list or map is an error.
    fn scalar_param(&self, name: &str, span: ast::Span) -> BResult<Value> {
        match self.param(name, span)? {
            ParamValue::Scalar(v) => Ok(v.clone()),
            other => Err(QueryError::semantic(
                format!(
                    "parameter `${name}` is {}; a number is needed here",
                    other.kind_name()
                ),
                Some(span),
            )
            .with_class(crate::error::CypherClass::TypeError)),
        }
    }

    /// The expression a parameter value (named `shown` in messages) binds to: a scalar is a
    /// literal, a list a list of its elements; a map is an error unless read by key
    /// ([`Binder::param_path`]).
    fn param_expr(&self, shown: &str, v: &ParamValue, span: ast::Span) -> BResult<Expr> {
        Ok(match v {
            ParamValue::Scalar(v) => Expr::Literal(v.clone()),
            ParamValue::List(items) => Expr::List(
                items
                    .iter()
                    .map(|i| self.param_expr(shown, i, span))
                    .collect::<BResult<_>>()?,
            ),
            ParamValue::Map(_) => {
                return Err(QueryError::semantic(
                    format!(
                        "`{shown}` holds a map, which gemp reads only by key here (`{shown}.key`)"
                    ),
                    Some(span),
                ))
            }
        })
    }

    /// The parameter value `e` reads when it is `$p` or a key of a map parameter (`$m.k`,
    /// `$m.k.j`), with its text for messages; `None` for any other expression. A missing key
    /// reads as null (as Cypher reads a map); a key of a value that is not a map is a
    /// `TypeError`.
    fn param_path(&self, e: &ast::Expr) -> BResult<Option<(String, ParamValue)>> {
        match &e.kind {
            ExprKind::Param(name) => Ok(Some((
                format!("${name}"),
                self.param(name, e.span)?.clone(),
            ))),
            ExprKind::Property { base, key } => {
                let Some((shown, value)) = self.param_path(base)? else {
                    return Ok(None);
                };
                let shown = format!("{shown}.{}", key.name);
                match value {
                    ParamValue::Map(mut entries) => {
                        let v = entries
                            .remove(&key.name)
                            .unwrap_or(ParamValue::Scalar(Value::Null));
                        Ok(Some((shown, v)))
                    }
                    ParamValue::Scalar(Value::Null) => {
                        Ok(Some((shown, ParamValue::Scalar(Value::Null))))
                    }
                    other => Err(QueryError::semantic(
                        format!(
                            "`{shown}` reads a key of {}, which is not a map",
                            other.kind_name()
                        ),
                        Some(e.span),
                    )
                    .with_class(crate::error::CypherClass::TypeError)),
                }
            }
            _ => Ok(None),
        }
    }

    /// Binds an expression. `in_projection` allows aggregates.
    fn expr(
        &self,
        e: &ast::Expr,
        scope: &HashMap<String, Binding>,
        pattern: &Pattern,
        in_projection: bool,
    ) -> BResult<Expr> {
        let rec = |x: &ast::Expr| self.expr(x, scope, pattern, in_projection);
        let boxed = |x: &ast::Expr| rec(x).map(Box::new);
        Ok(match &e.kind {
            ExprKind::Literal(l) => Expr::Literal(literal(l)),
            ExprKind::List(items) => Expr::List(items.iter().map(rec).collect::<BResult<_>>()?),
            ExprKind::Param(name) => {
                self.param_expr(&format!("${name}"), self.param(name, e.span)?, e.span)?
            }
            ExprKind::Var(name) => match scope.get(name) {
                Some(Binding::Node(s)) => Expr::Node(*s),
                Some(Binding::Rel(s)) => Expr::Rel(*s),
                Some(Binding::Column(c)) => Expr::Column(*c),
                Some(Binding::Local(l)) => Expr::Local(*l),
                Some(Binding::Path(p)) => self.path_value(*p),
                None => {
                    let mut err = QueryError::semantic(
                        format!("variable `{name}` is not defined"),
                        Some(e.span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError);
                    if let Some(h) = did_you_mean(name, scope.keys().map(String::as_str)) {
                        err = err.with_help(h);
                    }
                    return Err(err);
                }
            },
            ExprKind::Property { base, key } => {
                if let Some((shown, v)) = self.param_path(e)? {
                    return self.param_expr(&shown, &v, e.span);
                }
                let b = rec(base)?;
                if matches!(b, Expr::Path(_)) {
                    return Err(QueryError::semantic(
                        format!("a path has no properties (`.{}`)", key.name),
                        Some(e.span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError));
                }
                let on_rel = match b {
                    Expr::Node(_) => Some(false),
                    Expr::Rel(_) => Some(true),
                    _ => None,
                };
                // A column may hold a map, whose keys are no properties of the graph.
                if matches!(b, Expr::Node(_) | Expr::Rel(_)) {
                    self.check_property(key, on_rel)?;
                    Expr::Property(Box::new(b), key.name.clone())
                } else {
                    // A value that is no node, relationship or map fails the query.
                    self.checked(Expr::Property(Box::new(b), key.name.clone()))
                }
            }
            ExprKind::HasLabels { base, labels } => {
                Expr::HasLabels(boxed(base)?, self.labels(labels)?)
            }
            ExprKind::FunctionCall {
                name,
                distinct,
                args,
            } => self.function(name, *distinct, args, e.span, scope, pattern, in_projection)?,
            ExprKind::CountStar => {
                if !in_projection {
                    return Err(QueryError::semantic(
                        "count(*) is only allowed in WITH and RETURN",
                        Some(e.span),
                    ));
                }
                Expr::Aggregate {
                    func: AggFn::Count,
                    distinct: false,
                    arg: None,
                }
            }
            ExprKind::Unary { op, expr } => match op {
                UnaryOp::Not => {
                    boolean_operand(expr, "NOT")?;
                    Expr::Not(boxed(expr)?)
                }
                UnaryOp::Neg => Expr::Neg(boxed(expr)?),
            },
            ExprKind::Binary { op, lhs, rhs } => {
                if matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor) {
                    boolean_operand(lhs, op.symbol())?;
                    boolean_operand(rhs, op.symbol())?;
                }
                let (l, r) = (rec(lhs)?, rec(rhs)?);
                self.check_comparison(*op, e, (lhs, &l), (rhs, &r));
                let cmp = |c| Expr::Compare(c, Box::new(l.clone()), Box::new(r.clone()));
                // Arithmetic is strict: `1 / 0`, an overflow or `'a' + 1` fail the query with
                // Cypher's error instead of reading as null.
                let ar = |a| self.checked(Expr::Arith(a, Box::new(l.clone()), Box::new(r.clone())));
                match op {
                    BinaryOp::And => {
                        let mut v = Vec::new();
                        split_and(l, &mut v);
                        split_and(r, &mut v);
                        Expr::And(v)
                    }
                    BinaryOp::Or => {
                        let mut v = Vec::new();
                        for x in [l, r] {
                            match x {
                                Expr::Or(items) => v.extend(items),
                                other => v.push(other),
                            }
                        }
                        Expr::Or(v)
                    }
                    BinaryOp::Xor => Expr::Xor(Box::new(l), Box::new(r)),
                    BinaryOp::Eq => cmp(CmpOp::Eq),
                    BinaryOp::Ne => cmp(CmpOp::Ne),
                    BinaryOp::Lt => cmp(CmpOp::Lt),
                    BinaryOp::Le => cmp(CmpOp::Le),
                    BinaryOp::Gt => cmp(CmpOp::Gt),
                    BinaryOp::Ge => cmp(CmpOp::Ge),
                    BinaryOp::Add => ar(ArithOp::Add),
                    BinaryOp::Sub => ar(ArithOp::Sub),
                    BinaryOp::Mul => ar(ArithOp::Mul),
                    BinaryOp::Div => ar(ArithOp::Div),
                    BinaryOp::Mod => ar(ArithOp::Mod),
                }
            }
            ExprKind::StringPredicate { op, lhs, rhs } => {
                let l = boxed(lhs)?;
                match op {
                    StringOp::Contains => Expr::Str(StrOp::Contains, l, boxed(rhs)?),
                    StringOp::StartsWith => Expr::Str(StrOp::StartsWith, l, boxed(rhs)?),
                    StringOp::EndsWith => Expr::Str(StrOp::EndsWith, l, boxed(rhs)?),
                    StringOp::Regex => {
                        let pat = match rec(rhs)? {
                            Expr::Literal(Value::Str(s)) => s,
                            _ => {
                                return Err(QueryError::semantic(
                                    "the right side of =~ must be a string literal or a string parameter",
                                    Some(rhs.span),
                                ))
                            }
                        };
                        let re = regex::Regex::new(&format!("^(?:{pat})$")).map_err(|err| {
                            QueryError::semantic(
                                format!("invalid regular expression: {err}"),
                                Some(rhs.span),
                            )
                        })?;
                        Expr::Regex(l, WholeRegex(re))
                    }
                }
            }
            ExprKind::In { expr, list: l } => {
                let bound = boxed(l)?;
                self.check_in_list(e, l, &bound);
                // A long list of literals is hashed once, not scanned per row.
                let list = Box::new(super::literal_set::LiteralSet::hash_if_literal(*bound));
                Expr::In(boxed(expr)?, list)
            }
            ExprKind::IsNull { expr, negated } => Expr::IsNull(boxed(expr)?, *negated),
            ExprKind::PatternPredicate(path) => {
                pattern_predicate_check(path, scope)?;
                Expr::Exists(Box::new(self.sub_pattern(
                    std::slice::from_ref(path),
                    None,
                    scope,
                )?))
            }
            ExprKind::Exists(sub) => Expr::Exists(Box::new(self.sub_pattern(
                &sub.matches,
                sub.where_clause.as_ref(),
                scope,
            )?)),
            ExprKind::Comprehension(c) => {
                let list = rec(&c.list)?;
                let local = scope
                    .values()
                    .filter_map(|b| match b {
                        Binding::Local(l) => Some(l + 1),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0);
                let mut inner = scope.clone();
                inner.insert(c.var.name.clone(), Binding::Local(local));
                let sub = |x: &ast::Expr| self.expr(x, &inner, pattern, false);
                let op = match c.kind {
                    ComprehensionKind::List => ComprehensionOp::List,
                    ComprehensionKind::Any => ComprehensionOp::Any,
                    ComprehensionKind::All => ComprehensionOp::All,
                    ComprehensionKind::None => ComprehensionOp::None,
                    ComprehensionKind::Single => ComprehensionOp::Single,
                };
                let filter = c.filter.as_ref().map(sub).transpose()?;
                let map = c.map.as_ref().map(sub).transpose()?;
                if filter
                    .iter()
                    .chain(&map)
                    .any(|e| misused_local(&list, local, e))
                {
                    return Err(QueryError::semantic(
                        format!(
                            "`{}` takes the list's strings or booleans, which arithmetic cannot take",
                            c.var.name
                        ),
                        Some(c.var.span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError));
                }
                self.checked(Expr::Comprehension(Box::new(Comprehension {
                    op,
                    local,
                    list,
                    filter,
                    map,
                })))
            }
            ExprKind::Map(entries) => {
                let mut out: Vec<(String, Expr)> = Vec::new();
                for entry in entries {
                    if out.iter().any(|(k, _)| *k == entry.key.name) {
                        return Err(QueryError::unsupported(
                            "a map literal with a repeated key",
                            entry.key.span,
                        ));
                    }
                    out.push((entry.key.name.clone(), rec(&entry.value)?));
                }
                Expr::Map(out)
            }
            ExprKind::Index { base, index } => {
                self.checked(Expr::Index(boxed(base)?, boxed(index)?))
            }
            ExprKind::Slice { base, from, to } => self.checked(Expr::Slice(
                boxed(base)?,
                from.as_deref().map(boxed).transpose()?,
                to.as_deref().map(boxed).transpose()?,
            )),
            ExprKind::Case(case) => {
                let branches = case
                    .branches
                    .iter()
                    .map(|(w, t)| Ok((rec(w)?, rec(t)?)))
                    .collect::<BResult<Vec<_>>>()?;
                Expr::Case(Box::new(CaseOf {
                    subject: case.subject.as_ref().map(&rec).transpose()?,
                    branches,
                    default: case.default.as_ref().map(&rec).transpose()?,
                }))
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn function(
        &self,
        name: &ast::Name,
        distinct: bool,
        args: &[ast::Expr],
        span: ast::Span,
        scope: &HashMap<String, Binding>,
        pattern: &Pattern,
        in_projection: bool,
    ) -> BResult<Expr> {
        let lower = name.name.to_lowercase();
        // A pattern is a condition, not a list of paths: `head((n)-->())` means nothing.
        if !matches!(lower.as_str(), "exists" | "size") {
            if let Some(path) = args.iter().find_map(|a| match &a.kind {
                ExprKind::PatternPredicate(path) => Some(path),
                _ => None,
            }) {
                return Err(QueryError::semantic(
                    format!("a pattern cannot be an argument of {lower}(): it is a condition, not a value"),
                    Some(path.span),
                )
                .with_class(crate::error::CypherClass::SyntaxError));
            }
        }
        let one = |what: &str| -> BResult<Expr> {
            match args {
                [a] => self.expr(a, scope, pattern, false),
                _ => Err(QueryError::semantic(
                    format!("{what}() takes exactly one argument"),
                    Some(span),
                )
                .with_class(crate::error::CypherClass::SyntaxError)),
            }
        };
        let agg = match lower.as_str() {
            "count" => Some(AggFn::Count),
            "min" => Some(AggFn::Min),
            "max" => Some(AggFn::Max),
            "avg" => Some(AggFn::Avg),
            "sum" => Some(AggFn::Sum),
            "collect" => Some(AggFn::Collect),
            _ => None,
        };
        if let Some(func) = agg {
            if !in_projection {
                return Err(QueryError::semantic(
                    format!("aggregate {lower}() is only allowed in WITH and RETURN"),
                    Some(span),
                ));
            }
            return Ok(Expr::Aggregate {
                func,
                distinct,
                arg: Some(Box::new(one(&lower)?)),
            });
        }
        if distinct {
            return Err(QueryError::semantic(
                format!("DISTINCT is only allowed in aggregates, not in {lower}()"),
                Some(span),
            ));
        }
        match lower.as_str() {
            "length" | "nodes" | "relationships" => {
                let arg = one(&lower)?;
                // A node or relationship variable is never a path: known before the query runs.
                if matches!(arg, Expr::Node(_) | Expr::Rel(_)) {
                    return Err(QueryError::semantic(
                        format!("{lower}() takes a path, not a node or relationship"),
                        Some(span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError));
                }
                let func = match lower.as_str() {
                    "length" => ListFn::Length,
                    "nodes" => ListFn::Nodes,
                    _ => ListFn::Relationships,
                };
                Ok(self.checked(Expr::ListFn(func, vec![arg])))
            }
            "size" => match args {
                [ast::Expr {
                    kind: ExprKind::PatternPredicate(path),
                    ..
                }] => Err(QueryError::semantic(
                    "size() of a pattern: count its matches with COUNT { … } instead",
                    Some(path.span),
                )
                .with_class(crate::error::CypherClass::SyntaxError)),
                _ => match one("size")? {
                    Expr::Path(_) => Err(QueryError::semantic(
                        "size() of a path: its length is length(p)",
                        Some(span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError)),
                    arg => Ok(Expr::ListFn(ListFn::Size, vec![arg])),
                },
            },
            "range" => match args {
                [_, _] | [_, _, _] => {
                    range_literals(args)?;
                    Ok(Expr::ListFn(
                        ListFn::Range,
                        args.iter()
                            .map(|a| self.expr(a, scope, pattern, false))
                            .collect::<BResult<_>>()?,
                    ))
                }
                _ => Err(
                    QueryError::semantic("range() takes two or three arguments", Some(span))
                        .with_class(crate::error::CypherClass::SyntaxError),
                ),
            },
            _ if Func::of_name(&lower).is_some() => {
                let Some((func, fewest, most)) = Func::of_name(&lower) else {
                    unreachable!("checked by the guard")
                };
                if args.len() < fewest || args.len() > most {
                    return Err(QueryError::semantic(
                        format!("{}() takes {fewest} to {most} arguments", name.name),
                        Some(span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError));
                }
                let args: Vec<Expr> = args
                    .iter()
                    .map(|a| self.expr(a, scope, pattern, false))
                    .collect::<BResult<_>>()?;
                // `properties(1)`, `properties('x')`, `properties([…])`: known wrong before the
                // query runs.
                if func == Func::Properties
                    && matches!(
                        args.first(),
                        Some(Expr::List(_) | Expr::LiteralSet(_))
                            | Some(Expr::Literal(
                                Value::Int(_) | Value::Float(_) | Value::Str(_) | Value::Bool(_)
                            ))
                    )
                {
                    return Err(QueryError::semantic(
                        "properties() takes a node, a relationship or a map",
                        Some(span),
                    )
                    .with_class(crate::error::CypherClass::SyntaxError));
                }
                Ok(self.checked(Expr::Func(func, args)))
            }
            "id" => Ok(Expr::Id(Box::new(one("id")?))),
            "type" => Ok(self.checked(Expr::TypeName(Box::new(one("type")?)))),
            "labels" => match one("labels")? {
                Expr::Path(_) => Err(QueryError::semantic(
                    "labels() takes a node, not a path",
                    Some(span),
                )
                .with_class(crate::error::CypherClass::SyntaxError)),
                arg => Ok(self.checked(Expr::LabelNames(Box::new(arg)))),
            },
            _ => Err(
                QueryError::unsupported(&format!("function `{}`", name.name), name.span)
                    .with_help("see the function table in docs/query-language.md"),
            ),
        }
    }

    /// `e`, evaluated strictly: an error fails the query (see [`BoundQuery::take_error`]) instead
    /// of reading as null.
    fn checked(&self, e: Expr) -> Expr {
        Expr::Checked(Box::new(e), ErrorSlot::new())
    }

    /// A sub-pattern (`EXISTS`, pattern predicate): outer variables it mentions become anchors.
    fn sub_pattern(
        &self,
        paths: &[ast::PathPattern],
        where_clause: Option<&ast::Expr>,
        outer: &HashMap<String, Binding>,
    ) -> BResult<SubPattern> {
        let mut pattern = Pattern::default();
        let mut scope: HashMap<String, Binding> = HashMap::new();
        let mut anchors = Vec::new();
        // Pre-bind outer node variables the sub-pattern mentions, with no extra labels.
        for path in paths {
            for n in &path.nodes {
                if let Some(v) = &n.var {
                    if scope.contains_key(&v.name) {
                        continue;
                    }
                    match outer.get(&v.name) {
                        Some(Binding::Node(o)) => {
                            let s = pattern.nodes.len();
                            pattern.nodes.push(NodeVar {
                                name: v.name.clone(),
                                named: true,
                                labels: Vec::new(),
                            });
                            scope.insert(v.name.clone(), Binding::Node(s));
                            anchors.push((*o, s));
                        }
                        Some(_) => {
                            return Err(QueryError::unsupported(
                                "a WITH column or relationship inside EXISTS",
                                v.span,
                            ))
                        }
                        None => {}
                    }
                }
            }
        }
        let mut filter = Vec::new();
        if let Some(name) = paths.iter().find_map(|p| p.name.as_ref()) {
            return Err(QueryError::unsupported(
                "a named path inside EXISTS or a pattern predicate",
                name.span,
            ));
        }
        let allow_hops = self.allow_hops.replace(false);
        for path in paths {
            let bound = self.path(path, &mut pattern, &mut scope, &mut filter, 0);
            if bound.is_err() {
                self.allow_hops.set(allow_hops);
            }
            bound?;
        }
        self.allow_hops.set(allow_hops);
        if let Some(w) = where_clause {
            let e = self.condition(w, &scope, &pattern)?;
            split_and(e, &mut filter);
        }
        Ok(SubPattern {
            anchors,
            pattern,
            filter,
        })
    }

    fn count_arg(&self, e: &ast::Expr) -> BResult<Option<u64>> {
        let v = match &e.kind {
            ExprKind::Literal(Literal::Int(i)) => Value::Int(*i),
            ExprKind::Param(p) => self.scalar_param(p, e.span)?,
            _ => {
                return Err(QueryError::semantic(
                    "SKIP and LIMIT take an integer or a parameter",
                    Some(e.span),
                ))
            }
        };
        match v {
            Value::Int(i) if i >= 0 => Ok(Some(i as u64)),
            _ => Err(QueryError::semantic(
                "SKIP and LIMIT take a non-negative integer",
                Some(e.span),
            )),
        }
    }

    /// A `WHERE` condition: an expression that can be a boolean (a node, a relationship or a
    /// literal of another type is a `SyntaxError`, as in Cypher).
    fn condition(
        &self,
        w: &ast::Expr,
        scope: &HashMap<String, Binding>,
        pattern: &Pattern,
    ) -> BResult<Expr> {
        boolean_operand(w, "WHERE")?;
        let e = self.expr(w, scope, pattern, false)?;
        if matches!(e, Expr::Node(_) | Expr::Rel(_)) {
            return Err(QueryError::semantic(
                "WHERE takes a boolean, not a node or relationship",
                Some(w.span),
            )
            .with_class(crate::error::CypherClass::SyntaxError));
        }
        Ok(e)
    }

    /// Binds a WITH/RETURN projection; returns it and the scope it creates (its column names).
    fn projection(
        &self,
        p: &ast::Projection,
        where_clause: Option<&ast::Expr>,
        scope: &HashMap<String, Binding>,
        pattern: &Pattern,
        scope_names: &[(String, Binding)],
    ) -> BResult<(Projection, HashMap<String, Binding>)> {
        let mut items = Vec::new();
        if p.star {
            for (name, b) in scope_names {
                if name.starts_with('_') {
                    continue;
                }
                let expr = self.binding_expr(*b);
                items.push(ProjItem {
                    expr,
                    name: name.clone(),
                });
            }
            // Cypher's `*` lists the variables by name.
            items.sort_by(|a, b| a.name.cmp(&b.name));
        }
        for it in &p.items {
            if let ExprKind::PatternPredicate(path) = &it.expr.kind {
                return Err(QueryError::semantic(
                    "a pattern cannot be returned or projected (count or test it with EXISTS { … })",
                    Some(path.span),
                )
                .with_class(crate::error::CypherClass::SyntaxError));
            }
            let expr = self.expr(&it.expr, scope, pattern, true)?;
            if let Expr::Aggregate { arg, .. } = &expr {
                if arg.as_ref().is_some_and(|a| a.has_aggregate()) {
                    return Err(QueryError::semantic(
                        "aggregates cannot be nested",
                        Some(it.span),
                    ));
                }
            } else if expr.has_aggregate() {
                return Err(QueryError::unsupported(
                    "an aggregate inside a larger expression (make it its own item with AS)",
                    it.span,
                ));
            }
            // Without `AS`, the column is named by the expression exactly as written.
            let written = self
                .source
                .and_then(|s| s.get(it.expr.span.start..it.expr.span.end))
                .filter(|t| !t.is_empty());
            let name = match (&it.alias, written) {
                (Some(a), _) => a.name.clone(),
                (None, Some(text)) => text.to_string(),
                (None, None) => it.expr.to_string(),
            };
            items.push(ProjItem { expr, name });
        }
        if items.is_empty() {
            return Err(QueryError::semantic("nothing to return", Some(p.span)));
        }
        let next: HashMap<String, Binding> = items
            .iter()
            .enumerate()
            .map(|(i, it)| (it.name.clone(), Binding::Column(i)))
            .collect();
        let filter = match where_clause.map(|w| self.condition(w, &next, pattern)) {
            None => None,
            Some(Ok(f)) => Some(f),
            // `WITH c WHERE r IS NULL`: the WHERE of a WITH that neither aggregates nor drops
            // duplicates also sees the variables before it. They ride along as hidden columns
            // (named so that no variable can refer to them, and not in the next scope).
            Some(Err(e)) => {
                let plain = !p.distinct && !items.iter().any(|i| i.expr.has_aggregate());
                let Some(w) = where_clause.filter(|_| plain) else {
                    return Err(e);
                };
                let mut seen = next.clone();
                let mut earlier: Vec<(&String, &Binding)> = scope
                    .iter()
                    .filter(|(k, _)| !next.contains_key(*k))
                    .collect();
                earlier.sort_by(|a, b| a.0.cmp(b.0));
                for (name, b) in earlier {
                    seen.insert(name.clone(), Binding::Column(items.len()));
                    items.push(ProjItem {
                        expr: self.binding_expr(*b),
                        name: format!(" {name}"),
                    });
                }
                Some(self.condition(w, &seen, pattern)?)
            }
        };
        let mut order_by = Vec::new();
        for s in &p.order_by {
            let text = s.expr.to_string();
            let expr = match items.iter().position(|i| i.name == text) {
                Some(c) => Expr::Column(c),
                None => self.expr(&s.expr, &next, pattern, false).map_err(|e| {
                    e.with_help(
                        "ORDER BY can use returned items, their aliases, and expressions over them",
                    )
                })?,
            };
            order_by.push((expr, s.descending));
        }
        let skip = p
            .skip
            .as_ref()
            .map(|e| self.count_arg(e))
            .transpose()?
            .flatten();
        let limit = p
            .limit
            .as_ref()
            .map(|e| self.count_arg(e))
            .transpose()?
            .flatten();
        Ok((
            Projection {
                items,
                distinct: p.distinct,
                filter,
                order_by,
                skip,
                limit,
            },
            next,
        ))
    }
}

/// `range()`'s literal arguments checked as Cypher checks them when it runs: each an integer
/// (`ArgumentError`), the step not 0 (`ArgumentError`). Other arguments are checked at run time
/// (a wrong one gives null).
fn range_literals(args: &[ast::Expr]) -> BResult<()> {
    for (i, a) in args.iter().enumerate() {
        let bad = match &a.kind {
            ExprKind::Literal(Literal::Int(0)) if i == 2 => {
                Some("the step of range() must not be 0")
            }
            ExprKind::Literal(Literal::Int(_) | Literal::Null) => None,
            ExprKind::Unary {
                op: UnaryOp::Neg,
                expr,
            } if matches!(expr.kind, ExprKind::Literal(Literal::Int(_))) => None,
            ExprKind::Literal(_) | ExprKind::List(_) | ExprKind::Map(_) => {
                Some("range() takes integers")
            }
            _ => None,
        };
        if let Some(message) = bad {
            return Err(QueryError::semantic(message, Some(a.span))
                .with_class(crate::error::CypherClass::ArgumentError));
        }
    }
    Ok(())
}

/// A `SyntaxError` when `e`, an operand of a boolean operator, is a literal that is not a boolean
/// (`123 AND true`); null and non-literals are left to run time.
fn boolean_operand(e: &ast::Expr, op: &str) -> BResult<()> {
    let what = match &e.kind {
        ExprKind::Literal(Literal::Int(_)) => "an integer",
        ExprKind::Literal(Literal::Float(_)) => "a float",
        ExprKind::Literal(Literal::String(_)) => "a string",
        ExprKind::List(_) => "a list",
        ExprKind::Map(_) => "a map",
        _ => return Ok(()),
    };
    Err(
        QueryError::semantic(format!("{op} takes booleans, not {what}"), Some(e.span))
            .with_class(crate::error::CypherClass::SyntaxError),
    )
}

/// A pattern used as a boolean may not introduce variables (Cypher's `UndefinedVariable`; use
/// `EXISTS { … }` for that) and must have a relationship (`WHERE (n)` is not a pattern test).
fn pattern_predicate_check(
    path: &ast::PathPattern,
    scope: &HashMap<String, Binding>,
) -> BResult<()> {
    if path.rels.is_empty() {
        return Err(QueryError::semantic(
            "a pattern used as a condition needs a relationship",
            Some(path.span),
        )
        .with_class(crate::error::CypherClass::SyntaxError));
    }
    let names = path
        .nodes
        .iter()
        .filter_map(|n| n.var.as_ref())
        .chain(path.rels.iter().filter_map(|r| r.var.as_ref()));
    for name in names {
        if !scope.contains_key(&name.name) {
            return Err(QueryError::semantic(
                format!("variable `{}` is not defined", name.name),
                Some(name.span),
            )
            .with_help("a pattern used as a condition cannot introduce variables; use EXISTS { … }")
            .with_class(crate::error::CypherClass::SyntaxError));
        }
    }
    Ok(())
}

/// True when `e` applies arithmetic to local `local` (a comprehension's variable) while `list`
/// is a literal list of strings only (`+` concatenates them: allowed) or of booleans only: a type
/// error known before the query runs, as Cypher reports it (`x IN ['a'] WHERE x % 2 = 0`).
fn misused_local(list: &Expr, local: usize, e: &Expr) -> bool {
    let items: &[Expr] = match list {
        Expr::List(items) => items,
        _ => return false,
    };
    let all = |f: fn(&Value) -> bool| {
        !items.is_empty() && items.iter().all(|i| matches!(i, Expr::Literal(v) if f(v)))
    };
    let strings = all(|v| matches!(v, Value::Str(_)));
    let booleans = all(|v| matches!(v, Value::Bool(_)));
    if !strings && !booleans {
        return false;
    }
    let is_local = |x: &Expr| matches!(x, Expr::Local(l) if *l == local);
    let mut found = false;
    e.walk(&mut |x| match x {
        Expr::Arith(op, a, b) if is_local(a) || is_local(b) => {
            found |= booleans || *op != ArithOp::Add;
        }
        Expr::Neg(a) if is_local(a) => found = true,
        _ => {}
    });
    found
}

/// The id of `name` in `interner`, or an "unknown {what}" error suggesting the nearest names.
fn resolve(interner: &crate::model::Interner, name: &ast::Name, what: &str) -> BResult<u32> {
    interner.get(&name.name).ok_or_else(|| {
        let e = QueryError::semantic(format!("unknown {what} `{}`", name.name), Some(name.span));
        match did_you_mean(&name.name, interner.names().iter().map(String::as_str)) {
            Some(h) => e.with_help(h),
            None => e,
        }
    })
}

fn literal(l: &Literal) -> Value {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Float(f) => Value::Float(*f),
        Literal::String(s) => Value::Str(s.clone()),
    }
}

/// Flattens nested ANDs into `out`.
/// A value as a query would write it (strings quoted).
fn shown(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{s:?}"),
        other => other.as_ref().to_string(),
    }
}

/// Binds `alias` to `binding` in `scope`; an error when the name is taken.
fn bind_new(
    scope: &mut HashMap<String, Binding>,
    alias: &ast::Name,
    binding: Binding,
) -> BResult<()> {
    if scope.contains_key(&alias.name) {
        return Err(QueryError::semantic(
            format!("variable `{}` is already bound", alias.name),
            Some(alias.span),
        ));
    }
    scope.insert(alias.name.clone(), binding);
    Ok(())
}

fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::And(items) => items.into_iter().for_each(|i| split_and(i, out)),
        other => out.push(other),
    }
}
