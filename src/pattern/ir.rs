//! The bound query: what the binder produces from the AST once names are resolved against a model's
//! schema. Plain values that print (`gemp explain`) and that the planner and every matcher read.
//!
//! Variables are numbered *slots*: node slots index [`Pattern::nodes`], relationship slots index
//! [`Pattern::rels`].

use regex::Regex;
use serde::Serialize;

pub use super::literal_set::LiteralSet;
use crate::model::Value;

/// A node slot.
pub type NodeSlot = usize;
/// A relationship slot.
pub type RelSlot = usize;

/// The topological part of a query.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Pattern {
    /// Pattern nodes.
    pub nodes: Vec<NodeVar>,
    /// Pattern relationships.
    pub rels: Vec<RelVar>,
}

impl Pattern {
    /// Each node's number of pattern relationships (a self-loop counts once).
    pub fn degrees(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .map(|s| {
                self.rels
                    .iter()
                    .filter(|r| r.src == s || r.dst == s)
                    .count()
            })
            .collect()
    }

    /// Hops from the nearest start (each with its own starting distance) to every pattern node,
    /// relationships taken in both directions; `None` when a node is unreachable.
    pub fn hops_from(&self, starts: &[(NodeSlot, usize)]) -> Option<Vec<usize>> {
        let mut dist = vec![usize::MAX; self.nodes.len()];
        for &(s, d) in starts {
            dist[s] = dist[s].min(d);
        }
        loop {
            let mut changed = false;
            for r in &self.rels {
                for (a, b) in [(r.src, r.dst), (r.dst, r.src)] {
                    if dist[a] != usize::MAX && dist[a] + 1 < dist[b] {
                        dist[b] = dist[a] + 1;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        dist.iter().all(|&d| d != usize::MAX).then_some(dist)
    }
}

/// A pattern node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeVar {
    /// Variable name (`_n3` style for anonymous nodes).
    pub name: String,
    /// False for anonymous nodes `()`.
    pub named: bool,
    /// Label constraint: every inner list must be satisfied by at least one of its labels
    /// (`(:A|B:C)` = `[[A, B], [C]]`). Empty = any node.
    pub labels: Vec<Vec<u32>>,
}

/// A pattern relationship.
#[derive(Debug, Clone, Serialize)]
pub struct RelVar {
    /// Variable name (`_r3` style for anonymous relationships).
    pub name: String,
    /// False when the relationship has no variable: under node-isomorphism and homomorphism it is
    /// then an existence check and parallel edges do not multiply matches (under Cypher
    /// semantics every relationship is matched edge by edge).
    pub named: bool,
    /// Source node slot (for undirected relationships: the first node as written).
    pub src: NodeSlot,
    /// Target node slot.
    pub dst: NodeSlot,
    /// Allowed relationship types; empty = any type.
    pub types: Vec<u32>,
    /// `-[..]-`: matches an edge in either direction.
    pub undirected: bool,
    /// The `MATCH` clause the relationship was written in, counted from 0: under Cypher
    /// semantics the relationships of one clause bind distinct edges.
    pub clause: usize,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// String predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StrOp {
    /// `CONTAINS`
    Contains,
    /// `STARTS WITH`
    StartsWith,
    /// `ENDS WITH`
    EndsWith,
}

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AggFn {
    /// `count(x)` / `count(*)`
    Count,
    /// `min(x)`
    Min,
    /// `max(x)`
    Max,
    /// `avg(x)`
    Avg,
    /// `sum(x)`
    Sum,
    /// `collect(x)`
    Collect,
}

/// A compiled regular expression (whole-string match, as Cypher's `=~`).
#[derive(Debug, Clone)]
pub struct WholeRegex(pub Regex);

impl Serialize for WholeRegex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}

/// A bound expression.
#[derive(Debug, Clone, Serialize)]
pub enum Expr {
    /// A literal (parameters are substituted at bind time).
    Literal(Value),
    /// The node bound to a slot.
    Node(NodeSlot),
    /// The relationship bound to a slot.
    Rel(RelSlot),
    /// Column `i` of the previous projection stage's rows (after `WITH`).
    Column(usize),
    /// `base.key` where base is a node or relationship.
    Property(Box<Expr>, String),
    /// `id(x)`.
    Id(Box<Expr>),
    /// `x:Label1|Label2:Label3` — label test in conjunctive normal form (see [`NodeVar::labels`]).
    HasLabels(Box<Expr>, Vec<Vec<u32>>),
    /// `type(r)`: the relationship's type name.
    TypeName(Box<Expr>),
    /// `labels(n)`: the node's label names.
    LabelNames(Box<Expr>),
    /// Comparison (three-valued: null operands give null).
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// String predicate.
    Str(StrOp, Box<Expr>, Box<Expr>),
    /// `x =~ 're'`.
    Regex(Box<Expr>, WholeRegex),
    /// `x IN [list]` (list evaluated once).
    In(Box<Expr>, Box<Expr>),
    /// `x IS NULL` (`negated`: `IS NOT NULL`).
    IsNull(Box<Expr>, bool),
    /// Conjunction.
    And(Vec<Expr>),
    /// Disjunction.
    Or(Vec<Expr>),
    /// Exclusive or.
    Xor(Box<Expr>, Box<Expr>),
    /// Negation.
    Not(Box<Expr>),
    /// Arithmetic.
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// Unary minus.
    Neg(Box<Expr>),
    /// A list of expressions.
    List(Vec<Expr>),
    /// A list of literals hashed once (the list of an `IN` with many literal elements; evaluated
    /// alone it is the list).
    LiteralSet(LiteralSet),
    /// `EXISTS { … }` or a pattern predicate: true when the sub-pattern has at least one match
    /// extending the current binding. `NOT EXISTS` is `Not(Exists(..))` (a NAC).
    Exists(Box<SubPattern>),
    /// A list function: `size(list)`, `range(from, to[, step])`, and the path functions
    /// `length(p)`, `nodes(p)`, `relationships(p)`.
    ListFn(ListFn, Vec<Expr>),
    /// A named path `p = (a)-[r]->(b)…`: its parts in writing order, each an [`Expr::Node`], an
    /// [`Expr::Rel`], or for a variable-length relationship the [`Expr::Column`] holding its list
    /// of relationships (the nodes between them are the relationships' ends). Null when a part
    /// is null (an `OPTIONAL MATCH` without a match).
    Path(Vec<Expr>),
    /// `CASE`: the value of the first branch whose `WHEN` holds, else the `ELSE` value (null when
    /// absent). With a subject (simple `CASE x WHEN v …`) a branch holds when `x = v` is true.
    Case(Box<CaseOf>),
    /// Its operand evaluated strictly (see `Env::try_eval` in `crate::exec::eval`): a value that
    /// cannot be computed (an integer overflow, an integer division by zero, operands of the
    /// wrong types) is recorded in the [`ErrorSlot`] and the expression is null. A transform wraps
    /// the values it writes in it, and fails the statement when the slot holds an error.
    Checked(Box<Expr>, ErrorSlot),
    /// The element a list comprehension or list predicate is at: local variable `i` (counted
    /// from the outermost comprehension).
    Local(usize),
    /// A list comprehension or list predicate.
    Comprehension(Box<Comprehension>),
    /// A map literal: its keys (distinct) and values, in writing order.
    Map(Vec<(String, Expr)>),
    /// `list[index]` (a negative index counts from the end; out of range is null).
    Index(Box<Expr>, Box<Expr>),
    /// `list[from..to]` (bounds as in [`Expr::Index`], clamped to the list).
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// A scalar, string or list function.
    Func(Func, Vec<Expr>),
    /// An aggregate; only in projections. `distinct` applies to its argument; `arg` None = `count(*)`.
    Aggregate {
        /// The function.
        func: AggFn,
        /// `count(DISTINCT x)`.
        distinct: bool,
        /// The argument.
        arg: Option<Box<Expr>>,
    },
}

/// What a [`Comprehension`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ComprehensionOp {
    /// The list of mapped elements that pass the filter.
    List,
    /// True when some element passes.
    Any,
    /// True when every element passes.
    All,
    /// True when no element passes.
    None,
    /// True when exactly one element passes.
    Single,
}

/// A bound list comprehension or list predicate (see [`Expr::Comprehension`]).
#[derive(Debug, Clone, Serialize)]
pub struct Comprehension {
    /// What it computes.
    pub op: ComprehensionOp,
    /// The local variable slot ([`Expr::Local`]) each element is bound to.
    pub local: usize,
    /// The list.
    pub list: Expr,
    /// The filter.
    pub filter: Option<Expr>,
    /// The mapped value.
    pub map: Option<Expr>,
}

/// Scalar, string and list functions (see `crate::exec::eval` for their meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Func {
    /// `head(list)`.
    Head,
    /// `last(list)`.
    Last,
    /// `tail(list)`.
    Tail,
    /// `reverse(list or string)`.
    Reverse,
    /// `toString(x)`.
    ToString,
    /// `toInteger(x)`.
    ToInteger,
    /// `toFloat(x)`.
    ToFloat,
    /// `toBoolean(x)`.
    ToBoolean,
    /// `coalesce(x, …)`.
    Coalesce,
    /// `abs(x)`.
    Abs,
    /// `sign(x)`.
    Sign,
    /// `ceil(x)`.
    Ceil,
    /// `floor(x)`.
    Floor,
    /// `round(x)`.
    Round,
    /// `sqrt(x)`.
    Sqrt,
    /// `split(s, sep)`.
    Split,
    /// `substring(s, start[, length])`.
    Substring,
    /// `left(s, n)`.
    Left,
    /// `right(s, n)`.
    Right,
    /// `trim(s)`.
    Trim,
    /// `ltrim(s)`.
    LTrim,
    /// `rtrim(s)`.
    RTrim,
    /// `toUpper(s)`.
    ToUpper,
    /// `toLower(s)`.
    ToLower,
    /// `replace(s, from, to)`.
    Replace,
    /// `keys(x)`: a map's keys, or the names of a node's or relationship's properties.
    Keys,
    /// `properties(x)`: a node's or relationship's properties as a map (a map as it is).
    Properties,
    /// `rand()`: a random float in `[0, 1)`, drawn anew at each evaluation.
    Rand,
    /// A temporal function (`date(…)`, `datetime.fromepoch(…)`, `duration.between(…)`…).
    Temporal(TemporalFn),
}

