//! [`ModelBuilder`]: accepts nodes, labels, edges and properties in any order (edges may name nodes
//! that arrive later) and freezes them into a [`Model`] in O(V + E) with counting sorts.
//!
//! Freezing renumbers nodes so that nodes sharing their first ("primary") label form one contiguous id
//! range; property columns are stored per primary-label group, dense over that range.

use hashbrown::hash_table::{Entry, HashTable};
use hashbrown::DefaultHashBuilder;
use rayon::prelude::*;
use std::hash::BuildHasher;

use super::column::{Column, ColumnData};
use super::csr::Adjacency;
use super::interner::Interner;
use super::row_set::RowSet;
use super::slab::StringHeap;
use super::value::{PropType, ValueRef};
use super::{Model, PropertyGroup, NO_LABEL};
use crate::error::{Error, Result};

/// Largest number of nodes or edges a model can hold (ids are `u32`, `u32::MAX` is reserved).
pub const MAX_ELEMENTS: usize = (u32::MAX - 1) as usize;

/// Property values set on nodes or edges, one growable column per property name.
#[derive(Default)]
struct PropertyTable {
    names: Interner,
    columns: Vec<BuilderColumn>,
}

/// Values of one property: the `i`-th row of `rows` (a node or edge index) has value `i`.
#[derive(Default)]
struct BuilderColumn {
    rows: RowSet,
    data: BuilderData,
}

#[derive(Default)]
enum BuilderData {
    #[default]
    Empty,
    /// Integers while every one so far fits 32 bits (half the memory of [`BuilderData::Int`]);
    /// widened to `Int` by the first that does not. Frozen to the same 64-bit column either way.
    Int32(Vec<i32>),
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<u8>),
    Str {
        offsets: StrOffsets,
        heap: Vec<u8>,
    },
}

impl BuilderData {
    fn prop_type(&self) -> Option<PropType> {
        match self {
            BuilderData::Empty => None,
            BuilderData::Int32(_) | BuilderData::Int(_) => Some(PropType::Int),
            BuilderData::Float(_) => Some(PropType::Float),
            BuilderData::Bool(_) => Some(PropType::Bool),
            BuilderData::Str { .. } => Some(PropType::Str),
        }
    }
}

/// Where the values of a builder string column end in its heap (value `i` is
/// `heap[offsets[i]..offsets[i + 1]]`): 32-bit while the heap is below 4 GiB, which halves what
/// the offsets of a loaded dump take, 64-bit beyond.
enum StrOffsets {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl StrOffsets {
    /// Offset `i`.
    #[inline]
    fn get(&self, i: usize) -> usize {
        match self {
            StrOffsets::Narrow(v) => v[i] as usize,
            StrOffsets::Wide(v) => v[i] as usize,
        }
    }

    /// Appends the end of a value.
    #[inline]
    fn push(&mut self, end: usize) {
        match self {
            StrOffsets::Narrow(v) => match u32::try_from(end) {
                Ok(end) => v.push(end),
                Err(_) => {
                    let mut wide: Vec<u64> = v.iter().map(|&o| u64::from(o)).collect();
                    wide.push(end as u64);
                    *self = StrOffsets::Wide(wide);
                }
            },
            StrOffsets::Wide(v) => v.push(end as u64),
        }
    }
}

impl BuilderColumn {
    /// Bytes its values and rows take (capacity aside).
    fn heap_bytes(&self) -> usize {
        let values = match &self.data {
            BuilderData::Empty => 0,
            BuilderData::Int32(v) => v.len() * 4,
            BuilderData::Int(v) => v.len() * 8,
            BuilderData::Float(v) => v.len() * 8,
            BuilderData::Bool(v) => v.len(),
            BuilderData::Str { offsets, heap } => {
                heap.len()
                    + match offsets {
                        StrOffsets::Narrow(o) => o.len() * 4,
                        StrOffsets::Wide(o) => o.len() * 8,
                    }
            }
        };
        values + self.rows.heap_bytes()
    }

    /// Appends `value` for `row`; null values are not stored. Int and float mix into float. `name`
    /// (the property's, for the error message) is only asked for when the types conflict.
    fn push<'n>(
        &mut self,
        row: u32,
        value: ValueRef<'_>,
        name: impl FnOnce() -> &'n str,
    ) -> Result<()> {
        if matches!(value, ValueRef::Null) {
            return Ok(());
        }
        if matches!(self.data, BuilderData::Empty) {
            self.data = match value {
                ValueRef::Int(_) => BuilderData::Int32(Vec::new()),
                ValueRef::Float(_) => BuilderData::Float(Vec::new()),
                ValueRef::Bool(_) => BuilderData::Bool(Vec::new()),
                _ => BuilderData::Str {
                    offsets: StrOffsets::Narrow(vec![0]),
                    heap: Vec::new(),
                },
            };
        }
        let widened = match (&self.data, value) {
            (BuilderData::Int32(ints), ValueRef::Float(_)) => Some(BuilderData::Float(
                ints.iter().map(|&i| f64::from(i)).collect(),
            )),
            (BuilderData::Int(ints), ValueRef::Float(_)) => {
                Some(BuilderData::Float(ints.iter().map(|&i| i as f64).collect()))
            }
            (BuilderData::Int32(ints), ValueRef::Int(x)) if i32::try_from(x).is_err() => Some(
                BuilderData::Int(ints.iter().map(|&i| i64::from(i)).collect()),
            ),
            _ => None,
        };
        if let Some(data) = widened {
            self.data = data;
        }
        match (&mut self.data, value) {
            (BuilderData::Int32(v), ValueRef::Int(x)) => v.push(x as i32),
            (BuilderData::Int(v), ValueRef::Int(x)) => v.push(x),
            (BuilderData::Float(v), ValueRef::Float(x)) => v.push(x),
            (BuilderData::Float(v), ValueRef::Int(x)) => v.push(x as f64),
            (BuilderData::Bool(v), ValueRef::Bool(x)) => v.push(x as u8),
            (BuilderData::Str { offsets, heap }, ValueRef::Str(s)) => {
                heap.extend_from_slice(s.as_bytes());
                offsets.push(heap.len());
            }
            (data, value) => {
                let have = data.prop_type().map_or("none", PropType::name);
                let got = match value {
                    ValueRef::Int(_) => "int",
                    ValueRef::Float(_) => "float",
                    ValueRef::Bool(_) => "bool",
                    ValueRef::Str(_) => "string",
                    ValueRef::Null => "null",
                };
                return Err(Error::Model(format!(
                    "property `{}` has values of type {have} and of type {got}",
                    name()
                )));
            }
        }
        self.rows.push(row);
        Ok(())
    }
}

