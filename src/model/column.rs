//! Frozen, typed property columns with a validity (non-null) bitmap.

use super::slab::{Slab, StringHeap};
use super::value::{PropType, ValueRef};

/// The values of one column.
#[derive(Debug, Clone)]
pub enum ColumnData {
    /// One `i64` per row.
    Int(Slab<i64>),
    /// One `f64` per row.
    Float(Slab<f64>),
    /// One byte (0/1) per row.
    Bool(Slab<u8>),
    /// One string per row.
    Str(StringHeap),
    /// Dictionary-encoded strings: `codes[row]` indexes `dict` (used when values repeat a lot).
    Dict {
        /// One code per row.
        codes: Slab<u32>,
        /// The distinct values.
        dict: StringHeap,
    },
}

/// A typed column of `len` rows; rows whose validity bit is clear are null.
#[derive(Debug, Clone)]
pub struct Column {
    /// The property name.
    pub name: String,
    /// Number of rows.
    pub len: usize,
    /// The values.
    pub data: ColumnData,
    /// Bit `i` set = row `i` is non-null. Empty slab = every row is non-null.
    pub validity: Slab<u64>,
}

impl Column {
    /// The column's type.
    pub fn prop_type(&self) -> PropType {
        match self.data {
            ColumnData::Int(_) => PropType::Int,
            ColumnData::Float(_) => PropType::Float,
            ColumnData::Bool(_) => PropType::Bool,
            ColumnData::Str(_) | ColumnData::Dict { .. } => PropType::Str,
        }
    }

    /// True when `row` holds a value.
    pub fn is_valid(&self, row: usize) -> bool {
        if row >= self.len {
            return false;
        }
        if self.validity.is_empty() {
            return true;
        }
        self.validity
            .get(row / 64)
            .is_some_and(|w| w & (1u64 << (row % 64)) != 0)
    }

    /// The value at `row` (null when out of range or unset).
    pub fn get(&self, row: usize) -> ValueRef<'_> {
        if !self.is_valid(row) {
            return ValueRef::Null;
        }
        match &self.data {
            ColumnData::Int(v) => v.get(row).map_or(ValueRef::Null, |x| ValueRef::Int(*x)),
            ColumnData::Float(v) => v.get(row).map_or(ValueRef::Null, |x| ValueRef::Float(*x)),
            ColumnData::Bool(v) => v
                .get(row)
                .map_or(ValueRef::Null, |x| ValueRef::Bool(*x != 0)),
            ColumnData::Str(h) => h.get(row).map_or(ValueRef::Null, ValueRef::Str),
            ColumnData::Dict { codes, dict } => codes
                .get(row)
                .and_then(|c| dict.get(*c as usize))
                .map_or(ValueRef::Null, ValueRef::Str),
        }
    }

    /// Number of non-null rows.
    pub fn non_null_count(&self) -> usize {
        if self.validity.is_empty() {
            self.len
        } else {
            self.validity.iter().map(|w| w.count_ones() as usize).sum()
        }
    }
}
