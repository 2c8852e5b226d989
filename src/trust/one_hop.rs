//! One-hop scores `OH_ij = ½·S_ij + ½·W_ij` (paper §1.B.2), in fixed point.
//!
//! `W_ij` is the weight of a maximum-weight matching between the neighbours of template node `i`
//! and those of data node `j`, an edge between neighbours `a` and `b` weighing `S(a, b)`,
//! **normalised by the template degree** `deg_T(i)`: `W_ij = ⌊best / deg_T(i)⌋`. So `W = 1`
//! exactly when every template neighbour finds its own data neighbour with an identical value, and
//! extra data neighbours cost nothing (TruST looks for the template inside a larger graph, where
//! the matched nodes normally have more neighbours than their template counterparts). A template
//! node without neighbours has nothing to cover: `W = 1` for it. All divisions round down.
//!
//! The matching is exact for any degrees (no cap): when every template neighbour's best data
//! neighbour is a different node, the row maxima are the optimum and are taken directly; otherwise
//! the iterative [`Hungarian`] algorithm decides. Computed for every pair, in parallel.

use rayon::prelude::*;

use super::assignment::Hungarian;
use super::graph::TrustGraph;
use super::levenshtein::SCALE;

/// Pairs handled per rayon task.
const CHUNK: usize = 1024;

/// Per-thread scratch for [`one_hop_score`].
#[derive(Debug, Default)]
pub struct OneHopScratch {
    hungarian: Hungarian,
    best_col: Vec<u32>,
}

/// The one-hop score of template node `i` and data node `j`, given the similarity table `s`
/// (row-major by template node, `data.node_count()` columns).
pub fn one_hop_score(
    template: &TrustGraph,
    data: &TrustGraph,
    s: &[u32],
    i: u32,
    j: u32,
    scratch: &mut OneHopScratch,
) -> u32 {
    let d = data.node_count();
    let sim = s[i as usize * d + j as usize];
    let tn = template.neighbors(i);
    let dn = data.neighbors(j);
    let w = if tn.is_empty() {
        SCALE
    } else {
        let best = best_matching(tn, dn, s, d, scratch);
        (best / tn.len() as u64) as u32
    };
    ((u64::from(sim) + u64::from(w)) / 2) as u32
}

/// The maximum-weight matching between template neighbours `tn` and data neighbours `dn`.
fn best_matching(tn: &[u32], dn: &[u32], s: &[u32], d: usize, scratch: &mut OneHopScratch) -> u64 {
    if dn.is_empty() {
        return 0;
    }
    let weight = |r: usize, c: usize| s[tn[r] as usize * d + dn[c] as usize];
    // Row maxima in distinct columns are optimal (they reach the trivial upper bound).
    scratch.best_col.clear();
    let mut sum = 0u64;
    let mut distinct = tn.len() <= dn.len();
    if distinct {
        for r in 0..tn.len() {
            let (mut bc, mut bw) = (0usize, weight(r, 0));
            for c in 1..dn.len() {
                let w = weight(r, c);
                if w > bw {
                    bw = w;
                    bc = c;
                }
            }
            if scratch.best_col.contains(&(bc as u32)) {
                distinct = false;
                break;
            }
            scratch.best_col.push(bc as u32);
            sum += u64::from(bw);
        }
    }
    if distinct {
        return sum;
    }
    scratch.hungarian.max_weight(tn.len(), dn.len(), weight)
}

/// The one-hop table (`|V_T| · |V_D|` entries, row-major by template node) from the similarity
/// table `s`.
pub fn one_hop_table(template: &TrustGraph, data: &TrustGraph, s: &[u32]) -> Vec<u32> {
    let d = data.node_count();
    let mut table = vec![0u32; template.node_count() * d];
    if d == 0 {
        return table;
    }
    table.par_chunks_mut(CHUNK).enumerate().for_each_init(
        OneHopScratch::default,
        |scratch, (chunk, out)| {
            let first = chunk * CHUNK;
            for (k, slot) in out.iter_mut().enumerate() {
                let pair = first + k;
                let (i, j) = ((pair / d) as u32, (pair % d) as u32);
                *slot = one_hop_score(template, data, s, i, j, scratch);
            }
        },
    );
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::similarity::similarity_table;

    #[test]
    fn hand_computed_scores() {
        // Template: a path x - y - z. Data: a star centred on "y" with leaves "x", "z", "q".
        let t = TrustGraph::from_parts(&["x", "y", "z"], &[(0, 1), (1, 2)]).unwrap();
        let d = TrustGraph::from_parts(&["y", "x", "z", "q"], &[(0, 1), (0, 2), (0, 3)]).unwrap();
        let s = similarity_table(&t, &d);
        let oh = one_hop_table(&t, &d, &s);
        let at = |i: usize, j: usize| oh[i * 4 + j];
        // Centre to centre: S = 1, both template neighbours x, z find identical leaves: W = 1.
        assert_eq!(at(1, 0), SCALE);
        // Template x (neighbour y) to data x (neighbour y): S = 1, W = 1.
        assert_eq!(at(0, 1), SCALE);
        // Template x to data centre y: S = 0; y's neighbour set {x, z, q} holds no "y": W = 0.
        assert_eq!(at(0, 0), 0);
        // Template y to data leaf x: S = 0; template neighbours {x, z} vs data {y}: best 0.
        assert_eq!(at(1, 1), 0);
        // Template z to data q: S("z","q") = 0, W: neighbour y vs y = 1 → OH = ½.
        assert_eq!(at(2, 3), SCALE / 2);
    }

    #[test]
    fn hungarian_path_when_maxima_collide() {
        // Template centre c with neighbours "ab", "ac"; data centre c with neighbours "ab", "zz".
        // Both template neighbours prefer data "ab" (S = 1 and ½): the matching takes ab–ab (1) and
        // ac–zz (0) = 1, W = ½.
        let t = TrustGraph::from_parts(&["c", "ab", "ac"], &[(0, 1), (0, 2)]).unwrap();
        let d = TrustGraph::from_parts(&["c", "ab", "zz"], &[(0, 1), (0, 2)]).unwrap();
        let s = similarity_table(&t, &d);
        let oh = one_hop_table(&t, &d, &s);
        assert_eq!(oh[0], (SCALE + SCALE / 2) / 2);
    }
}
