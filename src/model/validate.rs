//! Structural validation of a model: every offset and id in range (so no accessor can index out
//! of bounds, whatever the input) and the orders and cross-references the matchers rely on. A
//! snapshot is validated on open (its checksums guard against accidents, not against a file built
//! to be wrong); models a builder made are valid by construction.
//!
//! Cost: every check is one pass over an array. On big models the passes run on all cores; below
//! [`PARALLEL_FROM`] nodes + edges they run on the calling thread, where handing the work to the
//! thread pool (waking its threads) would cost more than the check itself.

use rayon::prelude::*;

use super::{Adjacency, Column, ColumnData, Model, StringHeap};
use crate::error::{Error, Result};

/// Nodes + edges from which the checks run on all cores.
const PARALLEL_FROM: usize = 1 << 18;

/// Where the checks of one model run: on all cores, or on the calling thread.
#[derive(Clone, Copy)]
struct Cores {
    parallel: bool,
}

impl Cores {
    /// Some index `i < len` (any, when parallel) for which `bad(i)` holds.
    fn find(self, len: usize, bad: impl Fn(usize) -> bool + Sync + Send) -> Option<usize> {
        if self.parallel {
            (0..len)
                .into_par_iter()
                .with_min_len(1 << 12)
                .find_any(|&i| bad(i))
        } else {
            (0..len).find(|&i| bad(i))
        }
    }

    /// The largest id of `ids` (0 when empty).
    fn max(self, ids: &[u32]) -> u32 {
        if self.parallel && ids.len() > 1 << 20 {
            ids.par_chunks(1 << 20)
                .map(|c| c.iter().copied().max().unwrap_or(0))
                .max()
                .unwrap_or(0)
        } else {
            ids.iter().copied().max().unwrap_or(0)
        }
    }

    /// Runs `a` and `b`, at once when parallel.
    fn join<A: Send, B: Send>(
        self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        if self.parallel {
            rayon::join(a, b)
        } else {
            (a(), b())
        }
    }
}

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::Model(format!("corrupt model: {what}"))
}