/// The six temporal types of Cypher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TemporalKind {
    /// `date`.
    Date,
    /// `localtime`.
    LocalTime,
    /// `time` (with an offset).
    Time,
    /// `localdatetime`.
    LocalDateTime,
    /// `datetime` (with an offset or a named time zone).
    DateTime,
    /// `duration`.
    Duration,
}

impl TemporalKind {
    /// The kind of a (lower-case) function name.
    pub fn of_name(name: &str) -> Option<TemporalKind> {
        Some(match name {
            "date" => TemporalKind::Date,
            "localtime" => TemporalKind::LocalTime,
            "time" => TemporalKind::Time,
            "localdatetime" => TemporalKind::LocalDateTime,
            "datetime" => TemporalKind::DateTime,
            "duration" => TemporalKind::Duration,
            _ => return None,
        })
    }
}

/// Temporal functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TemporalFn {
    /// `date(x)`, `datetime(x)`… from a string, a map or another temporal value; without an
    /// argument, now.
    Of(TemporalKind),
    /// `date.statement()`, `date.transaction()`, `date.realtime()`… (now; null of null).
    Now(TemporalKind),
    /// `datetime.fromepoch(seconds, nanoseconds)`.
    FromEpoch,
    /// `datetime.fromepochmillis(milliseconds)`.
    FromEpochMillis,
    /// `date.truncate(unit, value[, map])`…
    Truncate(TemporalKind),
    /// `duration.between(a, b)`.
    Between,
    /// `duration.inMonths(a, b)`.
    InMonths,
    /// `duration.inDays(a, b)`.
    InDays,
    /// `duration.inSeconds(a, b)`.
    InSeconds,
}

