//! Folding a [`Delta`] into a new frozen [`Model`] by splicing the old model's arrays: what
//! [`super::compact()`] does first.
//!
//! The new model **shares** every array the change leaves as it was (slabs are reference-counted):
//! after a `SET` the adjacency, labels, keys and every other column are the old model's memory and
//! only the changed columns are new; after relationships are created or deleted the node arrays are
//! shared and the adjacency is spliced. So what a statement costs follows what it changed, not the
//! model's size (a pass over the model is paid only for the parts that change).
//!
//! The builder path ([`super::compact::rebuild_keyed`]) re-collects every node, edge and property
//! of the model and sorts them again; after a statement that changed ten nodes of a model with a
//! million edges that is almost all of the statement's time. Folding instead walks the old arrays
//! once in the new order:
//!
//! - **Node ids** follow the builder's rule (stable by primary label, unlabelled last): per label
//!   group, the surviving nodes in their old order, then the nodes the delta created with that
//!   primary label in creation order. The map from old to new ids is monotone, so the
//!   neighbour-sorted adjacency lists of untouched nodes stay sorted after renumbering and are
//!   copied with their ids mapped; only the lists of nodes with a deleted or created relationship
//!   are sorted again.
//! - **Edge ids** (out-list positions) are remapped the same way; the in-lists' edge ids through
//!   that map.
//! - **Columns** whose group kept its rows and whose property no change touched are shared; the
//!   others are rebuilt row by row in their old representation (a dictionary column stays one,
//!   new strings join its dictionary).
//!
//! The result equals the builder path's array for array (ids, list order, labels, keys; column
//! values — a rebuilt column may choose a different string representation). Folding declines
//! (returns `None`, and the builder path runs) where the builder would do more than place values:
//! a node whose primary label changes, a property value whose type differs from its column's (the
//! builder widens int columns to float or reports the conflict), a created relationship at a
//! deleted node (the builder's error), or groups out of label order.

use std::collections::BTreeMap;

use hashbrown::{HashMap, HashSet};

use super::delta::{Delta, NodeId};
use crate::error::Result;
use crate::model::{
    Adjacency, Column, ColumnData, Interner, Model, PropType, PropertyGroup, StringHeap, Value,
    ValueRef, NO_LABEL,
};

/// Where a node of the folded model comes from.
#[derive(Debug, Clone, Copy)]
enum Src {
    /// A surviving node of the old model (its old id).
    Base(u32),
    /// The `i`-th node the delta created.
    New(u32),
}

/// No id: a deleted node or relationship.
const GONE: u32 = u32::MAX;

/// The folded model and the keys of the created nodes (as [`super::compact::compact_keyed`]
/// returns them), or `None` when the delta needs the builder path (see the module docs).
pub fn fold_keyed(model: &Model, delta: &Delta) -> Result<Option<(Model, Vec<String>)>> {
    let Some(layout) = Layout::new(model, delta) else {
        return Ok(None);
    };
    let Some(edges) = EdgeLayout::new(model, delta, &layout) else {
        return Ok(None);
    };
    let Some(groups) = node_columns(model, delta, &layout) else {
        return Ok(None);
    };
    let Some(edge_columns) = edge_columns(model, delta, &edges) else {
        return Ok(None);
    };
    // Start from the old model's arrays (shared, not copied) and replace what changed.
    let mut parts = model.shared_parts();
    let created = if layout.identity {
        Vec::new()
    } else {
        let (heap, created) = keys(model, delta, &layout);
        parts.keys = heap;
        created
    };
    if !layout.identity || !layout.relabelled.is_empty() {
        let (offsets, flat, index_offsets, index) = label_lists(model, delta, &layout);
        parts.node_label_offsets = offsets.into();
        parts.node_labels = flat.into();
        parts.label_index_offsets = index_offsets.into();
        parts.label_index = index.into();
    }
    if let (Some(out), Some(inc)) = (edges.out, edges.inc) {
        parts.out = out;
        parts.inc = inc;
    }
    parts.groups = groups;
    parts.edge_columns = edge_columns;
    parts.labels = layout.labels;
    parts.rel_types = layout.rel_types;
    let same_keys = layout.identity.then_some(model);
    Ok(Some((Model::from_folded_parts(parts, same_keys)?, created)))
}

/// The new node numbering and the interners.
struct Layout {
    labels: Interner,
    rel_types: Interner,
    /// The new nodes in id order.
    order: Vec<Src>,
    /// Old id → new id ([`GONE`] for deleted nodes).
    new_of_old: Vec<u32>,
    /// Created node → new id ([`GONE`] for ones deleted again).
    new_of_created: Vec<u32>,
    /// The new groups: (label, start, end, the old group with that label).
    groups: Vec<(u32, u32, u32, Option<usize>)>,
    /// Base nodes whose labels the delta changed (primary label kept).
    relabelled: HashSet<u32>,
    /// True when the nodes are the old ones at their old ids (none created or deleted).
    identity: bool,
}

