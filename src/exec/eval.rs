//! Evaluation of bound expressions over a match (node and relationship bindings) or over a projected
//! row, with Cypher's three-valued logic: comparisons with null give null, and a `WHERE` keeps a match
//! only when its condition is `true`.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde::Serialize;

use crate::error::CypherClass;
use crate::model::{Model, Value, ValueRef};
use crate::pattern::ir::{
    ArithOp, CmpOp, Comprehension, ComprehensionOp, Expr, Func, ListFn, LiteralSet, StrOp,
    MAX_RANGE, NULL_ID,
};

use super::functions::{call, index, slice};
use super::temporal::{self, Temporal};

/// A runtime value: a property value, a node or relationship, or a list.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'m> {
    /// Null.
    Null,
    /// Boolean.
    Bool(bool),
    /// Integer.
    Int(i64),
    /// Float.
    Float(f64),
    /// String (borrowed from the model where possible).
    Str(Cow<'m, str>),
    /// A node id.
    Node(u32),
    /// A relationship (edge) id.
    Rel(u32),
    /// A list.
    List(Vec<Val<'m>>),
    /// A map: distinct keys with their values, in the order written.
    Map(Vec<(String, Val<'m>)>),
    /// A date, time, datetime or duration (boxed: the other values stay small).
    Temporal(Box<Temporal>),
    /// A path (a named path `p = (…)`).
    Path(Box<PathVal>),
}

/// A path's nodes and relationships: `rels[i]` joins `nodes[i]` and `nodes[i + 1]` (either way),
/// so a path of length k has k + 1 nodes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathVal {
    /// The nodes, from the path's start.
    pub nodes: Vec<u32>,
    /// The relationships between them.
    pub rels: Vec<u32>,
}

impl<'m> Val<'m> {
    /// From a model value.
    pub fn from_ref(v: ValueRef<'m>) -> Self {
        match v {
            ValueRef::Null => Val::Null,
            ValueRef::Bool(b) => Val::Bool(b),
            ValueRef::Int(i) => Val::Int(i),
            ValueRef::Float(f) => Val::Float(f),
            ValueRef::Str(s) => Val::Str(Cow::Borrowed(s)),
        }
    }

    /// From an owned literal.
    pub fn from_value(v: &Value) -> Val<'static> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Int(i) => Val::Int(*i),
            Value::Float(f) => Val::Float(*f),
            Value::Str(s) => Val::Str(Cow::Owned(s.clone())),
        }
    }

    /// A literal as a value that borrows its string (comparing a long string literal per row
    /// must not copy it per row).
    pub fn borrowed(v: &Value) -> Val<'_> {
        match v {
            Value::Str(s) => Val::Str(Cow::Borrowed(s)),
            other => Val::from_value(other),
        }
    }

    /// True for null.
    pub fn is_null(&self) -> bool {
        matches!(self, Val::Null)
    }

    /// A total order used by ORDER BY, DISTINCT and grouping: Cypher's orderability, values of
    /// different types ordered node < relationship < list < path < temporal < string < boolean < number
    /// < null (lists element by element, a shorter prefix first; NaN after every other number;
    /// temporal values as [`Temporal::sort_cmp`]).
    pub fn sort_cmp(&self, other: &Val<'_>) -> Ordering {
        fn rank(v: &Val<'_>) -> u8 {
            match v {
                Val::Map(_) => 0,
                Val::Node(_) => 0,
                Val::Rel(_) => 1,
                Val::List(_) => 2,
                Val::Path(_) => 3,
                Val::Temporal(_) => 4,
                Val::Str(_) => 5,
                Val::Bool(_) => 6,
                Val::Int(_) | Val::Float(_) => 7,
                Val::Null => 8,
            }
        }
        match (self, other) {
            (Val::Bool(a), Val::Bool(b)) => a.cmp(b),
            (Val::Int(a), Val::Int(b)) => a.cmp(b),
            (Val::Int(a), Val::Float(b)) => number_order(*a as f64, *b),
            (Val::Float(a), Val::Int(b)) => number_order(*a, *b as f64),
            (Val::Float(a), Val::Float(b)) => number_order(*a, *b),
            (Val::Str(a), Val::Str(b)) => a.cmp(b),
            (Val::Temporal(a), Val::Temporal(b)) => a.sort_cmp(b),
            (Val::Node(a), Val::Node(b)) | (Val::Rel(a), Val::Rel(b)) => a.cmp(b),
            (Val::Path(a), Val::Path(b)) => a.cmp(b),
            (Val::Map(a), Val::Map(b)) => {
                let sorted = |m: &[(String, Val<'_>)]| {
                    let mut v: Vec<(String, Val<'static>)> = m
                        .iter()
                        .map(|(k, x)| (k.clone(), x.clone().into_owned()))
                        .collect();
                    v.sort_by(|p, q| p.0.cmp(&q.0));
                    v
                };
                let (a, b) = (sorted(a), sorted(b));
                for ((ka, xa), (kb, xb)) in a.iter().zip(&b) {
                    let c = ka.cmp(kb).then_with(|| xa.sort_cmp(xb));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Val::Map(_), Val::Node(_)) => Ordering::Less,
            (Val::Node(_), Val::Map(_)) => Ordering::Greater,
            (Val::List(a), Val::List(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let c = x.sort_cmp(y);
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => rank(self).cmp(&rank(other)),
        }
    }

    /// Detaches from the model's borrow.
    pub fn into_owned(self) -> Val<'static> {
        match self {
            Val::Null => Val::Null,
            Val::Bool(b) => Val::Bool(b),
            Val::Int(i) => Val::Int(i),
            Val::Float(f) => Val::Float(f),
            Val::Str(s) => Val::Str(Cow::Owned(s.into_owned())),
            Val::Node(n) => Val::Node(n),
            Val::Rel(r) => Val::Rel(r),
            Val::List(v) => Val::List(v.into_iter().map(Val::into_owned).collect()),
            Val::Map(m) => Val::Map(m.into_iter().map(|(k, v)| (k, v.into_owned())).collect()),
            Val::Path(p) => Val::Path(p),
            Val::Temporal(t) => Val::Temporal(t),
        }
    }
}

/// Cypher's order of numbers: by value, NaN (of either sign) after every other number.
fn number_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.total_cmp(&b),
    }
}

/// Serializes as JSON scalars; nodes and relationships as `{"node": id}` / `{"rel": id}`; temporal
/// values as their ISO 8601 text (as Cypher's `toString` gives it).
impl Serialize for Val<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Val::Null => s.serialize_none(),
            Val::Bool(b) => s.serialize_bool(*b),
            Val::Int(i) => s.serialize_i64(*i),
            Val::Float(f) => s.serialize_f64(*f),
            Val::Str(x) => s.serialize_str(x),
            Val::Node(n) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("node", n)?;
                m.end()
            }
            Val::Rel(r) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("rel", r)?;
                m.end()
            }
            Val::List(v) => v.serialize(s),
            Val::Path(p) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("nodes", &p.nodes)?;
                m.serialize_entry("rels", &p.rels)?;
                m.end()
            }
            Val::Temporal(t) => s.collect_str(t),
            Val::Map(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

impl std::fmt::Display for Val<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Null => f.write_str("null"),
            Val::Bool(b) => write!(f, "{b}"),
            Val::Int(i) => write!(f, "{i}"),
            Val::Float(x) => write!(f, "{x}"),
            Val::Str(s) => f.write_str(s),
            Val::Node(n) => write!(f, "({n})"),
            Val::Rel(r) => write!(f, "[{r}]"),
            Val::Temporal(t) => write!(f, "{t}"),
            Val::List(v) => {
                f.write_str("[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Val::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, x)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {x}")?;
                }
                f.write_str("}")
            }
            Val::Path(p) => {
                f.write_str("<")?;
                for (i, n) in p.nodes.iter().enumerate() {
                    if let Some(r) = i.checked_sub(1).and_then(|j| p.rels.get(j)) {
                        write!(f, "-[{r}]-")?;
                    }
                    write!(f, "({n})")?;
                }
                f.write_str(">")
            }
        }
    }
}