impl PropertyTable {
    /// Bytes of its largest column ([`BuilderColumn::heap_bytes`]).
    fn largest_column(&self) -> usize {
        self.columns
            .iter()
            .map(BuilderColumn::heap_bytes)
            .max()
            .unwrap_or(0)
    }

    fn key(&mut self, name: &str) -> u32 {
        let id = self.names.intern(name);
        if id as usize == self.columns.len() {
            self.columns.push(BuilderColumn::default());
        }
        id
    }

    fn set(&mut self, row: u32, key: u32, value: ValueRef<'_>) -> Result<()> {
        let names = &self.names;
        match self.columns.get_mut(key as usize) {
            Some(col) => col.push(row, value, || names.name(key).unwrap_or("?")),
            None => Err(Error::InvalidArgument(format!(
                "unknown property key {key}"
            ))),
        }
    }
}

/// Collects a graph in any order and freezes it into a [`Model`].
///
/// ```
/// use gemp::model::{ModelBuilder, ValueRef};
/// let mut b = ModelBuilder::new();
/// let tom = b.add_node("nm1", &["Person"]);
/// let film = b.add_node("tt1", &["Title", "Movie"]);
/// let actor = b.rel_type("ACTOR");
/// b.add_edge(tom, film, actor).unwrap();
/// let name = b.node_property("primaryName");
/// b.set_node_property(tom, name, ValueRef::Str("Tom Hanks")).unwrap();
/// let model = b.freeze().unwrap();
/// assert_eq!(model.node_count(), 2);
/// assert_eq!(model.edge_count(), 1);
/// ```
#[derive(Default)]
pub struct ModelBuilder {
    labels: Interner,
    rel_types: Interner,
    key_offsets: Vec<u64>,
    key_heap: Vec<u8>,
    key_table: HashTable<u32>,
    /// Nodes `0..indexed` have their key in `key_table`; later ones came from
    /// [`ModelBuilder::push_unique_node`] and are indexed on the next [`ModelBuilder::ensure_node`].
    indexed: usize,
    hasher: DefaultHashBuilder,
    primary_label: Vec<u32>,
    extra_labels: Vec<(u32, u32)>,
    edge_src: Vec<u32>,
    edge_dst: Vec<u32>,
    edge_type: Vec<u32>,
    node_props: PropertyTable,
    edge_props: PropertyTable,
}

