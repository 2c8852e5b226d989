//! The candidate-edge tables (the auxiliary structure of CECI and DP-iso): for each pattern
//! relationship and each end, a CSR over that end's candidates listing, for candidate `i`, the
//! positions (in the other end's candidate list) of its data neighbours along the relationship.
//! Rows are sorted, so the local candidates of a pattern node are the intersection of the rows of
//! its bound neighbours. Flat arrays (offsets, targets), so the structure can be uploaded as is.

use rayon::prelude::*;

use super::filter::{Candidates, PARALLEL_FROM};
use super::query_graph::{neighbours, NeighbourScratch, QueryGraph};
use crate::model::Model;

/// One oriented table: rows over the `from` end's candidates, entries index the `to` end's.
#[derive(Debug, Clone, Default)]
pub struct EdgeTable {
    /// `rows + 1` offsets into `targets`.
    pub offsets: Vec<u32>,
    /// Positions in the far end's candidate list; each row sorted and distinct.
    pub targets: Vec<u32>,
}

impl EdgeTable {
    /// Row `i`: the far-end candidate positions adjacent to candidate `i`.
    #[inline]
    pub fn row(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of candidate edges.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// True without candidate edges.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// The index of the table of `rel` walked from its source (`forward`) or its target.
#[inline]
pub fn table_id(rel: usize, forward: bool) -> usize {
    rel * 2 + usize::from(!forward)
}

/// Builds both tables of every relationship (on all cores). `None` when a table would pass
/// `u32::MAX` entries (the caller then uses another engine). The table walked from the source is
/// built from the data graph; the one walked from the target is its transpose (`y` is a
/// neighbour of `x` walked forwards exactly when `x` is one of `y` walked backwards), which reads
/// only the candidate edges instead of the candidates' whole neighbour lists.
pub fn build(model: &Model, q: &QueryGraph, cands: &[Candidates]) -> Option<Vec<EdgeTable>> {
    let mut tables = Vec::with_capacity(q.rels.len() * 2);
    for r in &q.rels {
        let (from, to) = (&cands[r.src], &cands[r.dst]);
        let part = |scratch: &mut NeighbourScratch, chunk: &[u32]| {
            let mut lens = Vec::with_capacity(chunk.len());
            let mut targets = Vec::new();
            for &x in chunk {
                let before = targets.len();
                for &y in neighbours(model, x, r, true, scratch) {
                    if let Some(j) = to.index_of(y) {
                        targets.push(j);
                    }
                }
                lens.push((targets.len() - before) as u32);
            }
            (lens, targets)
        };
        let parts: Vec<(Vec<u32>, Vec<u32>)> = if from.len() < PARALLEL_FROM {
            vec![part(&mut NeighbourScratch::default(), &from.nodes)]
        } else {
            from.nodes
                .par_chunks(1024)
                .map_init(NeighbourScratch::default, |s, chunk| part(s, chunk))
                .collect()
        };
        let total: usize = parts.iter().map(|p| p.1.len()).sum();
        if total > u32::MAX as usize {
            return None;
        }
        let mut offsets = Vec::with_capacity(from.len() + 1);
        let mut targets = Vec::with_capacity(total);
        offsets.push(0u32);
        for (lens, t) in parts {
            let mut at = *offsets.last().expect("offsets start with 0");
            for l in lens {
                at += l;
                offsets.push(at);
            }
            targets.extend_from_slice(&t);
        }
        let forward = EdgeTable { offsets, targets };
        let backward = transpose(&forward, to.len());
        tables.push(forward);
        tables.push(backward);
    }
    Some(tables)
}

/// The transpose of `t` (rows over `t`'s targets, `cols` of them): row `j` lists, ascending, the
/// rows of `t` that hold `j`. Rows of `t` are distinct, so the transpose's are too.
fn transpose(t: &EdgeTable, cols: usize) -> EdgeTable {
    let mut offsets = vec![0u32; cols + 1];
    for &j in &t.targets {
        offsets[j as usize + 1] += 1;
    }
    for j in 0..cols {
        offsets[j + 1] += offsets[j];
    }
    let mut next: Vec<u32> = offsets[..cols].to_vec();
    let mut targets = vec![0u32; t.targets.len()];
    for i in 0..t.offsets.len().saturating_sub(1) {
        for &j in t.row(i as u32) {
            let at = &mut next[j as usize];
            targets[*at as usize] = i as u32;
            *at += 1;
        }
    }
    EdgeTable { offsets, targets }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_lists_the_rows_holding_each_column() {
        // Rows: 0 -> {1, 2}, 1 -> {}, 2 -> {0, 2}; three columns.
        let t = EdgeTable {
            offsets: vec![0, 2, 2, 4],
            targets: vec![1, 2, 0, 2],
        };
        let tt = transpose(&t, 3);
        assert_eq!(tt.offsets, vec![0, 1, 2, 4]);
        assert_eq!(tt.row(0), &[2]);
        assert_eq!(tt.row(1), &[0]);
        assert_eq!(tt.row(2), &[0, 2]);
        // A column nobody holds has an empty row.
        let tt = transpose(&t, 4);
        assert_eq!(tt.row(3), &[] as &[u32]);
    }
}
