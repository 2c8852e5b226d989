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
//! the iterative [`Hungarian`] algorithm decides. [`one_hop_table`] computes every pair (the
//! device does the same); the host search uses [`LazyOneHop`], which computes exact scores only
//! for the pairs that can matter.

use rayon::prelude::*;

use super::assignment::Hungarian;
use super::graph::{TrustGraph, NONE};
use super::levenshtein::SCALE;

/// Pairs handled per rayon task.
const CHUNK: usize = 1024;

/// Marks an unknown entry of [`LazyOneHop`]'s memo (one-hop scores never exceed [`SCALE`]).
const UNKNOWN: u32 = u32::MAX;

/// Per-thread scratch for [`one_hop_score`].
#[derive(Debug, Default)]
pub struct OneHopScratch {
    hungarian: Hungarian,
    best_col: Vec<u32>,
}

/// `W` from the matching weight `best` and the template degree (see the module docs).
fn w_of(best: u64, template_degree: usize) -> u32 {
    (best / template_degree as u64) as u32
}

/// `OH` from `S` and `W`.
fn oh_of(sim: u32, w: u32) -> u32 {
    ((u64::from(sim) + u64::from(w)) / 2) as u32
}

/// The sum of the row maxima (an upper bound of the matching) and whether the maxima lie in
/// distinct columns (then the bound is the matching).
fn row_maxima(tn: &[u32], dn: &[u32], s: &[u32], d: usize, best_col: &mut Vec<u32>) -> (u64, bool) {
    best_col.clear();
    let mut sum = 0u64;
    let mut distinct = tn.len() <= dn.len();
    for &a in tn {
        let row = &s[a as usize * d..(a as usize + 1) * d];
        let (mut bc, mut bw) = (0usize, row[dn[0] as usize]);
        for (c, &b) in dn.iter().enumerate().skip(1) {
            let w = row[b as usize];
            if w > bw {
                bw = w;
                bc = c;
            }
        }
        if distinct && best_col.contains(&(bc as u32)) {
            distinct = false;
        }
        best_col.push(bc as u32);
        sum += u64::from(bw);
    }
    (sum, distinct)
}

/// `(upper bound of OH_ij, whether the bound is exact)`, from the row maxima alone.
fn bound(
    template: &TrustGraph,
    data: &TrustGraph,
    s: &[u32],
    i: u32,
    j: u32,
    scratch: &mut OneHopScratch,
) -> (u32, bool) {
    let d = data.node_count();
    let sim = s[i as usize * d + j as usize];
    let tn = template.neighbors(i);
    let dn = data.neighbors(j);
    if tn.is_empty() {
        return (oh_of(sim, SCALE), true);
    }
    if dn.is_empty() {
        return (oh_of(sim, 0), true);
    }
    let (sum, distinct) = row_maxima(tn, dn, s, d, &mut scratch.best_col);
    (oh_of(sim, w_of(sum, tn.len())), distinct)
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
    let (ub, exact) = bound(template, data, s, i, j, scratch);
    if exact {
        return ub;
    }
    let d = data.node_count();
    let tn = template.neighbors(i);
    let dn = data.neighbors(j);
    let best = scratch.hungarian.max_weight(tn.len(), dn.len(), |r, c| {
        s[tn[r] as usize * d + dn[c] as usize]
    });
    oh_of(s[i as usize * d + j as usize], w_of(best, tn.len()))
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

/// A source of one-hop scores for the search ([`super::search`]).
pub trait OneHopSource {
    /// `OH` of template node `i` and data node `j`.
    fn one_hop(&mut self, i: u32, j: u32) -> u32;
    /// The `k` best pairs as `(pair index i · |V_D| + j, OH)` by (score descending, index
    /// ascending).
    fn best_pairs(&mut self, k: usize) -> Vec<(u32, u32)>;
}

/// A complete one-hop table as a [`OneHopSource`].
#[derive(Debug, Clone, Copy)]
pub struct OneHopTable<'a> {
    /// The table, row-major by template node.
    pub table: &'a [u32],
    /// Number of data nodes (columns).
    pub data_nodes: usize,
}