impl ModelBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        ModelBuilder {
            key_offsets: vec![0],
            ..Default::default()
        }
    }

    /// Number of nodes so far.
    pub fn node_count(&self) -> usize {
        self.primary_label.len()
    }

    /// Number of edges so far.
    pub fn edge_count(&self) -> usize {
        self.edge_src.len()
    }

    /// The id of label `name`, interning it.
    pub fn label(&mut self, name: &str) -> u32 {
        self.labels.intern(name)
    }

    /// The id of relationship type `name`, interning it.
    pub fn rel_type(&mut self, name: &str) -> u32 {
        self.rel_types.intern(name)
    }

    /// The key of node property `name`, for [`ModelBuilder::set_node_property`].
    pub fn node_property(&mut self, name: &str) -> u32 {
        self.node_props.key(name)
    }

    /// The key of edge property `name`, for [`ModelBuilder::set_edge_property`].
    pub fn edge_property(&mut self, name: &str) -> u32 {
        self.edge_props.key(name)
    }

    fn key_of(&self, node: u32) -> &[u8] {
        let s = self.key_offsets[node as usize] as usize;
        let e = self.key_offsets[node as usize + 1] as usize;
        &self.key_heap[s..e]
    }

    /// The node whose external key is `key`, if it exists.
    pub fn node_id(&self, key: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(key.as_bytes());
        self.key_table
            .find(hash, |&n| self.key_of(n) == key.as_bytes())
            .copied()
            .or_else(|| {
                (self.indexed..self.node_count())
                    .map(|n| n as u32)
                    .find(|&n| self.key_of(n) == key.as_bytes())
            })
    }

    /// The node with external key `key`, created without labels if it does not exist yet.
    /// Returns the node and whether it was created.
    pub fn ensure_node(&mut self, key: &str) -> (u32, bool) {
        self.index_pending();
        let hash = self.hasher.hash_one(key.as_bytes());
        let Self {
            key_table,
            key_offsets,
            key_heap,
            hasher,
            primary_label,
            ..
        } = self;
        let entry = key_table.entry(
            hash,
            |&n| {
                let s = key_offsets[n as usize] as usize;
                let e = key_offsets[n as usize + 1] as usize;
                &key_heap[s..e] == key.as_bytes()
            },
            |&n| {
                let s = key_offsets[n as usize] as usize;
                let e = key_offsets[n as usize + 1] as usize;
                hasher.hash_one(&key_heap[s..e])
            },
        );
        match entry {
            Entry::Occupied(o) => (*o.get(), false),
            Entry::Vacant(v) => {
                let id = primary_label.len() as u32;
                v.insert(id);
                key_heap.extend_from_slice(key.as_bytes());
                key_offsets.push(key_heap.len() as u64);
                primary_label.push(NO_LABEL);
                self.indexed += 1;
                (id, true)
            }
        }
    }

    /// Appends a node with external key `key`, without labels, skipping the key lookup.
    ///
    /// For loaders that already know the key is new (IMDb ids go through a numeric map): the caller
    /// must never pass a key that an existing node has, or [`ModelBuilder::node_id`] may find
    /// either node. Keys added here are indexed lazily, on the next [`ModelBuilder::ensure_node`].
    pub fn push_unique_node(&mut self, key: &str) -> u32 {
        let id = self.primary_label.len() as u32;
        self.key_heap.extend_from_slice(key.as_bytes());
        self.key_offsets.push(self.key_heap.len() as u64);
        self.primary_label.push(NO_LABEL);
        id
    }

    /// Puts the keys of nodes added by [`ModelBuilder::push_unique_node`] into the key table.
    fn index_pending(&mut self) {
        let n = self.node_count();
        if self.indexed == n {
            return;
        }
        let Self {
            key_table,
            key_offsets,
            key_heap,
            hasher,
            ..
        } = self;
        let key = |n: u32| {
            let s = key_offsets[n as usize] as usize;
            let e = key_offsets[n as usize + 1] as usize;
            &key_heap[s..e]
        };
        key_table.reserve(n - self.indexed, |&m| hasher.hash_one(key(m)));
        for node in self.indexed as u32..n as u32 {
            key_table.insert_unique(hasher.hash_one(key(node)), node, |&m| {
                hasher.hash_one(key(m))
            });
        }
        self.indexed = n;
    }

    /// Adds label `label` (an id from [`ModelBuilder::label`]) to `node`. The first label a node gets
    /// is its primary label, which decides where its properties are stored.
    pub fn add_label(&mut self, node: u32, label: u32) {
        let Some(primary) = self.primary_label.get_mut(node as usize) else {
            return;
        };
        if *primary == NO_LABEL {
            *primary = label;
        } else if *primary != label {
            self.extra_labels.push((node, label));
        }
    }

    /// Upserts the node with external key `key` and adds `labels` to it.
    pub fn add_node(&mut self, key: &str, labels: &[&str]) -> u32 {
        let (id, _) = self.ensure_node(key);
        for l in labels {
            let lid = self.labels.intern(l);
            self.add_label(id, lid);
        }
        id
    }

    /// Adds an edge `src -[ty]-> dst` and returns its (provisional) index.
    pub fn add_edge(&mut self, src: u32, dst: u32, ty: u32) -> Result<u32> {
        let n = self.node_count() as u32;
        if src >= n || dst >= n {
            return Err(Error::InvalidArgument(format!(
                "edge {src} -> {dst} names a node that does not exist ({n} nodes)"
            )));
        }
        if ty as usize >= self.rel_types.len() {
            return Err(Error::InvalidArgument(format!(
                "unknown relationship type id {ty}"
            )));
        }
        if self.edge_src.len() >= MAX_ELEMENTS {
            return Err(Error::Model(format!("more than {MAX_ELEMENTS} edges")));
        }
        self.edge_src.push(src);
        self.edge_dst.push(dst);
        self.edge_type.push(ty);
        Ok(self.edge_src.len() as u32 - 1)
    }

    /// Sets a property of `node` (`key` from [`ModelBuilder::node_property`]); null is a no-op.
    pub fn set_node_property(&mut self, node: u32, key: u32, value: ValueRef<'_>) -> Result<()> {
        if node as usize >= self.node_count() {
            return Err(Error::InvalidArgument(format!(
                "node {node} does not exist"
            )));
        }
        self.node_props.set(node, key, value)
    }

    /// Sets a property of `edge` (`key` from [`ModelBuilder::edge_property`]); null is a no-op.
    pub fn set_edge_property(&mut self, edge: u32, key: u32, value: ValueRef<'_>) -> Result<()> {
        if edge as usize >= self.edge_count() {
            return Err(Error::InvalidArgument(format!(
                "edge {edge} does not exist"
            )));
        }
        self.edge_props.set(edge, key, value)
    }

    /// Freezes into a [`Model`]: renumbers nodes by primary label, sorts adjacency by
    /// (type, neighbour) with counting sorts, and lays properties out in typed columns.
    pub fn freeze(mut self) -> Result<Model> {
        let n = self.node_count();
        if n > MAX_ELEMENTS {
            return Err(Error::Model(format!("more than {MAX_ELEMENTS} nodes")));
        }
        let label_count = self.labels.len();
        let started = std::time::Instant::now();

        // 1. Renumber nodes: stable counting sort by primary label (unlabelled last).
        let group_of = |l: u32| {
            if l == NO_LABEL {
                label_count
            } else {
                l as usize
            }
        };
        let primary: Vec<u32> = std::mem::take(&mut self.primary_label);
        let old_of_new = counting_sort((0..n as u32).collect(), label_count + 1, |o| {
            group_of(primary[o as usize])
        });
        let mut new_of_old = vec![0u32; n];
        for (new, &old) in old_of_new.iter().enumerate() {
            new_of_old[old as usize] = new as u32;
        }
        let mut groups = Vec::new();
        {
            let mut start = 0usize;
            while start < n {
                let g = primary[old_of_new[start] as usize];
                let mut end = start;
                while end < n && primary[old_of_new[end] as usize] == g {
                    end += 1;
                }
                groups.push(PropertyGroup {
                    label: g,
                    start: start as u32,
                    end: end as u32,
                    columns: Vec::new(),
                });
                start = end;
            }
        }

        // Node properties first: they are most of what the builder holds, and each builder column is
        // freed as soon as its frozen columns exist, so the builder shrinks while the model grows.
        let node_props = std::mem::take(&mut self.node_props);
        // Two columns freeze at a time (more on more cores, but each frees its builder column);
        // a frozen column takes at most about twice its builder form.
        check_memory_for("the node properties", 4 * node_props.largest_column())?;
        let group_columns = freeze_node_properties(node_props, &groups, &new_of_old);
        crate::util::memory::release_freed();
        check_memory("the node properties")?;
        log_stage("node property columns", started);

        // 2. Node labels (sorted, deduplicated per node) and the label -> nodes index. Each node's
        // list (its primary label, then its extra labels) is gathered by a counting-sort scatter,
        // then sorted and deduplicated in place.
        let mut gathered = vec![0u32; n + 1];
        for (new, &old) in old_of_new.iter().enumerate() {
            gathered[new + 1] = u32::from(primary[old as usize] != NO_LABEL);
        }
        let extra_labels = std::mem::take(&mut self.extra_labels);
        for &(old, _) in &extra_labels {
            gathered[new_of_old[old as usize] as usize + 1] += 1;
        }
        prefix_sum(&mut gathered);
        let mut labels_flat = vec![0u32; gathered[n] as usize];
        {
            let mut next = gathered[..n].to_vec();
            for (new, &old) in old_of_new.iter().enumerate() {
                let l = primary[old as usize];
                if l != NO_LABEL {
                    labels_flat[next[new] as usize] = l;
                    next[new] += 1;
                }
            }
            for &(old, l) in &extra_labels {
                let v = new_of_old[old as usize] as usize;
                labels_flat[next[v] as usize] = l;
                next[v] += 1;
            }
        }
        drop(extra_labels);
        drop(primary);
        let mut node_label_offsets = vec![0u32; n + 1];
        let mut kept = 0usize;
        for v in 0..n {
            let (s, e) = (gathered[v] as usize, gathered[v + 1] as usize);
            if e - s > 1 {
                labels_flat[s..e].sort_unstable();
            }
            for i in s..e {
                let l = labels_flat[i];
                if i == s || l != labels_flat[i - 1] {
                    labels_flat[kept] = l;
                    kept += 1;
                }
            }
            node_label_offsets[v + 1] = kept as u32;
        }
        drop(gathered);
        labels_flat.truncate(kept);
        let node_labels = labels_flat;
        let mut label_index_offsets = vec![0u32; label_count + 1];
        for &l in &node_labels {
            label_index_offsets[l as usize + 1] += 1;
        }
        prefix_sum(&mut label_index_offsets);
        let mut label_index = vec![0u32; node_labels.len()];
        {
            let mut next = label_index_offsets[..label_count].to_vec();
            for v in 0..n {
                let list = node_label_offsets[v] as usize..node_label_offsets[v + 1] as usize;
                for &l in &node_labels[list] {
                    label_index[next[l as usize] as usize] = v as u32;
                    next[l as usize] += 1;
                }
            }
        }

        // 3. Keys in the new order; the builder's keys and their hash table go at once.
        let keys = {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0u64);
            let mut heap = Vec::with_capacity(self.key_heap.len());
            for &old in &old_of_new {
                heap.extend_from_slice(self.key_of(old));
                offsets.push(heap.len() as u64);
            }
            StringHeap {
                offsets: offsets.into(),
                bytes: heap.into(),
            }
        };
        drop(old_of_new);
        drop(std::mem::take(&mut self.key_table));
        drop(std::mem::take(&mut self.key_heap));
        drop(std::mem::take(&mut self.key_offsets));
        crate::util::memory::release_freed();
        check_memory("the node keys")?;

        // 4. Edges: endpoints renumbered in place, then the out-CSR (lists sorted by type, then
        // destination). The builder's edge arrays are freed as soon as the out-CSR holds them.
        let m = self.edge_src.len();
        let mut src = std::mem::take(&mut self.edge_src);
        let mut dst = std::mem::take(&mut self.edge_dst);
        rayon::join(
            || src.iter_mut().for_each(|s| *s = new_of_old[*s as usize]),
            || dst.iter_mut().for_each(|d| *d = new_of_old[*d as usize]),
        );
        drop(new_of_old);
        let ty = std::mem::take(&mut self.edge_type);
        // The lists (offsets, types, neighbours, ids), the scatter's cursors, new edge ids.
        check_memory_for("the outgoing adjacency", 4 * (2 * n + 4 * m))?;
        let (out, new_edge_of_old) = out_adjacency(n, &src, &dst, &ty);
        drop((src, dst, ty));
        crate::util::memory::release_freed();
        check_memory("the outgoing adjacency")?;
        log_stage(
            "nodes renumbered, labels and keys laid out, edges ordered",
            started,
        );

        // The edge properties, then the in-CSR: one after the other, so that the temporary
        // arrays of each (a column's slots and its copy; the in-lists' cursors) are never held
        // together with the other's, and the edge columns, whose freeze needs the most beside
        // the model, freeze before the in-CSR exists; each is parallel inside.
        let edge_props = std::mem::take(&mut self.edge_props);
        // One column at a time: its slots and its frozen copy.
        check_memory_for(
            "the edge properties",
            4 * m + 2 * edge_props.largest_column(),
        )?;
        let edge_columns = freeze_edge_properties(edge_props, m, &new_edge_of_old);
        drop(new_edge_of_old);
        crate::util::memory::release_freed();
        check_memory("the edge properties")?;
        log_stage("edge property columns", started);
        // The in-lists (offsets, types, neighbours, ids) and the scatter's cursors.
        check_memory_for("the incoming adjacency", 4 * (2 * n + 3 * m))?;
        let inc = in_adjacency(n, &out);
        crate::util::memory::release_freed();
        check_memory("the incoming adjacency")?;
        log_stage("adjacency and property columns", started);
        for (g, cols) in groups.iter_mut().zip(group_columns) {
            g.columns = cols;
        }

        Model::from_parts(
            super::ModelParts {
                labels: self.labels,
                rel_types: self.rel_types,
                node_label_offsets: node_label_offsets.into(),
                node_labels: node_labels.into(),
                label_index_offsets: label_index_offsets.into(),
                label_index: label_index.into(),
                out,
                inc,
                groups,
                edge_columns,
                keys,
            },
            false,
        )
    }
}

