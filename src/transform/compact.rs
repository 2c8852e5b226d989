//! Compaction: folds a frozen [`Model`] and a [`Delta`] over it into a new frozen model — by
//! splicing the old arrays ([`super::fold`]) where it can, through [`ModelBuilder`] otherwise.
//!
//! Labels, relationship types and property names keep their ids (they are interned in the old
//! model's order first; new ones follow). Node ids: the builder numbers nodes by primary label, so a
//! surviving node keeps its id when no node was created in or deleted from its label group or an
//! earlier one; otherwise ids shift. External keys never change, and created nodes get fresh keys
//! `new:<n>` (the first free `n` from the old node count on), so keys are what identifies a node
//! across a transformation. Edge ids are positions in the sorted adjacency and are renumbered.

use std::collections::BTreeMap;

use hashbrown::HashSet;

use super::delta::{Delta, EdgeId, NodeId};
use crate::error::{Error, Result};
use crate::model::{Model, ModelBuilder, Value};

/// The new frozen model: `model` with `delta` applied.
///
/// Errors: properties of one name that end up with values of incompatible types in one label
/// group (or over all relationships) — the builder's type check, named here by the node's key.
pub fn compact(model: &Model, delta: &Delta) -> Result<Model> {
    compact_keyed(model, delta).map(|(m, _)| m)
}

/// [`compact`], also returning the keys the created nodes got (`new:<n>`), in creation order
/// (created nodes deleted again by the same delta have none).
///
/// Folds at memory speed ([`super::fold`]) where it can, through the builder otherwise; both give
/// the same model.
pub fn compact_keyed(model: &Model, delta: &Delta) -> Result<(Model, Vec<String>)> {
    let started = std::time::Instant::now();
    if let Some(folded) = super::fold::fold_keyed(model, delta)? {
        log::debug!("compact: folded in {:.2?}", started.elapsed());
        return Ok(folded);
    }
    let rebuilt = rebuild_keyed(model, delta);
    log::debug!("compact: rebuilt in {:.2?}", started.elapsed());
    rebuilt
}

/// [`compact_keyed`] through [`ModelBuilder`]: every element re-collected and frozen again.
pub(crate) fn rebuild_keyed(model: &Model, delta: &Delta) -> Result<(Model, Vec<String>)> {
    let mut created = Vec::new();
    let mut b = ModelBuilder::new();
    for name in model.labels().names() {
        b.label(name);
    }
    for name in model.rel_types().names() {
        b.rel_type(name);
    }
    let mut node_keys = Vec::new();
    for g in model.groups() {
        for c in &g.columns {
            node_keys.push(b.node_property(&c.name));
        }
    }
    for c in model.edge_columns() {
        b.edge_property(&c.name);
    }

    let mut new_of_base: Vec<Option<u32>> = vec![None; model.node_count()];
    for n in 0..model.node_count() as u32 {
        if !delta.node_alive(model, NodeId::Base(n)) {
            continue;
        }
        let key = model.node_key(n).unwrap_or("");
        let id = b.push_unique_node(key);
        new_of_base[n as usize] = Some(id);
        add_labels(&mut b, id, &delta.node_labels(model, NodeId::Base(n)));
        let mut props: BTreeMap<&str, Value> = BTreeMap::new();
        if let Some(g) = model.group_of(n) {
            for c in &g.columns {
                props.insert(&c.name, c.get((n - g.start) as usize).to_owned());
            }
        }
        if let Some(changed) = delta.node_props.get(&n) {
            for (k, v) in changed {
                props.insert(k, v.clone());
            }
        }
        set_node_props(&mut b, id, key, props)?;
    }

    let mut used: HashSet<String> = HashSet::new();
    let mut counter = model.node_count() as u64;
    let mut new_of_created: Vec<Option<u32>> = vec![None; delta.new_nodes().len()];
    for (i, node) in delta.new_nodes().iter().enumerate() {
        if node.deleted {
            continue;
        }
        let key = loop {
            let candidate = format!("new:{counter}");
            counter += 1;
            if model.node_by_key(&candidate).is_none() && !used.contains(&candidate) {
                break candidate;
            }
        };
        let id = b.push_unique_node(&key);
        new_of_created[i] = Some(id);
        add_labels(&mut b, id, &node.labels);
        let props = node
            .props
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        set_node_props(&mut b, id, &key, props)?;
        created.push(key.clone());
        used.insert(key);
    }

    let map = |node: NodeId| match node {
        NodeId::Base(n) => new_of_base.get(n as usize).copied().flatten(),
        NodeId::New(i) => new_of_created.get(i as usize).copied().flatten(),
    };
    for e in 0..model.edge_count() as u32 {
        if !delta.edge_alive(model, EdgeId::Base(e)) {
            continue;
        }
        let (Some(src), Some((dst, ty))) = (model.edge_source(e), model.edge_target(e)) else {
            continue;
        };
        let (Some(s), Some(d)) = (map(NodeId::Base(src)), map(NodeId::Base(dst))) else {
            continue;
        };
        let id = b.add_edge(s, d, ty)?;
        let mut props: BTreeMap<&str, Value> = model
            .edge_columns()
            .iter()
            .map(|c| (c.name.as_str(), c.get(e as usize).to_owned()))
            .collect();
        if let Some(changed) = delta.edge_props.get(&e) {
            for (k, v) in changed {
                props.insert(k, v.clone());
            }
        }
        set_edge_props(&mut b, id, props)?;
    }
    for edge in delta.new_edges() {
        if edge.deleted {
            continue;
        }
        let (Some(s), Some(d)) = (map(edge.src), map(edge.dst)) else {
            return Err(Error::Model(format!(
                "a created `{}` relationship ends at a deleted node",
                edge.rel_type
            )));
        };
        let ty = b.rel_type(&edge.rel_type);
        let id = b.add_edge(s, d, ty)?;
        let props = edge
            .props
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        set_edge_props(&mut b, id, props)?;
    }
    Ok((b.freeze()?, created))
}

