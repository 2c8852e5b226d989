//! The syntax tree of a pattern query, as written by the user (before any check against a graph's schema).
//!
//! Plain data: every type derives `Debug`, `Clone`, `PartialEq` and `serde::Serialize`. Everything that an
//! error message can blame carries a [`Span`]. Spans take part in `PartialEq` like any other field, so two
//! trees parsed from differently laid out sources compare unequal; tests that want "same tree, any layout"
//! compare the serialized trees with their `span` fields removed.
//!
//! Every type also implements `Display`, printing it back as Cypher (see the `display` submodule); the
//! printed text parses back to the same tree, spans aside.

use serde::Serialize;

mod display;
mod update;

pub use update::{RemoveItem, SetItem, Statement, Tail, UpdateClause, UpdateKind};

/// A region of the query source: byte offsets plus the 1-based line and column (counted in characters)
/// of its first character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte (`start` for an empty span).
    pub end: usize,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column of `start`, in characters (not bytes).
    pub column: u32,
}

impl Span {
    /// The span from the start of `self` to the end of `other` (which must not start before `self`).
    pub fn to(self, other: Span) -> Span {
        Span {
            end: other.end.max(self.start),
            ..self
        }
    }

    /// The empty span at the start of `self`.
    pub fn shrink_to_start(self) -> Span {
        Span {
            end: self.start,
            ..self
        }
    }
}

/// A name written in the query (label, relationship type, property key, variable, function name), with
/// where it was written. Backtick quotes are already removed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Name {
    /// The name itself, case preserved.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A whole query: the pattern, its filter, then the projections.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Query {
    /// The path patterns of every `MATCH` clause, in order (several `MATCH` clauses are one pattern).
    pub matches: Vec<PathPattern>,
    /// The `WHERE` filters of every `MATCH` clause, joined with `AND`.
    pub where_clause: Option<Expr>,
    /// `WITH` clauses between the `MATCH` clauses and `RETURN`, in order.
    pub with_clauses: Vec<WithClause>,
    /// The `RETURN` clause; `None` means "return the ids of every bound node".
    pub ret: Option<Projection>,
    /// The whole query, comments around it excluded.
    pub span: Span,
    /// `UNWIND` clauses before the first `MATCH`, in order.
    pub leading: Vec<Unwind>,
    /// The reading clauses after the `MATCH` clauses (and before the first `WITH`), in order:
    /// `OPTIONAL MATCH` and `UNWIND`.
    pub trailing: Vec<ReadingClause>,
    /// The queries joined after this one by `UNION [ALL]`, in order; each has no `union` of its
    /// own. A flat list rather than a chain, so that neither building, printing, comparing, cloning
    /// nor dropping a query of thousands of `UNION`s recurses once per query.
    pub union: Vec<UnionClause>,
}

/// `UNWIND list AS alias`: one row per element of the list (none for an empty list or null).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unwind {
    /// The list.
    pub list: Expr,
    /// The variable each element is bound to.
    pub alias: Name,
    /// From `UNWIND` to the alias.
    pub span: Span,
}

/// `OPTIONAL MATCH patterns [WHERE condition]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptionalMatch {
    /// The path patterns (their `clause` numbers continue after the `MATCH` clauses').
    pub paths: Vec<PathPattern>,
    /// The condition, part of the optional pattern: a row whose extensions all fail it gets nulls.
    pub where_clause: Option<Expr>,
    /// From `OPTIONAL` to the end of the clause.
    pub span: Span,
}

/// A reading clause after the `MATCH` clauses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ReadingClause {
    /// `OPTIONAL MATCH …`.
    OptionalMatch(OptionalMatch),
    /// `UNWIND … AS x`.
    Unwind(Unwind),
}

/// `UNION [ALL]` followed by a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnionClause {
    /// `UNION ALL` (keep duplicate rows) rather than `UNION`.
    pub all: bool,
    /// The `UNION [ALL]` keywords.
    pub span: Span,
    /// The query after it (whose own `union` is empty).
    pub query: Query,
}

/// The hop bounds of a variable-length relationship `*min..max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hops {
    /// The lower bound (`*..3` and `*` leave it out: 1).
    pub min: Option<u64>,
    /// The upper bound (`*2..` and `*` leave it out: unbounded).
    pub max: Option<u64>,
    /// `true` for `*k` (exactly k hops: `min` and `max` are both `k`).
    pub exact: bool,
    /// From `*` to the last bound.
    pub span: Span,
}