/// Answers `EXISTS { … }` sub-patterns during evaluation (implemented by the matcher).
pub trait ExistsOracle {
    /// True when `sub` has a match extending the outer binding `nodes`/`rels`.
    fn exists(&self, sub: &crate::pattern::ir::SubPattern, nodes: &[u32], rels: &[u32]) -> bool;
}

/// What expressions are evaluated against.
pub struct Env<'a, 'm> {
    /// The model.
    pub model: &'m Model,
    /// Node bindings by slot.
    pub nodes: &'a [u32],
    /// Relationship bindings by slot.
    pub rels: &'a [u32],
    /// The current projected row (after `WITH`).
    pub row: &'a [Val<'m>],
    /// Evaluates sub-patterns.
    pub exists: Option<&'a dyn ExistsOracle>,
    /// The elements list comprehensions are at ([`Expr::Local`]), outermost first.
    pub locals: &'a [Val<'m>],
}

fn truth(v: &Val<'_>) -> Option<bool> {
    match v {
        Val::Bool(b) => Some(*b),
        _ => None,
    }
}

fn of_truth(t: Option<bool>) -> Val<'static> {
    t.map_or(Val::Null, Val::Bool)
}

/// Cypher comparison: `None` = null (incomparable or a null operand).
pub fn compare(op: CmpOp, a: &Val<'_>, b: &Val<'_>) -> Option<bool> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if let (Val::Str(x), Val::Str(y), CmpOp::Eq | CmpOp::Ne) = (a, b, op) {
        // Equality compares lengths first: a string of a megabyte is not read against every
        // row's value.
        return Some((x == y) == (op == CmpOp::Eq));
    }
    let ord = match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some(x.cmp(y)),
        (Val::Int(x), Val::Float(y)) => (*x as f64).partial_cmp(y),
        (Val::Float(x), Val::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Val::Float(x), Val::Float(y)) => x.partial_cmp(y),
        (Val::Str(x), Val::Str(y)) => Some(x.cmp(y)),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        (Val::Temporal(x), Val::Temporal(y)) => {
            return match op {
                CmpOp::Eq => Some(x.equals(y)),
                CmpOp::Ne => Some(!x.equals(y)),
                _ => x.compare(y).map(|ord| order_holds(op, ord)),
            }
        }
        (Val::Node(x), Val::Node(y)) | (Val::Rel(x), Val::Rel(y)) => {
            return match op {
                CmpOp::Eq => Some(x == y),
                CmpOp::Ne => Some(x != y),
                _ => None,
            }
        }
        (Val::Path(x), Val::Path(y)) => {
            return match op {
                CmpOp::Eq => Some(x == y),
                CmpOp::Ne => Some(x != y),
                _ => None,
            }
        }
        (Val::Map(x), Val::Map(y)) => {
            return match op {
                CmpOp::Eq => map_equal(x, y),
                CmpOp::Ne => map_equal(x, y).map(|e| !e),
                _ => None,
            };
        }
        (Val::List(x), Val::List(y)) => {
            return match op {
                CmpOp::Eq => list_equal(x, y),
                CmpOp::Ne => list_equal(x, y).map(|e| !e),
                _ => list_order(x, y).map(|ord| order_holds(op, ord)),
            };
        }
        _ => {
            return match op {
                CmpOp::Eq => Some(false),
                CmpOp::Ne => Some(true),
                _ => None,
            }
        }
    };
    // Numbers without an order are NaN: unequal to everything, itself included.
    let Some(ord) = ord else {
        return Some(op == CmpOp::Ne);
    };
    Some(order_holds(op, ord))
}

