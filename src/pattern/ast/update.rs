//! The syntax tree of a rule file: statements made of a read part (`MATCH … WHERE …`, `WITH …`)
//! followed by updating clauses (`CREATE`, `MERGE`, `SET`, `REMOVE`, `DELETE`, `DETACH DELETE`).
//!
//! Like the read query's tree, these types are plain data that serialize; they are produced by
//! [`crate::pattern::parser::parse_rules`] and bound by [`crate::transform`].

use serde::Serialize;

use super::{
    Expr, Name, PathPattern, Projection, PropertyEntry, Query, ReadingClause, Span, Unwind,
    WithClause,
};

/// One statement of a rule file: an optional read part, then at least one updating clause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statement {
    /// The path patterns of every `MATCH` clause (empty: the statement runs once, on no match).
    pub matches: Vec<PathPattern>,
    /// The `WHERE` filters of every `MATCH` clause, joined with `AND`.
    pub where_clause: Option<Expr>,
    /// `WITH` clauses between the `MATCH` clauses and the updating clauses.
    pub with_clauses: Vec<WithClause>,
    /// The updating clauses, in order; never empty.
    pub updates: Vec<UpdateClause>,
    /// The whole statement, the `;` excluded.
    pub span: Span,
    /// `UNWIND` clauses before the first `MATCH`, in order.
    pub leading: Vec<Unwind>,
    /// `OPTIONAL MATCH` and `UNWIND` clauses after the `MATCH` clauses, in order.
    pub trailing: Vec<ReadingClause>,
    /// What the statement returns after its updates: `WITH …` clauses and a `RETURN`.
    pub tail: Option<Tail>,
}

/// The clauses after a statement's updates: `(WITH …)* RETURN …`, run on the rows of the
/// statement's updates in the model they leave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tail {
    /// `WITH` clauses, in order.
    pub with_clauses: Vec<WithClause>,
    /// The `RETURN` clause.
    pub ret: Projection,
    /// From the first `WITH` (or `RETURN`) to the end.
    pub span: Span,
}

impl Statement {
    /// The read part as a query returning `ret` (a statement without a read clause runs on
    /// one empty row: `RETURN …` alone).
    pub fn read_query(&self, ret: Projection) -> Query {
        Query {
            matches: self.matches.clone(),
            where_clause: self.where_clause.clone(),
            with_clauses: self.with_clauses.clone(),
            ret: Some(ret),
            span: self.span,
            leading: self.leading.clone(),
            trailing: self.trailing.clone(),
            union: Vec::new(),
        }
    }

    /// True when the statement reads the graph or has rows of its own (`MATCH`, `UNWIND`,
    /// `WITH`) before its updates.
    pub fn has_read(&self) -> bool {
        !self.matches.is_empty()
            || !self.leading.is_empty()
            || !self.trailing.is_empty()
            || !self.with_clauses.is_empty()
    }
}

/// One updating clause and where it was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpdateClause {
    /// What it does.
    pub kind: UpdateKind,
    /// From the clause keyword to its end.
    pub span: Span,
}

/// The updating clauses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum UpdateKind {
    /// `CREATE pattern, …`: new nodes (variables not bound yet) and relationships.
    Create(Vec<PathPattern>),
    /// `MERGE pattern`: a node or a single relationship, matched or else created.
    Merge(PathPattern),
    /// `SET item, …`.
    Set(Vec<SetItem>),
    /// `ON CREATE SET item, …` after a `MERGE`: done where the `MERGE` created its element.
    OnCreate(Vec<SetItem>),
    /// `ON MATCH SET item, …` after a `MERGE`: done where the `MERGE` found its element.
    OnMatch(Vec<SetItem>),
    /// `REMOVE item, …`.
    Remove(Vec<RemoveItem>),
    /// `[DETACH] DELETE var, …`.
    Delete {
        /// `DETACH DELETE`: the nodes' relationships are deleted with them.
        detach: bool,
        /// The deleted nodes or relationships.
        targets: Vec<Name>,
    },
}

/// One item of a `SET` clause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SetItem {
    /// `var.key = value`.
    Property {
        /// The node or relationship.
        var: Name,
        /// The property key.
        key: Name,
        /// The new value (`null` removes the property).
        value: Expr,
    },
    /// `var:Label:…`: labels added to a node.
    Labels {
        /// The node.
        var: Name,
        /// The labels.
        labels: Vec<Name>,
    },
    /// `var = map` (every other property removed) or `var += map` (others kept), the map any
    /// expression: a map, a parameter, a node or a relationship (its properties).
    Map {
        /// The node or relationship.
        var: Name,
        /// The map.
        value: Expr,
        /// `=`: the properties not in the map are removed.
        replace: bool,
    },
    /// `var += {key: value, …}`: every entry set, other properties kept.
    MergeMap {
        /// The node or relationship.
        var: Name,
        /// The entries.
        entries: Vec<PropertyEntry>,
    },
}

/// One item of a `REMOVE` clause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RemoveItem {
    /// `var.key`.
    Property {
        /// The node or relationship.
        var: Name,
        /// The property key.
        key: Name,
    },
    /// `var:Label:…`.
    Labels {
        /// The node.
        var: Name,
        /// The labels.
        labels: Vec<Name>,
    },
}
