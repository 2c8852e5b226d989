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

/// Values of one property: `rows[i]` (a node or edge index) has value `i`.
#[derive(Default)]
struct BuilderColumn {
    rows: Vec<u32>,
    data: BuilderData,
}

#[derive(Default)]
enum BuilderData {
    #[default]
    Empty,
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<u8>),
    Str {
        offsets: Vec<u64>,
        heap: Vec<u8>,
    },
}

impl BuilderData {
    fn prop_type(&self) -> Option<PropType> {
        match self {
            BuilderData::Empty => None,
            BuilderData::Int(_) => Some(PropType::Int),
            BuilderData::Float(_) => Some(PropType::Float),
            BuilderData::Bool(_) => Some(PropType::Bool),
            BuilderData::Str { .. } => Some(PropType::Str),
        }
    }
}

impl BuilderColumn {
    /// Appends `value` for `row`; null values are not stored. Int and float mix into float.
    fn push(&mut self, row: u32, value: ValueRef<'_>, name: &str) -> Result<()> {
        if matches!(value, ValueRef::Null) {
            return Ok(());
        }
        if matches!(self.data, BuilderData::Empty) {
            self.data = match value {
                ValueRef::Int(_) => BuilderData::Int(Vec::new()),
                ValueRef::Float(_) => BuilderData::Float(Vec::new()),
                ValueRef::Bool(_) => BuilderData::Bool(Vec::new()),
                _ => BuilderData::Str {
                    offsets: vec![0],
                    heap: Vec::new(),
                },
            };
        }
        if let (BuilderData::Int(ints), ValueRef::Float(_)) = (&self.data, value) {
            self.data = BuilderData::Float(ints.iter().map(|&i| i as f64).collect());
        }
        match (&mut self.data, value) {
            (BuilderData::Int(v), ValueRef::Int(x)) => v.push(x),
            (BuilderData::Float(v), ValueRef::Float(x)) => v.push(x),
            (BuilderData::Float(v), ValueRef::Int(x)) => v.push(x as f64),
            (BuilderData::Bool(v), ValueRef::Bool(x)) => v.push(x as u8),
            (BuilderData::Str { offsets, heap }, ValueRef::Str(s)) => {
                heap.extend_from_slice(s.as_bytes());
                offsets.push(heap.len() as u64);
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
                    "property `{name}` has values of type {have} and of type {got}"
                )));
            }
        }
        self.rows.push(row);
        Ok(())
    }
}

impl PropertyTable {
    fn key(&mut self, name: &str) -> u32 {
        let id = self.names.intern(name);
        if id as usize == self.columns.len() {
            self.columns.push(BuilderColumn::default());
        }
        id
    }