impl Model {
    /// Checks every offset and id so that no accessor can index out of bounds, whatever the input
    /// (snapshots may be corrupted), then the orders and cross-references ([`Model::check_orders`]).
    /// `from_bytes`: the model's arrays came from a file (a snapshot), not from this library's
    /// builder: also check that string heaps are UTF-8 and that the in-CSR mirrors the out-CSR
    /// (a random-access pass over every edge, ~10 % of a large load; the builder makes the in-CSR
    /// from the out-CSR, so for its models the pass would only re-check the builder).
    pub(super) fn validate(&self, from_bytes: bool) -> Result<()> {
        let check_utf8 = from_bytes;
        let n = self.node_count();
        let m = self.edge_count();
        let cores = Cores {
            parallel: n + m >= PARALLEL_FROM,
        };
        let bad = |what: &str| Err(corrupt(what));
        check_offsets(
            &self.node_label_offsets,
            n,
            self.node_labels.len(),
            "node label offsets",
        )?;
        check_ids(cores, &self.node_labels, self.labels.len(), "node labels")?;
        check_offsets(
            &self.label_index_offsets,
            self.labels.len(),
            self.label_index.len(),
            "label index offsets",
        )?;
        check_ids(cores, &self.label_index, n, "label index")?;
        for (adj, name) in [(&self.out, "out"), (&self.inc, "in")] {
            check_offsets(&adj.offsets, n, adj.neighbors.len(), name)?;
            if adj.types.len() != adj.neighbors.len() || adj.neighbors.len() != m {
                return bad("adjacency arrays differ in length");
            }
            check_ids(cores, &adj.neighbors, n, name)?;
            check_ids(cores, &adj.types, self.rel_types.len(), name)?;
        }
        if self.inc.edge_ids.len() != m || !self.out.edge_ids.is_empty() {
            return bad("edge id arrays");
        }
        check_ids(cores, &self.inc.edge_ids, m, "in edge ids")?;
        if self.keys.len() != n {
            return bad("node key count");
        }
        let mut expected = 0u32;
        let mut columns: Vec<(&Column, usize)> = Vec::new();
        for g in &self.groups {
            // A part's node model keeps the groups of labels it owns no node of (empty).
            let empty_ok = self.node_ids.is_some() && g.end == g.start;
            if g.start != expected || (g.end <= g.start && !empty_ok) {
                return bad("property groups do not tile the node ids");
            }
            expected = g.end;
            columns.extend(g.columns.iter().map(|c| (c, (g.end - g.start) as usize)));
        }
        if expected as usize != n {
            return bad("property groups do not cover every node");
        }
        columns.extend(self.edge_columns.iter().map(|c| (c, m)));
        // The keys and the columns (their string heaps' UTF-8 are most of a snapshot's bytes).
        let (keys, columns) = cores.join(
            || check_heap(&self.keys, "node keys", check_utf8),
            || {
                if cores.parallel {
                    columns
                        .par_iter()
                        .try_for_each(|&(c, rows)| check_column(cores, c, rows, check_utf8))
                } else {
                    columns
                        .iter()
                        .try_for_each(|&(c, rows)| check_column(cores, c, rows, check_utf8))
                }
            },
        );
        keys.and(columns)?;
        let started = std::time::Instant::now();
        self.check_orders(cores, from_bytes)?;
        log::debug!(
            "orders and cross-references checked in {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        Ok(())
    }

    /// The orders and cross-references the matchers rely on beyond ids being in range (each a
    /// pass, after [`Model::validate`]'s range checks): every node's labels strictly increasing;
    /// every label's index list strictly increasing and holding exactly the nodes that carry the
    /// label; every adjacency list sorted by (type, neighbour); and the in-CSR the mirror of the
    /// out-CSR (each edge once, at its target, naming its source and type). A file built to break
    /// one of these (checksums recomputed) is refused here instead of panicking a matcher later.
    fn check_orders(&self, cores: Cores, cross_references: bool) -> Result<()> {
        let n = self.node_count();
        let m = self.edge_count();
        let label_name = |l: u32| self.labels.name(l).unwrap_or("?").to_string();
        let started = std::time::Instant::now();
        let lap = |what: &str| {
            log::trace!(
                "validation: {what} checked at {:.2} ms",
                started.elapsed().as_secs_f64() * 1e3
            )
        };
        // Labels per node; the index holds as many entries as there are (node, label) pairs.
        let unsorted_labels = cores.find(n, |v| {
            self.node_labels(v as u32).windows(2).any(|w| w[0] >= w[1])
        });
        if let Some(v) = unsorted_labels {
            return Err(corrupt(format_args!(
                "the labels of node {v} are not sorted"
            )));
        }
        if self.label_index.len() != self.node_labels.len() {
            return Err(corrupt(format_args!(
                "the label index has {} entries for {} node labels",
                self.label_index.len(),
                self.node_labels.len()
            )));
        }
        for l in 0..self.labels.len() as u32 {
            let nodes = self.nodes_with_label(l);
            let unsorted = cores.find(nodes.len().saturating_sub(1), |i| nodes[i] >= nodes[i + 1]);
            if let Some(i) = unsorted {
                return Err(corrupt(format_args!(
                    "the label index of `{}` is not sorted (entry {})",
                    label_name(l),
                    i + 1
                )));
            }
            if let Some(i) = cores.find(nodes.len(), |i| !self.has_label(nodes[i], l)) {
                return Err(corrupt(format_args!(
                    "the label index of `{}` lists node {}, which does not carry it",
                    label_name(l),
                    nodes[i]
                )));
            }
        }
        lap("labels and the label index");
        // Adjacency lists sorted by (type, neighbour); whether they repeat pairs is kept for
        // [`Model::list_shapes`].
        let mut distinct = [true; 2];
        for (k, (adj, name)) in [(&self.out, "out"), (&self.inc, "in")]
            .into_iter()
            .enumerate()
        {
            let scan = scan_lists(cores, adj, n);
            if let Some(v) = scan.unsorted {
                return Err(corrupt(format_args!(
                    "the {name} list of node {v} is not sorted by type and neighbour"
                )));
            }
            distinct[k] = scan.distinct;
        }
        let _ = self.distinct_lists.set((distinct[0], distinct[1]));
        lap("adjacency order");
        // The in-CSR mirrors the out-CSR: entry p of v's in-list names edge e = edge_ids[p], which
        // must run from the entry's neighbour to v with the entry's type (checked per node, without
        // shared state), and every edge is named exactly once (one sequential pass over a bit set:
        // plain stores are far cheaper than contended atomic ones).
        if !cross_references {
            return Ok(());
        }
        let (in_offsets, out_offsets) = (&self.inc.offsets[..], &self.out.offsets[..]);
        let (in_sources, in_types, in_edges) = (
            &self.inc.neighbors[..],
            &self.inc.types[..],
            &self.inc.edge_ids[..],
        );
        let (out_targets, out_types) = (&self.out.neighbors[..], &self.out.types[..]);
        let mismatch_at = |v: usize| {
            (in_offsets[v] as usize..in_offsets[v + 1] as usize).find(|&p| {
                let (e, u) = (in_edges[p] as usize, in_sources[p] as usize);
                !(out_targets[e] as usize == v
                    && out_types[e] == in_types[p]
                    && (out_offsets[u] as usize..out_offsets[u + 1] as usize).contains(&e))
            })
        };
        if let Some(v) = cores.find(n, |v| mismatch_at(v).is_some()) {
            let e = mismatch_at(v).map_or(0, |p| in_edges[p]);
            return Err(corrupt(format_args!(
                "the in list of node {v} does not match the out lists at edge {e}"
            )));
        }
        lap("in/out cross-references");
        let mut seen = vec![0u64; m.div_ceil(64)];
        for (p, &e) in self.inc.edge_ids.iter().enumerate() {
            let (word, bit) = (e as usize / 64, 1u64 << (e % 64));
            if seen[word] & bit != 0 {
                return Err(corrupt(format_args!(
                    "the in lists name edge {e} twice (the second time at entry {p})"
                )));
            }
            seen[word] |= bit;
        }
        Ok(())
    }
}

/// What one pass over an adjacency's lists finds: the first node whose list is not sorted by
/// (type, neighbour) (some such node, when parallel), and whether every list holds each
/// (type, neighbour) pair once (meaningful only when all are sorted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ListScan {
    /// Some node whose list descends.
    unsorted: Option<usize>,
    /// No list repeats a (type, neighbour) pair.
    distinct: bool,
}