/// Logs (at debug level) that freeze stage `what` is done, with the time since `started` and the
/// heap in use (counted only where [`crate::util::memory::CountingAllocator`] is installed).
fn log_stage(what: &str, started: std::time::Instant) {
    log::debug!(
        "freeze: {what} in {:.2?} ({} MiB of heap in use)",
        started.elapsed(),
        crate::util::memory::in_use() >> 20
    );
}

/// The memory-limit check between the stages of [`ModelBuilder::freeze`]: an error naming the
/// stage (`loading the model (freezing <what>)`) once the heap passed `--memory-limit`. Nothing
/// spills to disk: the model is built in memory.
fn check_memory(what: &str) -> Result<()> {
    check_memory_for(what, 0)
}

/// Before a freeze stage that allocates about `extra` bytes at once: the memory-limit error naming
/// the stage when the heap in use plus `extra` would pass `--memory-limit`, so that the stage
/// stops before it grows past the limit rather than after.
fn check_memory_for(what: &str, extra: usize) -> Result<()> {
    let stage = format!("loading the model (freezing {what})");
    let over = if extra == 0 {
        crate::util::memory::check(&stage)
    } else {
        crate::util::memory::check_growth(&stage, extra)
    };
    if over {
        return Err(
            crate::util::memory::take_error().unwrap_or(Error::MemoryLimit {
                stage,
                limit: crate::util::memory::limit().unwrap_or(u64::MAX),
            }),
        );
    }
    Ok(())
}