impl TemporalFn {
    /// The temporal function of a (lower-case, possibly namespaced) name, with its fewest and most
    /// arguments.
    pub fn of_name(name: &str) -> Option<(TemporalFn, usize, usize)> {
        if let Some(kind) = TemporalKind::of_name(name) {
            return Some((TemporalFn::Of(kind), 0, 1));
        }
        let (ns, f) = name.split_once('.')?;
        let kind = TemporalKind::of_name(ns)?;
        Some(match (kind, f) {
            (TemporalKind::Duration, "between") => (TemporalFn::Between, 2, 2),
            (TemporalKind::Duration, "inmonths") => (TemporalFn::InMonths, 2, 2),
            (TemporalKind::Duration, "indays") => (TemporalFn::InDays, 2, 2),
            (TemporalKind::Duration, "inseconds") => (TemporalFn::InSeconds, 2, 2),
            (TemporalKind::Duration, _) => return None,
            (_, "statement" | "transaction" | "realtime") => (TemporalFn::Now(kind), 0, 1),
            (_, "truncate") => (TemporalFn::Truncate(kind), 2, 3),
            (TemporalKind::DateTime, "fromepoch") => (TemporalFn::FromEpoch, 2, 2),
            (TemporalKind::DateTime, "fromepochmillis") => (TemporalFn::FromEpochMillis, 1, 1),
            _ => return None,
        })
    }
}

