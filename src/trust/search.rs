//! The truncated search tree (paper §1.B.3): a level-wise beam search over partial matchings, with
//! duplicate matchings removed by hashing their canonical form.
//!
//! **States.** A partial matching is stored in canonical form: an array indexed by template node
//! holding the matched data node or [`NONE`]. Two matchings built in different orders have the same
//! array, and its score (the sum of the one-hop scores of its pairs) does not depend on the order.
//!
//! **Level 1** holds the `k0` best (template node, data node) pairs by one-hop score.
//!
//! **Extension.** Every state at level `L` is extended by one more template node `u` adjacent (in
//! the template) to a matched one, with a data node `x` that is a data-graph neighbour of the image
//! of *every* matched template neighbour of `u` (so template edges between matched nodes always
//! exist in the data graph) and is not used yet (injectivity). When no unmatched template node
//! touches a matched one (a disconnected template), the smallest unmatched template node may take
//! any unused data node. Candidates are generated in a fixed order — state, then `u` ascending,
//! then `x` ascending — which gives each one an index.
//!
//! **Deduplication.** Candidates with equal canonical arrays are merged, keeping the one with the
//! smallest index; the hash is Zobrist-style (a wrapping sum of one mixed word per pair, so a
//! child's hash is its parent's plus one term) and only locates the bucket: equality is decided by
//! comparing the arrays.
//!
//! **Selection.** The `β` (beam) best remaining candidates by (score descending, index ascending)
//! become the next level — a strict total order, so the host and the device pick the same states.
//! The search stops after `depth` levels (default: the number of template nodes) or when a level
//! has no candidates; the result is the deepest non-empty level.

use hashbrown::HashTable;

use super::graph::{TrustGraph, NONE};
use super::one_hop::OneHopSource;
use crate::error::{Error, Result};

/// Search parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchParams {
    /// Number of (template node, data node) pairs at level 1 (`usize::MAX`: all).
    pub k0: usize,
    /// Search range β: states kept per level after the first (`usize::MAX`: all).
    pub beam: usize,
    /// Number of levels (`None`: the number of template nodes; larger values are capped to it).
    pub depth: Option<usize>,
}

/// One level of the search: `len` states in canonical form with their scores and hashes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Level {
    /// `len · |V_T|` entries: state `s`'s data node for template node `t` at `s · |V_T| + t`.
    pub states: Vec<u32>,
    /// Sum of the one-hop scores of each state's pairs (fixed point).
    pub scores: Vec<u64>,
    /// Zobrist hash of each state's canonical form.
    pub hashes: Vec<u64>,
}

impl Level {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// True when the level has no states.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// State `s`'s canonical array.
    pub fn state(&self, s: usize, t: usize) -> &[u32] {
        &self.states[s * t..(s + 1) * t]
    }
}

/// An extension of a state: the parent's index, the new pair and the new score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// Index of the parent state in its level.
    pub parent: u32,
    /// The template node added.
    pub u: u32,
    /// The data node it is matched to.
    pub x: u32,
    /// Parent score plus `OH[u][x]`.
    pub score: u64,
}

/// Counts of one level of the search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelStats {
    /// Candidates generated (for level 1: template × data pairs).
    pub candidates: usize,
    /// Candidates dropped as duplicates of an earlier candidate.
    pub duplicates: usize,
    /// States kept.
    pub kept: usize,
}

/// The hash term of pair (template node `t`, data node `x`): the SplitMix64 finaliser of both.
pub fn pair_hash(t: u32, x: u32) -> u64 {
    let mut z = (u64::from(t) << 32 | u64::from(x)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The number of levels to run for a template of `t` nodes.
pub fn levels_for(params: &SearchParams, t: usize) -> usize {
    params.depth.unwrap_or(t).clamp(1, t.max(1))
}

/// Level 1: the `k0` best (template node, data node) pairs by (one-hop score descending, template
/// node ascending, data node ascending), as a [`Level`].
pub fn first_level(oh: &mut impl OneHopSource, t: usize, d: usize, k0: usize) -> Result<Level> {
    if t * d > u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "{t} template × {d} data nodes exceed 2^32 pairs"
        )));
    }
    let mut level = Level::default();
    if d == 0 {
        return Ok(level);
    }
    for (idx, score) in oh.best_pairs(k0) {
        let (i, j) = (idx as usize / d, idx % d as u32);
        let start = level.states.len();
        level.states.resize(start + t, NONE);
        level.states[start + i] = j;
        level.scores.push(u64::from(score));
        level.hashes.push(pair_hash(i as u32, j));
    }
    Ok(level)
}

