//! One part of a partitioned model: the nodes a part owns (by [`owner`], a hash of the node id)
//! with their labels, keys, properties and their whole out- and in-adjacency.
//!
//! A part keeps the **global id space**: node ids are those of the whole model (so a partial match
//! means the same thing on every part, and no id map is needed), and a node the part does not own
//! has no labels, an empty key and null properties. The part's edges are every edge with an owned
//! end, so an owned node's out- and in-lists are complete and name their neighbours by global id
//! (the model's invariant that the in-CSR mirrors the out-CSR holds within the part: an edge
//! between two owned nodes is stored once). Edge ids are the part's own (out-CSR positions) and
//! edge properties are not kept: the distributed plan refuses named relationships. The labels,
//! relationship types, property groups and string dictionaries are the whole model's (the shared
//! schema), so a part is a valid [`Model`] and is written and opened as any `.gemp` snapshot.
//!
//! Cost per part: the node-indexed arrays (offsets, keys, property rows) stay the size of the whole
//! model's node count; the edge arrays and property values hold only the part's share.

use xxhash_rust::xxh3::xxh3_64;

use super::{Adjacency, Column, ColumnData, Model, ModelParts, PropertyGroup, Slab, StringHeap};
use crate::error::{Error, Result};

/// The part (`0..parts`) owning `node`: the xxh3 hash of its id's little-endian bytes modulo
/// `parts` (hashing spreads the contiguous label groups over every part). `parts` must be > 0.
pub fn owner(node: u32, parts: u32) -> u32 {
    (xxh3_64(&node.to_le_bytes()) % u64::from(parts.max(1))) as u32
}

/// The part `index` of `model` split in `parts` by [`owner`]: see the module documentation.
pub fn part_of(model: &Model, parts: u32, index: u32) -> Result<Model> {
    if parts == 0 || index >= parts {
        return Err(Error::InvalidArgument(format!(
            "part {index} of {parts}: the index must be below the part count (at least 1)"
        )));
    }
    let n = model.node_count();
    let owned: Vec<bool> = (0..n as u32).map(|v| owner(v, parts) == index).collect();
    let (node_label_offsets, node_labels, label_index_offsets, label_index) =
        labels_of(model, &owned);
    let keys = StringHeap::from_strings((0..n).map(|v| {
        if owned[v] {
            model.node_key(v as u32).unwrap_or("")
        } else {
            ""
        }
    }));
    let (out, inc) = adjacency_of(model, &owned);
    let groups = model
        .groups()
        .iter()
        .map(|g| PropertyGroup {
            label: g.label,
            start: g.start,
            end: g.end,
            columns: g
                .columns
                .iter()
                .map(|c| column_of(c, &owned[g.start as usize..g.end as usize]))
                .collect(),
        })
        .collect();
    let parts = ModelParts {
        labels: model.labels().clone(),
        rel_types: model.rel_types().clone(),
        node_label_offsets: node_label_offsets.into(),
        node_labels: node_labels.into(),
        label_index_offsets: label_index_offsets.into(),
        label_index: label_index.into(),
        out,
        inc,
        groups,
        edge_columns: Vec::new(),
        keys,
    };
    Model::from_parts(parts, false)
}

type LabelArrays = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>);

/// The node-label CSR and the label index of the owned nodes.
fn labels_of(model: &Model, owned: &[bool]) -> LabelArrays {
    let mut offsets = Vec::with_capacity(owned.len() + 1);
    let mut labels = Vec::new();
    offsets.push(0u32);
    for (v, &mine) in owned.iter().enumerate() {
        if mine {
            labels.extend_from_slice(model.node_labels(v as u32));
        }
        offsets.push(labels.len() as u32);
    }
    let mut index_offsets = Vec::with_capacity(model.labels().len() + 1);
    let mut index = Vec::with_capacity(labels.len());
    index_offsets.push(0u32);
    for l in 0..model.labels().len() as u32 {
        index.extend(
            model
                .nodes_with_label(l)
                .iter()
                .filter(|&&v| owned[v as usize]),
        );
        index_offsets.push(index.len() as u32);
    }
    (offsets, labels, index_offsets, index)
}