impl Func {
    /// The function of a (lower-case) name, with its fewest and most arguments.
    pub fn of_name(name: &str) -> Option<(Func, usize, usize)> {
        Some(match name {
            "head" => (Func::Head, 1, 1),
            "last" => (Func::Last, 1, 1),
            "tail" => (Func::Tail, 1, 1),
            "reverse" => (Func::Reverse, 1, 1),
            "tostring" => (Func::ToString, 1, 1),
            "tointeger" => (Func::ToInteger, 1, 1),
            "tofloat" => (Func::ToFloat, 1, 1),
            "toboolean" => (Func::ToBoolean, 1, 1),
            "coalesce" => (Func::Coalesce, 1, usize::MAX),
            "abs" => (Func::Abs, 1, 1),
            "sign" => (Func::Sign, 1, 1),
            "ceil" => (Func::Ceil, 1, 1),
            "floor" => (Func::Floor, 1, 1),
            "round" => (Func::Round, 1, 1),
            "sqrt" => (Func::Sqrt, 1, 1),
            "split" => (Func::Split, 2, 2),
            "substring" => (Func::Substring, 2, 3),
            "left" => (Func::Left, 2, 2),
            "right" => (Func::Right, 2, 2),
            "trim" => (Func::Trim, 1, 1),
            "ltrim" => (Func::LTrim, 1, 1),
            "rtrim" => (Func::RTrim, 1, 1),
            "toupper" => (Func::ToUpper, 1, 1),
            "tolower" => (Func::ToLower, 1, 1),
            "replace" => (Func::Replace, 3, 3),
            "keys" => (Func::Keys, 1, 1),
            "properties" => (Func::Properties, 1, 1),
            "rand" => (Func::Rand, 0, 0),
            _ => {
                let (t, fewest, most) = TemporalFn::of_name(name)?;
                (Func::Temporal(t), fewest, most)
            }
        })
    }
}

/// List functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ListFn {
    /// `size(list)` (or of a string: its length in characters); null for null.
    Size,
    /// `length(path)`: its number of relationships.
    Length,
    /// `nodes(path)`: its nodes, in order.
    Nodes,
    /// `relationships(path)`: its relationships, in order.
    Relationships,
    /// `range(from, to[, step])`: the integers from `from` to `to` inclusive, by `step` (default
    /// 1; at most [`MAX_RANGE`] elements, else null).
    Range,
}

/// Where [`Expr::Checked`] records the first evaluation error it meets (shared by the clones of the
/// expression, so by every worker thread of a run).
#[derive(Debug, Clone, Default)]
pub struct ErrorSlot(std::sync::Arc<std::sync::Mutex<Option<SlotError>>>);

/// An error recorded in an [`ErrorSlot`]: its message and, when known, its openCypher class.
pub type SlotError = (String, Option<crate::error::CypherClass>);

impl ErrorSlot {
    /// An empty slot.
    pub fn new() -> Self {
        ErrorSlot::default()
    }

    /// Keeps `message` unless an error is recorded already.
    pub fn record(&self, message: String) {
        self.record_classed(message, None);
    }

    /// Keeps `message` of `class` unless an error is recorded already.
    pub fn record_classed(&self, message: String, class: Option<crate::error::CypherClass>) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert((message, class));
    }

    /// The recorded error, if any, taken out (the slot is empty again).
    pub fn take(&self) -> Option<String> {
        self.take_classed().map(|(m, _)| m)
    }

    /// The recorded error with its class, if any, taken out (the slot is empty again).
    pub fn take_classed(&self) -> Option<SlotError> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// The recorded error, if any (left in place).
    pub fn error(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|(m, _)| m.clone())
    }
}

/// Serialized as nothing: the slot is run-time state, not part of the query.
impl Serialize for ErrorSlot {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}

/// The longest list `range()` builds.
pub const MAX_RANGE: i64 = 10_000_000;