/// The indices of the `beam` best kept candidates by (score descending, index ascending).
pub fn select(scores: &[u64], keep: &[bool], beam: usize) -> Vec<u32> {
    let mut keys: Vec<(u64, u32)> = scores
        .iter()
        .zip(keep)
        .enumerate()
        .filter(|(_, (_, &k))| k)
        .map(|(i, (&s, _))| (u64::MAX - s, i as u32))
        .collect();
    if beam < keys.len() {
        if beam == 0 {
            return Vec::new();
        }
        keys.select_nth_unstable(beam - 1);
        keys.truncate(beam);
    }
    keys.sort_unstable();
    keys.into_iter().map(|(_, i)| i).collect()
}

/// Appends every extension of every state of `level` to `out`, in canonical order (see the
/// module docs).
pub fn expand(
    template: &TrustGraph,
    data: &TrustGraph,
    oh: &mut impl OneHopSource,
    level: &Level,
    out: &mut Vec<Candidate>,
) {
    let t = template.node_count();
    let d = data.node_count();
    for s in 0..level.len() {
        let f = level.state(s, t);
        let score = level.scores[s];
        let used = |x: u32| f.contains(&x);
        let mut any_frontier = false;
        for u in 0..t as u32 {
            if f[u as usize] != NONE {
                continue;
            }
            let mut anchor = NONE;
            for &w in template.neighbors(u) {
                let img = f[w as usize];
                if img != NONE && (anchor == NONE || data.degree(img) < data.degree(anchor)) {
                    anchor = img;
                }
            }
            if anchor == NONE {
                continue;
            }
            any_frontier = true;
            'x: for &x in data.neighbors(anchor) {
                if used(x) {
                    continue;
                }
                for &w in template.neighbors(u) {
                    let img = f[w as usize];
                    if img != NONE && img != anchor && !data.adjacent(img, x) {
                        continue 'x;
                    }
                }
                out.push(Candidate {
                    parent: s as u32,
                    u,
                    x,
                    score: score + u64::from(oh.one_hop(u, x)),
                });
            }
        }
        if !any_frontier {
            if let Some(u) = f.iter().position(|&x| x == NONE) {
                for x in 0..d as u32 {
                    if !used(x) {
                        out.push(Candidate {
                            parent: s as u32,
                            u: u as u32,
                            x,
                            score: score + u64::from(oh.one_hop(u as u32, x)),
                        });
                    }
                }
            }
        }
    }
}

/// Marks the first candidate of every distinct canonical form (`true` = kept); returns the flags
/// and the number of duplicates.
pub fn deduplicate(level: &Level, t: usize, cands: &[Candidate]) -> (Vec<bool>, usize) {
    let hash = |c: &Candidate| level.hashes[c.parent as usize].wrapping_add(pair_hash(c.u, c.x));
    let same = |a: &Candidate, b: &Candidate| {
        let (fa, fb) = (
            level.state(a.parent as usize, t),
            level.state(b.parent as usize, t),
        );
        (0..t).all(|k| {
            let va = if k == a.u as usize { a.x } else { fa[k] };
            let vb = if k == b.u as usize { b.x } else { fb[k] };
            va == vb
        })
    };
    let mut table: HashTable<u32> = HashTable::with_capacity(cands.len());
    let mut keep = vec![false; cands.len()];
    let mut duplicates = 0;
    for (i, c) in cands.iter().enumerate() {
        let h = hash(c);
        if table.find(h, |&o| same(&cands[o as usize], c)).is_some() {
            duplicates += 1;
        } else {
            table.insert_unique(h, i as u32, |&o| hash(&cands[o as usize]));
            keep[i] = true;
        }
    }
    (keep, duplicates)
}