/// A chain of nodes joined by relationships: `(a)-[:T]->(b)<--(c)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathPattern {
    /// The nodes, in writing order; never empty.
    pub nodes: Vec<NodePattern>,
    /// `rels[i]` joins `nodes[i]` and `nodes[i + 1]`, so `rels.len() == nodes.len() - 1`.
    pub rels: Vec<RelPattern>,
    /// The `MATCH` clause the path was written in, counted from 0 (in an `EXISTS` body, among
    /// the body's own clauses): Cypher semantics keeps the edges of one clause distinct.
    pub clause: usize,
    /// The path's variable in a named path `p = (…)` (only in `MATCH` and `OPTIONAL MATCH`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Name>,
    /// The whole path.
    pub span: Span,
}

/// A node pattern: `(v:Label {key: value})`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodePattern {
    /// The variable, if any (`()` and `(:Label)` are anonymous).
    pub var: Option<Name>,
    /// The labels the node must carry.
    pub labels: LabelExpr,
    /// Property constraints `{key: value}`, in writing order.
    pub props: Vec<PropertyEntry>,
    /// A property map was written, even an empty one (`(n {})`; not serialized).
    #[serde(skip)]
    pub has_map: bool,
    /// From `(` to `)`.
    pub span: Span,
}

/// A label constraint in conjunctive normal form: `:A|B:C` means "(A or B) and C".
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LabelExpr {
    /// Each inner list is a set of alternatives (one label is enough); every inner list must hold.
    /// Empty: no constraint.
    pub all_of: Vec<Vec<Name>>,
}

impl LabelExpr {
    /// True when the expression constrains nothing.
    pub fn is_empty(&self) -> bool {
        self.all_of.is_empty()
    }
}

/// A relationship pattern: `-[r:T1|T2 {key: value}]->`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelPattern {
    /// The variable, if any.
    pub var: Option<Name>,
    /// Allowed relationship types; empty means any type.
    pub types: Vec<Name>,
    /// Which way the relationship must point, relative to writing order.
    pub direction: Direction,
    /// Property constraints `{key: value}`, in writing order.
    pub props: Vec<PropertyEntry>,
    /// `*min..max`: a variable-length relationship (a path of that many hops).
    pub hops: Option<Hops>,
    /// From the first dash (or `<`) to the last dash (or `>`).
    pub span: Span,
}

/// Direction of a relationship pattern, relative to the order its two nodes are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Direction {
    /// `-->`: from the left node to the right node.
    Right,
    /// `<--`: from the right node to the left node.
    Left,
    /// `--` (or `<-->`): either way.
    Both,
}

/// One `key: value` entry of a property map in a node or relationship pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PropertyEntry {
    /// The property key.
    pub key: Name,
    /// The value it must equal (the parser accepts any expression; the binder decides what is allowed).
    pub value: Expr,
}

/// The body of a `RETURN` or `WITH` clause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// `DISTINCT` was given.
    pub distinct: bool,
    /// `*` was given (all variables in scope), possibly followed by more `items`.
    pub star: bool,
    /// The listed items, in order.
    pub items: Vec<ReturnItem>,
    /// `ORDER BY` keys, in order; empty when absent.
    pub order_by: Vec<SortItem>,
    /// `SKIP n`: an integer literal or a parameter.
    pub skip: Option<Expr>,
    /// `LIMIT n`: an integer literal or a parameter.
    pub limit: Option<Expr>,
    /// From the `RETURN`/`WITH` keyword to the end of the clause.
    pub span: Span,
}

/// A `WITH` clause: a projection, optionally filtered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WithClause {
    /// The projected items, ordering and paging.
    pub projection: Projection,
    /// The `WHERE` after the projection, evaluated on its output.
    pub where_clause: Option<Expr>,
    /// `UNWIND` clauses right after this `WITH`, in order.
    pub unwinds: Vec<Unwind>,
}

/// One projected item: `expr [AS alias]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReturnItem {
    /// The value.
    pub expr: Expr,
    /// The column name given with `AS`.
    pub alias: Option<Name>,
    /// The item, alias included.
    pub span: Span,
}