/// True when no list of `adj` (sorted, over `n` nodes) repeats a (type, neighbour) pair: for
/// models that skip validation ([`Model::from_folded_parts`]); validation finds it in its pass.
pub(super) fn lists_distinct(adj: &Adjacency, n: usize) -> bool {
    let cores = Cores {
        parallel: n + adj.neighbors.len() >= PARALLEL_FROM,
    };
    scan_lists(cores, adj, n).distinct
}

/// Some node of `adj` (offsets already checked, `n` nodes) whose list is not sorted by (type,
/// neighbour), found on all cores for big lists: for [`super::part::Part::new`].
pub(super) fn unsorted_list(adj: &Adjacency, n: usize) -> Option<usize> {
    let cores = Cores {
        parallel: n + adj.neighbors.len() >= PARALLEL_FROM,
    };
    scan_lists(cores, adj, n).unsorted
}

/// The largest id of `ids` (0 when empty), on all cores for big arrays: for
/// [`super::part::Part::new`].
pub(super) fn largest_id(ids: &[u32]) -> u32 {
    Cores {
        parallel: ids.len() >= PARALLEL_FROM,
    }
    .max(ids)
}

/// Nodes per task of [`scan_lists`] on all cores.
const SCAN_CHUNK: usize = 1 << 12;