/// Whether `op` holds for operands ordered `ord`.
fn order_holds(op: CmpOp, ord: Ordering) -> bool {
    match op {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne => ord != Ordering::Equal,
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
    }
}

/// Cypher's list equality: lists of different lengths are unequal; otherwise unequal when a pair
/// of elements is, else null when a pair compares to null, else equal.
fn list_equal(x: &[Val<'_>], y: &[Val<'_>]) -> Option<bool> {
    if x.len() != y.len() {
        return Some(false);
    }
    all_equal(x.iter().zip(y).map(Some))
}

/// Cypher's map equality: maps with different keys are unequal; otherwise as lists of their
/// values, key by key.
fn map_equal(x: &[(String, Val<'_>)], y: &[(String, Val<'_>)]) -> Option<bool> {
    if x.len() != y.len() {
        return Some(false);
    }
    all_equal(
        x.iter()
            .map(|(k, a)| y.iter().find(|(kb, _)| kb == k).map(|(_, b)| (a, b))),
    )
}

/// Equality of paired elements: unequal when a pair is missing (`None`) or unequal, else null
/// when a pair compares to null, else equal.
fn all_equal<'v, 'm: 'v>(
    pairs: impl Iterator<Item = Option<(&'v Val<'m>, &'v Val<'m>)>>,
) -> Option<bool> {
    let mut null = false;
    for pair in pairs {
        let Some((a, b)) = pair else {
            return Some(false);
        };
        match compare(CmpOp::Eq, a, b) {
            Some(false) => return Some(false),
            None => null = true,
            Some(true) => {}
        }
    }
    (!null).then_some(true)
}

/// Cypher's list ordering (`<`, `>`…): element by element, the first unequal pair decides (null
/// when it is not comparable), a list before its extensions.
fn list_order(x: &[Val<'_>], y: &[Val<'_>]) -> Option<Ordering> {
    for (a, b) in x.iter().zip(y) {
        match compare(CmpOp::Eq, a, b) {
            Some(true) => continue,
            _ => {
                return match (compare(CmpOp::Lt, a, b), compare(CmpOp::Gt, a, b)) {
                    (Some(true), _) => Some(Ordering::Less),
                    (_, Some(true)) => Some(Ordering::Greater),
                    _ => None,
                }
            }
        }
    }
    Some(x.len().cmp(&y.len()))
}

/// Applies a string predicate (`None` = null: a non-string or null operand).
pub fn string_op(op: StrOp, a: &Val<'_>, b: &Val<'_>) -> Option<bool> {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => Some(match op {
            StrOp::Contains => x.contains(y.as_ref()),
            StrOp::StartsWith => x.starts_with(y.as_ref()),
            StrOp::EndsWith => x.ends_with(y.as_ref()),
        }),
        _ => None,
    }
}

/// Why a value could not be computed: an integer overflow, an integer division by zero, operands
/// of the wrong types (see [`Env::try_eval`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// What went wrong, quoting the values.
    pub message: String,
    /// Its openCypher class: `TypeError` for operands of the wrong types, `ArithmeticError` for
    /// an integer overflow or division by zero, `ArgumentError` for an argument out of a
    /// function's domain.
    pub class: CypherClass,
}

/// A [`CypherClass::TypeError`] (the commonest evaluation error: a value of the wrong type),
/// written like a tuple-struct constructor, `EvalError(message)`.
#[allow(non_snake_case)]
pub fn EvalError(message: String) -> EvalError {
    EvalError::new(message, CypherClass::TypeError)
}

impl EvalError {
    /// An error of `class`.
    pub fn new(message: String, class: CypherClass) -> Self {
        EvalError { message, class }
    }

    /// An [`CypherClass::ArithmeticError`]: integer overflow, integer division by zero.
    pub fn arithmetic(message: String) -> Self {
        EvalError::new(message, CypherClass::ArithmeticError)
    }

    /// An [`CypherClass::ArgumentError`]: an argument out of a function's domain.
    pub fn argument(message: String) -> Self {
        EvalError::new(message, CypherClass::ArgumentError)
    }
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// The operator as written.
fn op_text(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::Mod => "%",
    }
}