impl Layout {
    fn new(model: &Model, delta: &Delta) -> Option<Layout> {
        let old_groups = model.groups();
        let rank_old = |l: u32| if l == NO_LABEL { u64::MAX } else { l as u64 };
        if old_groups
            .windows(2)
            .any(|w| rank_old(w[0].label) >= rank_old(w[1].label))
        {
            return None;
        }
        // Interning order as on the builder path: labels of base nodes (in id order), then those
        // of created nodes; relationship types of created relationships in creation order.
        let mut labels = model.labels().clone();
        let mut relabelled = HashSet::new();
        let mut changed: Vec<u32> = delta
            .labels_added
            .iter()
            .chain(delta.labels_removed.iter())
            .filter(|(n, set)| !set.is_empty() && !delta.deleted_nodes.contains(*n))
            .map(|(&n, _)| n)
            .collect();
        changed.sort_unstable();
        changed.dedup();
        for &n in &changed {
            let names = delta.node_labels(model, NodeId::Base(n));
            let primary = model.group_of(n).map_or(NO_LABEL, |g| g.label);
            let first = names.first().map(|l| labels.intern(l)).unwrap_or(NO_LABEL);
            if first != primary {
                return None;
            }
            for l in &names {
                labels.intern(l);
            }
            relabelled.insert(n);
        }
        let mut created_by_label: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for (i, node) in delta.new_nodes.iter().enumerate() {
            if node.deleted {
                continue;
            }
            let ids: Vec<u32> = node.labels.iter().map(|l| labels.intern(l)).collect();
            let primary = ids.first().copied().unwrap_or(NO_LABEL);
            created_by_label
                .entry(rank_old(primary))
                .or_default()
                .push(i as u32);
        }
        let mut rel_types = model.rel_types().clone();
        for e in delta.new_edges.iter().filter(|e| !e.deleted) {
            rel_types.intern(&e.rel_type);
        }

        let n_old = model.node_count();
        let mut order = Vec::with_capacity(n_old + delta.new_nodes.len());
        let mut new_of_old = vec![GONE; n_old];
        let mut new_of_created = vec![GONE; delta.new_nodes.len()];
        let mut groups = Vec::new();
        let mut ranks: Vec<u64> = old_groups.iter().map(|g| rank_old(g.label)).collect();
        ranks.extend(created_by_label.keys().copied());
        ranks.sort_unstable();
        ranks.dedup();
        for rank in ranks {
            let start = order.len() as u32;
            let old = old_groups.iter().position(|g| rank_old(g.label) == rank);
            if let Some(gi) = old {
                let g = &old_groups[gi];
                for o in g.start..g.end {
                    if !delta.deleted_nodes.contains(&o) {
                        new_of_old[o as usize] = order.len() as u32;
                        order.push(Src::Base(o));
                    }
                }
            }
            for &i in created_by_label.get(&rank).into_iter().flatten() {
                new_of_created[i as usize] = order.len() as u32;
                order.push(Src::New(i));
            }
            let end = order.len() as u32;
            if end > start {
                let label = if rank == u64::MAX {
                    NO_LABEL
                } else {
                    rank as u32
                };
                groups.push((label, start, end, old));
            }
        }
        let identity = order.len() == n_old && order.iter().all(|s| matches!(s, Src::Base(_)));
        Some(Layout {
            labels,
            rel_types,
            order,
            new_of_old,
            new_of_created,
            groups,
            relabelled,
            identity,
        })
    }

    fn map(&self, node: NodeId) -> u32 {
        match node {
            NodeId::Base(n) => self.new_of_old.get(n as usize).copied().unwrap_or(GONE),
            NodeId::New(i) => self.new_of_created.get(i as usize).copied().unwrap_or(GONE),
        }
    }
}

/// The new adjacency and where each new edge comes from.
struct EdgeLayout {
    /// The new out-lists; `None` when they are the old ones.
    out: Option<Adjacency>,
    /// The new in-lists; `None` when they are the old ones.
    inc: Option<Adjacency>,
    /// Per new edge id: its old edge id, or `old edge count + i` for the `i`-th created one;
    /// `None` when every edge keeps its id.
    origin: Option<Vec<u32>>,
    /// Old edge count.
    m_old: u32,
}

