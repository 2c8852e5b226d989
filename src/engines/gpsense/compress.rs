//! GpSense's multi-level graph compression (paper §5): similar nodes are merged into weighted
//! hyper-nodes, level by level, until the graph fits a device-memory budget.
//!
//! - **Similar nodes.** Two nodes (or hyper-nodes) with the same labels are similar at threshold
//!   `δ` when their *common edges* — entries `(direction, type, neighbour)` both have — make up at
//!   least `δ` of the larger of their two edge lists: `|common(u, v)| / max(|adj(u)|, |adj(v)|) ≥ δ`
//!   (the paper's formula read as a similarity in `(0, 1]`). Two isolated nodes with the same labels
//!   are similar. Each level merges disjoint pairs, greedily, each node with its most similar
//!   partner among nodes sharing an edge with it.
//! - **Thresholds.** `δ` follows [`CompressConfig::deltas`] (the paper's 0.8, 0.7, 0.7), then drops
//!   by 0.1 per level down to [`CompressConfig::min_delta`].
//! - **Weights (Definition 4).** A hyper-node's weight is the largest number of neighbours one of
//!   its members has inside the hyper-node; a hyper-edge `(X, Z)` of type `t` weighs the largest
//!   number of `t`-edges one member of `X` has to members of `Z` (per direction). Weights are
//!   computed exactly from the original graph and the mapping lists (the paper's recurrence is an
//!   upper bound of the same quantity), so for every member `x` of `X`, its degree per type and
//!   direction is at most the sum of `X`'s hyper-edge weights (Theorem 1): Definition 5 candidates
//!   on the compressed graph include the hyper-nodes of all candidates of the original graph.
//! - **Mapping lists** `M(X)`: the original nodes of each hyper-node, kept on the host.
//!
//! Sizes: a graph's device footprint is its topology ([`graph_bytes`]); the compression ratio of a
//! level is `(|Vᵢ| + |Eᵢ|) / (|V| + |E|)` as in the paper's Table 4.

use std::path::Path;

use hashbrown::HashMap;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::exec::candidates::{degree_needs, labels_match, Semantics};
use crate::model::{Adjacency, Model, ANY_TYPE};
use crate::pattern::ir::{BoundQuery, NodeSlot};

use super::filter::{unary_ok, Topo};

/// Thresholds of the compression levels.
#[derive(Debug, Clone, Serialize)]
pub struct CompressConfig {
    /// `δ` of the first levels, in order.
    pub deltas: Vec<f64>,
    /// Lowest `δ` for further levels (each drops by 0.1 from the last given one).
    pub min_delta: f64,
    /// Most levels built.
    pub max_levels: usize,
}

impl Default for CompressConfig {
    fn default() -> Self {
        CompressConfig {
            deltas: vec![0.8, 0.7, 0.7],
            min_delta: 0.1,
            max_levels: 16,
        }
    }
}

impl CompressConfig {
    /// `δ` of level `i` (0-based).
    pub fn delta(&self, i: usize) -> f64 {
        match self.deltas.get(i) {
            Some(&d) => d,
            None => {
                let last = self.deltas.last().copied().unwrap_or(0.8);
                let extra = (i + 1 - self.deltas.len()) as f64;
                (last - 0.1 * extra).max(self.min_delta)
            }
        }
    }
}

/// One compression level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LevelStats {
    /// Threshold used.
    pub delta: f64,
    /// Hyper-nodes.
    pub nodes: u64,
    /// Hyper-edges (distinct `(X, type, Z)`).
    pub edges: u64,
    /// Device bytes of this level's topology ([`graph_bytes`]).
    pub bytes: u64,
}

/// Device bytes of a topology: out- and in-CSR offsets, neighbours and types, the label CSR, and
/// the in-CSR's edge ids when `edge_ids` (the data graph; a compressed graph needs none).
pub fn graph_bytes(nodes: u64, edges: u64, label_entries: u64, edge_ids: bool) -> u64 {
    let words = 3 * (nodes + 1) + 4 * edges + label_entries + if edge_ids { edges } else { 0 };
    4 * words
}

/// Device bytes of `model`'s topology.
pub fn model_bytes(model: &Model) -> u64 {
    graph_bytes(
        model.node_count() as u64,
        model.edge_count() as u64,
        model.node_label_csr().1.len() as u64,
        true,
    )
}