/// Scans every list of `adj` (offsets already known to be monotone and in bounds) once, per node
/// and without bounds checks in the inner loop: sortedness and distinctness in the same pass (so
/// [`super::ListShapes`] need not read the lists again).
fn scan_lists(cores: Cores, adj: &Adjacency, n: usize) -> ListScan {
    let (offsets, types, neighbours) = (&adj.offsets[..], &adj.types[..], &adj.neighbors[..]);
    let scan = |nodes: std::ops::Range<usize>| {
        let mut distinct = true;
        for v in nodes {
            let r = offsets[v] as usize..offsets[v + 1] as usize;
            let mut pairs = types[r.clone()].iter().zip(&neighbours[r]);
            let Some((&t, &u)) = pairs.next() else {
                continue;
            };
            let (mut previous, mut sorted) = ((u64::from(t) << 32) | u64::from(u), true);
            for (&t, &u) in pairs {
                let key = (u64::from(t) << 32) | u64::from(u);
                sorted &= previous <= key;
                distinct &= previous != key;
                previous = key;
            }
            if !sorted {
                return ListScan {
                    unsorted: Some(v),
                    distinct,
                };
            }
        }
        ListScan {
            unsorted: None,
            distinct,
        }
    };
    if !cores.parallel {
        return scan(0..n);
    }
    (0..n.div_ceil(SCAN_CHUNK))
        .into_par_iter()
        .map(|c| scan(c * SCAN_CHUNK..((c + 1) * SCAN_CHUNK).min(n)))
        .reduce(
            || ListScan {
                unsorted: None,
                distinct: true,
            },
            |a, b| ListScan {
                unsorted: a.unsorted.or(b.unsorted),
                distinct: a.distinct && b.distinct,
            },
        )
}

fn check_offsets(offsets: &[u32], count: usize, total: usize, what: &str) -> Result<()> {
    if offsets.len() != count + 1 || offsets[0] != 0 || offsets[count] as usize != total {
        return Err(corrupt(format_args!("{what} have the wrong size")));
    }
    if offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(corrupt(format_args!("{what} are not monotone")));
    }
    Ok(())
}

fn check_ids(cores: Cores, ids: &[u32], bound: usize, what: &str) -> Result<()> {
    let max = cores.max(ids);
    if !ids.is_empty() && max as usize >= bound {
        return Err(corrupt(format_args!("{what} hold id {max} >= {bound}")));
    }
    Ok(())
}

fn check_heap(h: &StringHeap, what: &str, check_utf8: bool) -> Result<()> {
    let off = &h.offsets;
    let ok = (off.is_empty() && h.bytes.is_empty())
        || (off.first() == Some(&0)
            && off.last().copied() == Some(h.bytes.len() as u64)
            && off.windows(2).all(|w| w[0] <= w[1]));
    if !ok {
        return Err(corrupt(format_args!("{what} string offsets")));
    }
    if check_utf8 && simdutf8::basic::from_utf8(&h.bytes).is_err() {
        return Err(corrupt(format_args!("{what} are not UTF-8")));
    }
    Ok(())
}