impl OneHopSource for OneHopTable<'_> {
    fn one_hop(&mut self, i: u32, j: u32) -> u32 {
        self.table[i as usize * self.data_nodes + j as usize]
    }

    fn best_pairs(&mut self, k: usize) -> Vec<(u32, u32)> {
        let keys = self
            .table
            .iter()
            .enumerate()
            .map(|(idx, &v)| pair_key(v, idx as u32))
            .collect();
        smallest(keys, k)
            .into_iter()
            .map(|key| (key as u32, SCALE - (key >> 32) as u32))
            .collect()
    }
}

/// Sort key of a pair: ascending key = (score descending, index ascending).
fn pair_key(score: u32, idx: u32) -> u64 {
    u64::from(SCALE.saturating_sub(score)) << 32 | u64::from(idx)
}

/// The `k` smallest keys, sorted ascending.
fn smallest(mut keys: Vec<u64>, k: usize) -> Vec<u64> {
    if k < keys.len() {
        if k == 0 {
            return Vec::new();
        }
        keys.select_nth_unstable(k - 1);
        keys.truncate(k);
    }
    keys.sort_unstable();
    keys
}

/// One-hop scores computed only where the search needs them — the host pipeline's source.
///
/// One parallel pass computes, for every pair, the row-maxima upper bound of `W` (cheap: no
/// assignment); where the maxima lie in distinct columns (or a neighbourhood is empty) the bound
/// *is* the score. The exact Hungarian matching then runs only for pairs the search asks for:
/// level 1's candidates in decreasing order of their bound until the `k0`-th best exact score
/// beats every remaining bound, and the pairs the extensions reach. The scores are the same as
/// [`one_hop_table`]'s, so the search result is too.
#[derive(Debug)]
pub struct LazyOneHop<'a> {
    template: &'a TrustGraph,
    data: &'a TrustGraph,
    s: &'a [u32],
    bound: Vec<u32>,
    memo: Vec<u32>,
    scratch: OneHopScratch,
    assignments: usize,
}