/// A fingerprint of `model`'s topology and labels (what a saved compressed graph must match).
pub fn fingerprint(model: &Model) -> u64 {
    use xxhash_rust::xxh3::Xxh3;
    let mut h = Xxh3::new();
    h.update(&(model.node_count() as u64).to_le_bytes());
    h.update(&(model.edge_count() as u64).to_le_bytes());
    h.update(model.out().offsets.as_bytes());
    h.update(model.out().neighbors.as_bytes());
    h.update(model.out().types.as_bytes());
    let (lo, l) = model.node_label_csr();
    h.update(bytemuck::cast_slice(lo));
    h.update(bytemuck::cast_slice(l));
    h.digest()
}

/// A compressed (weighted) graph with its mapping lists.
#[derive(Debug)]
pub struct Compressed {
    /// [`fingerprint`] of the model it was built from.
    pub fingerprint: u64,
    /// The budget it was built for.
    pub budget: u64,
    /// Level 0 (the original graph) and every level built.
    pub levels: Vec<LevelStats>,
    /// Hyper-node of each original node.
    pub node_of: Vec<u32>,
    /// `hyper-nodes + 1` offsets into [`members`](Self::members).
    pub member_offsets: Vec<u32>,
    /// Mapping lists: the original nodes of each hyper-node, ascending.
    pub members: Vec<u32>,
    /// Definition 4 node weights.
    pub node_weight: Vec<u32>,
    /// Hyper-edges by source, sorted by (type, target) per node.
    pub out: Adjacency,
    /// Hyper-edges by target, sorted by (type, source) per node.
    pub inc: Adjacency,
    /// Weight of each [`out`](Self::out) entry.
    pub out_weight: Vec<u32>,
    /// Weight of each [`inc`](Self::inc) entry.
    pub in_weight: Vec<u32>,
    label_offsets: Vec<u32>,
    labels: Vec<u32>,
}

/// The hyper-edges of a node mapping: out and in CSR sorted by (type, neighbour).
fn hyper_adjacency(model: &Model, node_of: &[u32], n: usize) -> (Adjacency, Adjacency) {
    let out = model.out();
    let mut triples: Vec<(u32, u32, u32)> = Vec::with_capacity(out.len());
    for x in 0..model.node_count() as u32 {
        let hx = node_of[x as usize];
        for p in out.range(x) {
            triples.push((hx, out.types[p], node_of[out.neighbors[p] as usize]));
        }
    }
    triples.sort_unstable();
    triples.dedup();
    let build = |t: &[(u32, u32, u32)]| {
        let mut offsets = vec![0u32; n + 1];
        for &(a, _, _) in t {
            offsets[a as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        Adjacency {
            offsets: offsets.into(),
            neighbors: t.iter().map(|x| x.2).collect::<Vec<_>>().into(),
            types: t.iter().map(|x| x.1).collect::<Vec<_>>().into(),
            edge_ids: Vec::new().into(),
        }
    };
    let out_adj = build(&triples);
    let mut rev: Vec<(u32, u32, u32)> = triples.iter().map(|&(a, t, b)| (b, t, a)).collect();
    rev.sort_unstable();
    let in_adj = build(&rev);
    (out_adj, in_adj)
}

/// The sorted edge keys `(direction, type, neighbour)` of hyper-node `x`.
fn edge_keys(out: &Adjacency, inc: &Adjacency, x: u32, keys: &mut Vec<u64>) {
    keys.clear();
    for p in out.range(x) {
        keys.push(((out.types[p] as u64) << 32) | out.neighbors[p] as u64);
    }
    for p in inc.range(x) {
        keys.push((1u64 << 63) | ((inc.types[p] as u64) << 32) | inc.neighbors[p] as u64);
    }
    keys.sort_unstable();
}

fn common_count(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut c) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                i += 1;
                j += 1;
            }
        }
    }
    c
}

/// Keys sampled per node when looking for partners, and partners sampled per key.
const SAMPLE_KEYS: usize = 32;
const SAMPLE_PARTNERS: usize = 64;
/// Partners whose exact similarity is computed.
const EXACT_PARTNERS: usize = 8;