/// A bound `CASE` expression (see [`Expr::Case`]).
#[derive(Debug, Clone, Serialize)]
pub struct CaseOf {
    /// The tested value of a simple `CASE`; `None` for the generic form.
    pub subject: Option<Expr>,
    /// `WHEN … THEN …` pairs, in order.
    pub branches: Vec<(Expr, Expr)>,
    /// The `ELSE` value.
    pub default: Option<Expr>,
}

/// A sub-pattern of `EXISTS` / NACs: extra nodes and relationships anchored on the outer slots.
#[derive(Debug, Clone, Serialize)]
pub struct SubPattern {
    /// Outer node slots the sub-pattern refers to, and the sub-pattern's node slots they become.
    pub anchors: Vec<(NodeSlot, NodeSlot)>,
    /// The sub-pattern (its node slots are its own; anchored slots are fixed to the outer binding).
    pub pattern: Pattern,
    /// Conjuncts over the sub-pattern's slots.
    pub filter: Vec<Expr>,
}

/// One projection item.
#[derive(Debug, Clone, Serialize)]
pub struct ProjItem {
    /// The value.
    pub expr: Expr,
    /// Output column name (alias, or the expression as written).
    pub name: String,
}

/// A `WITH` or `RETURN` stage.
#[derive(Debug, Clone, Serialize)]
pub struct Projection {
    /// Items; aggregates make the non-aggregate items grouping keys.
    pub items: Vec<ProjItem>,
    /// `DISTINCT`.
    pub distinct: bool,
    /// Filter on the projected rows (`WITH … WHERE`), over [`Expr::Column`]s.
    pub filter: Option<Expr>,
    /// `ORDER BY`: expressions over the projected columns, with `descending`.
    pub order_by: Vec<(Expr, bool)>,
    /// `SKIP n`.
    pub skip: Option<u64>,
    /// `LIMIT n`.
    pub limit: Option<u64>,
}

/// A fully bound query.
#[derive(Debug, Clone, Serialize)]
pub struct BoundQuery {
    /// The pattern.
    pub pattern: Pattern,
    /// `WHERE` conjuncts (and inline property maps), all of which must be true.
    pub filter: Vec<Expr>,
    /// `WITH` stages then the `RETURN` stage. Empty = every match as the list of its node ids.
    pub stages: Vec<Projection>,
    /// Reading clauses beyond one mandatory pattern (`UNWIND`, `OPTIONAL MATCH`, variable-length
    /// relationships, `UNION`); `None` for a query of the core language. Only the host runs them
    /// (`crate::engines::gemp::pipeline`); the device engines refuse such a query.
    pub clauses: Option<Box<Clauses>>,
}

/// Hop bounds accepted for a variable-length relationship: at most this many hops.
pub const MAX_HOPS: u32 = 32;

/// The clauses of a query beyond the core language, run row by row on the host.
///
/// Before the first projection a row holds node bindings (by [`NodeSlot`], null as
/// [`NULL_ID`]), relationship bindings (by [`RelSlot`]) and `columns` values ([`Expr::Column`]:
/// unwound values and the relationship lists of named variable-length relationships).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Clauses {
    /// The reading steps, in order, from one empty row. With `steps` empty (a `UNION` of core
    /// queries) the query's own `pattern` and `filter` are the one mandatory step.
    pub steps: Vec<ReadStep>,
    /// The values a row holds before the first projection.
    pub columns: usize,
    /// `unwinds_after[i]`: the lists unwound after projection stage `i`, each appending a column.
    pub unwinds_after: Vec<Vec<Expr>>,
    /// The variable-length relationships, by relationship slot.
    pub var_length: Vec<VarLength>,
    /// The queries after `UNION [ALL]`, in order.
    pub union: Vec<UnionPart>,
}

/// A node or relationship id that stands for null (an `OPTIONAL MATCH` without a match).
pub const NULL_ID: u32 = u32::MAX;

/// The id a leniently bound query gives a label the model does not have (see
/// [`crate::pattern::binder::bind_lenient`]): no node carries it, so `n:Unknown` is false and a
/// pattern node with it matches nothing.
pub const UNKNOWN_NAME: u32 = u32::MAX;

