//! The shared graph model: a frozen, directed, labelled multigraph with typed properties.
//!
//! - Node and edge ids are dense `u32`. Nodes carry one or more interned labels; edges carry one
//!   interned relationship type.
//! - Adjacency is a flattened CSR in both directions ([`Adjacency`]), each list sorted by
//!   (type, neighbour id).
//! - Nodes are numbered so that nodes with the same primary (first) label are contiguous
//!   ([`PropertyGroup`]); node properties are typed columns per group, edge properties typed columns
//!   over all edges.
//! - Models are built with [`ModelBuilder`] and saved/opened as binary snapshots
//!   ([`snapshot`]).

mod builder;
mod column;
mod csr;
mod direct_file;
mod interner;
mod list_shapes;
pub mod neighbour_labels;
pub mod neighbourhood;
pub mod part;
pub mod partition;
mod row_set;
mod schema;
mod slab;
pub mod snapshot;
mod validate;
mod value;

use std::sync::OnceLock;

pub use builder::{ModelBuilder, MAX_ELEMENTS};
pub use column::{Column, ColumnData};
pub use csr::{Adjacency, ANY_TYPE};
pub use interner::Interner;
pub use list_shapes::ListShapes;
pub use schema::{DegreeStats, LabelInfo, PropertyInfo, RelTypeInfo, Schema};
pub use slab::{Slab, StringHeap};
pub use value::{PropType, Value, ValueRef};

use crate::error::{Error, Result};

/// Marker for "no label" (a node created only because an edge named it).
pub const NO_LABEL: u32 = u32::MAX;

/// A contiguous range of node ids sharing a primary label, with that group's property columns.
#[derive(Debug, Clone)]
pub struct PropertyGroup {
    /// The primary label, or [`NO_LABEL`].
    pub label: u32,
    /// First node id of the group.
    pub start: u32,
    /// One past the last node id.
    pub end: u32,
    /// Property columns, each with `end - start` rows.
    pub columns: Vec<Column>,
}

impl PropertyGroup {
    /// The column named `name`, if this group has it.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// The parts a model is assembled from (by the builder or the snapshot reader).
pub(crate) struct ModelParts {
    pub labels: Interner,
    pub rel_types: Interner,
    pub node_label_offsets: Slab<u32>,
    pub node_labels: Slab<u32>,
    pub label_index_offsets: Slab<u32>,
    pub label_index: Slab<u32>,
    pub out: Adjacency,
    pub inc: Adjacency,
    pub groups: Vec<PropertyGroup>,
    pub edge_columns: Vec<Column>,
    pub keys: StringHeap,
}

/// Node ids by key: a hash table of ids whose keys live in the model's key heap.
#[derive(Debug, Default)]
struct KeyIndex {
    table: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl KeyIndex {
    fn new(keys: &StringHeap) -> KeyIndex {
        use std::hash::BuildHasher;
        let hasher = hashbrown::DefaultHashBuilder::default();
        let key = |i: u32| keys.get(i as usize).unwrap_or("");
        let mut table = hashbrown::HashTable::with_capacity(keys.len());
        for i in 0..keys.len() as u32 {
            let h = hasher.hash_one(key(i));
            if table.find(h, |&j| key(j) == key(i)).is_none() {
                table.insert_unique(h, i, |&j| hasher.hash_one(key(j)));
            }
        }
        KeyIndex { table, hasher }
    }

    fn get(&self, keys: &StringHeap, key: &str) -> Option<u32> {
        use std::hash::BuildHasher;
        let h = self.hasher.hash_one(key);
        self.table
            .find(h, |&j| keys.get(j as usize) == Some(key))
            .copied()
    }
}

/// A frozen graph. Cheap to query from many threads (`Sync`); immutable.
#[derive(Debug)]
pub struct Model {
    labels: Interner,
    rel_types: Interner,
    node_label_offsets: Slab<u32>,
    node_labels: Slab<u32>,
    label_index_offsets: Slab<u32>,
    label_index: Slab<u32>,
    out: Adjacency,
    inc: Adjacency,
    groups: Vec<PropertyGroup>,
    edge_columns: Vec<Column>,
    keys: StringHeap,
    type_counts: Vec<u64>,
    key_index: OnceLock<std::sync::Arc<KeyIndex>>,
    list_shapes: OnceLock<ListShapes>,
    /// Whether the out- and in-lists hold each (type, neighbour) pair once, when validation's
    /// pass over the lists found it (models built in memory find it on first use).
    distinct_lists: OnceLock<(bool, bool)>,
    /// The neighbour-label profiles, built on first use when the model is small enough
    /// ([`Model::neighbour_labels`]).
    neighbour_labels: OnceLock<Option<neighbour_labels::NeighbourLabels>>,
    /// The whole model's id of each node, when this model holds one part's nodes
    /// ([`part::Part::nodes`]: local index → global id, strictly increasing); `None` in every
    /// other model, where a node's id is its index.
    node_ids: Option<Slab<u32>>,
}

impl Model {
    /// Assembles a model and checks the structural invariants every reader relies on.
    /// `from_bytes`: the parts came from a file: also check that string heaps are UTF-8 (strings
    /// a builder collected from `&str` are UTF-8 by construction) and the in/out cross-references
    /// (the builder derives the in-CSR from the out-CSR).
    pub(crate) fn from_parts(p: ModelParts, from_bytes: bool) -> Result<Model> {
        let started = std::time::Instant::now();
        let model = Model::assemble(p)?;
        model.validate(from_bytes)?;
        log::debug!(
            "model of {} nodes and {} edges validated in {:.1} ms",
            model.node_count(),
            model.edge_count(),
            started.elapsed().as_secs_f64() * 1e3
        );
        Ok(model)
    }