/// The next level: the `selected` candidates, materialised in that order.
pub fn materialise(level: &Level, t: usize, cands: &[Candidate], selected: &[u32]) -> Level {
    let mut next = Level {
        states: Vec::with_capacity(selected.len() * t),
        scores: Vec::with_capacity(selected.len()),
        hashes: Vec::with_capacity(selected.len()),
    };
    for &i in selected {
        let c = cands[i as usize];
        let start = next.states.len();
        next.states
            .extend_from_slice(level.state(c.parent as usize, t));
        next.states[start + c.u as usize] = c.x;
        next.scores.push(c.score);
        next.hashes
            .push(level.hashes[c.parent as usize].wrapping_add(pair_hash(c.u, c.x)));
    }
    next
}

/// Runs the whole search on the host; returns the deepest non-empty level (sorted best first)
/// and the statistics of every level run.
pub fn search(
    template: &TrustGraph,
    data: &TrustGraph,
    oh: &mut impl OneHopSource,
    params: &SearchParams,
) -> Result<(Level, Vec<LevelStats>)> {
    let t = template.node_count();
    let d = data.node_count();
    let mut level = first_level(oh, t, d, params.k0)?;
    let mut stats = vec![LevelStats {
        candidates: t * d,
        duplicates: 0,
        kept: level.len(),
    }];
    let mut cands = Vec::new();
    for _ in 1..levels_for(params, t) {
        cands.clear();
        expand(template, data, oh, &level, &mut cands);
        if cands.is_empty() {
            break;
        }
        let (keep, duplicates) = deduplicate(&level, t, &cands);
        let scores: Vec<u64> = cands.iter().map(|c| c.score).collect();
        let selected = select(&scores, &keep, params.beam);
        level = materialise(&level, t, &cands, &selected);
        stats.push(LevelStats {
            candidates: cands.len(),
            duplicates,
            kept: level.len(),
        });
    }
    Ok((level, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::levenshtein::SCALE;
    use crate::trust::one_hop::OneHopTable;

    #[test]
    fn triangle_in_k4_dedups_orders() {
        // Template: triangle. Data: K4 with equal values: every injective map is a matching and
        // every ordered triple (24 of them) reduces to 4·3·2 = 24 canonical arrays — but level 2
        // already merges (a→x, b→y) reached from a→x and from b→y.
        let t = TrustGraph::from_parts(&["v"; 3], &[(0, 1), (1, 2), (0, 2)]).unwrap();
        let edges: Vec<(u32, u32)> = (0..4)
            .flat_map(|a| (a + 1..4).map(move |b| (a, b)))
            .collect();
        let d = TrustGraph::from_parts(&["v"; 4], &edges).unwrap();
        let oh = vec![SCALE; 12];
        let all = SearchParams {
            k0: usize::MAX,
            beam: usize::MAX,
            depth: None,
        };
        let mut source = OneHopTable {
            table: &oh,
            data_nodes: 4,
        };
        let (level, stats) = search(&t, &d, &mut source, &all).unwrap();
        // Level 1: 12 pairs. Level 2: each pair extends by 2 template nodes × 3 data nodes = 72
        // candidates, 36 distinct (each 2-pair matching reached from both of its pairs).
        assert_eq!(stats[0].kept, 12);
        assert_eq!(stats[1].candidates, 72);
        assert_eq!(stats[1].duplicates, 36);
        // Level 3: 36 states × 1 template node × 2 data nodes = 72, 24 distinct (each full
        // matching reached from its 3 sub-matchings).
        assert_eq!(stats[2].candidates, 72);
        assert_eq!(stats[2].kept, 24);
        assert_eq!(level.len(), 24);
        assert!(level.scores.iter().all(|&s| s == 3 * u64::from(SCALE)));
    }

    #[test]
    fn selection_order_is_score_then_index() {
        let scores = [5, 9, 9, 1, 7];
        let keep = [true, true, true, true, false];
        assert_eq!(select(&scores, &keep, 3), vec![1, 2, 0]);
        assert_eq!(select(&scores, &keep, usize::MAX), vec![1, 2, 0, 3]);
        assert!(select(&scores, &keep, 0).is_empty());
    }
}