/// A value as a message shows it (strings quoted).
pub(crate) fn shown(v: &Val<'_>) -> String {
    match v {
        Val::Str(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

/// The kind of value, for messages.
pub(crate) fn kind_name(v: &Val<'_>) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "a boolean",
        Val::Int(_) => "an integer",
        Val::Float(_) => "a float",
        Val::Str(_) => "a string",
        Val::Node(_) => "a node",
        Val::Rel(_) => "a relationship",
        Val::List(_) => "a list",
        Val::Map(_) => "a map",
        Val::Path(_) => "a path",
        Val::Temporal(t) => t.kind_name(),
    }
}

/// `x IN set` (Cypher's three-valued answer, as the element-by-element comparison gives it): a
/// lookup for integers, floats and strings, a scan for other values. A NaN element equals
/// nothing (it makes no answer null: [`compare`] says NaN is unequal to every number).
fn in_set(x: &Val<'_>, set: &LiteralSet) -> Val<'static> {
    let (found, maybe_null) = match x {
        // Nothing is in an empty list, not even null.
        Val::Null if set.items().is_empty() => return Val::Bool(false),
        Val::Null => return Val::Null,
        Val::Int(i) => (set.has_int(*i) || set.has_float(*i as f64), set.has_null()),
        Val::Float(f) if !f.is_nan() && !set.has_huge_ints() => {
            // An integer element equals `f` only when `f` is that integer exactly.
            let int = f.fract() == 0.0 && f.abs() < 9.0e15 && set.has_int(*f as i64);
            (int || set.has_float(*f), set.has_null())
        }
        Val::Str(s) => (set.has_str(s), set.has_null()),
        _ => {
            let mut saw_null = false;
            for it in set.items() {
                if let Expr::Literal(v) = it {
                    match compare(CmpOp::Eq, x, &Val::borrowed(v)) {
                        Some(true) => return Val::Bool(true),
                        None => saw_null = true,
                        Some(false) => {}
                    }
                }
            }
            (false, saw_null)
        }
    };
    match (found, maybe_null) {
        (true, _) => Val::Bool(true),
        (false, true) => Val::Null,
        (false, false) => Val::Bool(false),
    }
}

/// Arithmetic. A null operand gives null; what cannot be computed (integer overflow, integer
/// division or modulo by zero, operands that are not numbers, or not two strings for `+`) is an
/// error, which the lenient [`Env::eval`] turns into null.
fn arith<'m>(op: ArithOp, a: Val<'m>, b: Val<'m>) -> Result<Val<'m>, EvalError> {
    match (a, b) {
        (Val::Temporal(x), Val::Temporal(y)) if matches!(op, ArithOp::Add | ArithOp::Sub) => {
            let sign = if op == ArithOp::Add { 1 } else { -1 };
            match (&*x, &*y) {
                (_, Temporal::Duration(d)) => Ok(Val::Temporal(Box::new(temporal::add_duration(
                    &x, d, sign,
                )?))),
                // duration + date is date + duration; duration - date has no meaning.
                (Temporal::Duration(d), _) if op == ArithOp::Add => {
                    Ok(Val::Temporal(Box::new(temporal::add_duration(&y, d, 1)?)))
                }
                _ => Err(EvalError(format!(
                    "cannot apply `{}` to {} and {} (`{x} {} {y}`)",
                    op_text(op),
                    x.kind_name(),
                    y.kind_name(),
                    op_text(op)
                ))),
            }
        }
        (Val::Temporal(x), n @ (Val::Int(_) | Val::Float(_)))
        | (n @ (Val::Int(_) | Val::Float(_)), Val::Temporal(x))
            if matches!(op, ArithOp::Mul | ArithOp::Div) && matches!(*x, Temporal::Duration(_)) =>
        {
            let Temporal::Duration(d) = *x else {
                unreachable!("checked by the guard")
            };
            duration_scaled(op, d, n)
        }
        (Val::Int(x), Val::Int(y)) => match op {
            ArithOp::Add => x.checked_add(y),
            ArithOp::Sub => x.checked_sub(y),
            ArithOp::Mul => x.checked_mul(y),
            ArithOp::Div => x.checked_div(y),
            ArithOp::Mod => x.checked_rem(y),
        }
        .map(Val::Int)
        .ok_or_else(|| {
            let o = op_text(op);
            EvalError::arithmetic(match op {
                ArithOp::Div | ArithOp::Mod if y == 0 => {
                    format!("integer division by zero in `{x} {o} {y}`")
                }
                _ => format!("integer overflow in `{x} {o} {y}` (beyond 64-bit integers)"),
            })
        }),
        (Val::Str(x), Val::Str(y)) if op == ArithOp::Add => {
            Ok(Val::Str(Cow::Owned(format!("{x}{y}"))))
        }
        // List concatenation, and a list with an element added at either end.
        (Val::List(mut x), Val::List(y)) if op == ArithOp::Add => {
            x.extend(y);
            Ok(Val::List(x))
        }
        (Val::List(mut x), y) if op == ArithOp::Add && !y.is_null() => {
            x.push(y);
            Ok(Val::List(x))
        }
        (x, Val::List(mut y)) if op == ArithOp::Add && !x.is_null() => {
            y.insert(0, x);
            Ok(Val::List(y))
        }
        (a, b) => {
            let f = |v: &Val<'_>| match v {
                Val::Int(i) => Some(*i as f64),
                Val::Float(x) => Some(*x),
                _ => None,
            };
            match (f(&a), f(&b)) {
                (Some(x), Some(y)) => Ok(Val::Float(match op {
                    ArithOp::Add => x + y,
                    ArithOp::Sub => x - y,
                    ArithOp::Mul => x * y,
                    ArithOp::Div => x / y,
                    ArithOp::Mod => x % y,
                })),
                _ if a.is_null() || b.is_null() => Ok(Val::Null),
                _ => Err(EvalError(format!(
                    "cannot apply `{}` to {} and {} (`{} {} {}`)",
                    op_text(op),
                    kind_name(&a),
                    kind_name(&b),
                    shown(&a),
                    op_text(op),
                    shown(&b)
                ))),
            }
        }
    }
}

/// A duration times or divided by a number (`number / duration` has no meaning).
fn duration_scaled<'m>(
    op: ArithOp,
    d: temporal::Duration,
    n: Val<'m>,
) -> Result<Val<'m>, EvalError> {
    let scaled = match (op, n) {
        (ArithOp::Mul, Val::Int(k)) => d.times_int(k)?,
        (ArithOp::Mul, Val::Float(k)) => d.scaled(|x| x * k)?,
        (ArithOp::Div, Val::Int(0)) => {
            return Err(EvalError(format!("division by zero in `{d} / 0`")))
        }
        (ArithOp::Div, Val::Int(k)) => d.scaled(|x| x / k as f64)?,
        (ArithOp::Div, Val::Float(k)) if k == 0.0 => {
            return Err(EvalError(format!("division by zero in `{d} / {k}`")))
        }
        (ArithOp::Div, Val::Float(k)) => d.scaled(|x| x / k)?,
        (_, other) => {
            return Err(EvalError(format!(
                "cannot apply `{}` to a duration and {}",
                op_text(op),
                kind_name(&other)
            )))
        }
    };
    Ok(Val::Temporal(Box::new(Temporal::Duration(scaled))))
}