fn add_labels(b: &mut ModelBuilder, node: u32, labels: &[String]) {
    for l in labels {
        let id = b.label(l);
        b.add_label(node, id);
    }
}

fn set_node_props(
    b: &mut ModelBuilder,
    node: u32,
    key: &str,
    props: BTreeMap<&str, Value>,
) -> Result<()> {
    for (name, value) in props {
        if matches!(value, Value::Null) {
            continue;
        }
        let k = b.node_property(name);
        b.set_node_property(node, k, value.as_ref())
            .map_err(|e| Error::Model(format!("node `{key}`: {}", message(e))))?;
    }
    Ok(())
}

fn set_edge_props(b: &mut ModelBuilder, edge: u32, props: BTreeMap<&str, Value>) -> Result<()> {
    for (name, value) in props {
        if matches!(value, Value::Null) {
            continue;
        }
        let k = b.edge_property(name);
        b.set_edge_property(edge, k, value.as_ref())?;
    }
    Ok(())
}

/// The text of a model error, without its variant's prefix.
fn message(e: Error) -> String {
    match e {
        Error::Model(m) | Error::InvalidArgument(m) => m,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ValueRef;

    /// p1:P, p2:P, q:Q; p1 -R-> q (w = 1), p2 -R-> q.
    fn model() -> Model {
        let mut b = ModelBuilder::new();
        let p1 = b.add_node("p1", &["P"]);
        let p2 = b.add_node("p2", &["P"]);
        let q = b.add_node("q", &["Q"]);
        let r = b.rel_type("R");
        let e = b.add_edge(p1, q, r).unwrap();
        b.add_edge(p2, q, r).unwrap();
        let w = b.edge_property("w");
        b.set_edge_property(e, w, ValueRef::Int(1)).unwrap();
        b.freeze().unwrap()
    }

    #[test]
    fn an_empty_delta_gives_the_same_model_and_ids() {
        let m = model();
        let c = compact(&m, &Delta::new()).unwrap();
        assert_eq!(c.node_count(), 3);
        assert_eq!(c.edge_count(), 2);
        for n in 0..3 {
            assert_eq!(c.node_key(n), m.node_key(n));
            assert_eq!(c.node_labels(n), m.node_labels(n));
        }
        assert_eq!(c.edge_property(0, "w"), m.edge_property(0, "w"));
    }

    #[test]
    fn changes_are_folded_in_and_keys_kept() {
        let m = model();
        let p1 = m.node_by_key("p1").unwrap();
        let q = m.node_by_key("q").unwrap();
        let mut d = Delta::new();
        d.delete_node(&m, NodeId::Base(p1));
        d.delete_edge(&m, EdgeId::Base(0));
        let mut props = BTreeMap::new();
        props.insert("name".to_string(), Value::Str("new".into()));
        let n = d.create_node(vec!["P".into(), "X".into()], props);
        d.create_edge(n, NodeId::Base(q), "S".into(), BTreeMap::new());
        d.set_node_property(&m, NodeId::Base(q), "k", Value::Bool(true));
        let c = compact(&m, &d).unwrap();
        assert_eq!(c.node_count(), 3);
        assert!(c.node_by_key("p1").is_none());
        // The created node gets the first free `new:<n>` key from the old node count on.
        let created = c.node_by_key("new:3").unwrap();
        assert_eq!(c.node_property(created, "name").to_string(), "new");
        let x = c.labels().get("X").unwrap();
        assert!(c.has_label(created, x));
        let q2 = c.node_by_key("q").unwrap();
        assert_eq!(c.node_property(q2, "k"), ValueRef::Bool(true));
        let s = c.rel_types().get("S").unwrap();
        assert_eq!(c.type_count(s), 1);
        assert_eq!(c.edge_count(), 2);
    }
}