/// Stable counting sort of `items` by `key(item) < buckets`.
fn counting_sort<T: Copy + Default>(
    items: Vec<T>,
    buckets: usize,
    key: impl Fn(T) -> usize,
) -> Vec<T> {
    let mut counts = vec![0usize; buckets + 1];
    for &it in &items {
        counts[key(it) + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut out = vec![T::default(); items.len()];
    for &it in &items {
        let k = key(it);
        out[counts[k]] = it;
        counts[k] += 1;
    }
    out
}

fn prefix_sum(v: &mut [u32]) {
    for i in 1..v.len() {
        v[i] += v[i - 1];
    }
}

/// Counts per `from` node and prefix-sums them: the `n + 1` list offsets.
fn list_offsets(n: usize, from: &[u32]) -> Vec<u32> {
    let mut offsets = vec![0u32; n + 1];
    for &f in from {
        offsets[f as usize + 1] += 1;
    }
    prefix_sum(&mut offsets);
    offsets
}

/// One adjacency direction before it becomes an [`Adjacency`]: parallel arrays in list order.
struct Lists {
    offsets: Vec<u32>,
    types: Vec<u32>,
    neighbors: Vec<u32>,
    /// The id carried by each entry (builder edge index or new edge id).
    ids: Vec<u32>,
}

/// Groups edge entries into per-node lists with one stable counting-sort scatter straight into
/// the final arrays, then sorts each list in place by `(type, neighbour, id)` (lists are short; in
/// parallel over blocks of lists). `offsets` are the `n + 1` list offsets ([`list_offsets`]);
/// `entries` yields each edge once as `(from, type, neighbour, id)`, in the order that breaks ties
/// before the sort (the sort makes the lists independent of it where ids are distinct).
fn grouped_lists(offsets: Vec<u32>, entries: impl Iterator<Item = (u32, u32, u32, u32)>) -> Lists {
    let n = offsets.len() - 1;
    let m = offsets[n] as usize;
    let (mut types, mut neighbors, mut ids) = (vec![0u32; m], vec![0u32; m], vec![0u32; m]);
    {
        let mut next: Vec<u32> = offsets[..n].to_vec();
        for (f, ty, nbr, id) in entries {
            let slot = &mut next[f as usize];
            let at = *slot as usize;
            types[at] = ty;
            neighbors[at] = nbr;
            ids[at] = id;
            *slot += 1;
        }
    }
    // Cut the arrays into blocks of whole lists so blocks can be sorted independently.
    const BLOCK_LISTS: usize = 1 << 14;
    let mut blocks = Vec::new();
    let (mut t_rest, mut n_rest, mut i_rest) = (&mut types[..], &mut neighbors[..], &mut ids[..]);
    for first in (0..n).step_by(BLOCK_LISTS) {
        let last = (first + BLOCK_LISTS).min(n);
        let len = (offsets[last] - offsets[first]) as usize;
        let (t, t_tail) = std::mem::take(&mut t_rest).split_at_mut(len);
        let (nb, n_tail) = std::mem::take(&mut n_rest).split_at_mut(len);
        let (i, i_tail) = std::mem::take(&mut i_rest).split_at_mut(len);
        blocks.push((&offsets[first..=last], t, nb, i));
        (t_rest, n_rest, i_rest) = (t_tail, n_tail, i_tail);
    }
    blocks.into_par_iter().for_each(|(offs, t, nb, i)| {
        let base = offs[0];
        let mut list: Vec<(u32, u32, u32)> = Vec::new();
        for w in offs.windows(2) {
            let r = (w[0] - base) as usize..(w[1] - base) as usize;
            if r.len() < 2 {
                continue;
            }
            let sorted = r
                .clone()
                .zip(r.clone().skip(1))
                .all(|(a, b)| (t[a], nb[a], i[a]) <= (t[b], nb[b], i[b]));
            if sorted {
                continue;
            }
            list.clear();
            list.extend(r.clone().map(|k| (t[k], nb[k], i[k])));
            list.sort_unstable();
            for (k, &(ty, nbr, id)) in r.zip(&list) {
                (t[k], nb[k], i[k]) = (ty, nbr, id);
            }
        }
    });
    Lists {
        offsets,
        types,
        neighbors,
        ids,
    }
}

/// The out-CSR (lists sorted by type, destination, then builder edge index) and, for every builder
/// edge index, its new edge id (its position in the out-CSR).
fn out_adjacency(n: usize, src: &[u32], dst: &[u32], ty: &[u32]) -> (Adjacency, Vec<u32>) {
    let entries = (0..src.len()).map(|e| (src[e], ty[e], dst[e], e as u32));
    let lists = grouped_lists(list_offsets(n, src), entries);
    let mut new_edge_of_old = vec![0u32; lists.ids.len()];
    for (pos, &e) in lists.ids.iter().enumerate() {
        new_edge_of_old[e as usize] = pos as u32;
    }
    let adjacency = Adjacency {
        offsets: lists.offsets.into(),
        neighbors: lists.neighbors.into(),
        types: lists.types.into(),
        edge_ids: Vec::new().into(),
    };
    (adjacency, new_edge_of_old)
}

/// The in-CSR: lists per destination sorted by type, source, then edge id; built from the
/// out-CSR `out` alone (the edge id of an entry is its position there, its source the list the
/// position lies in), so no per-edge source array is needed beside it.
fn in_adjacency(n: usize, out: &Adjacency) -> Adjacency {
    let entries = out.offsets.windows(2).enumerate().flat_map(|(v, w)| {
        (w[0]..w[1]).map(move |pos| {
            let p = pos as usize;
            (out.neighbors[p], out.types[p], v as u32, pos)
        })
    });
    let lists = grouped_lists(list_offsets(n, &out.neighbors), entries);
    Adjacency {
        offsets: lists.offsets.into(),
        neighbors: lists.neighbors.into(),
        types: lists.types.into(),
        edge_ids: lists.ids.into(),
    }
}

/// Node property columns per primary-label group (only groups where the property occurs).
fn freeze_node_properties(
    table: PropertyTable,
    groups: &[PropertyGroup],
    new_of_old: &[u32],
) -> Vec<Vec<Column>> {
    let starts: Vec<u32> = groups.iter().map(|g| g.start).collect();
    let sizes: Vec<usize> = groups.iter().map(|g| (g.end - g.start) as usize).collect();
    freeze_columns(table, &sizes, true, &|row| {
        let new = new_of_old[row as usize];
        let g = starts.partition_point(|&s| s <= new) - 1;
        (g, (new - starts[g]) as usize)
    })
}

/// Edge property columns over all `len` edges, rows renumbered to out-CSR positions.
fn freeze_edge_properties(
    table: PropertyTable,
    len: usize,
    new_edge_of_old: &[u32],
) -> Vec<Column> {
    // One column at a time: an edge column's slots and copy are as long as the edges, and they
    // come last in the freeze, when the model is nearly whole.
    let mut per_group = freeze_columns(table, &[len], false, &|row| {
        (0, new_edge_of_old[row as usize] as usize)
    });
    per_group.pop().unwrap_or_default()
}

/// Freezes every column of `table` into per-group columns (`sizes[g]` rows in group `g`; a group
/// gets a column only where the property has a value); `place(row)` is where a builder row lands:
/// (group, position in the group). Columns freeze in parallel, each builder column freed as soon as
/// its frozen columns exist; `parallel`: several columns at once (else one after the other, so
/// that only one column's temporaries are held at a time).
fn freeze_columns<P>(
    table: PropertyTable,
    sizes: &[usize],
    parallel: bool,
    place: &P,
) -> Vec<Vec<Column>>
where
    P: Fn(u32) -> (usize, usize) + Sync,
{
    let PropertyTable { names, columns } = table;
    let freeze_one = |(key, col): (usize, BuilderColumn)| -> Vec<(usize, Column)> {
        let name = names.name(key as u32).unwrap_or("");
        let pieces: Vec<(usize, ColumnData, Vec<u64>)> = match &col.data {
            BuilderData::Empty => Vec::new(),
            BuilderData::Int32(v) => scatter(v, &col, sizes, place, i64::from, ColumnData::Int),
            BuilderData::Int(v) => scatter(v, &col, sizes, place, |x| x, ColumnData::Int),
            BuilderData::Float(v) => scatter(v, &col, sizes, place, |x| x, ColumnData::Float),
            BuilderData::Bool(v) => scatter(v, &col, sizes, place, |x| x, ColumnData::Bool),
            BuilderData::Str { offsets, heap } => {
                let slots = value_slots(&col, sizes, place);
                slots
                    .into_iter()
                    .enumerate()
                    .filter(|(_, slot)| !slot.is_empty())
                    .map(|(g, slot)| {
                        let validity = slot
                            .chunks(64)
                            .map(|chunk| {
                                chunk
                                    .iter()
                                    .enumerate()
                                    .filter(|(_, &s)| s != NO_VALUE)
                                    .fold(0u64, |bits, (i, _)| bits | 1 << i)
                            })
                            .collect();
                        (g, freeze_strings(&slot, offsets, heap), validity)
                    })
                    .collect()
            }
        };
        drop(col);
        crate::util::memory::release_freed();
        pieces
            .into_iter()
            .map(|(g, data, validity)| {
                let len = sizes[g];
                let set: usize = validity.iter().map(|w| w.count_ones() as usize).sum();
                let validity = if set == len { Vec::new() } else { validity };
                let column = Column {
                    name: name.to_owned(),
                    len,
                    data,
                    validity: validity.into(),
                };
                (g, column)
            })
            .collect()
    };
    let per_column: Vec<Vec<(usize, Column)>> = if parallel {
        columns
            .into_par_iter()
            .enumerate()
            .map(freeze_one)
            .collect()
    } else {
        // Largest first: its copy is made while the smaller columns are still in their (smaller)
        // builder form rather than already frozen beside it. Then back in key order.
        let mut keyed: Vec<(usize, BuilderColumn)> = columns.into_iter().enumerate().collect();
        keyed.sort_by_key(|(key, col)| (std::cmp::Reverse(col.heap_bytes()), *key));
        let mut frozen: Vec<(usize, Vec<(usize, Column)>)> = keyed
            .into_iter()
            .map(|(key, col)| (key, freeze_one((key, col))))
            .collect();
        frozen.sort_by_key(|(key, _)| *key);
        frozen.into_iter().map(|(_, pieces)| pieces).collect()
    };
    let mut out: Vec<Vec<Column>> = (0..sizes.len()).map(|_| Vec::new()).collect();
    for (g, column) in per_column.into_iter().flatten() {
        out[g].push(column);
    }
    out
}

/// Fixed-width values written straight to their frozen positions (later values win), with the
/// validity bits of the positions written: one `(group, data, validity)` per group with a value.
fn scatter<S: Copy, T: bytemuck::Pod + Default>(
    values: &[S],
    col: &BuilderColumn,
    sizes: &[usize],
    place: &impl Fn(u32) -> (usize, usize),
    convert: impl Fn(S) -> T,
    wrap: impl Fn(super::slab::Slab<T>) -> ColumnData,
) -> Vec<(usize, ColumnData, Vec<u64>)> {
    let mut out: Vec<Option<(Vec<T>, Vec<u64>)>> = (0..sizes.len()).map(|_| None).collect();
    for (&value, row) in values.iter().zip(col.rows.iter()) {
        let (g, i) = place(row);
        let (data, bits) = out[g].get_or_insert_with(|| {
            (
                vec![T::default(); sizes[g]],
                vec![0u64; sizes[g].div_ceil(64)],
            )
        });
        data[i] = convert(value);
        bits[i / 64] |= 1 << (i % 64);
    }
    out.into_iter()
        .enumerate()
        .filter_map(|(g, piece)| piece.map(|(data, bits)| (g, wrap(data.into()), bits)))
        .collect()
}

/// A row without a value in a slot array.
const NO_VALUE: u32 = u32::MAX;

/// Per group, `slot[position]` = the index of that position's value in `col` (the last one set
/// wins) or [`NO_VALUE`]; empty for groups without a value.
fn value_slots(
    col: &BuilderColumn,
    sizes: &[usize],
    place: &impl Fn(u32) -> (usize, usize),
) -> Vec<Vec<u32>> {
    let mut slots: Vec<Vec<u32>> = vec![Vec::new(); sizes.len()];
    for (i, row) in col.rows.iter().enumerate() {
        let (g, position) = place(row);
        let slot = &mut slots[g];
        if slot.is_empty() {
            slot.resize(sizes[g], NO_VALUE);
        }
        slot[position] = i as u32;
    }
    slots
}

/// Plain or dictionary-encoded strings, whichever is smaller for this column.
fn freeze_strings(slot: &[u32], offsets: &StrOffsets, heap: &[u8]) -> ColumnData {
    let value = |s: u32| -> &[u8] {
        if s == u32::MAX {
            return &[];
        }
        &heap[offsets.get(s as usize)..offsets.get(s as usize + 1)]
    };
    // Decide from a sample of up to 4096 evenly spaced rows whether values repeat enough (at most a
    // quarter distinct) before hashing every value.
    let sample_step = (slot.len() / 4096).max(1);
    let sample: hashbrown::HashSet<&[u8]> = slot
        .iter()
        .step_by(sample_step)
        .map(|&s| value(s))
        .collect();
    let sampled = slot.len().div_ceil(sample_step);
    let mut dict: hashbrown::HashMap<&[u8], u32> = hashbrown::HashMap::new();
    let mut codes = Vec::with_capacity(slot.len());
    let limit = slot.len() / 4;
    let mut dictionary_pays = slot.len() >= 64 && sample.len() * 4 <= sampled;
    if !dictionary_pays {
        codes = Vec::new();
    }
    // Null rows (no value) take the empty string's code: hashed once, not once per row.
    let mut null_code = None;
    for &s in slot {
        if !dictionary_pays {
            break;
        }
        let next = dict.len() as u32;
        let code = if s == u32::MAX {
            *null_code.get_or_insert_with(|| *dict.entry(&[][..]).or_insert(next))
        } else {
            *dict.entry(value(s)).or_insert(next)
        };
        codes.push(code);
        if dict.len() > limit {
            dictionary_pays = false;
        }
    }
    if dictionary_pays {
        let mut entries: Vec<(&[u8], u32)> = dict.into_iter().collect();
        entries.sort_by_key(|&(_, c)| c);
        let mut d_off = vec![0u64];
        let mut d_heap = Vec::new();
        for (bytes, _) in entries {
            d_heap.extend_from_slice(bytes);
            d_off.push(d_heap.len() as u64);
        }
        return ColumnData::Dict {
            codes: codes.into(),
            dict: StringHeap {
                offsets: d_off.into(),
                bytes: d_heap.into(),
            },
        };
    }
    let mut out_off = Vec::with_capacity(slot.len() + 1);
    out_off.push(0u64);
    let mut out_heap = Vec::with_capacity(heap.len());
    for &s in slot {
        out_heap.extend_from_slice(value(s));
        out_off.push(out_heap.len() as u64);
    }
    ColumnData::Str(StringHeap {
        offsets: out_off.into(),
        bytes: out_heap.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-CSR built from the out-CSR alone ([`in_adjacency`]) equals, list by list, the
    /// edges of the out-CSR regrouped by destination and sorted by (type, source, edge id);
    /// the out-CSR holds every builder edge once, sorted by (type, destination, builder order).
    #[test]
    fn adjacency_lists_match_a_naive_regrouping() {
        use proptest::prelude::*;
        let edges = proptest::collection::vec((0u32..12, 0u32..12, 0u32..3), 0..200);
        proptest!(ProptestConfig::with_cases(64), |(n in 1usize..12, edges in edges)| {
            let mut b = ModelBuilder::new();
            let nodes: Vec<u32> = (0..n).map(|i| b.add_node(&format!("k{i}"), &[])).collect();
            let types: Vec<u32> = (0..3).map(|t| b.rel_type(&format!("T{t}"))).collect();
            let mut added = Vec::new();
            for &(s, d, t) in &edges {
                let (s, d) = (nodes[s as usize % n], nodes[d as usize % n]);
                b.add_edge(s, d, types[t as usize]).unwrap();
                added.push((s, d, types[t as usize]));
            }
            let model = b.freeze().unwrap();
            let (out, inc) = (model.out(), model.inc());
            // Out-CSR: every edge once, each list sorted by (type, destination).
            let mut out_edges = Vec::new();
            for v in 0..n as u32 {
                let list: Vec<(u32, u32)> =
                    out.range(v).map(|p| (out.types[p], out.neighbors[p])).collect();
                prop_assert!(list.windows(2).all(|w| w[0] <= w[1]));
                out_edges.extend(list.into_iter().map(|(t, d)| (v, d, t)));
            }
            let mut expected = added.clone();
            expected.sort_unstable();
            out_edges.sort_unstable();
            prop_assert_eq!(&out_edges, &expected);
            // In-CSR: per destination, (type, source, edge id) sorted, edge ids the out positions.
            for v in 0..n as u32 {
                let mut naive: Vec<(u32, u32, u32)> = Vec::new();
                for s in 0..n as u32 {
                    for p in out.range(s) {
                        if out.neighbors[p] == v {
                            naive.push((out.types[p], s, p as u32));
                        }
                    }
                }
                naive.sort_unstable();
                let got: Vec<(u32, u32, u32)> = inc
                    .range(v)
                    .map(|p| (inc.types[p], inc.neighbors[p], inc.edge_id_at(p)))
                    .collect();
                prop_assert_eq!(got, naive);
            }
        });
    }

    #[test]
    fn string_offsets_widen_past_four_gib() {
        let mut offsets = StrOffsets::Narrow(vec![0]);
        offsets.push(7);
        offsets.push(u32::MAX as usize);
        assert!(matches!(offsets, StrOffsets::Narrow(_)));
        offsets.push(u32::MAX as usize + 10);
        assert!(matches!(offsets, StrOffsets::Wide(_)));
        offsets.push(1 << 40);
        let got: Vec<usize> = (0..5).map(|i| offsets.get(i)).collect();
        assert_eq!(got, [0, 7, 4_294_967_295, 4_294_967_305, 1 << 40]);
    }

    #[test]
    fn ints_widen_to_64_bits_and_to_float() {
        let mut col = BuilderColumn::default();
        col.push(0, ValueRef::Int(-3), || "x").unwrap();
        assert!(matches!(col.data, BuilderData::Int32(_)));
        col.push(1, ValueRef::Int(i64::from(i32::MAX) + 1), || "x")
            .unwrap();
        col.push(2, ValueRef::Int(i64::MIN), || "x").unwrap();
        match &col.data {
            BuilderData::Int(v) => assert_eq!(v, &[-3, 2_147_483_648, i64::MIN]),
            _ => panic!("not widened to 64 bits"),
        }
        let mut col = BuilderColumn::default();
        col.push(0, ValueRef::Int(5), || "x").unwrap();
        col.push(1, ValueRef::Float(0.5), || "x").unwrap();
        col.push(2, ValueRef::Int(-2), || "x").unwrap();
        match &col.data {
            BuilderData::Float(v) => assert_eq!(v, &[5.0, 0.5, -2.0]),
            _ => panic!("not widened to float"),
        }
        let err = col.push(3, ValueRef::Str("s"), || "x").unwrap_err();
        assert!(
            err.to_string().contains("float and of type string"),
            "{err}"
        );
    }
}