impl EdgeLayout {
    fn new(model: &Model, delta: &Delta, layout: &Layout) -> Option<EdgeLayout> {
        let (out, inc) = (model.out(), model.inc());
        let m_old = model.edge_count() as u32;
        let no_edge_change = delta.deleted_edges.is_empty()
            && delta.deleted_nodes.is_empty()
            && delta.new_edges.iter().all(|e| e.deleted);
        if layout.identity && no_edge_change {
            return Some(EdgeLayout {
                out: None,
                inc: None,
                origin: None,
                m_old,
            });
        }
        // Nodes whose lists change: ends of deleted or created relationships, neighbours of
        // deleted nodes.
        let mut touched = vec![false; model.node_count()];
        for &e in &delta.deleted_edges {
            if let (Some(s), Some((d, _))) = (model.edge_source(e), model.edge_target(e)) {
                touched[s as usize] = true;
                touched[d as usize] = true;
            }
        }
        for &d in &delta.deleted_nodes {
            if let Some(t) = touched.get_mut(d as usize) {
                *t = true;
            }
            for &v in out.neighbors_of(d).iter().chain(inc.neighbors_of(d)) {
                touched[v as usize] = true;
            }
        }
        let mut out_new: HashMap<u32, Vec<(u32, u32, u32)>> = HashMap::new();
        let mut in_new: HashMap<u32, Vec<(u32, u32, u32)>> = HashMap::new();
        let mut created_edges = 0usize;
        for (i, e) in delta.new_edges.iter().enumerate() {
            if e.deleted {
                continue;
            }
            let (s, d) = (layout.map(e.src), layout.map(e.dst));
            if s == GONE || d == GONE {
                return None;
            }
            for end in [e.src, e.dst] {
                if let NodeId::Base(n) = end {
                    touched[n as usize] = true;
                }
            }
            let ty = layout.rel_types.get(&e.rel_type)?;
            let id = m_old + i as u32;
            out_new.entry(s).or_default().push((ty, d, id));
            in_new.entry(d).or_default().push((ty, s, id));
            created_edges += 1;
        }
        let unchanged =
            created_edges == 0 && delta.deleted_edges.is_empty() && delta.deleted_nodes.is_empty();
        let capacity = out.len() + created_edges;
        let base_alive = |pos: usize| {
            !delta.deleted_edges.contains(&(pos as u32))
                && layout.new_of_old[out.neighbors[pos] as usize] != GONE
        };

        // Out lists, sorted by (type, target, builder order = old id, then creation order).
        let mut offsets = Vec::with_capacity(layout.order.len() + 1);
        offsets.push(0u32);
        let (mut types, mut neighbors, mut origin) = (
            Vec::with_capacity(capacity),
            Vec::with_capacity(capacity),
            Vec::with_capacity(capacity),
        );
        let mut list: Vec<(u32, u32, u32)> = Vec::new();
        for (v, &src) in layout.order.iter().enumerate() {
            match src {
                Src::Base(o) if !touched[o as usize] => {
                    let r = out.range(o);
                    types.extend_from_slice(&out.types[r.clone()]);
                    neighbors.extend(
                        out.neighbors[r.clone()]
                            .iter()
                            .map(|&x| layout.new_of_old[x as usize]),
                    );
                    origin.extend(r.start as u32..r.end as u32);
                }
                _ => {
                    list.clear();
                    if let Src::Base(o) = src {
                        list.extend(out.range(o).filter(|&p| base_alive(p)).map(|p| {
                            (
                                out.types[p],
                                layout.new_of_old[out.neighbors[p] as usize],
                                p as u32,
                            )
                        }));
                    }
                    list.extend(out_new.get(&(v as u32)).into_iter().flatten());
                    list.sort_unstable();
                    for &(t, n, id) in &list {
                        types.push(t);
                        neighbors.push(n);
                        origin.push(id);
                    }
                }
            }
            offsets.push(neighbors.len() as u32);
        }
        let mut edge_new_of_old = vec![GONE; m_old as usize];
        let mut edge_new_of_created = vec![GONE; delta.new_edges.len()];
        for (pos, &o) in origin.iter().enumerate() {
            if o < m_old {
                edge_new_of_old[o as usize] = pos as u32;
            } else {
                edge_new_of_created[(o - m_old) as usize] = pos as u32;
            }
        }
        let out_adj = Adjacency {
            offsets: offsets.into(),
            neighbors: neighbors.into(),
            types: types.into(),
            edge_ids: Vec::new().into(),
        };

        // In lists, sorted by (type, source, new edge id).
        let mut offsets = Vec::with_capacity(layout.order.len() + 1);
        offsets.push(0u32);
        let (mut types, mut neighbors, mut ids) = (
            Vec::with_capacity(capacity),
            Vec::with_capacity(capacity),
            Vec::with_capacity(capacity),
        );
        for (v, &src) in layout.order.iter().enumerate() {
            match src {
                Src::Base(o) if !touched[o as usize] => {
                    let r = inc.range(o);
                    types.extend_from_slice(&inc.types[r.clone()]);
                    neighbors.extend(
                        inc.neighbors[r.clone()]
                            .iter()
                            .map(|&x| layout.new_of_old[x as usize]),
                    );
                    ids.extend(inc.edge_ids[r].iter().map(|&e| edge_new_of_old[e as usize]));
                }
                _ => {
                    list.clear();
                    if let Src::Base(o) = src {
                        for p in inc.range(o) {
                            let e = edge_new_of_old[inc.edge_ids[p] as usize];
                            if e != GONE {
                                let s = layout.new_of_old[inc.neighbors[p] as usize];
                                list.push((inc.types[p], s, e));
                            }
                        }
                    }
                    list.extend(
                        in_new
                            .get(&(v as u32))
                            .into_iter()
                            .flatten()
                            .map(|&(t, s, id)| (t, s, edge_new_of_created[(id - m_old) as usize])),
                    );
                    list.sort_unstable();
                    for &(t, s, e) in &list {
                        types.push(t);
                        neighbors.push(s);
                        ids.push(e);
                    }
                }
            }
            offsets.push(neighbors.len() as u32);
        }
        let inc_adj = Adjacency {
            offsets: offsets.into(),
            neighbors: neighbors.into(),
            types: types.into(),
            edge_ids: ids.into(),
        };
        Some(EdgeLayout {
            out: Some(out_adj),
            inc: Some(inc_adj),
            origin: (!unchanged).then_some(origin),
            m_old,
        })
    }
}