/// One reading step.
#[derive(Debug, Clone, Serialize)]
pub enum ReadStep {
    /// `UNWIND list AS x`: one row per element, the element in column `column`.
    Unwind {
        /// The list (over the row's bindings and earlier columns).
        list: Expr,
        /// The column the element goes to.
        column: usize,
    },
    /// `MATCH` (every clause before the first `OPTIONAL MATCH`, as one pattern) or one
    /// `OPTIONAL MATCH`.
    Match(MatchStep),
}

/// The part of the pattern one `MATCH` step binds.
#[derive(Debug, Clone, Serialize)]
pub struct MatchStep {
    /// `OPTIONAL MATCH`: a row without an extension is kept, with nulls.
    pub optional: bool,
    /// Node slots this step binds.
    pub new_nodes: Vec<NodeSlot>,
    /// Node slots bound by earlier steps that this step mentions (a null one: no match).
    pub old_nodes: Vec<NodeSlot>,
    /// Relationship slots of this step (single and variable-length).
    pub rels: Vec<RelSlot>,
    /// Conjuncts that every extension must satisfy (its `WHERE`, property maps, labels written on
    /// earlier nodes).
    pub filter: Vec<Expr>,
}

/// A variable-length relationship `-[:T*min..max]->`.
#[derive(Debug, Clone, Serialize)]
pub struct VarLength {
    /// Its relationship slot (types, direction, ends).
    pub rel: RelSlot,
    /// Fewest hops (0: the path may stay at its start).
    pub min: u32,
    /// Most hops (at most [`MAX_HOPS`] when written; for an unbounded one, the graph's number
    /// of relationships, which no path repeating none exceeds).
    pub max: u32,
    /// The column its relationship list goes to, when it has a variable.
    pub column: Option<usize>,
    /// Written without an upper bound (`*`, `*2..`): `max` is then exact only when a path
    /// cannot repeat a relationship (not under homomorphism).
    pub unbounded: bool,
}

/// One query after `UNION [ALL]`.
#[derive(Debug, Clone, Serialize)]
pub struct UnionPart {
    /// `UNION ALL`.
    pub all: bool,
    /// The query.
    pub query: BoundQuery,
}

impl BoundQuery {
    /// True when an expression of the core query (its `WHERE` conjuncts and projection stages)
    /// holds a sub-pattern (`EXISTS { … }`, a pattern predicate). The clauses beyond the core
    /// language are not looked at.
    pub fn mentions_sub_pattern(&self) -> bool {
        let mut found = false;
        let mut look = |e: &Expr| found |= matches!(e, Expr::Exists(_));
        self.filter.iter().for_each(|e| e.walk(&mut look));
        for st in &self.stages {
            st.items.iter().for_each(|i| i.expr.walk(&mut look));
            st.filter.iter().for_each(|e| e.walk(&mut look));
            st.order_by.iter().for_each(|(e, _)| e.walk(&mut look));
        }
        found
    }

    /// The first evaluation error recorded by the query's checked expressions during a run (see
    /// [`Expr::Checked`]), taken out so that the next run starts clean.
    pub fn take_error(&self) -> Option<String> {
        self.take_error_classed().map(|(m, _)| m)
    }

    /// [`BoundQuery::take_error`] with the error's openCypher class, when known.
    pub fn take_error_classed(&self) -> Option<SlotError> {
        let mut exprs: Vec<&Expr> = self.filter.iter().collect();
        for st in &self.stages {
            exprs.extend(st.items.iter().map(|i| &i.expr));
            exprs.extend(st.filter.iter());
            exprs.extend(st.order_by.iter().map(|(e, _)| e));
        }
        let mut found = exprs.iter().find_map(|e| e.take_error_classed());
        if let Some(c) = &self.clauses {
            for step in &c.steps {
                let e = match step {
                    ReadStep::Unwind { list, .. } => list.take_error_classed(),
                    ReadStep::Match(m) => m.filter.iter().find_map(Expr::take_error_classed),
                };
                found = found.or(e);
            }
            for u in c.unwinds_after.iter().flatten() {
                found = found.or(u.take_error_classed());
            }
            for part in &c.union {
                found = found.or(part.query.take_error_classed());
            }
        }
        found
    }