/// The out- and in-CSR of the edges with an owned end, in the whole model's order (so each list
/// stays sorted by type and neighbour), with the part's own edge ids.
fn adjacency_of(model: &Model, owned: &[bool]) -> (Adjacency, Adjacency) {
    let (out, inc) = (model.out(), model.inc());
    let n = owned.len();
    let mut local = vec![u32::MAX; model.edge_count()];
    let mut offsets = Vec::with_capacity(n + 1);
    let (mut neighbors, mut types) = (Vec::new(), Vec::new());
    offsets.push(0u32);
    for u in 0..n {
        for p in out.range(u as u32) {
            let v = out.neighbors[p];
            if owned[u] || owned[v as usize] {
                local[p] = neighbors.len() as u32;
                neighbors.push(v);
                types.push(out.types[p]);
            }
        }
        offsets.push(neighbors.len() as u32);
    }
    let part_out = Adjacency {
        offsets: offsets.into(),
        neighbors: neighbors.into(),
        types: types.into(),
        edge_ids: Slab::default(),
    };
    let mut offsets = Vec::with_capacity(n + 1);
    let (mut sources, mut types, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    offsets.push(0u32);
    for v in 0..n {
        for p in inc.range(v as u32) {
            let e = local[inc.edge_id_at(p) as usize];
            if e != u32::MAX {
                sources.push(inc.neighbors[p]);
                types.push(inc.types[p]);
                ids.push(e);
            }
        }
        offsets.push(sources.len() as u32);
    }
    let part_in = Adjacency {
        offsets: offsets.into(),
        neighbors: sources.into(),
        types: types.into(),
        edge_ids: ids.into(),
    };
    (part_out, part_in)
}

/// `c` with the rows of nodes not `owned` null (and their values zero or empty); a dictionary
/// column keeps the whole dictionary.
fn column_of(c: &Column, owned: &[bool]) -> Column {
    let rows = c.len;
    let keep = |r: usize| owned.get(r).copied().unwrap_or(false) && c.is_valid(r);
    let mut validity = vec![0u64; rows.div_ceil(64)];
    for (r, &mine) in owned.iter().enumerate().take(rows) {
        if mine && c.is_valid(r) {
            validity[r / 64] |= 1u64 << (r % 64);
        }
    }
    let data = match &c.data {
        ColumnData::Int(v) => ColumnData::Int(
            (0..rows)
                .map(|r| if keep(r) { v[r] } else { 0 })
                .collect::<Vec<_>>()
                .into(),
        ),
        ColumnData::Float(v) => ColumnData::Float(
            (0..rows)
                .map(|r| if keep(r) { v[r] } else { 0.0 })
                .collect::<Vec<_>>()
                .into(),
        ),
        ColumnData::Bool(v) => ColumnData::Bool(
            (0..rows)
                .map(|r| if keep(r) { v[r] } else { 0 })
                .collect::<Vec<_>>()
                .into(),
        ),
        ColumnData::Str(h) => ColumnData::Str(StringHeap::from_strings((0..rows).map(|r| {
            if keep(r) {
                h.get(r).unwrap_or("")
            } else {
                ""
            }
        }))),
        ColumnData::Dict { codes, dict } => ColumnData::Dict {
            codes: (0..rows)
                .map(|r| if keep(r) { codes[r] } else { 0 })
                .collect::<Vec<_>>()
                .into(),
            dict: dict.clone(),
        },
    };
    Column {
        name: c.name.clone(),
        len: rows,
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
        let parts: Vec<Model> = (0..3).map(|i| part_of(&m, 3, i).unwrap()).collect();
        for v in 0..4u32 {
            let o = owner(v, 3) as usize;
            let p = &parts[o];
            assert_eq!(p.node_key(v), m.node_key(v));
            assert_eq!(p.out().neighbors_of(v), m.out().neighbors_of(v));
            assert_eq!(p.inc().neighbors_of(v), m.inc().neighbors_of(v));
            assert_eq!(p.node_labels(v), m.node_labels(v));
            assert_eq!(p.node_property(v, "name"), m.node_property(v, "name"));
            for (i, q) in parts.iter().enumerate() {
                if i != o {
                    assert!(q.node_labels(v).is_empty());
                    assert_eq!(q.node_property(v, "name"), ValueRef::Null);
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

    #[test]
    fn a_bad_index_is_refused() {
        assert!(part_of(&cycle(), 2, 2).is_err());
        assert!(part_of(&cycle(), 0, 0).is_err());
    }
}