/// The label CSR (per node, sorted) and the label → nodes index.
fn label_lists(
    model: &Model,
    delta: &Delta,
    layout: &Layout,
) -> (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = layout.order.len();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    let mut flat: Vec<u32> = Vec::with_capacity(model.node_label_csr().1.len());
    let ids_of = |names: &[String]| -> Vec<u32> {
        let mut ids: Vec<u32> = names.iter().filter_map(|l| layout.labels.get(l)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    for &src in &layout.order {
        match src {
            Src::Base(o) if !layout.relabelled.contains(&o) => {
                flat.extend_from_slice(model.node_labels(o))
            }
            Src::Base(o) => flat.extend(ids_of(&delta.node_labels(model, NodeId::Base(o)))),
            Src::New(i) => flat.extend(ids_of(&delta.new_nodes[i as usize].labels)),
        }
        offsets.push(flat.len() as u32);
    }
    let label_count = layout.labels.len();
    let mut index_offsets = vec![0u32; label_count + 1];
    for &l in &flat {
        index_offsets[l as usize + 1] += 1;
    }
    for i in 1..index_offsets.len() {
        index_offsets[i] += index_offsets[i - 1];
    }
    let mut index = vec![0u32; flat.len()];
    let mut next = index_offsets[..label_count].to_vec();
    for v in 0..n {
        for &l in &flat[offsets[v] as usize..offsets[v + 1] as usize] {
            index[next[l as usize] as usize] = v as u32;
            next[l as usize] += 1;
        }
    }
    (offsets, flat, index_offsets, index)
}

/// The keys in the new order, and the `new:<n>` keys of the created nodes in creation order (the
/// first free `n` from the old node count on, as on the builder path).
fn keys(model: &Model, delta: &Delta, layout: &Layout) -> (StringHeap, Vec<String>) {
    let old = model.keys();
    let key_bytes = |i: usize| -> &[u8] {
        match (old.offsets.get(i), old.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => old.bytes.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    };
    let taken: HashSet<&[u8]> = (0..old.len())
        .map(key_bytes)
        .filter(|k| k.starts_with(b"new:"))
        .collect();
    let mut counter = model.node_count() as u64;
    let mut created_keys: Vec<Option<String>> = vec![None; delta.new_nodes.len()];
    let mut created = Vec::new();
    for (i, node) in delta.new_nodes.iter().enumerate() {
        if node.deleted {
            continue;
        }
        let key = loop {
            let candidate = format!("new:{counter}");
            counter += 1;
            if !taken.contains(candidate.as_bytes()) {
                break candidate;
            }
        };
        created.push(key.clone());
        created_keys[i] = Some(key);
    }
    let mut offsets = Vec::with_capacity(layout.order.len() + 1);
    offsets.push(0u64);
    let mut bytes = Vec::with_capacity(old.bytes.len() + 16 * created.len());
    for &src in &layout.order {
        match src {
            Src::Base(o) => bytes.extend_from_slice(key_bytes(o as usize)),
            Src::New(i) => bytes
                .extend_from_slice(created_keys[i as usize].as_deref().unwrap_or("").as_bytes()),
        }
        offsets.push(bytes.len() as u64);
    }
    let heap = StringHeap {
        offsets: offsets.into(),
        bytes: bytes.into(),
    };
    (heap, created)
}

/// Where one row of a rebuilt column takes its value from.
#[derive(Clone, Copy)]
enum Cell<'a> {
    /// Row `r` of the old column.
    Old(usize),
    /// A value the delta set (null: removed).
    Set(&'a Value),
    /// No value.
    Null,
}

/// The property columns of every new group; `None` when a value does not fit its column's type.
fn node_columns(model: &Model, delta: &Delta, layout: &Layout) -> Option<Vec<PropertyGroup>> {
    let old_groups = model.groups();
    // Changed properties of surviving base nodes, by new group.
    let mut changed_names: Vec<HashSet<&str>> = vec![HashSet::new(); layout.groups.len()];
    let group_starts: Vec<u32> = layout.groups.iter().map(|g| g.1).collect();
    let group_at = |v: u32| group_starts.partition_point(|&s| s <= v) - 1;
    for (&n, props) in &delta.node_props {
        let v = layout.new_of_old.get(n as usize).copied().unwrap_or(GONE);
        if v == GONE {
            continue;
        }
        changed_names[group_at(v)].extend(props.keys().map(String::as_str));
    }
    let mut types: HashMap<&str, PropType> = HashMap::new();
    let mut planned = Vec::with_capacity(layout.groups.len());
    for (gi, &(label, start, end, old)) in layout.groups.iter().enumerate() {
        let rows = &layout.order[start as usize..end as usize];
        let old_group = old.map(|i| &old_groups[i]);
        let mut names: Vec<&str> = old_group
            .map(|g| g.columns.iter().map(|c| c.name.as_str()).collect())
            .unwrap_or_default();
        let mut extra: Vec<&str> = changed_names[gi].iter().copied().collect();
        for &src in rows {
            if let Src::New(i) = src {
                extra.extend(delta.new_nodes[i as usize].props.keys().map(String::as_str));
            }
        }
        extra.sort_unstable();
        extra.dedup();
        extra.retain(|n| !names.contains(n));
        names.extend(extra);
        let same_rows = old_group.is_some_and(|g| {
            rows.len() == (g.end - g.start) as usize
                && rows.iter().all(|s| matches!(s, Src::Base(_)))
        });
        let g_start = old_group.map_or(0, |g| g.start);
        let mut plans = Vec::with_capacity(names.len());
        for name in names {
            let old_column = old_group.and_then(|g| g.column(name));
            let copy = same_rows && !changed_names[gi].contains(name) && old_column.is_some();
            let ty = match old_column {
                Some(c) if copy => Some(c.prop_type()),
                _ => {
                    let cells = rows
                        .iter()
                        .map(|src| node_cell(delta, name, old_column, g_start, *src));
                    column_type(old_column, cells)?
                }
            };
            let Some(ty) = ty else { continue };
            // One type per property name over the whole model, as the builder keeps it (it would
            // widen other groups' int columns to float, or report the conflict).
            if *types.entry(name).or_insert(ty) != ty {
                return None;
            }
            plans.push((name, old_column, ty, copy));
        }
        planned.push((label, start, end, g_start, plans));
    }
    let mut groups = Vec::with_capacity(planned.len());
    for (label, start, end, g_start, plans) in planned {
        let rows = &layout.order[start as usize..end as usize];
        let mut columns = Vec::with_capacity(plans.len());
        for (name, old_column, ty, copy) in plans {
            match old_column {
                Some(c) if copy => columns.push(c.clone()),
                _ => {
                    let cells = rows
                        .iter()
                        .map(|src| node_cell(delta, name, old_column, g_start, *src));
                    columns.extend(rebuild_column(name, old_column, ty, cells));
                }
            }
        }
        groups.push(PropertyGroup {
            label,
            start,
            end,
            columns,
        });
    }
    Some(groups)
}

/// Where row `src` of node column `name` takes its value from (`g_start`: the first old id of the
/// group `old_column` belongs to).
fn node_cell<'a>(
    delta: &'a Delta,
    name: &str,
    old_column: Option<&Column>,
    g_start: u32,
    src: Src,
) -> Cell<'a> {
    match src {
        Src::Base(o) => match delta.node_props.get(&o).and_then(|p| p.get(name)) {
            Some(v) => Cell::Set(v),
            None if old_column.is_some() => Cell::Old((o - g_start) as usize),
            None => Cell::Null,
        },
        Src::New(i) => delta.new_nodes[i as usize]
            .props
            .get(name)
            .map_or(Cell::Null, Cell::Set),
    }
}

/// The relationship property columns over the new edge ids.
fn edge_columns(model: &Model, delta: &Delta, edges: &EdgeLayout) -> Option<Vec<Column>> {
    let changed: HashSet<&str> = delta
        .edge_props
        .values()
        .flat_map(|props| props.keys().map(String::as_str))
        .collect();
    let mut names: Vec<&str> = model
        .edge_columns()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut extra: Vec<&str> = changed.iter().copied().collect();
    for e in delta.new_edges.iter().filter(|e| !e.deleted) {
        extra.extend(e.props.keys().map(String::as_str));
    }
    extra.sort_unstable();
    extra.dedup();
    extra.retain(|n| !names.contains(n));
    names.extend(extra);
    let mut columns = Vec::with_capacity(names.len());
    for name in names {
        let old_column = model.edge_columns().iter().find(|c| c.name == name);
        if edges.origin.is_none() && !changed.contains(name) {
            if let Some(c) = old_column {
                columns.push(c.clone());
                continue;
            }
        }
        let cell = |&o: &u32| -> Cell<'_> {
            if o < edges.m_old {
                match delta.edge_props.get(&o).and_then(|p| p.get(name)) {
                    Some(v) => Cell::Set(v),
                    None if old_column.is_some() => Cell::Old(o as usize),
                    None => Cell::Null,
                }
            } else {
                delta.new_edges[(o - edges.m_old) as usize]
                    .props
                    .get(name)
                    .map_or(Cell::Null, Cell::Set)
            }
        };
        let identity: Vec<u32>;
        let origin = match &edges.origin {
            Some(o) => o,
            None => {
                identity = (0..edges.m_old).collect();
                &identity
            }
        };
        if let Some(ty) = column_type(old_column, origin.iter().map(cell))? {
            columns.extend(rebuild_column(
                name,
                old_column,
                ty,
                origin.iter().map(cell),
            ));
        }
    }
    Some(columns)
}