    /// True when the query uses a clause only the host runs (see [`Clauses`]), naming the first
    /// one found: `UNION`, `OPTIONAL MATCH`, `UNWIND` or `a variable-length relationship`.
    pub fn host_only_clause(&self) -> Option<&'static str> {
        let c = self.clauses.as_deref()?;
        if !c.union.is_empty() {
            return Some("UNION");
        }
        let optional = c
            .steps
            .iter()
            .any(|s| matches!(s, ReadStep::Match(m) if m.optional));
        if optional {
            Some("OPTIONAL MATCH")
        } else if !c.var_length.is_empty() {
            Some("a variable-length relationship")
        } else {
            Some("UNWIND")
        }
    }
}

impl Expr {
    /// The first error recorded by an [`Expr::Checked`] in this expression (including the
    /// filters of its sub-patterns), taken out of its slot.
    pub fn take_error(&self) -> Option<String> {
        self.take_error_classed().map(|(m, _)| m)
    }

    /// [`Expr::take_error`] with the error's openCypher class, when known.
    pub fn take_error_classed(&self) -> Option<SlotError> {
        let mut found = None;
        self.walk(&mut |e| match e {
            Expr::Checked(_, slot) => {
                if let Some(m) = slot.take_classed() {
                    found.get_or_insert(m);
                }
            }
            Expr::Exists(sub) => {
                for x in &sub.filter {
                    if let Some(m) = x.take_error_classed() {
                        found.get_or_insert(m);
                    }
                }
            }
            _ => {}
        });
        found
    }

    /// Adds the node slots this expression reads (not looking into sub-patterns' own slots, but
    /// including their anchors) to `out`.
    pub fn node_slots(&self, out: &mut Vec<NodeSlot>) {
        self.walk(&mut |e| match e {
            Expr::Node(s) => out.push(*s),
            Expr::Exists(sub) => out.extend(sub.anchors.iter().map(|a| a.0)),
            _ => {}
        });
    }

    /// Adds the relationship slots this expression reads to `out`.
    pub fn rel_slots(&self, out: &mut Vec<RelSlot>) {
        self.walk(&mut |e| {
            if let Expr::Rel(s) = e {
                out.push(*s)
            }
        });
    }

    /// True when the expression contains an aggregate.
    pub fn has_aggregate(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Aggregate { .. }));
        found
    }

    /// True when evaluating it needs string work (phase 2 of GEMP): string predicates, regular
    /// expressions, or comparisons involving string literals.
    pub fn is_string_predicate(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            found |= matches!(e, Expr::Str(..) | Expr::Regex(..))
                || matches!(e, Expr::Literal(Value::Str(_)))
        });
        found
    }

    /// Visits this expression and its children (not the inside of sub-patterns).
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Property(a, _)
            | Expr::Id(a)
            | Expr::Not(a)
            | Expr::Neg(a)
            | Expr::IsNull(a, _)
            | Expr::HasLabels(a, _)
            | Expr::TypeName(a)
            | Expr::LabelNames(a)
            | Expr::Checked(a, _) => a.walk(f),
            Expr::Regex(a, _) => a.walk(f),
            Expr::Compare(_, a, b)
            | Expr::Str(_, a, b)
            | Expr::In(a, b)
            | Expr::Xor(a, b)
            | Expr::Arith(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::And(v)
            | Expr::Or(v)
            | Expr::List(v)
            | Expr::ListFn(_, v)
            | Expr::Func(_, v)
            | Expr::Path(v) => v.iter().for_each(|e| e.walk(f)),
            Expr::LiteralSet(set) => set.items().iter().for_each(|e| e.walk(f)),
            Expr::Comprehension(c) => {
                c.list.walk(f);
                c.filter.iter().chain(c.map.iter()).for_each(|e| e.walk(f));
            }
            Expr::Map(entries) => entries.iter().for_each(|(_, e)| e.walk(f)),
            Expr::Index(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Slice(a, from, to) => {
                a.walk(f);
                from.iter().chain(to.iter()).for_each(|e| e.walk(f));
            }
            Expr::Aggregate { arg: Some(a), .. } => a.walk(f),
            Expr::Case(c) => {
                let branches = c.branches.iter().flat_map(|(w, t)| [w, t]);
                c.subject
                    .iter()
                    .chain(branches)
                    .chain(c.default.iter())
                    .for_each(|e| e.walk(f));
            }
            Expr::Literal(_)
            | Expr::Node(_)
            | Expr::Rel(_)
            | Expr::Column(_)
            | Expr::Local(_)
            | Expr::Exists(_)
            | Expr::Aggregate { arg: None, .. } => {}
        }
    }
}
