//! Typed keys for the result stage: a grouping key or a `DISTINCT` argument made only of bound
//! elements (`n`, `id(n)`, `r`, `id(r)`, or a list of them) packed into one `u128`.
//!
//! The generic result stage keys groups by a `Vec` of values (an allocation, a dynamic hash and a
//! value-by-value comparison per input). When every key is a node or relationship id — couples'
//! `WITH p1, p2, count(t)`, `count(DISTINCT [id(p1), id(p2), id(p3)])` — the key is up to four
//! `u32` ids in one integer instead: no allocation, one cheap hash, state the size of the distinct
//! keys. The values the generic path would build are recovered from the integer only once per
//! distinct key, when the stage finishes.
//!
//! A missing element (an unbound slot or an optional element that did not match, both of which
//! [`Env::eval`](super::eval::Env::eval) reads as null) is packed as [`NULL_ID`]; element ids are
//! below it by construction of the model.

use super::eval::Val;
use crate::pattern::ir::{Expr, NodeSlot, RelSlot, NULL_ID};

/// Most parts one key may have (four `u32` fill a `u128`).
pub const MAX_PARTS: usize = 4;

/// One part of a key: which bound element, and whether the expression is the element or its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// `n`: a node value.
    Node(NodeSlot),
    /// `id(n)`: the node's id as an integer.
    NodeId(NodeSlot),
    /// `r`: a relationship value.
    Rel(RelSlot),
    /// `id(r)`: the relationship's id as an integer.
    RelId(RelSlot),
}