/// One level: pairs of similar hyper-nodes merged. Returns the new id of each hyper-node and the
/// new count.
fn merge_level(
    model: &Model,
    rep: &[u32],
    out: &Adjacency,
    inc: &Adjacency,
    n: usize,
    delta: f64,
) -> (Vec<u32>, usize) {
    let same_labels =
        |a: u32, b: u32| model.node_labels(rep[a as usize]) == model.node_labels(rep[b as usize]);
    let mut partner = vec![u32::MAX; n];
    let mut keys_x = Vec::new();
    let mut keys_y = Vec::new();
    let mut counts: HashMap<u32, u32> = HashMap::new();
    let mut isolated_by_labels: HashMap<&[u32], u32> = HashMap::new();
    for x in 0..n as u32 {
        if partner[x as usize] != u32::MAX {
            continue;
        }
        edge_keys(out, inc, x, &mut keys_x);
        if keys_x.is_empty() {
            // Isolated: pair with the previous unpaired isolated node of the same labels.
            let labels = model.node_labels(rep[x as usize]);
            match isolated_by_labels.remove(labels) {
                Some(y) => {
                    partner[x as usize] = y;
                    partner[y as usize] = x;
                }
                None => {
                    isolated_by_labels.insert(labels, x);
                }
            }
            continue;
        }
        counts.clear();
        for &key in keys_x.iter().take(SAMPLE_KEYS) {
            let (is_in, t, z) = (
                key >> 63 == 1,
                ((key >> 32) & 0x7fff_ffff) as u32,
                key as u32,
            );
            // Nodes with the same key: an out-key x -t-> z is shared by z's in-neighbours of type t.
            let adj = if is_in { out } else { inc };
            let range = adj.range_of_type(z, t);
            for p in range.take(SAMPLE_PARTNERS) {
                let y = adj.neighbors[p];
                if y != x && partner[y as usize] == u32::MAX {
                    *counts.entry(y).or_insert(0) += 1;
                }
            }
        }
        let mut top: Vec<(u32, u32)> = counts.iter().map(|(&y, &c)| (c, y)).collect();
        top.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut best: Option<(f64, u32)> = None;
        for &(_, y) in top.iter().take(EXACT_PARTNERS) {
            if !same_labels(x, y) {
                continue;
            }
            edge_keys(out, inc, y, &mut keys_y);
            let common = common_count(&keys_x, &keys_y);
            let sim = common as f64 / keys_x.len().max(keys_y.len()) as f64;
            if sim >= delta && best.is_none_or(|(s, b)| sim > s || (sim == s && y < b)) {
                best = Some((sim, y));
            }
        }
        if let Some((_, y)) = best {
            partner[x as usize] = y;
            partner[y as usize] = x;
        }
    }
    let mut new_id = vec![u32::MAX; n];
    let mut next = 0u32;
    for x in 0..n {
        if new_id[x] != u32::MAX {
            continue;
        }
        new_id[x] = next;
        if partner[x] != u32::MAX {
            new_id[partner[x] as usize] = next;
        }
        next += 1;
    }
    (new_id, next as usize)
}

/// Compresses `model` level by level until its topology fits `budget` bytes or no level merges
/// anything more (best effort: the result may still be over the budget; see [`build`]).
pub fn compress(model: &Model, budget: u64, config: &CompressConfig) -> Compressed {
    let n0 = model.node_count();
    let mut node_of: Vec<u32> = (0..n0 as u32).collect();
    let mut n = n0;
    let mut rep: Vec<u32> = (0..n0 as u32).collect();
    let (mut out, mut inc) = hyper_adjacency(model, &node_of, n);
    let label_entries =
        |rep: &[u32]| -> u64 { rep.iter().map(|&r| model.node_labels(r).len() as u64).sum() };
    let mut levels = vec![LevelStats {
        delta: 1.0,
        nodes: n as u64,
        edges: out.len() as u64,
        bytes: model_bytes(model),
    }];
    let mut level = 0;
    while levels.last().is_some_and(|l| l.bytes > budget) && level < config.max_levels {
        let delta = config.delta(level);
        let (new_id, m) = merge_level(model, &rep, &out, &inc, n, delta);
        level += 1;
        if m == n {
            if delta <= config.min_delta {
                break;
            }
            continue;
        }
        for h in node_of.iter_mut() {
            *h = new_id[*h as usize];
        }
        let mut new_rep = vec![u32::MAX; m];
        for (x, &r) in rep.iter().enumerate() {
            let slot = &mut new_rep[new_id[x] as usize];
            *slot = (*slot).min(r);
        }
        rep = new_rep;
        n = m;
        (out, inc) = hyper_adjacency(model, &node_of, n);
        levels.push(LevelStats {
            delta,
            nodes: n as u64,
            edges: out.len() as u64,
            bytes: graph_bytes(n as u64, out.len() as u64, label_entries(&rep), false),
        });
    }
    Compressed::from_mapping(model, fingerprint(model), budget, levels, node_of)
}