/// One `ORDER BY` key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortItem {
    /// The key.
    pub expr: Expr,
    /// `DESC`/`DESCENDING` was given.
    pub descending: bool,
    /// The key, direction keyword included.
    pub span: Span,
}

/// A subquery `EXISTS { [MATCH] pattern, ... [WHERE expr] }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubQuery {
    /// The path patterns.
    pub matches: Vec<PathPattern>,
    /// The filter.
    pub where_clause: Option<Expr>,
    /// From `EXISTS` to `}`.
    pub span: Span,
}

/// An expression and where it was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

impl Expr {
    /// An expression of `kind` at `span`.
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }
}

/// The kinds of expressions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ExprKind {
    /// A constant.
    Literal(Literal),
    /// A list `[a, b, ...]` (elements are any expressions).
    List(Vec<Expr>),
    /// A query parameter `$name` (the name without `$`).
    Param(String),
    /// A variable.
    Var(String),
    /// Property access `base.key`.
    Property {
        /// The node, relationship or other value whose property is read.
        base: Box<Expr>,
        /// The property key.
        key: Name,
    },
    /// Label test `v:Label` (same label syntax as in a node pattern).
    HasLabels {
        /// The tested value.
        base: Box<Expr>,
        /// The labels it must carry.
        labels: LabelExpr,
    },
    /// A function call `name([DISTINCT] args)`. The name is kept as written; function names are
    /// case-insensitive and the parser accepts any name, the binder rejects unknown ones.
    FunctionCall {
        /// The function name.
        name: Name,
        /// `DISTINCT` was written before the arguments.
        distinct: bool,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `count(*)`.
    CountStar,
    /// A prefix operator.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        expr: Box<Expr>,
    },
    /// A binary operator (boolean, comparison or arithmetic).
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// A string predicate: `lhs CONTAINS rhs`, `STARTS WITH`, `ENDS WITH`, `=~`.
    StringPredicate {
        /// The predicate.
        op: StringOp,
        /// The tested string.
        lhs: Box<Expr>,
        /// The substring, prefix, suffix or regular expression.
        rhs: Box<Expr>,
    },
    /// Membership `expr IN list`.
    In {
        /// The tested value.
        expr: Box<Expr>,
        /// The list (a list expression or a parameter, for anything the binder accepts).
        list: Box<Expr>,
    },
    /// `expr IS NULL` or, when `negated`, `expr IS NOT NULL`.
    IsNull {
        /// The tested value.
        expr: Box<Expr>,
        /// `IS NOT NULL`.
        negated: bool,
    },
    /// A path pattern used as a boolean: true when the pattern has a match extending the current one.
    PatternPredicate(PathPattern),
    /// `EXISTS { ... }`.
    Exists(Box<SubQuery>),
    /// `CASE [subject] WHEN w THEN t ... [ELSE e] END`.
    Case(Box<CaseExpr>),
    /// A list comprehension `[x IN list WHERE p | e]` or a list predicate `any(x IN list WHERE p)`.
    Comprehension(Box<Comprehension>),
    /// A map literal `{key: value, …}` (outside node and relationship patterns).
    Map(Vec<PropertyEntry>),
    /// `base[index]`.
    Index {
        /// The list (or string) indexed.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `base[from..to]` (either bound may be left out).
    Slice {
        /// The list sliced.
        base: Box<Expr>,
        /// The first index kept.
        from: Option<Box<Expr>>,
        /// The first index left out.
        to: Option<Box<Expr>>,
    },
}

/// What a [`Comprehension`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ComprehensionKind {
    /// `[x IN list WHERE p | e]`: the list of `e` for the elements where `p` holds.
    List,
    /// `any(x IN list WHERE p)`.
    Any,
    /// `all(x IN list WHERE p)`.
    All,
    /// `none(x IN list WHERE p)`.
    None,
    /// `single(x IN list WHERE p)`.
    Single,
}

impl ComprehensionKind {
    /// The function name of a list predicate (`None` for a list comprehension).
    pub fn function_name(self) -> Option<&'static str> {
        match self {
            ComprehensionKind::List => None,
            ComprehensionKind::Any => Some("any"),
            ComprehensionKind::All => Some("all"),
            ComprehensionKind::None => Some("none"),
            ComprehensionKind::Single => Some("single"),
        }
    }
}