impl<'a> LazyOneHop<'a> {
    /// Bounds for every pair of `template` × `data` (parallel), exact scores where they are free.
    ///
    /// The row maximum of template neighbour `a` against data node `j`'s neighbourhood does not
    /// depend on the template node `i` being scored, so it is computed once per `(a, j)` (with the
    /// first data neighbour reaching it) and summed per `(i, j)`: `O(|V_T|·|E_D| + |V_T|·|V_D|·deg)`
    /// lookups instead of `O(|V_T|·|V_D|·deg_T·deg_D)`.
    pub fn new(template: &'a TrustGraph, data: &'a TrustGraph, s: &'a [u32]) -> Self {
        let d = data.node_count();
        let n = template.node_count() * d;
        let mut bound_table = vec![0u32; n];
        let mut memo = vec![UNKNOWN; n];
        if d > 0 {
            // Row maxima: best[a·d + j] = max over data neighbours b of j of S[a][b], and the
            // first such b (NONE for a data node without neighbours).
            let mut best = vec![(0u32, NONE); n];
            best.par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let first = chunk * CHUNK;
                    for (k, slot) in out.iter_mut().enumerate() {
                        let pair = first + k;
                        let (a, j) = (pair / d, (pair % d) as u32);
                        let row = &s[a * d..(a + 1) * d];
                        let mut m = (0u32, NONE);
                        for &b in data.neighbors(j) {
                            let w = row[b as usize];
                            if m.1 == NONE || w > m.0 {
                                m = (w, b);
                            }
                        }
                        *slot = m;
                    }
                });
            bound_table
                .par_chunks_mut(CHUNK)
                .zip(memo.par_chunks_mut(CHUNK))
                .enumerate()
                .for_each_init(Vec::new, |taken, (chunk, (b, m))| {
                    let first = chunk * CHUNK;
                    for k in 0..b.len() {
                        let pair = first + k;
                        let (i, j) = ((pair / d) as u32, pair % d);
                        let sim = s[pair];
                        let tn = template.neighbors(i);
                        let dn_len = data.degree(j as u32);
                        let (ub, exact) = if tn.is_empty() {
                            (oh_of(sim, SCALE), true)
                        } else if dn_len == 0 {
                            (oh_of(sim, 0), true)
                        } else {
                            taken.clear();
                            let mut sum = 0u64;
                            let mut distinct = tn.len() <= dn_len;
                            for &a in tn {
                                let (w, at) = best[a as usize * d + j];
                                sum += u64::from(w);
                                if distinct && taken.contains(&at) {
                                    distinct = false;
                                }
                                taken.push(at);
                            }
                            (oh_of(sim, w_of(sum, tn.len())), distinct)
                        };
                        b[k] = ub;
                        if exact {
                            m[k] = ub;
                        }
                    }
                });
        }
        LazyOneHop {
            template,
            data,
            s,
            bound: bound_table,
            memo,
            scratch: OneHopScratch::default(),
            assignments: 0,
        }
    }

    /// How many pairs needed the Hungarian algorithm so far.
    pub fn assignments(&self) -> usize {
        self.assignments
    }

    /// Computes the exact scores of `pairs` in parallel (those not known yet).
    fn fill(&mut self, pairs: &[u64]) {
        let d = self.data.node_count();
        let todo: Vec<u32> = pairs
            .iter()
            .map(|&key| key as u32)
            .filter(|&p| self.memo[p as usize] == UNKNOWN)
            .collect();
        let (template, data, s) = (self.template, self.data, self.s);
        let values: Vec<u32> = todo
            .par_iter()
            .map_init(OneHopScratch::default, |scratch, &p| {
                let (i, j) = (p / d as u32, p % d as u32);
                one_hop_score(template, data, s, i, j, scratch)
            })
            .collect();
        self.assignments += todo.len();
        for (p, v) in todo.into_iter().zip(values) {
            self.memo[p as usize] = v;
        }
    }
}

impl OneHopSource for LazyOneHop<'_> {
    fn one_hop(&mut self, i: u32, j: u32) -> u32 {
        let p = i as usize * self.data.node_count() + j as usize;
        if self.memo[p] == UNKNOWN {
            self.memo[p] = one_hop_score(self.template, self.data, self.s, i, j, &mut self.scratch);
            self.assignments += 1;
        }
        self.memo[p]
    }

    fn best_pairs(&mut self, k: usize) -> Vec<(u32, u32)> {
        let n = self.bound.len();
        let mut keys: Vec<u64> = self
            .bound
            .iter()
            .enumerate()
            .map(|(idx, &ub)| pair_key(ub, idx as u32))
            .collect();
        let mut m = k.saturating_mul(4).max(256).min(n);
        loop {
            if m < n {
                keys.select_nth_unstable(m - 1);
            }
            let head = &keys[..m];
            self.fill(head);
            let exact: Vec<u64> = head
                .iter()
                .map(|&key| {
                    let idx = key as u32;
                    pair_key(self.memo[idx as usize], idx)
                })
                .collect();
            let best = smallest(exact, k);
            // Every pair outside the head has OH ≤ its bound ≤ the head's smallest bound.
            let rest_bound = keys[m..]
                .iter()
                .min()
                .map(|&key| SCALE - (key >> 32) as u32);
            let done = match (rest_bound, best.last()) {
                (None, _) => true,
                (Some(rb), Some(&last)) if best.len() == k => SCALE - (last >> 32) as u32 > rb,
                _ => false,
            };
            if done {
                return best
                    .into_iter()
                    .map(|key| (key as u32, SCALE - (key >> 32) as u32))
                    .collect();
            }
            m = m.saturating_mul(4).min(n);
        }
    }
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