/// Compresses `model` until its topology fits `budget` bytes.
///
/// Errors when no further level merges anything and the graph is still over the budget (nodes
/// with different labels never merge, so a budget can be out of reach).
pub fn build(model: &Model, budget: u64, config: &CompressConfig) -> Result<Compressed> {
    let c = compress(model, budget, config);
    let last = c.levels.last().copied().unwrap_or(c.levels[0]);
    if last.bytes > budget {
        return Err(Error::InvalidArgument(format!(
            "--device-memory {budget}: the graph needs {} bytes and compressing it ({} levels) \
             gets it down to {} bytes only (nodes with different labels never merge)",
            c.levels[0].bytes,
            c.levels.len() - 1,
            last.bytes
        )));
    }
    Ok(c)
}

impl Compressed {
    /// Rebuilds the compressed graph (hyper-edges, weights, mapping lists) from the node mapping.
    pub fn from_mapping(
        model: &Model,
        fingerprint: u64,
        budget: u64,
        levels: Vec<LevelStats>,
        node_of: Vec<u32>,
    ) -> Self {
        let n = node_of.iter().map(|&h| h as usize + 1).max().unwrap_or(0);
        let (out, inc) = hyper_adjacency(model, &node_of, n);
        let mut member_offsets = vec![0u32; n + 1];
        for &h in &node_of {
            member_offsets[h as usize + 1] += 1;
        }
        for i in 0..n {
            member_offsets[i + 1] += member_offsets[i];
        }
        let mut fill = member_offsets.clone();
        let mut members = vec![0u32; node_of.len()];
        for (x, &h) in node_of.iter().enumerate() {
            members[fill[h as usize] as usize] = x as u32;
            fill[h as usize] += 1;
        }
        let mut label_offsets = vec![0u32];
        let mut labels = Vec::new();
        for h in 0..n {
            let rep = members[member_offsets[h] as usize];
            labels.extend_from_slice(model.node_labels(rep));
            label_offsets.push(labels.len() as u32);
        }
        let out_weight = edge_weights(model.out(), &out, &node_of);
        let in_weight = edge_weights(model.inc(), &inc, &node_of);
        let mut node_weight = vec![0u32; n];
        for x in 0..model.node_count() as u32 {
            let h = node_of[x as usize];
            let inside = model
                .out()
                .neighbors_of(x)
                .iter()
                .chain(model.inc().neighbors_of(x))
                .filter(|&&y| node_of[y as usize] == h)
                .count() as u32;
            node_weight[h as usize] = node_weight[h as usize].max(inside);
        }
        Compressed {
            fingerprint,
            budget,
            levels,
            node_of,
            member_offsets,
            members,
            node_weight,
            out,
            inc,
            out_weight,
            in_weight,
            label_offsets,
            labels,
        }
    }

    /// Number of hyper-nodes.
    pub fn node_count(&self) -> usize {
        self.member_offsets.len().saturating_sub(1)
    }