    /// The node data of one part of a partitioned model ([`part::Part`]): `p` over the part's
    /// nodes by local index (no edges), `node_ids` their global ids. Validated as
    /// [`Model::from_parts`] does, except that a property group may be empty (a part keeps every
    /// group of the shared schema, also those of labels it owns no node of).
    pub(crate) fn from_part_parts(
        p: ModelParts,
        node_ids: Slab<u32>,
        from_bytes: bool,
    ) -> Result<Model> {
        let mut model = Model::assemble(p)?;
        if node_ids.len() != model.node_count() {
            return Err(Error::Model(format!(
                "{} global node ids for {} nodes",
                node_ids.len(),
                model.node_count()
            )));
        }
        model.node_ids = Some(node_ids);
        model.validate(from_bytes)?;
        Ok(model)
    }

    /// The model of `p` with its edge counts per type; an edge type id out of range is an error.
    /// No other check ([`Model::from_parts`] adds them).
    fn assemble(p: ModelParts) -> Result<Model> {
        let mut type_counts = vec![0u64; p.rel_types.len()];
        for &t in p.out.types.iter() {
            match type_counts.get_mut(t as usize) {
                Some(c) => *c += 1,
                None => return Err(Error::Model(format!("edge type id {t} out of range"))),
            }
        }
        Ok(Model {
            labels: p.labels,
            rel_types: p.rel_types,
            node_label_offsets: p.node_label_offsets,
            node_labels: p.node_labels,
            label_index_offsets: p.label_index_offsets,
            label_index: p.label_index,
            out: p.out,
            inc: p.inc,
            groups: p.groups,
            edge_columns: p.edge_columns,
            keys: p.keys,
            type_counts,
            key_index: OnceLock::new(),
            list_shapes: OnceLock::new(),
            distinct_lists: OnceLock::new(),
            neighbour_labels: OnceLock::new(),
            node_ids: None,
        })
    }

