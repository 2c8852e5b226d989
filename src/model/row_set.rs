//! [`RowSet`]: the rows that hold a value in one builder column, in the order the values arrived.
//!
//! Loaders almost always set a property on rows in increasing order (a file's nodes or edges one
//! after the other, skipping nulls), so the set is kept as a bitmap over `first..=last` — one bit per
//! row instead of a 32-bit row id per value — and turns into an explicit list the first time a row
//! arrives out of order (or the bitmap would be mostly empty). Either way, iteration yields the rows
//! in arrival order, so value `i` of the column belongs to the `i`-th row yielded.

/// Rows holding a value, in arrival order.
#[derive(Debug, Clone)]
pub(crate) enum RowSet {
    /// Strictly increasing rows: bit `r - first` of `bits` is set for each row `r`.
    Increasing {
        first: u32,
        last: u32,
        bits: Vec<u64>,
        count: usize,
    },
    /// Any order (a row may repeat; later values win when frozen).
    Listed(Vec<u32>),
}

impl Default for RowSet {
    fn default() -> Self {
        RowSet::Increasing {
            first: 0,
            last: 0,
            bits: Vec::new(),
            count: 0,
        }
    }
}

/// A bitmap is kept while it has at least one set bit per this many bits (plus some slack).
const MAX_SPARSENESS: usize = 32;

impl RowSet {
    /// Appends `row`.
    #[inline]
    pub(crate) fn push(&mut self, row: u32) {
        match self {
            RowSet::Increasing {
                first,
                last,
                bits,
                count,
            } => {
                if *count == 0 {
                    (*first, *last, *count) = (row, row, 1);
                    bits.clear();
                    bits.push(1);
                    return;
                }
                let offset = row.wrapping_sub(*first) as usize;
                let words = offset / 64 + 1;
                let dense_enough = words * 64 <= (*count + 1) * MAX_SPARSENESS + 4096;
                if row > *last && dense_enough {
                    if bits.len() < words {
                        bits.resize(words, 0);
                    }
                    bits[offset / 64] |= 1 << (offset % 64);
                    *last = row;
                    *count += 1;
                    return;
                }
                let mut rows: Vec<u32> = self.iter().collect();
                rows.push(row);
                *self = RowSet::Listed(rows);
            }
            RowSet::Listed(rows) => rows.push(row),
        }
    }

    /// Bytes its bitmap or list takes (capacity aside).
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            RowSet::Increasing { bits, .. } => bits.len() * 8,
            RowSet::Listed(rows) => rows.len() * 4,
        }
    }

    /// The rows in arrival order.
    pub(crate) fn iter(&self) -> RowIter<'_> {
        match self {
            RowSet::Increasing { first, bits, .. } => RowIter::Bits {
                first: *first,
                bits,
                word_index: 0,
                word: bits.first().copied().unwrap_or(0),
            },
            RowSet::Listed(rows) => RowIter::Listed(rows.iter()),
        }
    }
}

/// Iterator of [`RowSet::iter`].
pub(crate) enum RowIter<'a> {
    /// Set bits of a bitmap, lowest first; `word` holds the bits of `bits[word_index]` not yet
    /// yielded.
    Bits {
        first: u32,
        bits: &'a [u64],
        word_index: usize,
        word: u64,
    },
    /// An explicit list.
    Listed(std::slice::Iter<'a, u32>),
}

impl Iterator for RowIter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            RowIter::Bits {
                first,
                bits,
                word_index,
                word,
            } => {
                while *word == 0 {
                    *word_index += 1;
                    *word = *bits.get(*word_index)?;
                }
                let bit = word.trailing_zeros();
                *word &= *word - 1;
                Some(*first + (*word_index * 64) as u32 + bit)
            }
            RowIter::Listed(rows) => rows.next().copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn collect(rows: &[u32]) -> (RowSet, Vec<u32>) {
        let mut set = RowSet::default();
        for &r in rows {
            set.push(r);
        }
        let got: Vec<u32> = set.iter().collect();
        (set, got)
    }

    #[test]
    fn increasing_rows_stay_a_bitmap() {
        let (set, got) = collect(&[5, 6, 9, 70, 71, 200]);
        assert_eq!(got, [5, 6, 9, 70, 71, 200]);
        assert!(matches!(set, RowSet::Increasing { count: 6, .. }));
        assert_eq!(set.iter().count(), 6);
    }

    #[test]
    fn out_of_order_repeats_and_huge_gaps_become_a_list() {
        let (set, got) = collect(&[3, 4, 2, 4]);
        assert_eq!(got, [3, 4, 2, 4]);
        assert!(matches!(set, RowSet::Listed(_)));
        let (set, got) = collect(&[0, u32::MAX - 1]);
        assert_eq!(got, [0, u32::MAX - 1]);
        assert!(matches!(set, RowSet::Listed(_)));
        let (set, got) = collect(&[]);
        assert!(got.is_empty() && set.iter().next().is_none());
    }

    proptest! {
        #[test]
        fn yields_rows_in_arrival_order(rows in proptest::collection::vec(0u32..5000, 0..300), sorted in any::<bool>()) {
            let mut rows = rows;
            if sorted {
                rows.sort_unstable();
                rows.dedup();
            }
            let (set, got) = collect(&rows);
            prop_assert_eq!(&got, &rows);
            prop_assert_eq!(set.iter().count(), rows.len());
        }
    }
}
