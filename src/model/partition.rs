//! Splitting a model into parts: the owner of a node ([`owner`], a hash of its id) and the part
//! of a model a given part index holds ([`part_of`]).
//!
//! A part ([`Part`]) is sized to the nodes it owns: their global ids sorted (the local index of a
//! node is its rank), their labels, keys, label index and property rows by local index, and their
//! complete out- and in-lists over the local index naming neighbours by global id (so a partial
//! match means the same on every part). The labels, relationship types, property groups and
//! string dictionaries are the whole model's (the shared schema). Edge ids and edge properties are
//! not kept: the distributed plan refuses named relationships.
//!
//! Cost per part: O(owned nodes + edges with an owned end + the shared schema and dictionaries);
//! no array has the whole model's node count.

use xxhash_rust::xxh3::xxh3_64;

use super::part::Part;
use super::{Adjacency, Column, ColumnData, Model, ModelParts, PropertyGroup, Slab, StringHeap};
use crate::error::{Error, Result};

/// The part (`0..parts`) owning `node`: the xxh3 hash of its id's little-endian bytes modulo
/// `parts` (hashing spreads the contiguous label groups over every part). `parts` must be > 0.
pub fn owner(node: u32, parts: u32) -> u32 {
    (xxh3_64(&node.to_le_bytes()) % u64::from(parts.max(1))) as u32
}

/// The global ids of the nodes of a model of `nodes` nodes that part `index` of `parts` owns,
/// increasing.
pub fn owned_ids(nodes: usize, parts: u32, index: u32) -> Vec<u32> {
    (0..nodes as u32)
        .filter(|&v| owner(v, parts) == index)
        .collect()
}

/// The part `index` of `model` split in `parts` by [`owner`]: see the module documentation.
pub fn part_of(model: &Model, parts: u32, index: u32) -> Result<Part> {
    if parts == 0 || index >= parts {
        return Err(Error::InvalidArgument(format!(
            "part {index} of {parts}: the index must be below the part count (at least 1)"
        )));
    }
    let ids = owned_ids(model.node_count(), parts, index);
    // The local index of every owned node while the part is built (the part keeps only `ids`).
    let rank = |v: u32| ids.binary_search(&v).ok().map(|i| i as u32);
    let (node_label_offsets, node_labels, label_index_offsets, label_index) =
        labels_of(model, &ids, &rank);
    let keys = StringHeap::from_strings(ids.iter().map(|&v| model.node_key(v).unwrap_or("")));
    let groups = model
        .groups()
        .iter()
        .map(|g| {
            let (lo, hi) = (
                ids.partition_point(|&v| v < g.start),
                ids.partition_point(|&v| v < g.end),
            );
            let rows: Vec<usize> = ids[lo..hi]
                .iter()
                .map(|&v| (v - g.start) as usize)
                .collect();
            PropertyGroup {
                label: g.label,
                start: lo as u32,
                end: hi as u32,
                columns: g.columns.iter().map(|c| column_of(c, &rows)).collect(),
            }
        })
        .collect();
    let no_edges = || Adjacency {
        offsets: vec![0u32; ids.len() + 1].into(),
        ..Adjacency::default()
    };
    let node_parts = ModelParts {
        labels: model.labels().clone(),
        rel_types: model.rel_types().clone(),
        node_label_offsets: node_label_offsets.into(),
        node_labels: node_labels.into(),
        label_index_offsets: label_index_offsets.into(),
        label_index: label_index.into(),
        out: no_edges(),
        inc: no_edges(),
        groups,
        edge_columns: Vec::new(),
        keys,
    };
    let out = lists_of(model.out(), &ids);
    let inc = lists_of(model.inc(), &ids);
    let nodes = Model::from_part_parts(node_parts, ids.into(), false)?;
    Part::new(index, parts, model.node_count() as u64, nodes, out, inc)
}

type LabelArrays = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>);

/// The node-label CSR and the label index of the owned nodes `ids`, by local index.
fn labels_of(model: &Model, ids: &[u32], rank: &dyn Fn(u32) -> Option<u32>) -> LabelArrays {
    let mut offsets = Vec::with_capacity(ids.len() + 1);
    let mut labels = Vec::new();
    offsets.push(0u32);
    for &v in ids {
        labels.extend_from_slice(model.node_labels(v));
        offsets.push(labels.len() as u32);
    }
    let mut index_offsets = Vec::with_capacity(model.labels().len() + 1);
    let mut index = Vec::with_capacity(labels.len());
    index_offsets.push(0u32);
    for l in 0..model.labels().len() as u32 {
        // The ranks of increasing owned ids increase.
        index.extend(model.nodes_with_label(l).iter().filter_map(|&v| rank(v)));
        index_offsets.push(index.len() as u32);
    }
    (offsets, labels, index_offsets, index)
}