/// `[var IN list WHERE filter | map]` and the list predicates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comprehension {
    /// What it computes.
    pub kind: ComprehensionKind,
    /// The variable each element is bound to.
    pub var: Name,
    /// The list.
    pub list: Expr,
    /// `WHERE filter`.
    pub filter: Option<Expr>,
    /// `| map` (list comprehensions only).
    pub map: Option<Expr>,
}

/// A `CASE` expression: simple (`CASE x WHEN v THEN …`, each `WHEN` value compared with `x` by `=`)
/// or generic (`CASE WHEN condition THEN …`, the first `true` condition wins). Without a matching
/// branch and without `ELSE` its value is `null`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseExpr {
    /// The tested value of a simple `CASE`; `None` for the generic form.
    pub subject: Option<Expr>,
    /// `WHEN … THEN …` pairs, in order; never empty.
    pub branches: Vec<(Expr, Expr)>,
    /// The `ELSE` value.
    pub default: Option<Expr>,
}

/// A constant value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Literal {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number (always finite).
    Float(f64),
    /// A string, escapes resolved.
    String(String),
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    /// Boolean `NOT`.
    Not,
    /// Arithmetic negation `-`.
    Neg,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BinaryOp {
    /// `OR`.
    Or,
    /// `XOR`.
    Xor,
    /// `AND`.
    And,
    /// `=`.
    Eq,
    /// `<>` (also written `!=`).
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
}

impl BinaryOp {
    /// The operator as written in a query.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "OR",
            BinaryOp::Xor => "XOR",
            BinaryOp::And => "AND",
            BinaryOp::Eq => "=",
            BinaryOp::Ne => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
        }
    }

    /// True for `= <> < <= > >=`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

/// String predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum StringOp {
    /// `CONTAINS`.
    Contains,
    /// `STARTS WITH`.
    StartsWith,
    /// `ENDS WITH`.
    EndsWith,
    /// `=~`: the whole string matches the regular expression.
    Regex,
}

impl StringOp {
    /// The operator as written in a query.
    pub fn symbol(self) -> &'static str {
        match self {
            StringOp::Contains => "CONTAINS",
            StringOp::StartsWith => "STARTS WITH",
            StringOp::EndsWith => "ENDS WITH",
            StringOp::Regex => "=~",
        }
    }
}

/// Operator precedence levels, lowest first, shared by the parser and the printer.
pub(crate) mod prec {
    /// `OR`.
    pub const OR: u8 = 1;
    /// `XOR`.
    pub const XOR: u8 = 2;
    /// `AND`.
    pub const AND: u8 = 3;
    /// Prefix `NOT`.
    pub const NOT: u8 = 4;
    /// `= <> < <= > >=` (not associative).
    pub const COMPARISON: u8 = 5;
    /// `IN`, `IS [NOT] NULL`, `CONTAINS`, `STARTS WITH`, `ENDS WITH`, `=~`.
    pub const PREDICATE: u8 = 6;
    /// `+ -`.
    pub const ADDITIVE: u8 = 7;
    /// `* / %`.
    pub const MULTIPLICATIVE: u8 = 8;
    /// Prefix `-`.
    pub const NEGATION: u8 = 9;
    /// Atoms and postfix `.key`, `:Label`.
    pub const ATOM: u8 = 10;
}

impl BinaryOp {
    /// Precedence level (see [`prec`]).
    pub(crate) fn precedence(self) -> u8 {
        match self {
            BinaryOp::Or => prec::OR,
            BinaryOp::Xor => prec::XOR,
            BinaryOp::And => prec::AND,
            BinaryOp::Add | BinaryOp::Sub => prec::ADDITIVE,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => prec::MULTIPLICATIVE,
            _ => prec::COMPARISON,
        }
    }
}

impl ExprKind {
    /// Precedence level of the expression's outermost operator (see [`prec`]).
    pub(crate) fn precedence(&self) -> u8 {
        match self {
            ExprKind::Binary { op, .. } => op.precedence(),
            ExprKind::Unary {
                op: UnaryOp::Not, ..
            } => prec::NOT,
            ExprKind::Unary {
                op: UnaryOp::Neg, ..
            } => prec::NEGATION,
            ExprKind::StringPredicate { .. } | ExprKind::In { .. } | ExprKind::IsNull { .. } => {
                prec::PREDICATE
            }
            _ => prec::ATOM,
        }
    }
}