    fn set(&mut self, row: u32, key: u32, value: ValueRef<'_>) -> Result<()> {
        let name = self.names.name(key).unwrap_or("?");
        match self.columns.get_mut(key as usize) {
            Some(col) => col.push(row, value, name),
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
    }

    /// The node with external key `key`, created without labels if it does not exist yet.
    /// Returns the node and whether it was created.
    pub fn ensure_node(&mut self, key: &str) -> (u32, bool) {
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
                (id, true)
            }
        }
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
    pub fn freeze(self) -> Result<Model> {
        let n = self.node_count();
        if n > MAX_ELEMENTS {
            return Err(Error::Model(format!("more than {MAX_ELEMENTS} nodes")));
        }
        let label_count = self.labels.len();
        let type_count = self.rel_types.len();
        let started = std::time::Instant::now();

        // 1. Renumber nodes: stable counting sort by primary label (unlabelled last).
        let group_of = |l: u32| {
            if l == NO_LABEL {
                label_count
            } else {
                l as usize
            }
        };
        let primary: Vec<u32> = self.primary_label.clone();
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

        // 2. Node labels (sorted, deduplicated per node) and the label -> nodes index.
        let mut per_node: Vec<(u32, u32)> = Vec::with_capacity(n + self.extra_labels.len());
        for (old, &l) in primary.iter().enumerate() {
            if l != NO_LABEL {
                per_node.push((new_of_old[old], l));
            }
        }
        for &(old, l) in &self.extra_labels {
            per_node.push((new_of_old[old as usize], l));
        }
        let per_node = counting_sort(per_node, label_count.max(1), |(_, l)| l as usize);
        let mut per_node = counting_sort(per_node, n.max(1), |(v, _)| v as usize);
        per_node.dedup();
        let mut node_label_offsets = vec![0u32; n + 1];
        for &(v, _) in &per_node {
            node_label_offsets[v as usize + 1] += 1;
        }
        prefix_sum(&mut node_label_offsets);
        let node_labels: Vec<u32> = per_node.iter().map(|&(_, l)| l).collect();
        let by_label = counting_sort(per_node, label_count.max(1), |(_, l)| l as usize);
        let mut label_index_offsets = vec![0u32; label_count + 1];
        for &(_, l) in &by_label {
            label_index_offsets[l as usize + 1] += 1;
        }
        prefix_sum(&mut label_index_offsets);
        let label_index: Vec<u32> = by_label.iter().map(|&(v, _)| v).collect();

        // 3. Keys in the new order.
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

        // 4. Edges: out-CSR sorted by (src, type, dst) via LSD counting sorts.
        let m = self.edge_src.len();
        let src: Vec<u32> = self
            .edge_src
            .iter()
            .map(|&s| new_of_old[s as usize])
            .collect();
        let dst: Vec<u32> = self
            .edge_dst
            .iter()
            .map(|&d| new_of_old[d as usize])
            .collect();
        let ty = &self.edge_type;
        let order = counting_sort((0..m as u32).collect(), n.max(1), |e| {
            dst[e as usize] as usize
        });
        let order = counting_sort(order, type_count.max(1), |e| ty[e as usize] as usize);
        let out_order = counting_sort(order, n.max(1), |e| src[e as usize] as usize);
        let mut new_edge_of_old = vec![0u32; m];
        for (pos, &e) in out_order.iter().enumerate() {
            new_edge_of_old[e as usize] = pos as u32;
        }

        log::debug!(
            "freeze: nodes renumbered, labels and keys laid out, edges ordered in {:.2?}",
            started.elapsed()
        );
        let node_props = self.node_props;
        let edge_props = self.edge_props;
        let ((out, inc), (group_columns, edge_columns)) = rayon::join(
            || {
                let out = build_adjacency(&out_order, n, &src, &dst, ty, None);
                // In-CSR (dst, type, src): stable sorts of the (src-sorted) out order.
                let in_order = counting_sort(out_order.clone(), type_count.max(1), |e| {
                    ty[e as usize] as usize
                });
                let in_order = counting_sort(in_order, n.max(1), |e| dst[e as usize] as usize);
                let inc = build_adjacency(&in_order, n, &dst, &src, ty, Some(&new_edge_of_old));
                (out, inc)
            },
            || {
                let group_columns = freeze_node_properties(&node_props, &groups, &new_of_old);
                let edge_columns = freeze_edge_properties(&edge_props, m, &new_edge_of_old);
                (group_columns, edge_columns)
            },
        );
        for (g, cols) in groups.iter_mut().zip(group_columns) {
            g.columns = cols;
        }

        Model::from_parts(super::ModelParts {
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
        })
    }
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

/// Lays out one adjacency direction from edges already in list order.
fn build_adjacency(
    order: &[u32],
    n: usize,
    from: &[u32],
    to: &[u32],
    ty: &[u32],
    edge_ids: Option<&[u32]>,
) -> Adjacency {
    let mut offsets = vec![0u32; n + 1];
    for &e in order {
        offsets[from[e as usize] as usize + 1] += 1;
    }
    prefix_sum(&mut offsets);
    let neighbors: Vec<u32> = order.iter().map(|&e| to[e as usize]).collect();
    let types: Vec<u32> = order.iter().map(|&e| ty[e as usize]).collect();
    let ids: Vec<u32> = match edge_ids {
        Some(map) => order.iter().map(|&e| map[e as usize]).collect(),
        None => Vec::new(),
    };
    Adjacency {
        offsets: offsets.into(),
        neighbors: neighbors.into(),
        types: types.into(),
        edge_ids: ids.into(),
    }
}

/// Node property columns per primary-label group (only groups where the property occurs).
fn freeze_node_properties(
    table: &PropertyTable,
    groups: &[PropertyGroup],
    new_of_old: &[u32],
) -> Vec<Vec<Column>> {
    let starts: Vec<u32> = groups.iter().map(|g| g.start).collect();
    let sizes: Vec<usize> = groups.iter().map(|g| (g.end - g.start) as usize).collect();
    // Columns freeze independently, in parallel; each yields its (group, column) pieces.
    let per_column: Vec<Vec<(usize, Column)>> = table
        .columns
        .par_iter()
        .enumerate()
        .map(|(key, col)| {
            let name = table.names.name(key as u32).unwrap_or("");
            let mut per_group: Vec<Vec<(usize, usize)>> = vec![Vec::new(); groups.len()];
            for (i, &row) in col.rows.iter().enumerate() {
                let new = new_of_old[row as usize];
                let g = starts.partition_point(|&s| s <= new) - 1;
                per_group[g].push(((new - starts[g]) as usize, i));
            }
            per_group
                .into_iter()
                .enumerate()
                .filter(|(_, entries)| !entries.is_empty())
                .map(|(g, entries)| (g, freeze_column(name, col, sizes[g], &entries)))
                .collect()
        })
        .collect();
    let mut out: Vec<Vec<Column>> = (0..groups.len()).map(|_| Vec::new()).collect();
    for (g, column) in per_column.into_iter().flatten() {
        out[g].push(column);
    }
    out
}

/// Edge property columns over all `len` edges, rows renumbered to out-CSR positions.
fn freeze_edge_properties(
    table: &PropertyTable,
    len: usize,
    new_edge_of_old: &[u32],
) -> Vec<Column> {
    table
        .columns
        .par_iter()
        .enumerate()
        .filter(|(_, col)| !col.rows.is_empty())
        .map(|(key, col)| {
            let name = table.names.name(key as u32).unwrap_or("");
            let entries: Vec<(usize, usize)> = col
                .rows
                .iter()
                .enumerate()
                .map(|(i, &row)| (new_edge_of_old[row as usize] as usize, i))
                .collect();
            freeze_column(name, col, len, &entries)
        })
        .collect()
}

/// Builds a column of `len` rows from `(row, value index)` entries; later entries win.
fn freeze_column(
    name: &str,
    col: &BuilderColumn,
    len: usize,
    entries: &[(usize, usize)],
) -> Column {
    let mut slot = vec![u32::MAX; len];
    for &(row, i) in entries {
        slot[row] = i as u32;
    }
    let all_valid = slot.iter().all(|&s| s != u32::MAX);
    let validity: Vec<u64> = if all_valid {
        Vec::new()
    } else {
        let mut bits = vec![0u64; len.div_ceil(64)];
        for (row, &s) in slot.iter().enumerate() {
            if s != u32::MAX {
                bits[row / 64] |= 1 << (row % 64);
            }
        }
        bits
    };
    let data = match &col.data {
        BuilderData::Empty => ColumnData::Int(Vec::new().into()),
        BuilderData::Int(v) => ColumnData::Int(gather(&slot, v, 0).into()),
        BuilderData::Float(v) => ColumnData::Float(gather(&slot, v, 0.0).into()),
        BuilderData::Bool(v) => ColumnData::Bool(gather(&slot, v, 0).into()),
        BuilderData::Str { offsets, heap } => freeze_strings(&slot, offsets, heap),
    };
    Column {
        name: name.to_owned(),
        len,
        data,
        validity: validity.into(),
    }
}

fn gather<T: Copy>(slot: &[u32], values: &[T], default: T) -> Vec<T> {
    slot.iter()
        .map(|&s| {
            if s == u32::MAX {
                default
            } else {
                values[s as usize]
            }
        })
        .collect()
}

/// Plain or dictionary-encoded strings, whichever is smaller for this column.
fn freeze_strings(slot: &[u32], offsets: &[u64], heap: &[u8]) -> ColumnData {
    let value = |s: u32| -> &[u8] {
        if s == u32::MAX {
            return &[];
        }
        &heap[offsets[s as usize] as usize..offsets[s as usize + 1] as usize]
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
    let mut out_heap = Vec::new();
    for &s in slot {
        out_heap.extend_from_slice(value(s));
        out_off.push(out_heap.len() as u64);
    }
    ColumnData::Str(StringHeap {
        offsets: out_off.into(),
        bytes: out_heap.into(),
    })
}