/// The lists of `adj` of the owned nodes `ids` as a CSR over their local index (neighbours by
/// global id, in the whole model's order: sorted by type and neighbour), without edge ids.
fn lists_of(adj: &Adjacency, ids: &[u32]) -> Adjacency {
    let mut offsets = Vec::with_capacity(ids.len() + 1);
    let (mut neighbors, mut types) = (Vec::new(), Vec::new());
    offsets.push(0u32);
    for &v in ids {
        let r = adj.range(v);
        neighbors.extend_from_slice(&adj.neighbors[r.clone()]);
        types.extend_from_slice(&adj.types[r]);
        offsets.push(neighbors.len() as u32);
    }
    Adjacency {
        offsets: offsets.into(),
        neighbors: neighbors.into(),
        types: types.into(),
        edge_ids: Slab::default(),
    }
}

/// The rows `rows` of `c` (in that order) as a column of their own; a dictionary column keeps the
/// whole dictionary (shared by every part).
fn column_of(c: &Column, rows: &[usize]) -> Column {
    let mut validity = vec![0u64; rows.len().div_ceil(64)];
    for (i, &r) in rows.iter().enumerate() {
        if c.is_valid(r) {
            validity[i / 64] |= 1u64 << (i % 64);
        }
    }
    fn pick<T: bytemuck::Pod + Default>(v: &[T], rows: &[usize]) -> Slab<T> {
        rows.iter()
            .map(|&r| v.get(r).copied().unwrap_or_default())
            .collect::<Vec<_>>()
            .into()
    }
    let data = match &c.data {
        ColumnData::Int(v) => ColumnData::Int(pick(v, rows)),
        ColumnData::Float(v) => ColumnData::Float(pick(v, rows)),
        ColumnData::Bool(v) => ColumnData::Bool(pick(v, rows)),
        ColumnData::Str(h) => ColumnData::Str(StringHeap::from_strings(
            rows.iter().map(|&r| h.get(r).unwrap_or("")),
        )),
        ColumnData::Dict { codes, dict } => ColumnData::Dict {
            codes: pick(codes, rows),
            dict: dict.clone(),
        },
    };
    Column {
        name: c.name.clone(),
        len: rows.len(),
        data,
        validity: validity.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelBuilder, ValueRef};

    /// A 4-cycle a→b→c→d→a with a property on every node.
    fn cycle() -> Model {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let name = b.node_property("name");
        let ids: Vec<u32> = ["a", "b", "c", "d"]
            .iter()
            .map(|k| b.add_node(k, &["N"]))
            .collect();
        for (i, &v) in ids.iter().enumerate() {
            b.add_edge(v, ids[(i + 1) % 4], t).unwrap();
            let key = ["a", "b", "c", "d"][i];
            b.set_node_property(v, name, ValueRef::Str(key)).unwrap();
        }
        b.freeze().unwrap()
    }

    #[test]
    fn parts_own_every_node_once_and_keep_its_adjacency() {
        let m = cycle();
        let parts: Vec<Part> = (0..3).map(|i| part_of(&m, 3, i).unwrap()).collect();
        assert_eq!(parts.iter().map(|p| p.owned_count()).sum::<usize>(), 4);
        for v in 0..4u32 {
            let o = owner(v, 3) as usize;
            let p = &parts[o];
            let l = p.local(v).unwrap();
            assert_eq!(p.global(l), Some(v));
            assert_eq!(p.nodes().node_key(l), m.node_key(v));
            assert_eq!(p.out().neighbors_of(l), m.out().neighbors_of(v));
            assert_eq!(p.inc().neighbors_of(l), m.inc().neighbors_of(v));
            assert_eq!(p.nodes().node_labels(l), m.node_labels(v));
            assert_eq!(
                p.nodes().node_property(l, "name"),
                m.node_property(v, "name")
            );
            assert_eq!(p.nodes().node_id(l), v);
            for (i, q) in parts.iter().enumerate() {
                if i != o {
                    assert_eq!(q.local(v), None);
                }
            }
        }
        // Every edge is in the part of its source and the part of its target, once per part.
        let total: usize = parts.iter().map(|p| p.edge_count()).sum();
        let crossing = (0..4u32)
            .filter(|&v| owner(v, 3) != owner((v + 1) % 4, 3))
            .count();
        assert_eq!(total, 4 + crossing);
    }

    /// A random multigraph of `n` nodes with zero to two labels, self-loops and parallel edges,
    /// and int, float, bool and string properties each missing on some nodes.
    fn random_model(seed: u64, n: usize, m: usize) -> Model {
        let mut state = seed | 1;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below.max(1) as u64) as usize
        };
        let mut b = ModelBuilder::new();
        let types = [b.rel_type("X"), b.rel_type("Y")];
        let props = [
            b.node_property("i"),
            b.node_property("f"),
            b.node_property("b"),
            b.node_property("s"),
        ];
        let label_sets: [&[&str]; 5] = [&[], &["A"], &["B"], &["A", "C"], &["C"]];
        let ids: Vec<u32> = (0..n)
            .map(|i| b.add_node(&format!("k{i}"), label_sets[next(5)]))
            .collect();
        for &v in &ids {
            let words = ["red", "green", "blue"];
            let values = [
                ValueRef::Int(next(100) as i64 - 50),
                ValueRef::Float(next(1000) as f64 / 8.0),
                ValueRef::Bool(next(2) == 0),
                ValueRef::Str(words[next(3)]),
            ];
            for (&key, value) in props.iter().zip(values) {
                if next(4) != 0 {
                    b.set_node_property(v, key, value).unwrap();
                }
            }
        }
        for _ in 0..m.min(n * n) {
            let (x, y) = (ids[next(n)], ids[next(n)]);
            b.add_edge(x, y, types[next(2)]).unwrap();
        }
        b.freeze().unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Every part, written and read back, holds exactly the nodes it owns (each node in one
        /// part) and each owned node's labels, key, properties, `id()` and out- and in-lists as
        /// the source model has them; its label index lists exactly its nodes of each label.
        #[test]
        fn a_part_holds_its_owned_nodes_data_and_no_other_node(
            seed in proptest::prelude::any::<u64>(),
            n in 1usize..48,
            m in 0usize..160,
            parts in 1u32..6,
        ) {
            let model = random_model(seed, n, m);
            let dir = tempfile::tempdir().unwrap();
            let mut seen = vec![false; n];
            for index in 0..parts {
                let path = dir.path().join(format!("p{index}.gemp"));
                let written = part_of(&model, parts, index).unwrap();
                crate::model::snapshot::write_part(
                    &written,
                    &path,
                    &crate::util::safe_write::WriteOptions::REPLACE,
                )
                .unwrap();
                let p = crate::model::snapshot::open_part(&path).unwrap();
                let nodes = p.nodes();
                proptest::prop_assert_eq!(p.ids(), written.ids());
                proptest::prop_assert_eq!(nodes.node_count(), p.ids().len());
                proptest::prop_assert_eq!(p.out().offsets.len(), p.ids().len() + 1);
                proptest::prop_assert_eq!(p.inc().offsets.len(), p.ids().len() + 1);
                for (l, &v) in p.ids().iter().enumerate() {
                    let l = l as u32;
                    proptest::prop_assert_eq!(owner(v, parts), index);
                    proptest::prop_assert!(!seen[v as usize], "node {v} in two parts");
                    seen[v as usize] = true;
                    proptest::prop_assert_eq!(p.local(v), Some(l));
                    proptest::prop_assert_eq!(nodes.node_id(l), v);
                    proptest::prop_assert_eq!(nodes.node_labels(l), model.node_labels(v));
                    proptest::prop_assert_eq!(nodes.node_key(l), model.node_key(v));
                    for name in ["i", "f", "b", "s"] {
                        proptest::prop_assert_eq!(
                            nodes.node_property(l, name),
                            model.node_property(v, name)
                        );
                    }
                    for (a, b) in [(p.out(), model.out()), (p.inc(), model.inc())] {
                        proptest::prop_assert_eq!(a.neighbors_of(l), b.neighbors_of(v));
                        proptest::prop_assert_eq!(
                            &a.types[a.range(l)],
                            &b.types[b.range(v)]
                        );
                    }
                }
                for label in 0..model.labels().len() as u32 {
                    let here: Vec<u32> = nodes
                        .nodes_with_label(label)
                        .iter()
                        .filter_map(|&l| p.global(l))
                        .collect();
                    let owned: Vec<u32> = model
                        .nodes_with_label(label)
                        .iter()
                        .copied()
                        .filter(|&v| owner(v, parts) == index)
                        .collect();
                    proptest::prop_assert_eq!(here, owned);
                }
                // A node the part does not own is not found in it.
                for v in (0..n as u32).filter(|&v| owner(v, parts) != index) {
                    proptest::prop_assert_eq!(p.local(v), None);
                }
            }
            proptest::prop_assert!(seen.iter().all(|&s| s), "a node is in no part");
        }
    }

    #[test]
    fn a_part_file_and_a_snapshot_are_not_taken_for_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let (snap, part) = (dir.path().join("m.gemp"), dir.path().join("p.gemp"));
        let m = cycle();
        crate::model::snapshot::write(&m, &snap).unwrap();
        let p = part_of(&m, 2, 0).unwrap();
        let replace = crate::util::safe_write::WriteOptions::REPLACE;
        crate::model::snapshot::write_part(&p, &part, &replace).unwrap();
        let e = crate::model::snapshot::open(&part).unwrap_err().to_string();
        assert!(e.contains("a part of a partition set"), "{e}");
        let e = crate::model::snapshot::open_part(&snap)
            .unwrap_err()
            .to_string();
        assert!(e.contains("partition the model again"), "{e}");
        // A part's node model is not written as a plain snapshot.
        assert!(crate::model::snapshot::write(p.nodes(), &snap).is_err());
    }

    #[test]
    fn a_bad_index_is_refused() {
        assert!(part_of(&cycle(), 2, 2).is_err());
        assert!(part_of(&cycle(), 0, 0).is_err());
    }
}
