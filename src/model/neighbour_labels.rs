//! The neighbour-label profile of every node (GraphQL's / CFL's NLF index): for each node, the
//! labels its neighbours carry and how many *distinct* neighbours carry each, over both
//! directions and every relationship type.
//!
//! A data node `x` can bind a pattern node `u` under node-isomorphism only when, for every label
//! `L`, `x` has at least as many distinct neighbours labelled `L` as `u` has distinct pattern
//! neighbours that require `L` (each of those binds its own data neighbour); under homomorphism,
//! at least one. The test reads a few entries per candidate instead of its whole neighbour list,
//! so it takes most of the first refinement sweep's rejections at a fraction of their cost.
//!
//! Built once per model on first use ([`super::Model::neighbour_labels`]), and only for models
//! of at most [`MAX_EDGES`] relationships: above that, building it could cost more than the
//! queries it would speed up.

use rayon::prelude::*;

use super::csr::Adjacency;

/// Most relationships of a model the index is built for.
pub const MAX_EDGES: usize = 1 << 20;

/// Per node, its neighbours' labels (ascending) with the number of distinct neighbours carrying
/// each.
#[derive(Debug, Clone, Default)]
pub struct NeighbourLabels {
    /// `node_count + 1` offsets into `labels` and `counts`.
    offsets: Vec<u32>,
    /// Label ids, ascending within a node.
    labels: Vec<u32>,
    /// Distinct neighbours with the label at the same position.
    counts: Vec<u32>,
}

impl NeighbourLabels {
    /// The profile of every node of a graph with adjacency `out` and `inc` and the node-label
    /// CSR `(label_offsets, labels)` ([`super::Model::node_label_csr`]).
    pub fn build(out: &Adjacency, inc: &Adjacency, node_label_csr: (&[u32], &[u32])) -> Self {
        let (label_offsets, node_labels) = node_label_csr;
        let node_count = label_offsets.len().saturating_sub(1);
        let out_offsets: &[u32] = &out.offsets;
        let out_neighbours: &[u32] = &out.neighbors;
        let inc_offsets: &[u32] = &inc.offsets;
        let inc_neighbours: &[u32] = &inc.neighbors;
        let list = |offsets: &'_ [u32], v: usize| match (offsets.get(v), offsets.get(v + 1)) {
            (Some(&s), Some(&e)) => s as usize..e as usize,
            _ => 0..0,
        };
        const CHUNK: usize = 4096;
        // Per thread: the last node each neighbour was seen from (distinct neighbours without a
        // sort) and a count per label with the labels touched (sorted: a node's few labels).
        struct Scratch {
            seen_from: Vec<u32>,
            per_label: Vec<u32>,
            touched: Vec<u32>,
        }
        let chunks: Vec<(Vec<u32>, Vec<u32>, Vec<u32>)> = (0..node_count.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| c * CHUNK..((c + 1) * CHUNK).min(node_count))
            .map_init(
                || Scratch {
                    seen_from: vec![u32::MAX; node_count],
                    per_label: Vec::new(),
                    touched: Vec::new(),
                },
                |sc, nodes| {
                    let mut lens = Vec::with_capacity(nodes.len());
                    let mut labels = Vec::new();
                    let mut counts = Vec::new();
                    for v in nodes {
                        sc.touched.clear();
                        let lists = [
                            &out_neighbours[list(out_offsets, v)],
                            &inc_neighbours[list(inc_offsets, v)],
                        ];
                        let v = v as u32;
                        for &y in lists.into_iter().flatten() {
                            let Some(mark) = sc.seen_from.get_mut(y as usize) else {
                                continue;
                            };
                            if *mark == v {
                                continue;
                            }
                            *mark = v;
                            for &l in &node_labels[list(label_offsets, y as usize)] {
                                let l = l as usize;
                                if l >= sc.per_label.len() {
                                    sc.per_label.resize(l + 1, 0);
                                }
                                if sc.per_label[l] == 0 {
                                    sc.touched.push(l as u32);
                                }
                                sc.per_label[l] += 1;
                            }
                        }
                        sc.touched.sort_unstable();
                        for &l in &sc.touched {
                            labels.push(l);
                            counts.push(std::mem::take(&mut sc.per_label[l as usize]));
                        }
                        lens.push(sc.touched.len() as u32);
                    }
                    (lens, labels, counts)
                },
            )
            .collect();
        let mut offsets = Vec::with_capacity(node_count + 1);
        offsets.push(0u32);
        let mut labels = Vec::new();
        let mut counts = Vec::new();
        for (lens, l, c) in chunks {
            for n in lens {
                let last = *offsets.last().unwrap_or(&0);
                offsets.push(last + n);
            }
            labels.extend(l);
            counts.extend(c);
        }
        NeighbourLabels {
            offsets,
            labels,
            counts,
        }
    }

    /// The number of distinct neighbours of `node` labelled `label` (0 for an unknown node).
    #[inline]
    pub fn count(&self, node: u32, label: u32) -> u32 {
        let n = node as usize;
        let (Some(&s), Some(&e)) = (self.offsets.get(n), self.offsets.get(n + 1)) else {
            return 0;
        };
        let (s, e) = (s as usize, e as usize);
        match self.labels[s..e].binary_search(&label) {
            Ok(i) => self.counts[s + i],
            Err(_) => 0,
        }
    }

    /// True when `node` has, for each `(label, need)`, at least `need` distinct neighbours
    /// labelled `label`; `needs` ascending by label (one merge pass over the node's profile).
    #[inline]
    pub fn satisfies(&self, node: u32, needs: &[(u32, u32)]) -> bool {
        let n = node as usize;
        let (Some(&s), Some(&e)) = (self.offsets.get(n), self.offsets.get(n + 1)) else {
            return needs.is_empty();
        };
        let labels = &self.labels[s as usize..e as usize];
        let counts = &self.counts[s as usize..e as usize];
        let mut i = 0;
        for &(label, need) in needs {
            while i < labels.len() && labels[i] < label {
                i += 1;
            }
            if i == labels.len() || labels[i] != label || counts[i] < need {
                return false;
            }
        }
        true
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        4 * (self.offsets.len() + self.labels.len() + self.counts.len())
    }
}