    /// Assembles a model from parts `transform::fold` made out of a valid model: correct by
    /// construction (and property-tested against the builder), so the O(V + E) structural check
    /// runs in debug builds only — folding after a small change must not cost a pass over the
    /// whole model. `same_keys`: a model whose nodes have the same keys at the same ids, whose key
    /// index (if built) the new model shares.
    pub(crate) fn from_folded_parts(p: ModelParts, same_keys: Option<&Model>) -> Result<Model> {
        let index = same_keys.and_then(|m| m.key_index.get()).cloned();
        let model = if cfg!(debug_assertions) {
            Model::from_parts(p, false)?
        } else {
            Model::assemble(p)?
        };
        if let Some(index) = index {
            let _ = model.key_index.set(index);
        }
        Ok(model)
    }

    /// This model's parts, sharing every array with it (slabs are reference-counted): what a fold
    /// starts from, replacing only what changed.
    pub(crate) fn shared_parts(&self) -> ModelParts {
        ModelParts {
            labels: self.labels.clone(),
            rel_types: self.rel_types.clone(),
            node_label_offsets: self.node_label_offsets.clone(),
            node_labels: self.node_labels.clone(),
            label_index_offsets: self.label_index_offsets.clone(),
            label_index: self.label_index.clone(),
            out: self.out.clone(),
            inc: self.inc.clone(),
            groups: self.groups.clone(),
            edge_columns: self.edge_columns.clone(),
            keys: self.keys.clone(),
        }
    }

    /// The id `id()` returns for `node`: its index, or in a part's node model
    /// ([`Model::node_ids`]) its id in the whole model.
    pub fn node_id(&self, node: u32) -> u32 {
        match &self.node_ids {
            Some(ids) => ids.get(node as usize).copied().unwrap_or(node),
            None => node,
        }
    }

    /// The whole model's ids of this model's nodes when it holds one part's nodes (local index →
    /// global id, strictly increasing); `None` for every other model.
    pub fn node_ids(&self) -> Option<&[u32]> {
        self.node_ids.as_deref()
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.node_label_offsets.len().saturating_sub(1)
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.out.neighbors.len()
    }

    /// The label interner.
    pub fn labels(&self) -> &Interner {
        &self.labels
    }

    /// The relationship-type interner.
    pub fn rel_types(&self) -> &Interner {
        &self.rel_types
    }

    /// The labels of `node`, sorted by label id.
    pub fn node_labels(&self, node: u32) -> &[u32] {
        let n = node as usize;
        match (
            self.node_label_offsets.get(n),
            self.node_label_offsets.get(n + 1),
        ) {
            (Some(&s), Some(&e)) => &self.node_labels[s as usize..e as usize],
            _ => &[],
        }
    }

    /// The node-label CSR: `node_count + 1` offsets and the concatenated, per-node sorted label
    /// ids (what the OpenCL matcher uploads).
    pub fn node_label_csr(&self) -> (&[u32], &[u32]) {
        (&self.node_label_offsets, &self.node_labels)
    }

    /// True when `node` carries `label`.
    pub fn has_label(&self, node: u32, label: u32) -> bool {
        self.node_labels(node).binary_search(&label).is_ok()
    }

    /// The nodes carrying `label`, sorted by id.
    pub fn nodes_with_label(&self, label: u32) -> &[u32] {
        let l = label as usize;
        match (
            self.label_index_offsets.get(l),
            self.label_index_offsets.get(l + 1),
        ) {
            (Some(&s), Some(&e)) => &self.label_index[s as usize..e as usize],
            _ => &[],
        }
    }

    /// Number of nodes carrying `label`.
    pub fn label_count(&self, label: u32) -> usize {
        self.nodes_with_label(label).len()
    }

    /// Number of edges of type `ty`.
    pub fn type_count(&self, ty: u32) -> usize {
        self.type_counts.get(ty as usize).copied().unwrap_or(0) as usize
    }

    /// Outgoing adjacency.
    pub fn out(&self) -> &Adjacency {
        &self.out
    }

    /// Incoming adjacency.
    pub fn inc(&self) -> &Adjacency {
        &self.inc
    }