    /// The compressed graph as a topology.
    pub fn topo(&self) -> Topo<'_> {
        Topo {
            out: &self.out,
            inc: &self.inc,
            nodes: self.node_count(),
        }
    }

    /// Labels of the hyper-nodes as a CSR (offsets, labels): each hyper-node has its members' labels.
    pub fn label_csr(&self) -> (&[u32], &[u32]) {
        (&self.label_offsets, &self.labels)
    }

    /// The mapping list `M(x)`.
    pub fn members_of(&self, x: u32) -> &[u32] {
        let x = x as usize;
        &self.members[self.member_offsets[x] as usize..self.member_offsets[x + 1] as usize]
    }

    /// `|M(x)|` for every hyper-node: how many pattern nodes one hyper-node can take in an injective
    /// match.
    pub fn capacities(&self) -> Vec<u32> {
        self.member_offsets
            .windows(2)
            .map(|w| w[1] - w[0])
            .collect()
    }

    /// Compression ratio of each level built, `(|Vᵢ| + |Eᵢ|) / (|V| + |E|)`.
    pub fn ratios(&self) -> Vec<f64> {
        let base = (self.levels[0].nodes + self.levels[0].edges).max(1) as f64;
        self.levels[1..]
            .iter()
            .map(|l| (l.nodes + l.edges) as f64 / base)
            .collect()
    }

    /// Upper bound of the `types` degree (empty = all) in one direction of any member of `x`: the
    /// sum of the matching hyper-edge weights (`weight(x)` of Definition 5, per type and direction).
    pub fn degree_bound(&self, x: u32, types: &[u32], out: bool) -> u64 {
        let (adj, w) = if out {
            (&self.out, &self.out_weight)
        } else {
            (&self.inc, &self.in_weight)
        };
        let any = [ANY_TYPE];
        let types = if types.is_empty() { &any[..] } else { types };
        types
            .iter()
            .map(|&t| adj.range_of_type(x, t).map(|p| w[p] as u64).sum::<u64>())
            .sum()
    }

    /// Candidate initialisation on the compressed graph (Definition 5): hyper-nodes with the
    /// pattern node's labels whose weights allow its degree, and with at least one member passing
    /// its unary conjuncts.
    pub fn init_flags(
        &self,
        model: &Model,
        query: &BoundQuery,
        unary: &[usize],
        slot: NodeSlot,
        semantics: Semantics,
    ) -> Vec<bool> {
        let labels = &query.pattern.nodes[slot].labels;
        let needs = degree_needs(&query.pattern, slot);
        let mut buf = vec![u32::MAX; query.pattern.nodes.len()];
        (0..self.node_count() as u32)
            .map(|x| {
                let members = self.members_of(x);
                labels_match(model, members[0], labels)
                    && needs.iter().all(|(types, dir, count)| {
                        let need = match semantics {
                            Semantics::Isomorphism => *count as u64,
                            Semantics::Homomorphism | Semantics::Cypher => 1,
                        };
                        let have = match dir {
                            Some(out) => self.degree_bound(x, types, *out),
                            None => {
                                self.degree_bound(x, types, true)
                                    + self.degree_bound(x, types, false)
                            }
                        };
                        have >= need
                    })
                    && (unary.is_empty()
                        || members
                            .iter()
                            .any(|&v| unary_ok(model, query, unary, slot, v, &mut buf)))
            })
            .collect()
    }
}

/// Weight of each hyper-edge entry of `hyper` (one direction): the largest number of original
/// edges of its type from one member of its node to members of its neighbour.
fn edge_weights(orig: &Adjacency, hyper: &Adjacency, node_of: &[u32]) -> Vec<u32> {
    let mut w = vec![0u32; hyper.len()];
    let mut keys: Vec<(u32, u32)> = Vec::new();
    let nodes = orig.offsets.len().saturating_sub(1);
    for x in 0..nodes as u32 {
        let h = node_of[x as usize];
        keys.clear();
        for p in orig.range(x) {
            keys.push((orig.types[p], node_of[orig.neighbors[p] as usize]));
        }
        keys.sort_unstable();
        let mut i = 0;
        while i < keys.len() {
            let run = keys[i..].partition_point(|&k| k == keys[i]);
            let (t, z) = keys[i];
            let r = hyper.range_of_type(h, t);
            let seg = &hyper.neighbors[r.clone()];
            if let Ok(j) = seg.binary_search(&z) {
                let slot = &mut w[r.start + j];
                *slot = (*slot).max(run as u32);
            }
            i += run;
        }
    }
    w
}

/// The compressed graph for `budget`: loaded from `cache` when it holds one built from this model
/// that fits the budget, else built (and saved to `cache`; a failed save is only logged).
pub fn load_or_build(
    model: &Model,
    budget: u64,
    config: &CompressConfig,
    cache: Option<&Path>,
) -> Result<Compressed> {
    if let Some(path) = cache {
        if path.is_file() {
            match super::store::load(path, model) {
                Ok(c) if c.levels.last().is_some_and(|l| l.bytes <= budget) => {
                    log::info!(
                        "GpSense: reusing the compressed graph {} ({} levels)",
                        path.display(),
                        c.levels.len() - 1
                    );
                    return Ok(c);
                }
                Ok(_) => log::info!(
                    "GpSense: {} was built for a larger budget: compressing again",
                    path.display()
                ),
                Err(e) => log::warn!("GpSense: not reusing {}: {e}", path.display()),
            }
        }
    }
    let c = build(model, budget, config)?;
    log::info!(
        "GpSense: compressed {} nodes / {} edges in {} levels to {} hyper-nodes (ratios {:?})",
        model.node_count(),
        model.edge_count(),
        c.levels.len() - 1,
        c.node_count(),
        c.ratios()
    );
    if let Some(path) = cache {
        if let Err(e) = super::store::save(&c, path) {
            log::warn!(
                "GpSense: could not save the compressed graph to {}: {e}",
                path.display()
            );
        }
    }
    Ok(c)
}