impl Part {
    /// The part an expression is, if it is one.
    fn of(e: &Expr) -> Option<Part> {
        match e {
            Expr::Node(s) => Some(Part::Node(*s)),
            Expr::Rel(s) => Some(Part::Rel(*s)),
            Expr::Id(base) => match base.as_ref() {
                Expr::Node(s) => Some(Part::NodeId(*s)),
                Expr::Rel(s) => Some(Part::RelId(*s)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The bound id (or [`NULL_ID`]), read as [`Env::eval`](super::eval::Env::eval) reads it.
    fn id(self, nodes: &[u32], rels: &[u32]) -> u32 {
        match self {
            Part::Node(s) | Part::NodeId(s) => nodes.get(s).copied().unwrap_or(NULL_ID),
            Part::Rel(s) | Part::RelId(s) => rels.get(s).copied().unwrap_or(NULL_ID),
        }
    }

    /// The value the generic path computes for this part from `id`.
    fn value<'m>(self, id: u32) -> Val<'m> {
        if id == NULL_ID {
            return Val::Null;
        }
        match self {
            Part::Node(_) => Val::Node(id),
            Part::Rel(_) => Val::Rel(id),
            Part::NodeId(_) | Part::RelId(_) => Val::Int(i64::from(id)),
        }
    }
}

/// A key of one to [`MAX_PARTS`] element parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdTuple {
    parts: Vec<Part>,
    /// The expression is a list literal (`[id(a), id(b)]`): its value is a list, never null.
    list: bool,
}

impl IdTuple {
    /// The typed form of grouping keys `exprs` (one part each), or `None` when one of them is not
    /// an element or its id, or there are none or too many.
    pub fn of_keys<'e>(exprs: impl IntoIterator<Item = &'e Expr>) -> Option<IdTuple> {
        let parts: Option<Vec<Part>> = exprs.into_iter().map(Part::of).collect();
        let parts = parts?;
        (!parts.is_empty() && parts.len() <= MAX_PARTS).then_some(IdTuple { parts, list: false })
    }

    /// The typed form of a `DISTINCT` aggregate's argument: one element part, or a list literal of
    /// one to [`MAX_PARTS`] of them.
    pub fn of_value(e: &Expr) -> Option<IdTuple> {
        if let Some(p) = Part::of(e) {
            return Some(IdTuple {
                parts: vec![p],
                list: false,
            });
        }
        match e {
            Expr::List(items) if !items.is_empty() && items.len() <= MAX_PARTS => {
                let parts: Option<Vec<Part>> = items.iter().map(Part::of).collect();
                Some(IdTuple {
                    parts: parts?,
                    list: true,
                })
            }
            _ => None,
        }
    }

    /// The packed key of the current binding.
    #[inline]
    pub fn pack(&self, nodes: &[u32], rels: &[u32]) -> u128 {
        self.parts.iter().enumerate().fold(0u128, |k, (i, p)| {
            k | (u128::from(p.id(nodes, rels)) << (32 * i))
        })
    }

    /// The packed value of the current binding, or `None` when the value is null (a lone part
    /// whose element is unbound; aggregates skip nulls).
    #[inline]
    pub fn pack_value(&self, nodes: &[u32], rels: &[u32]) -> Option<u128> {
        let k = self.pack(nodes, rels);
        (self.list || k as u32 != NULL_ID).then_some(k)
    }

    /// The key values (one per part) that `k` stands for.
    pub fn unpack<'m>(&self, k: u128) -> Vec<Val<'m>> {
        self.parts
            .iter()
            .enumerate()
            .map(|(i, p)| p.value((k >> (32 * i)) as u32))
            .collect()
    }

    /// The value (an element, an id, or a list of them) that a packed value stands for.
    pub fn value<'m>(&self, k: u128) -> Val<'m> {
        let mut vals = self.unpack(k);
        if self.list {
            Val::List(vals)
        } else {
            vals.pop().unwrap_or(Val::Null)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::eval::Env;

    fn id(e: Expr) -> Expr {
        Expr::Id(Box::new(e))
    }

    #[test]
    fn typed_forms_are_recognised() {
        assert!(IdTuple::of_keys([&Expr::Node(0), &id(Expr::Node(2))]).is_some());
        assert!(IdTuple::of_keys([&Expr::Column(0)]).is_none());
        assert!(IdTuple::of_keys(std::iter::empty()).is_none());
        let five: Vec<Expr> = (0..5).map(Expr::Node).collect();
        assert!(IdTuple::of_keys(five.iter()).is_none());
        assert!(IdTuple::of_value(&Expr::List(vec![id(Expr::Node(0)), Expr::Rel(1)])).is_some());
        assert!(IdTuple::of_value(&Expr::List(vec![])).is_none());
        assert!(IdTuple::of_value(&Expr::Property(Box::new(Expr::Node(0)), "x".into())).is_none());
    }

    #[test]
    fn packed_keys_decode_to_what_eval_computes() {
        let model = crate::model::ModelBuilder::new().freeze().unwrap();
        let nodes = [7u32, 0, 4_000_000_000];
        let rels = [3u32];
        let exprs = [
            Expr::Node(2),
            id(Expr::Node(0)),
            Expr::Rel(0),
            id(Expr::Node(9)), // unbound: null
        ];
        let t = IdTuple::of_keys(exprs.iter()).unwrap();
        let env = Env {
            locals: &[],
            model: &model,
            nodes: &nodes,
            rels: &rels,
            row: &[],
            exists: None,
        };
        let want: Vec<Val<'_>> = exprs.iter().map(|e| env.eval(e)).collect();
        let got = t.unpack(t.pack(&nodes, &rels));
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        // Distinct keys of different bindings stay distinct.
        assert_ne!(t.pack(&nodes, &rels), t.pack(&[7, 0, 5], &rels));
    }

    #[test]
    fn null_values_are_skipped_but_lists_with_nulls_are_not() {
        let single = IdTuple::of_value(&Expr::Node(3)).unwrap();
        assert_eq!(single.pack_value(&[1, 2], &[]), None);
        assert_eq!(single.pack_value(&[1, 2, 3, 4], &[]), Some(4));
        let list = IdTuple::of_value(&Expr::List(vec![Expr::Node(0), Expr::Node(3)])).unwrap();
        let k = list.pack_value(&[1, 2], &[]).unwrap();
        assert_eq!(
            format!("{:?}", list.value(k)),
            format!("{:?}", Val::List(vec![Val::Node(1), Val::Null]))
        );
    }
}