    /// The neighbour-label profile of every node ([`neighbour_labels`]), built on first use;
    /// `None` for a model of over [`neighbour_labels::MAX_EDGES`] relationships or one part of a
    /// partitioned model (whose nodes' neighbours lie partly in other parts).
    pub fn neighbour_labels(&self) -> Option<&neighbour_labels::NeighbourLabels> {
        self.neighbour_labels
            .get_or_init(|| {
                if self.node_ids.is_some() || self.edge_count() > neighbour_labels::MAX_EDGES {
                    return None;
                }
                let started = std::time::Instant::now();
                let index = neighbour_labels::NeighbourLabels::build(
                    &self.out,
                    &self.inc,
                    self.node_label_csr(),
                );
                log::debug!(
                    "neighbour-label profiles of {} nodes built in {:.2?} ({} bytes)",
                    self.node_count(),
                    started.elapsed(),
                    index.heap_bytes()
                );
                Some(index)
            })
            .as_ref()
    }

    /// Whether lists repeat (type, neighbour) pairs and whether the graph is stored
    /// symmetrically (found in O(V + E) on first use, then kept).
    pub fn list_shapes(&self) -> ListShapes {
        *self.list_shapes.get_or_init(|| {
            ListShapes::of(
                &self.out,
                &self.inc,
                self.node_count(),
                self.distinct_lists.get().copied(),
            )
        })
    }

    /// The external key of `node` (e.g. `tt0000001`).
    pub fn node_key(&self, node: u32) -> Option<&str> {
        self.keys.get(node as usize)
    }

    /// All node keys as a string heap.
    pub fn keys(&self) -> &StringHeap {
        &self.keys
    }

    /// The node with external key `key` (builds a hash index on first use: node ids hashed by
    /// their key's bytes in the key heap, no string copied).
    pub fn node_by_key(&self, key: &str) -> Option<u32> {
        self.key_index
            .get_or_init(|| std::sync::Arc::new(KeyIndex::new(&self.keys)))
            .get(&self.keys, key)
    }

    /// The property groups (contiguous id ranges by primary label).
    pub fn groups(&self) -> &[PropertyGroup] {
        &self.groups
    }

    /// The group holding `node`.
    pub fn group_of(&self, node: u32) -> Option<&PropertyGroup> {
        let i = self.groups.partition_point(|g| g.start <= node);
        self.groups.get(i.checked_sub(1)?).filter(|g| node < g.end)
    }

    /// Property `name` of `node` (null when the node does not have it).
    pub fn node_property(&self, node: u32, name: &str) -> ValueRef<'_> {
        match self.group_of(node) {
            Some(g) => g
                .column(name)
                .map_or(ValueRef::Null, |c| c.get((node - g.start) as usize)),
            None => ValueRef::Null,
        }
    }

    /// Edge property columns.
    pub fn edge_columns(&self) -> &[Column] {
        &self.edge_columns
    }

    /// Property `name` of `edge` (null when absent).
    pub fn edge_property(&self, edge: u32, name: &str) -> ValueRef<'_> {
        self.edge_columns
            .iter()
            .find(|c| c.name == name)
            .map_or(ValueRef::Null, |c| c.get(edge as usize))
    }

    /// Source node of `edge` (edge ids are out-CSR positions).
    pub fn edge_source(&self, edge: u32) -> Option<u32> {
        if edge as usize >= self.edge_count() {
            return None;
        }
        let i = self.out.offsets.partition_point(|&o| o <= edge);
        Some(i as u32 - 1)
    }

    /// Target node and type of `edge`.
    pub fn edge_target(&self, edge: u32) -> Option<(u32, u32)> {
        let e = edge as usize;
        Some((*self.out.neighbors.get(e)?, *self.out.types.get(e)?))
    }

    /// The schema: labels, types, properties, counts.
    pub fn schema(&self) -> Schema {
        Schema::of(self)
    }
}