/// `size()` and `range()` over evaluated arguments (null for arguments of the wrong type).
fn list_fn<'m>(func: ListFn, args: &[Val<'m>]) -> Val<'m> {
    match (func, args) {
        (ListFn::Size, [Val::List(l)]) => Val::Int(l.len() as i64),
        (ListFn::Size, [Val::Str(s)]) => Val::Int(s.chars().count() as i64),
        (ListFn::Range, [Val::Int(a), Val::Int(b)]) => range(*a, *b, 1),
        (ListFn::Range, [Val::Int(a), Val::Int(b), Val::Int(step)]) => range(*a, *b, *step),
        _ => Val::Null,
    }
}

/// `length(p)`, `nodes(p)` and `relationships(p)` of a path (null for null; another value is
/// a type error).
fn path_fn<'m>(func: ListFn, v: Val<'m>) -> Result<Val<'m>, EvalError> {
    let p = match v {
        Val::Path(p) => p,
        Val::Null => return Ok(Val::Null),
        other => {
            let name = match func {
                ListFn::Length => "length",
                ListFn::Nodes => "nodes",
                _ => "relationships",
            };
            return Err(EvalError(format!(
                "{name}() takes a path, not {} ({})",
                kind_name(&other),
                shown(&other)
            )));
        }
    };
    Ok(match func {
        ListFn::Length => Val::Int(p.rels.len() as i64),
        ListFn::Nodes => Val::List(p.nodes.iter().map(|&n| Val::Node(n)).collect()),
        _ => Val::List(p.rels.iter().map(|&r| Val::Rel(r)).collect()),
    })
}

/// `range(from, to, step)`; null for a zero step or more than [`MAX_RANGE`] elements.
fn range<'m>(from: i64, to: i64, step: i64) -> Val<'m> {
    if step == 0 {
        return Val::Null;
    }
    let gap = i128::from(to) - i128::from(from);
    // No element when the step points away from `to` (`range(0, 1, -1)` is empty).
    if gap != 0 && (gap < 0) != (step < 0) {
        return Val::List(Vec::new());
    }
    let span = gap / i128::from(step);
    if span >= i128::from(MAX_RANGE) {
        return Val::Null;
    }
    let items = (0..=span as i64)
        .map(|i| Val::Int(from + i * step))
        .collect();
    Val::List(items)
}