#[cfg(test)]
mod tests {
    use crate::model::ModelBuilder;

    /// Counts are of distinct neighbours over both directions and all types, per label.
    #[test]
    fn counts_distinct_neighbours_per_label() {
        let mut b = ModelBuilder::new();
        let a = b.add_node("a", &["A"]);
        let x = b.add_node("x", &["B"]);
        let y = b.add_node("y", &["B", "C"]);
        let z = b.add_node("z", &["A"]);
        let (t, u) = (b.rel_type("T"), b.rel_type("U"));
        b.add_edge(a, x, t).unwrap();
        b.add_edge(x, a, u).unwrap(); // the same neighbour again, the other way and another type
        b.add_edge(a, y, t).unwrap();
        b.add_edge(z, a, t).unwrap();
        let m = b.freeze().unwrap();
        let nl = m.neighbour_labels().expect("small model");
        let id = |l: &str| m.labels().get(l).unwrap();
        assert_eq!(nl.count(a, id("B")), 2);
        assert_eq!(nl.count(a, id("C")), 1);
        assert_eq!(nl.count(a, id("A")), 1);
        assert_eq!(nl.count(x, id("A")), 1);
        assert_eq!(nl.count(x, id("B")), 0);
        let mut needs = vec![(id("B"), 2), (id("A"), 1)];
        needs.sort_unstable();
        assert!(nl.satisfies(a, &needs));
        needs[0].1 += 1;
        needs.sort_unstable();
        assert!(!nl.satisfies(a, &[(id("B"), 3)]));
        assert!(!nl.satisfies(z, &[(id("B"), 1)]));
        assert!(nl.satisfies(z, &[]));
        assert_eq!(nl.count(99, id("A")), 0);
    }
}