fn check_column(cores: Cores, c: &Column, rows: usize, check_utf8: bool) -> Result<()> {
    let bad = || Err(corrupt(format_args!("column `{}`", c.name)));
    if c.len != rows || (!c.validity.is_empty() && c.validity.len() != rows.div_ceil(64)) {
        return bad();
    }
    match &c.data {
        ColumnData::Int(v) if v.len() != rows => bad(),
        ColumnData::Float(v) if v.len() != rows => bad(),
        ColumnData::Bool(v) if v.len() != rows => bad(),
        ColumnData::Str(h) => {
            if h.len() != rows {
                return bad();
            }
            check_heap(h, &c.name, check_utf8)
        }
        ColumnData::Dict { codes, dict } => {
            if codes.len() != rows {
                return bad();
            }
            check_heap(dict, &c.name, check_utf8)?;
            check_ids(cores, codes, dict.len(), &c.name)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The builder's models skip the cross-reference pass (see [`Model::validate`]): they must
    /// pass it anyway — random multigraphs with self-loops, parallel edges, several types and
    /// labels, on one thread and on all cores.
    #[test]
    fn built_models_pass_every_check_a_snapshot_gets() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |bound: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(bound)) as u32
        };
        for (nodes, edges) in [(1, 0), (5, 30), (200, 1_500), (30_000, 200_000)] {
            let mut b = crate::model::ModelBuilder::new();
            let labels = ["A", "B", "C"];
            for k in 0..nodes {
                let l = labels[next(3) as usize];
                let v = b.add_node(&format!("n{k}"), &[l]);
                if next(4) == 0 {
                    let extra = b.label("X");
                    b.add_label(v, extra);
                }
            }
            let types: Vec<u32> = ["R", "S"].iter().map(|t| b.rel_type(t)).collect();
            for _ in 0..edges {
                let (s, d) = (next(nodes), next(nodes));
                b.add_edge(s, d, types[next(2) as usize]).unwrap();
            }
            let model = b.freeze().unwrap();
            model.validate(true).unwrap();
        }
    }

    /// Three nodes with lists [(0,1),(0,2)], [(1,0),(0,2)], [(0,0)]: node 1's list descends.
    fn adjacency(types: Vec<u32>, neighbours: Vec<u32>, offsets: Vec<u32>) -> Adjacency {
        Adjacency {
            offsets: offsets.into(),
            neighbors: neighbours.into(),
            types: types.into(),
            edge_ids: Vec::new().into(),
        }
    }

    #[test]
    fn an_unsorted_list_is_found_on_one_thread_and_on_all_cores() {
        let unsorted = adjacency(vec![0, 0, 1, 0, 0], vec![1, 2, 0, 2, 0], vec![0, 2, 4, 5]);
        // A descent at a list's start (node 1 after node 0, node 2 after node 1) is allowed.
        let sorted = adjacency(vec![0, 0, 0, 1, 0], vec![1, 2, 2, 0, 0], vec![0, 2, 4, 5]);
        for parallel in [false, true] {
            let cores = Cores { parallel };
            assert_eq!(scan_lists(cores, &unsorted, 3).unsorted, Some(1));
            assert_eq!(scan_lists(cores, &sorted, 3).unsorted, None);
        }
    }

    #[test]
    fn a_repeated_pair_is_told_from_a_distinct_one() {
        // Node 0: (0,1),(0,1) repeats; node 1: (0,1),(1,1) does not (types differ).
        let repeated = adjacency(vec![0, 0, 0, 1], vec![1, 1, 1, 1], vec![0, 2, 4]);
        let distinct = adjacency(vec![0, 1, 0, 1], vec![1, 1, 1, 1], vec![0, 2, 4]);
        // A repeat across two lists (node 0 ends with (0,1), node 1 starts with it) is not one.
        let across = adjacency(vec![0, 0, 0, 0], vec![0, 1, 1, 2], vec![0, 2, 4]);
        for parallel in [false, true] {
            let cores = Cores { parallel };
            let scan = |a: &Adjacency| scan_lists(cores, a, 2);
            assert_eq!(
                scan(&repeated),
                ListScan {
                    unsorted: None,
                    distinct: false
                }
            );
            assert!(scan(&distinct).distinct && scan(&distinct).unsorted.is_none());
            assert!(scan(&across).distinct && scan(&across).unsorted.is_none());
        }
    }

    #[test]
    fn a_descent_past_the_first_chunk_names_its_node() {
        // 40,000 nodes with one entry each, then one node with two entries out of order.
        let n = 40_001;
        let mut types = vec![0u32; 40_000];
        let mut neighbours: Vec<u32> = (0..40_000).rev().collect();
        types.extend([0, 0]);
        neighbours.extend([7, 3]);
        let offsets: Vec<u32> = (0..=40_000).chain([40_002]).collect();
        let adj = adjacency(types, neighbours, offsets);
        for parallel in [false, true] {
            assert_eq!(
                scan_lists(Cores { parallel }, &adj, n).unsorted,
                Some(40_000)
            );
        }
    }

    #[test]
    fn find_and_max_agree_on_one_thread_and_on_all_cores() {
        let mut ids: Vec<u32> = (0..3_000_000u32).map(|i| i % 1000).collect();
        ids[2_345_678] = 5_000_000;
        for parallel in [false, true] {
            let cores = Cores { parallel };
            assert_eq!(cores.max(&ids), 5_000_000);
            assert_eq!(cores.find(100_000, |i| i == 77_777), Some(77_777));
            assert_eq!(cores.find(100_000, |_| false), None);
        }
    }
}