/// The type a rebuilt column gets, decided as the builder decides it: the one type of all the
/// values its rows end up with, ints and floats together making a float column. `None` for other
/// mixtures (the builder reports the conflict); `Some(None)` when no row has a value.
fn column_type<'a>(
    old: Option<&Column>,
    cells: impl Iterator<Item = Cell<'a>>,
) -> Option<Option<PropType>> {
    let old_type = old.map(Column::prop_type);
    let mut ty: Option<PropType> = None;
    for cell in cells {
        let t = match cell {
            Cell::Old(r) if old.is_some_and(|c| c.is_valid(r)) => old_type,
            Cell::Set(v) => v.prop_type(),
            _ => None,
        };
        let Some(t) = t else { continue };
        ty = match (ty, t) {
            (None, t) => Some(t),
            (Some(have), t) if have == t => Some(have),
            (Some(PropType::Int), PropType::Float) | (Some(PropType::Float), PropType::Int) => {
                Some(PropType::Float)
            }
            _ => return None,
        };
    }
    Some(ty)
}

/// Rebuilds one column of type `ty` (from [`column_type`]) from `cells` (one per row), keeping the
/// old column's representation; `None` when no row has a value (the builder stores no column
/// then).
fn rebuild_column<'a>(
    name: &str,
    old: Option<&Column>,
    ty: PropType,
    cells: impl Iterator<Item = Cell<'a>>,
) -> Option<Column> {
    let value = |cell: Cell<'a>| -> ValueRef<'_> {
        match cell {
            Cell::Old(r) => old.map_or(ValueRef::Null, |c| c.get(r)),
            Cell::Set(v) => v.as_ref(),
            Cell::Null => ValueRef::Null,
        }
    };
    let mut validity: Vec<u64> = Vec::new();
    let mut rows = 0usize;
    let mut mark = |valid: bool, rows: &mut usize| {
        if *rows % 64 == 0 {
            validity.push(0);
        }
        if valid {
            if let Some(w) = validity.last_mut() {
                *w |= 1 << (*rows % 64);
            }
        }
        *rows += 1;
    };
    let data = match ty {
        PropType::Int => {
            let mut v = Vec::new();
            for cell in cells {
                let x = match value(cell) {
                    ValueRef::Int(x) => Some(x),
                    _ => None,
                };
                mark(x.is_some(), &mut rows);
                v.push(x.unwrap_or(0));
            }
            ColumnData::Int(v.into())
        }
        PropType::Float => {
            let mut v = Vec::new();
            for cell in cells {
                let x = match value(cell) {
                    ValueRef::Float(x) => Some(x),
                    ValueRef::Int(x) => Some(x as f64),
                    _ => None,
                };
                mark(x.is_some(), &mut rows);
                v.push(x.unwrap_or(0.0));
            }
            ColumnData::Float(v.into())
        }
        PropType::Bool => {
            let mut v = Vec::new();
            for cell in cells {
                let x = match value(cell) {
                    ValueRef::Bool(x) => Some(x),
                    _ => None,
                };
                mark(x.is_some(), &mut rows);
                v.push(x.unwrap_or(false) as u8);
            }
            ColumnData::Bool(v.into())
        }
        PropType::Str => match old.map(|c| &c.data) {
            Some(ColumnData::Dict { codes, dict }) => {
                let mut out_codes = Vec::new();
                let mut d_off: Vec<u64> = dict.offsets.to_vec();
                let mut d_bytes: Vec<u8> = dict.bytes.to_vec();
                if d_off.is_empty() {
                    d_off.push(0);
                }
                let mut lookup: Option<HashMap<String, u32>> = None;
                for cell in cells {
                    let code = match cell {
                        Cell::Old(r) if old.is_some_and(|c| c.is_valid(r)) => codes.get(r).copied(),
                        Cell::Set(Value::Str(s)) => {
                            let map = lookup.get_or_insert_with(|| {
                                dict.iter()
                                    .enumerate()
                                    .map(|(i, s)| (s.to_owned(), i as u32))
                                    .collect()
                            });
                            Some(*map.entry(s.clone()).or_insert_with(|| {
                                d_bytes.extend_from_slice(s.as_bytes());
                                d_off.push(d_bytes.len() as u64);
                                (d_off.len() - 2) as u32
                            }))
                        }
                        _ => None,
                    };
                    mark(code.is_some(), &mut rows);
                    out_codes.push(code.unwrap_or(0));
                }
                if d_off.len() == 1 {
                    // Every row null in a column with an empty dictionary: code 0 must exist.
                    d_off.push(0);
                }
                ColumnData::Dict {
                    codes: out_codes.into(),
                    dict: StringHeap {
                        offsets: d_off.into(),
                        bytes: d_bytes.into(),
                    },
                }
            }
            _ => {
                let mut offsets = vec![0u64];
                let mut bytes = Vec::new();
                for cell in cells {
                    let s = match value(cell) {
                        ValueRef::Str(s) => Some(s),
                        _ => None,
                    };
                    mark(s.is_some(), &mut rows);
                    bytes.extend_from_slice(s.unwrap_or("").as_bytes());
                    offsets.push(bytes.len() as u64);
                }
                ColumnData::Str(StringHeap {
                    offsets: offsets.into(),
                    bytes: bytes.into(),
                })
            }
        },
    };
    let set: usize = validity.iter().map(|w| w.count_ones() as usize).sum();
    if set == 0 {
        return None;
    }
    let validity = if set == rows { Vec::new() } else { validity };
    Some(Column {
        name: name.to_owned(),
        len: rows,
        data,
        validity: validity.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;
    use crate::transform::compact::rebuild_keyed;
    use crate::transform::EdgeId;
    use proptest::prelude::*;

    /// A small deterministic generator (the tests draw everything from one seed).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    const LABELS: [&str; 4] = ["A", "B", "C", "D"];
    const TYPES: [&str; 3] = ["R", "S", "T"];
    /// Property names, each with its usual type (`value` sometimes breaks the habit).
    const NAMES: [&str; 5] = ["i", "f", "s", "b", "w"];

    fn value(rng: &mut Rng, name: &str, odd: u64) -> Value {
        let kind = if rng.chance(odd) {
            rng.below(5)
        } else {
            NAMES.iter().position(|&n| n == name).unwrap_or(0)
        };
        match kind {
            0 => Value::Int(rng.below(7) as i64 - 3),
            1 => Value::Float(rng.below(9) as f64 / 4.0),
            2 | 4 => Value::Str(["x", "y", "z", "", "long value"][rng.below(5)].to_string()),
            3 => Value::Bool(rng.chance(50)),
            _ => Value::Null,
        }
    }

    fn random_model(rng: &mut Rng) -> Model {
        let mut b = ModelBuilder::new();
        let n = 1 + rng.below(40);
        for i in 0..n {
            let mut labels: Vec<&str> = Vec::new();
            for _ in 0..rng.below(3) {
                labels.push(LABELS[rng.below(3)]);
            }
            let key = if rng.chance(5) {
                format!("new:{}", n + rng.below(4))
            } else {
                format!("k{i}")
            };
            let id = b.add_node(&key, &labels);
            for name in NAMES {
                if rng.chance(40) {
                    let v = value(rng, name, 0);
                    let k = b.node_property(name);
                    let _ = b.set_node_property(id, k, v.as_ref());
                }
            }
        }
        let n = b.node_count();
        for _ in 0..rng.below(80) {
            let ty = b.rel_type(TYPES[rng.below(2)]);
            let e = b
                .add_edge(rng.below(n) as u32, rng.below(n) as u32, ty)
                .unwrap();
            if rng.chance(30) {
                let name = NAMES[rng.below(2)];
                let k = b.edge_property(name);
                let v = value(rng, name, 0);
                let _ = b.set_edge_property(e, k, v.as_ref());
            }
        }
        b.freeze().unwrap()
    }

    fn random_node(rng: &mut Rng, model: &Model, delta: &Delta) -> NodeId {
        let created = delta.new_nodes().len();
        if created > 0 && rng.chance(30) {
            NodeId::New(rng.below(created) as u32)
        } else {
            NodeId::Base(rng.below(model.node_count()) as u32)
        }
    }

    /// Random changes through the delta's own mutators; `odd`: percent of values of an unusual
    /// type (which may send the fold to the builder path).
    fn random_delta(rng: &mut Rng, model: &Model, odd: u64) -> Delta {
        let mut d = Delta::new();
        for _ in 0..rng.below(25) {
            match rng.below(9) {
                0 => {
                    let node = random_node(rng, model, &d);
                    let name = NAMES[rng.below(5)];
                    let v = value(rng, name, odd);
                    d.set_node_property(model, node, name, v);
                }
                1 if model.edge_count() > 0 => {
                    let e = EdgeId::Base(rng.below(model.edge_count()) as u32);
                    let name = NAMES[rng.below(3)];
                    let v = value(rng, name, odd);
                    d.set_edge_property(model, e, name, v);
                }
                2 => {
                    let node = random_node(rng, model, &d);
                    d.add_label(model, node, LABELS[rng.below(4)]);
                }
                3 => {
                    let node = random_node(rng, model, &d);
                    d.remove_label(model, node, LABELS[rng.below(4)]);
                }
                4 => {
                    let mut labels = Vec::new();
                    for _ in 0..rng.below(3) {
                        labels.push(LABELS[rng.below(4)].to_string());
                    }
                    let mut props = BTreeMap::new();
                    for name in NAMES {
                        if rng.chance(40) {
                            let v = value(rng, name, odd);
                            if !matches!(v, Value::Null) {
                                props.insert(name.to_string(), v);
                            }
                        }
                    }
                    d.create_node(labels, props);
                }
                5 => {
                    let (s, t) = (random_node(rng, model, &d), random_node(rng, model, &d));
                    if d.node_alive(model, s) && d.node_alive(model, t) {
                        let mut props = BTreeMap::new();
                        if rng.chance(40) {
                            props.insert("w".to_string(), value(rng, "w", odd));
                            props.retain(|_, v| !matches!(v, Value::Null));
                        }
                        d.create_edge(s, t, TYPES[rng.below(3)].to_string(), props);
                    }
                }
                6 if model.edge_count() > 0 => {
                    let e = EdgeId::Base(rng.below(model.edge_count()) as u32);
                    d.delete_edge(model, e);
                }
                7 if !d.new_edges().is_empty() => {
                    let e = EdgeId::New(rng.below(d.new_edges().len()) as u32);
                    d.delete_edge(model, e);
                }
                _ => {
                    // DETACH DELETE
                    let node = random_node(rng, model, &d);
                    for e in d.incident_edges(model, node) {
                        d.delete_edge(model, e);
                    }
                    d.delete_node(model, node);
                }
            }
        }
        d
    }

    fn values(c: &Column) -> Vec<Value> {
        (0..c.len).map(|r| c.get(r).to_owned()).collect()
    }

    fn sorted_columns(cs: &[Column]) -> Vec<(String, Vec<Value>)> {
        let mut v: Vec<(String, Vec<Value>)> =
            cs.iter().map(|c| (c.name.clone(), values(c))).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// Folded and rebuilt models are equal array for array (columns by values).
    fn assert_same(a: &Model, b: &Model) {
        assert_eq!(a.labels().names(), b.labels().names());
        assert_eq!(a.rel_types().names(), b.rel_types().names());
        assert_eq!(a.node_label_csr(), b.node_label_csr());
        for l in 0..a.labels().len() as u32 {
            assert_eq!(a.nodes_with_label(l), b.nodes_with_label(l));
        }
        for (x, y) in [(a.out(), b.out()), (a.inc(), b.inc())] {
            assert_eq!(&x.offsets[..], &y.offsets[..]);
            assert_eq!(&x.neighbors[..], &y.neighbors[..]);
            assert_eq!(&x.types[..], &y.types[..]);
            assert_eq!(&x.edge_ids[..], &y.edge_ids[..]);
        }
        assert_eq!(
            a.keys().iter().collect::<Vec<_>>(),
            b.keys().iter().collect::<Vec<_>>()
        );
        assert_eq!(a.groups().len(), b.groups().len());
        for (g, h) in a.groups().iter().zip(b.groups()) {
            assert_eq!((g.label, g.start, g.end), (h.label, h.start, h.end));
            assert_eq!(sorted_columns(&g.columns), sorted_columns(&h.columns));
        }
        assert_eq!(
            sorted_columns(a.edge_columns()),
            sorted_columns(b.edge_columns())
        );
    }

    /// Folds and rebuilds one random case; whether the fold applied.
    fn check(seed: u64, odd: u64) -> bool {
        let mut rng = Rng(seed);
        let model = random_model(&mut rng);
        let delta = random_delta(&mut rng, &model, odd);
        let rebuilt = rebuild_keyed(&model, &delta);
        match (fold_keyed(&model, &delta).unwrap(), rebuilt) {
            (Some((a, ka)), Ok((b, kb))) => {
                assert_same(&a, &b);
                assert_eq!(ka, kb);
                true
            }
            (Some(_), Err(e)) => panic!("the fold applied where the builder fails: {e}"),
            (None, _) => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn folding_equals_rebuilding(seed in any::<u64>(), odd in 0u64..30) {
            check(seed, odd);
        }
    }

    #[test]
    fn the_fold_applies_to_type_consistent_changes() {
        let applied = (0..200u64).filter(|&s| check(s, 0)).count();
        // Only primary-label changes send these to the builder.
        assert!(applied >= 100, "folded {applied} of 200");
    }

    #[test]
    fn a_property_only_change_keeps_ids_and_shares_the_rest() {
        let mut rng = Rng(7);
        let model = random_model(&mut rng);
        let mut d = Delta::new();
        d.set_node_property(&model, NodeId::Base(0), "i", Value::Int(42));
        let (m, created) = fold_keyed(&model, &d).unwrap().unwrap();
        assert!(created.is_empty());
        assert_eq!(m.node_property(0, "i"), ValueRef::Int(42));
        // Shared, not copied: the adjacency, labels and keys are the old model's memory.
        assert_eq!(m.out().neighbors.as_ptr(), model.out().neighbors.as_ptr());
        assert_eq!(m.inc().edge_ids.as_ptr(), model.inc().edge_ids.as_ptr());
        assert_eq!(
            m.node_label_csr().1.as_ptr(),
            model.node_label_csr().1.as_ptr()
        );
        assert_eq!(m.keys().bytes.as_ptr(), model.keys().bytes.as_ptr());
        // Other nodes' columns are shared too; the changed one is new.
        let before = model.group_of(0).and_then(|g| g.column("i"));
        let after = m.group_of(0).and_then(|g| g.column("i")).unwrap();
        if let Some(before) = before {
            assert_ne!(
                std::ptr::from_ref(&before.data),
                std::ptr::from_ref(&after.data)
            );
        }
    }

    #[test]
    fn a_relationship_change_re_sorts_only_touched_lists_and_keeps_node_arrays() {
        let mut rng = Rng(11);
        let model = random_model(&mut rng);
        let mut d = Delta::new();
        d.create_edge(
            NodeId::Base(0),
            NodeId::Base(0),
            "T".into(),
            BTreeMap::new(),
        );
        let (m, _) = fold_keyed(&model, &d).unwrap().unwrap();
        assert_eq!(m.edge_count(), model.edge_count() + 1);
        assert_eq!(m.keys().bytes.as_ptr(), model.keys().bytes.as_ptr());
        let (b, _) = rebuild_keyed(&model, &d).unwrap();
        assert_same(&m, &b);
    }

    #[test]
    fn conflicting_types_go_to_the_builder_which_names_the_node() {
        let mut b = ModelBuilder::new();
        let p = b.add_node("p", &["P"]);
        let k = b.node_property("name");
        b.set_node_property(p, k, ValueRef::Str("a")).unwrap();
        b.add_node("q", &["P"]);
        let model = b.freeze().unwrap();
        let mut d = Delta::new();
        let q = model.node_by_key("q").unwrap();
        d.set_node_property(&model, NodeId::Base(q), "name", Value::Int(1));
        assert!(fold_keyed(&model, &d).unwrap().is_none());
        let e = crate::transform::compact(&model, &d)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`q`"), "{e}");
    }
}
