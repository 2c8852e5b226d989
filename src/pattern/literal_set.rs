//! A list of literals hashed once, when the query is bound ([`LiteralSet`]): `x IN [1, 2, …]`
//! with thousands of elements looks `x` up instead of comparing it with every element per row
//! (`IN` over a two-million-element list ran for half an hour over 50,000 rows).
//!
//! The set keeps the literals as written (for `gemp explain` and the OpenCL compiler) beside the
//! hashed integers, floats and strings; what `IN` answers — Cypher's three-valued result, numbers
//! equal across integer and float — is decided where expressions are evaluated
//! (`crate::exec::eval`).

use std::sync::Arc;

use hashbrown::HashSet;
use serde::Serialize;

use super::ir::Expr;
use crate::model::Value;

/// Lists shorter than this stay plain lists (a scan is as fast, and the plan reads as before).
pub const MIN_HASHED: usize = 16;

/// A list of literals with its integers, floats and strings hashed (see the module
/// documentation). Cloning shares the set.
#[derive(Debug, Clone)]
pub struct LiteralSet(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    /// The elements as written, every one an [`Expr::Literal`].
    items: Vec<Expr>,
    ints: HashSet<i64>,
    /// Bits of the floats that are not NaN (`-0.0` as `0.0`).
    floats: HashSet<u64>,
    strings: HashSet<String>,
    /// A null element.
    has_null: bool,
    /// A NaN element (unequal to every number).
    has_nan: bool,
    /// The largest magnitude of an integer element (beyond 2^53 an integer and a float can be
    /// equal without the float being that integer's exact value).
    max_abs_int: u64,
}

/// The bits a float is hashed by: equal floats (`0.0` and `-0.0`) hash alike.
pub fn float_key(f: f64) -> u64 {
    if f == 0.0 {
        0.0f64.to_bits()
    } else {
        f.to_bits()
    }
}

impl LiteralSet {
    /// The hashed form of `list` when it is a list of at least [`MIN_HASHED`] literals, else
    /// `list` unchanged.
    pub fn hash_if_literal(list: Expr) -> Expr {
        match list {
            Expr::List(items)
                if items.len() >= MIN_HASHED
                    && items.iter().all(|i| matches!(i, Expr::Literal(_))) =>
            {
                Expr::LiteralSet(LiteralSet::new(items))
            }
            other => other,
        }
    }

    /// The set of `items` (each an [`Expr::Literal`]; others are ignored by the lookups).
    fn new(items: Vec<Expr>) -> Self {
        let mut inner = Inner {
            items: Vec::new(),
            ints: HashSet::new(),
            floats: HashSet::new(),
            strings: HashSet::new(),
            has_null: false,
            has_nan: false,
            max_abs_int: 0,
        };
        for item in &items {
            match item {
                Expr::Literal(Value::Int(i)) => {
                    inner.ints.insert(*i);
                    inner.max_abs_int = inner.max_abs_int.max(i.unsigned_abs());
                }
                Expr::Literal(Value::Float(f)) if f.is_nan() => inner.has_nan = true,
                Expr::Literal(Value::Float(f)) => {
                    inner.floats.insert(float_key(*f));
                }
                Expr::Literal(Value::Str(s)) => {
                    inner.strings.insert(s.clone());
                }
                Expr::Literal(Value::Null) => inner.has_null = true,
                _ => {}
            }
        }
        inner.items = items;
        LiteralSet(Arc::new(inner))
    }

    /// The elements as written.
    pub fn items(&self) -> &[Expr] {
        &self.0.items
    }

    /// True when the integer `i` is an element.
    pub fn has_int(&self, i: i64) -> bool {
        self.0.ints.contains(&i)
    }

    /// True when a float equal to `f` (not NaN) is an element.
    pub fn has_float(&self, f: f64) -> bool {
        self.0.floats.contains(&float_key(f))
    }

    /// True when the string `s` is an element.
    pub fn has_str(&self, s: &str) -> bool {
        self.0.strings.contains(s)
    }

    /// True when an integer element may be equal to a float without being the float's exact
    /// value (integers beyond 2^53).
    pub fn has_huge_ints(&self) -> bool {
        self.0.max_abs_int > 1 << 53
    }

    /// True when an element is null.
    pub fn has_null(&self) -> bool {
        self.0.has_null
    }

    /// True when an element is NaN.
    pub fn has_nan(&self) -> bool {
        self.0.has_nan
    }
}

/// Serialized as the list of its elements.
impl Serialize for LiteralSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.items.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(values: Vec<Value>) -> Expr {
        Expr::List(values.into_iter().map(Expr::Literal).collect())
    }

    #[test]
    fn long_literal_lists_are_hashed_and_short_or_computed_ones_are_not() {
        let long = list((0..20).map(Value::Int).collect());
        let Expr::LiteralSet(set) = LiteralSet::hash_if_literal(long) else {
            panic!("a list of 20 literals is hashed");
        };
        assert!(set.has_int(19) && !set.has_int(20));
        assert_eq!(set.items().len(), 20);
        let short = list((0..3).map(Value::Int).collect());
        assert!(matches!(LiteralSet::hash_if_literal(short), Expr::List(_)));
        let mut computed: Vec<Expr> = (0..20).map(|i| Expr::Literal(Value::Int(i))).collect();
        computed.push(Expr::Node(0));
        assert!(matches!(
            LiteralSet::hash_if_literal(Expr::List(computed)),
            Expr::List(_)
        ));
    }

    #[test]
    fn floats_strings_nulls_and_nans_are_recorded() {
        let mut values: Vec<Value> = (0..16).map(|i| Value::Str(format!("s{i}"))).collect();
        values.extend([
            Value::Float(-0.0),
            Value::Float(f64::NAN),
            Value::Null,
            Value::Int(1 << 60),
        ]);
        let Expr::LiteralSet(set) = LiteralSet::hash_if_literal(list(values)) else {
            panic!("hashed");
        };
        assert!(set.has_str("s15") && !set.has_str("s16"));
        assert!(set.has_float(0.0), "-0.0 equals 0.0");
        assert!(set.has_nan() && set.has_null() && set.has_huge_ints());
    }
}