impl<'m> Env<'_, 'm> {
    /// Evaluates `e`; a value that cannot be computed (see [`EvalError`]) is null, except inside
    /// [`Expr::Checked`], which records it.
    pub fn eval(&self, e: &Expr) -> Val<'m> {
        // The lenient evaluation never fails: its errors are nulls where they happen.
        self.ev::<false>(e).unwrap_or(Val::Null)
    }

    /// Evaluates `e` strictly: an integer overflow, an integer division or modulo by zero, or an
    /// operation on values of the wrong types is an error instead of null (null operands still
    /// give null).
    pub fn try_eval(&self, e: &Expr) -> Result<Val<'m>, EvalError> {
        self.ev::<true>(e)
    }

    /// Evaluates `e`: `STRICT` returns errors, else they are nulls.
    fn ev<const STRICT: bool>(&self, e: &Expr) -> Result<Val<'m>, EvalError> {
        Ok(match e {
            Expr::Literal(v) => Val::from_value(v),
            // `NULL_ID` is an optional node or relationship that did not match.
            Expr::Node(s) => match self.nodes.get(*s) {
                Some(&n) if n != NULL_ID => Val::Node(n),
                _ => Val::Null,
            },
            Expr::Rel(s) => match self.rels.get(*s) {
                Some(&r) if r != NULL_ID => Val::Rel(r),
                _ => Val::Null,
            },
            Expr::Column(i) => self.row.get(*i).cloned().unwrap_or(Val::Null),
            Expr::Property(base, key) => match self.ev::<STRICT>(base)? {
                Val::Node(n) => Val::from_ref(self.model.node_property(n, key)),
                Val::Rel(r) => Val::from_ref(self.model.edge_property(r, key)),
                Val::Map(entries) => entries
                    .into_iter()
                    .find(|(k, _)| k == key)
                    .map_or(Val::Null, |(_, v)| v),
                Val::Temporal(t) => match temporal::field(&t, key) {
                    Ok(v) => v,
                    Err(e) if STRICT => return Err(e),
                    Err(_) => Val::Null,
                },
                Val::Null => Val::Null,
                other if STRICT => {
                    return Err(EvalError(format!(
                        "`.{key}` needs a node, relationship or map, not {} ({})",
                        kind_name(&other),
                        shown(&other)
                    )))
                }
                _ => Val::Null,
            },
            Expr::Id(base) => match self.ev::<STRICT>(base)? {
                // A part's node model names its nodes by local index: `id()` is the global id.
                Val::Node(n) => Val::Int(i64::from(self.model.node_id(n))),
                Val::Rel(n) => Val::Int(n as i64),
                _ => Val::Null,
            },
            Expr::HasLabels(base, groups) => match self.ev::<STRICT>(base)? {
                Val::Node(n) => {
                    Val::Bool(crate::exec::candidates::labels_match(self.model, n, groups))
                }
                // `r:T`: a relationship "has" its type as its one label.
                Val::Rel(r) => {
                    let ty = self
                        .model
                        .edge_target(r)
                        .and_then(|(_, t)| self.model.rel_types().name(t));
                    let named = |l: u32| ty.is_some() && self.model.labels().name(l) == ty;
                    Val::Bool(groups.iter().all(|group| group.iter().any(|&l| named(l))))
                }
                _ => Val::Null,
            },
            Expr::TypeName(base) => match self.ev::<STRICT>(base)? {
                Val::Rel(r) => self
                    .model
                    .edge_target(r)
                    .and_then(|(_, t)| self.model.rel_types().name(t))
                    .map_or(Val::Null, |s| Val::Str(Cow::Borrowed(s))),
                Val::Null => Val::Null,
                other if STRICT => {
                    return Err(EvalError(format!(
                        "type() takes a relationship, not {}",
                        kind_name(&other)
                    )))
                }
                _ => Val::Null,
            },
            Expr::LabelNames(base) => match self.ev::<STRICT>(base)? {
                Val::Node(n) => Val::List(
                    self.model
                        .node_labels(n)
                        .iter()
                        .filter_map(|&l| self.model.labels().name(l))
                        .map(|s| Val::Str(Cow::Borrowed(s)))
                        .collect(),
                ),
                Val::Null => Val::Null,
                other if STRICT => {
                    return Err(EvalError(format!(
                        "labels() takes a node, not {}",
                        kind_name(&other)
                    )))
                }
                _ => Val::Null,
            },
            Expr::Compare(op, a, b) => {
                of_truth(self.operands::<STRICT, _>(a, b, |x, y| compare(*op, x, y))?)
            }
            Expr::Str(op, a, b) => {
                of_truth(self.operands::<STRICT, _>(a, b, |x, y| string_op(*op, x, y))?)
            }
            Expr::Regex(a, re) => match self.ev::<STRICT>(a)? {
                Val::Str(s) => Val::Bool(re.0.is_match(&s)),
                _ => Val::Null,
            },
            Expr::In(a, list) if matches!(**list, Expr::LiteralSet(_)) => {
                let x = self.ev::<STRICT>(a)?;
                match &**list {
                    Expr::LiteralSet(set) => in_set(&x, set),
                    _ => Val::Null,
                }
            }
            Expr::In(a, list) => {
                let x = self.ev::<STRICT>(a)?;
                let Val::List(items) = self.ev::<STRICT>(list)? else {
                    return Ok(Val::Null);
                };
                // Nothing is in an empty list, not even null.
                if items.is_empty() {
                    return Ok(Val::Bool(false));
                }
                if x.is_null() {
                    return Ok(Val::Null);
                }
                let mut saw_null = false;
                for it in &items {
                    match compare(CmpOp::Eq, &x, it) {
                        Some(true) => return Ok(Val::Bool(true)),
                        None => saw_null = true,
                        Some(false) => {}
                    }
                }
                if saw_null {
                    Val::Null
                } else {
                    Val::Bool(false)
                }
            }
            Expr::IsNull(a, negated) => Val::Bool(self.ev::<STRICT>(a)?.is_null() != *negated),
            Expr::And(items) => {
                let mut null = false;
                for it in items {
                    match truth(&self.ev::<STRICT>(it)?) {
                        Some(false) => return Ok(Val::Bool(false)),
                        None => null = true,
                        Some(true) => {}
                    }
                }
                if null {
                    Val::Null
                } else {
                    Val::Bool(true)
                }
            }
            Expr::Or(items) => {
                let mut null = false;
                for it in items {
                    match truth(&self.ev::<STRICT>(it)?) {
                        Some(true) => return Ok(Val::Bool(true)),
                        None => null = true,
                        Some(false) => {}
                    }
                }
                if null {
                    Val::Null
                } else {
                    Val::Bool(false)
                }
            }
            Expr::Xor(a, b) => match (truth(&self.ev::<STRICT>(a)?), truth(&self.ev::<STRICT>(b)?))
            {
                (Some(x), Some(y)) => Val::Bool(x != y),
                _ => Val::Null,
            },
            Expr::Not(a) => of_truth(truth(&self.ev::<STRICT>(a)?).map(|b| !b)),
            Expr::Arith(op, a, b) => match arith(*op, self.ev::<STRICT>(a)?, self.ev::<STRICT>(b)?)
            {
                Ok(v) => v,
                Err(e) if STRICT => return Err(e),
                Err(_) => Val::Null,
            },
            Expr::Neg(a) => match self.ev::<STRICT>(a)? {
                Val::Int(i) => match i.checked_neg() {
                    Some(n) => Val::Int(n),
                    None if STRICT => {
                        return Err(EvalError::arithmetic(format!(
                            "integer overflow in `-({i})` (beyond 64-bit integers)"
                        )))
                    }
                    None => Val::Null,
                },
                Val::Float(f) => Val::Float(-f),
                Val::Null => Val::Null,
                other if STRICT => {
                    return Err(EvalError(format!(
                        "cannot negate {} (`-{}`)",
                        kind_name(&other),
                        shown(&other)
                    )))
                }
                _ => Val::Null,
            },
            Expr::Checked(a, slot) => match self.ev::<true>(a) {
                Ok(v) => v,
                Err(e) => {
                    slot.record_classed(e.message.clone(), Some(e.class));
                    if STRICT {
                        return Err(e);
                    }
                    Val::Null
                }
            },
            Expr::List(items) => Val::List(
                items
                    .iter()
                    .map(|i| self.ev::<STRICT>(i))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::LiteralSet(set) => Val::List(
                set.items()
                    .iter()
                    .map(|i| self.ev::<STRICT>(i))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Exists(sub) => match self.exists {
                Some(o) => Val::Bool(o.exists(sub, self.nodes, self.rels)),
                None => Val::Null,
            },
            Expr::ListFn(func @ (ListFn::Length | ListFn::Nodes | ListFn::Relationships), args) => {
                match args.first() {
                    Some(a) => path_fn(*func, self.ev::<STRICT>(a)?)?,
                    None => Val::Null,
                }
            }
            Expr::ListFn(func, args) => {
                let vals = args
                    .iter()
                    .map(|a| self.ev::<STRICT>(a))
                    .collect::<Result<Vec<_>, _>>()?;
                list_fn(*func, &vals)
            }
            Expr::Path(parts) => self.path::<STRICT>(parts)?,
            Expr::Case(c) => {
                let subject = match &c.subject {
                    Some(s) => Some(self.ev::<STRICT>(s)?),
                    None => None,
                };
                for (when, then) in &c.branches {
                    let w = self.ev::<STRICT>(when)?;
                    let holds = match &subject {
                        Some(s) => compare(CmpOp::Eq, s, &w) == Some(true),
                        None => truth(&w) == Some(true),
                    };
                    if holds {
                        return self.ev::<STRICT>(then);
                    }
                }
                match &c.default {
                    Some(d) => self.ev::<STRICT>(d)?,
                    None => Val::Null,
                }
            }
            Expr::Map(entries) => Val::Map(
                entries
                    .iter()
                    .map(|(k, e)| Ok((k.clone(), self.ev::<STRICT>(e)?)))
                    .collect::<Result<_, EvalError>>()?,
            ),
            Expr::Local(i) => self.locals.get(*i).cloned().unwrap_or(Val::Null),
            Expr::Comprehension(c) => self.comprehension::<STRICT>(c)?,
            Expr::Index(base, i) => index(
                self.ev::<STRICT>(base)?,
                self.ev::<STRICT>(i)?,
                |n, k| Val::from_ref(self.model.node_property(n, k)),
                |r, k| Val::from_ref(self.model.edge_property(r, k)),
            )?,
            Expr::Slice(base, from, to) => {
                let b = self.ev::<STRICT>(base)?;
                let f = match from {
                    Some(x) => Some(self.ev::<STRICT>(x)?),
                    None => None,
                };
                let t = match to {
                    Some(x) => Some(self.ev::<STRICT>(x)?),
                    None => None,
                };
                slice(b, f, t)?
            }
            Expr::Func(func, args) => {
                let vals = args
                    .iter()
                    .map(|a| self.ev::<STRICT>(a))
                    .collect::<Result<Vec<_>, _>>()?;
                match (func, vals.first()) {
                    (Func::Keys, Some(v @ (Val::Node(_) | Val::Rel(_)))) => Val::List(
                        self.properties_of(v)
                            .into_iter()
                            .map(|(k, _)| Val::Str(Cow::Owned(k)))
                            .collect(),
                    ),
                    (Func::Properties, Some(v @ (Val::Node(_) | Val::Rel(_)))) => {
                        Val::Map(self.properties_of(v))
                    }
                    _ => call(*func, vals)?,
                }
            }
            // Aggregates are computed by the result stage, which replaces them by columns.
            Expr::Aggregate { .. } => Val::Null,
        })
    }

    /// The non-null properties of a node or relationship, by name (nothing for another value).
    fn properties_of(&self, v: &Val<'m>) -> Vec<(String, Val<'m>)> {
        let model = self.model;
        match *v {
            Val::Node(n) => match model.group_of(n) {
                Some(g) => g
                    .columns
                    .iter()
                    .map(|c| (c.name.clone(), Val::from_ref(c.get((n - g.start) as usize))))
                    .filter(|(_, v)| !v.is_null())
                    .collect(),
                None => Vec::new(),
            },
            Val::Rel(r) => model
                .edge_columns()
                .iter()
                .map(|c| (c.name.clone(), Val::from_ref(c.get(r as usize))))
                .filter(|(_, v)| !v.is_null())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A named path's value from its parts (see [`Expr::Path`]); null when a part is null.
    fn path<const STRICT: bool>(&self, parts: &[Expr]) -> Result<Val<'m>, EvalError> {
        let mut p = PathVal {
            nodes: Vec::new(),
            rels: Vec::new(),
        };
        // The node after a variable-length relationship is its last relationship's far end,
        // already in the path.
        let mut after_hops = false;
        for part in parts {
            match self.ev::<STRICT>(part)? {
                Val::Node(n) => {
                    if !(after_hops && p.nodes.last() == Some(&n)) {
                        p.nodes.push(n);
                    }
                    after_hops = false;
                }
                Val::Rel(r) => p.rels.push(r),
                Val::List(hops) => {
                    let mut ids = Vec::with_capacity(hops.len());
                    for h in hops {
                        let Val::Rel(e) = h else {
                            return Ok(Val::Null);
                        };
                        ids.push(e);
                    }
                    let Some(&start) = p.nodes.last() else {
                        return Ok(Val::Null);
                    };
                    // The list may run from either end of the variable-length relationship.
                    let ends = |e: u32| {
                        let src = self.model.edge_source(e);
                        let dst = self.model.edge_target(e).map(|(d, _)| d);
                        (src, dst)
                    };
                    if let Some(&first) = ids.first() {
                        let (s, d) = ends(first);
                        if s != Some(start) && d != Some(start) {
                            ids.reverse();
                        }
                    }
                    let mut at = start;
                    for e in ids {
                        let (s, d) = ends(e);
                        at = match (s, d) {
                            (Some(s), Some(d)) if s == at => d,
                            (Some(s), Some(d)) if d == at => s,
                            _ => return Ok(Val::Null),
                        };
                        p.rels.push(e);
                        p.nodes.push(at);
                    }
                    after_hops = true;
                }
                _ => return Ok(Val::Null),
            }
        }
        Ok(Val::Path(Box::new(p)))
    }

    /// `f` of the values of `a` and `b`, a literal operand borrowed rather than copied.
    fn operands<const STRICT: bool, R>(
        &self,
        a: &Expr,
        b: &Expr,
        f: impl FnOnce(&Val<'_>, &Val<'_>) -> R,
    ) -> Result<R, EvalError> {
        Ok(match (a, b) {
            (Expr::Literal(x), Expr::Literal(y)) => f(&Val::borrowed(x), &Val::borrowed(y)),
            (_, Expr::Literal(y)) => f(&self.ev::<STRICT>(a)?, &Val::borrowed(y)),
            (Expr::Literal(x), _) => f(&Val::borrowed(x), &self.ev::<STRICT>(b)?),
            _ => f(&self.ev::<STRICT>(a)?, &self.ev::<STRICT>(b)?),
        })
    }

    /// A list comprehension or list predicate: the list's elements in turn as local
    /// `c.local`. A list that is not a list (nor null) is an error.
    fn comprehension<const STRICT: bool>(&self, c: &Comprehension) -> Result<Val<'m>, EvalError> {
        let items = match self.ev::<STRICT>(&c.list)? {
            Val::List(items) => items,
            Val::Null => return Ok(Val::Null),
            other => {
                return Err(EvalError(format!(
                    "a list comprehension or list predicate needs a list, not {} ({})",
                    kind_name(&other),
                    shown(&other)
                )))
            }
        };
        let mut locals: Vec<Val<'m>> = self.locals.iter().take(c.local).cloned().collect();
        locals.resize(c.local + 1, Val::Null);
        let (mut trues, mut falses, mut nulls) = (0usize, 0usize, 0usize);
        let mut out = Vec::new();
        for item in items {
            locals[c.local] = item;
            let env = Env {
                model: self.model,
                nodes: self.nodes,
                rels: self.rels,
                row: self.row,
                exists: self.exists,
                locals: &locals,
            };
            let keep = match &c.filter {
                Some(f) => truth(&env.ev::<STRICT>(f)?),
                None => Some(true),
            };
            match keep {
                Some(true) => trues += 1,
                Some(false) => falses += 1,
                None => nulls += 1,
            }
            if c.op == ComprehensionOp::List && keep == Some(true) {
                out.push(match &c.map {
                    Some(m) => env.ev::<STRICT>(m)?,
                    None => locals[c.local].clone(),
                });
            }
        }
        let _ = falses;
        Ok(match c.op {
            ComprehensionOp::List => Val::List(out),
            ComprehensionOp::Any if trues > 0 => Val::Bool(true),
            ComprehensionOp::Any if nulls > 0 => Val::Null,
            ComprehensionOp::Any => Val::Bool(false),
            ComprehensionOp::All if falses > 0 => Val::Bool(false),
            ComprehensionOp::All if nulls > 0 => Val::Null,
            ComprehensionOp::All => Val::Bool(true),
            ComprehensionOp::None if trues > 0 => Val::Bool(false),
            ComprehensionOp::None if nulls > 0 => Val::Null,
            ComprehensionOp::None => Val::Bool(true),
            ComprehensionOp::Single if trues > 1 => Val::Bool(false),
            ComprehensionOp::Single if nulls > 0 => Val::Null,
            ComprehensionOp::Single => Val::Bool(trues == 1),
        })
    }

    /// True when `e` evaluates to `true` (null and false both reject).
    pub fn holds(&self, e: &Expr) -> bool {
        matches!(self.eval(e), Val::Bool(true))
    }
}
