//! Builder and frozen-model tests: exact results on hand-built graphs and property tests of the
//! freeze invariants against a naive reference.

use gemp::model::{ModelBuilder, PropType, ValueRef, ANY_TYPE, NO_LABEL};
use proptest::prelude::*;

fn key(m: &gemp::model::Model, n: u32) -> String {
    m.node_key(n).unwrap().to_owned()
}

#[test]
fn keys_added_without_lookup_are_found_and_never_duplicated() {
    let mut b = ModelBuilder::new();
    let a = b.add_node("a", &["L"]);
    let x = b.push_unique_node("x");
    let y = b.push_unique_node("y");
    // Not indexed yet: found by the scan of the unindexed tail.
    assert_eq!(b.node_id("x"), Some(x));
    assert_eq!(b.node_id("y"), Some(y));
    assert_eq!(b.node_id("a"), Some(a));
    assert_eq!(b.node_id("z"), None);
    // ensure_node indexes the tail first, so it returns the existing nodes.
    assert_eq!(b.ensure_node("y"), (y, false));
    assert_eq!(b.ensure_node("x"), (x, false));
    let (z, created) = b.ensure_node("z");
    assert!(created);
    let w = b.push_unique_node("w");
    assert_eq!(b.ensure_node("w"), (w, false));
    assert_eq!(b.node_count(), 5);
    let m = b.freeze().unwrap();
    let mut keys: Vec<String> = (0..m.node_count() as u32).map(|n| key(&m, n)).collect();
    keys.sort();
    assert_eq!(keys, ["a", "w", "x", "y", "z"]);
    assert_ne!(z, w);
}

#[test]
fn edges_may_arrive_before_their_nodes() {
    let mut b = ModelBuilder::new();
    let acted = b.rel_type("ACTOR");
    let (p, created) = b.ensure_node("nm1");
    assert!(created);
    let (t, _) = b.ensure_node("tt1");
    b.add_edge(p, t, acted).unwrap();
    // Labels and properties arrive later.
    b.add_node("tt1", &["Title", "Movie"]);
    b.add_node("nm1", &["Person"]);
    let name = b.node_property("primaryName");
    b.set_node_property(p, name, ValueRef::Str("Jack Nicholson"))
        .unwrap();
    let m = b.freeze().unwrap();

    let p = m.node_by_key("nm1").unwrap();
    let t = m.node_by_key("tt1").unwrap();
    let label = |n: &str| m.labels().get(n).unwrap();
    assert_eq!(m.node_labels(p), &[label("Person")]);
    let mut tl = vec![label("Title"), label("Movie")];
    tl.sort();
    assert_eq!(m.node_labels(t), tl.as_slice());
    assert_eq!(m.out().neighbors_of(p), &[t]);
    assert_eq!(m.inc().neighbors_of(t), &[p]);
    assert_eq!(
        m.node_property(p, "primaryName"),
        ValueRef::Str("Jack Nicholson")
    );
    assert_eq!(m.node_property(t, "primaryName"), ValueRef::Null);
}

#[test]
fn nodes_are_grouped_by_primary_label_and_properties_typed() {
    let mut b = ModelBuilder::new();
    let year = b.node_property("startYear");
    let rating = b.node_property("averageRating");
    let name = b.node_property("primaryName");
    let adult = b.node_property("isAdult");
    for i in 0..5 {
        let t = b.add_node(&format!("tt{i}"), &["Title"]);
        b.set_node_property(t, year, ValueRef::Int(1990 + i))
            .unwrap();
        if i % 2 == 0 {
            b.set_node_property(t, rating, ValueRef::Int(7)).unwrap(); // int first …
        } else {
            b.set_node_property(t, rating, ValueRef::Float(6.5))
                .unwrap(); // … then float: column becomes float
        }
        b.set_node_property(t, adult, ValueRef::Bool(i == 3))
            .unwrap();
        let p = b.add_node(&format!("nm{i}"), &["Person"]);
        b.set_node_property(p, name, ValueRef::Str(&format!("Person {i}")))
            .unwrap();
    }
    let m = b.freeze().unwrap();
    assert_eq!(m.groups().len(), 2);
    for g in m.groups() {
        let l = m.labels().name(g.label).unwrap();
        for n in g.start..g.end {
            assert_eq!(m.labels().name(m.node_labels(n)[0]).unwrap(), l);
        }
    }
    let t3 = m.node_by_key("tt3").unwrap();
    assert_eq!(m.node_property(t3, "startYear"), ValueRef::Int(1993));
    assert_eq!(m.node_property(t3, "averageRating"), ValueRef::Float(6.5));
    assert_eq!(
        m.node_property(m.node_by_key("tt2").unwrap(), "averageRating"),
        ValueRef::Float(7.0)
    );
    assert_eq!(m.node_property(t3, "isAdult"), ValueRef::Bool(true));
    assert_eq!(
        m.node_property(m.node_by_key("nm4").unwrap(), "primaryName"),
        ValueRef::Str("Person 4")
    );
    let schema = m.schema();
    let r = schema.node_property("averageRating").next().unwrap();
    assert_eq!(r.prop_type, PropType::Float);
    assert_eq!(r.label.as_deref(), Some("Title"));
}

#[test]
fn conflicting_property_types_are_an_error() {
    let mut b = ModelBuilder::new();
    let n = b.add_node("a", &["X"]);
    let k = b.node_property("p");
    b.set_node_property(n, k, ValueRef::Int(1)).unwrap();
    let err = b.set_node_property(n, k, ValueRef::Str("x")).unwrap_err();
    assert!(
        err.to_string()
            .contains("property `p` has values of type int and of type string"),
        "{err}"
    );
}

#[test]
fn out_of_range_ids_are_errors_not_panics() {
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    b.add_node("a", &[]);
    assert!(b.add_edge(0, 7, t).is_err());
    assert!(b.add_edge(0, 0, 99).is_err());
    let k = b.node_property("p");
    assert!(b.set_node_property(5, k, ValueRef::Int(1)).is_err());
    let ek = b.edge_property("q");
    assert!(b.set_edge_property(0, ek, ValueRef::Int(1)).is_err());
}

#[test]
fn parallel_edges_self_loops_and_edge_properties() {
    let mut b = ModelBuilder::new();
    let a = b.add_node("a", &["N"]);
    let c = b.add_node("c", &["N"]);
    let t1 = b.rel_type("T1");
    let t2 = b.rel_type("T2");
    let ord = b.edge_property("ordering");
    let e1 = b.add_edge(a, c, t2).unwrap();
    let e2 = b.add_edge(a, c, t1).unwrap();
    let e3 = b.add_edge(a, c, t1).unwrap();
    let e4 = b.add_edge(a, a, t1).unwrap();
    for (e, v) in [(e1, 1), (e2, 2), (e3, 3), (e4, 4)] {
        b.set_edge_property(e, ord, ValueRef::Int(v)).unwrap();
    }
    let m = b.freeze().unwrap();
    let (a, c) = (m.node_by_key("a").unwrap(), m.node_by_key("c").unwrap());
    let t1 = m.rel_types().get("T1").unwrap();
    let t2 = m.rel_types().get("T2").unwrap();
    assert_eq!(m.out().count_edges(a, c, t1), 2);
    assert_eq!(m.out().count_edges(a, c, t2), 1);
    assert_eq!(m.out().count_edges(a, c, ANY_TYPE), 3);
    assert_eq!(m.out().count_edges(a, a, ANY_TYPE), 1);
    assert!(!m.out().has_edge(c, a, ANY_TYPE));
    assert!(m.inc().has_edge(c, a, t2));
    // Sorted runs per type: one for a type, one per present type for any type.
    let nbrs = |runs: &[std::ops::Range<usize>]| -> Vec<Vec<u32>> {
        runs.iter()
            .map(|r| m.out().neighbors[r.clone()].to_vec())
            .collect()
    };
    let mut runs = Vec::new();
    m.out().type_runs(a, t1, &mut runs);
    let mut t1_run = vec![a, c, c];
    t1_run.sort();
    assert_eq!(nbrs(&runs), vec![t1_run.clone()]);
    runs.clear();
    m.out().type_runs(a, ANY_TYPE, &mut runs);
    let mut any = nbrs(&runs);
    any.sort();
    let mut expected_runs = vec![t1_run, vec![c]];
    expected_runs.sort();
    assert_eq!(any, expected_runs);
    runs.clear();
    m.out().type_runs(c, ANY_TYPE, &mut runs);
    assert!(runs.is_empty());
    // Edge properties follow their edges through renumbering.
    let mut seen: Vec<(u32, u32, i64)> = m
        .out()
        .range(a)
        .map(|pos| {
            let e = m.out().edge_id_at(pos);
            let (dst, ty) = m.edge_target(e).unwrap();
            assert_eq!(m.edge_source(e), Some(a));
            let ValueRef::Int(v) = m.edge_property(e, "ordering") else {
                panic!()
            };
            (dst, ty, v)
        })
        .collect();
    seen.sort();
    let mut expected = vec![(c, t2, 1), (c, t1, 2), (c, t1, 3), (a, t1, 4)];
    expected.sort();
    assert_eq!(seen, expected);
    // In-edges carry the same edge ids.
    for pos in m.inc().range(c) {
        let e = m.inc().edge_id_at(pos);
        assert_eq!(m.edge_source(e), Some(a));
    }
}

#[test]
fn unlabelled_nodes_form_their_own_group() {
    let mut b = ModelBuilder::new();
    b.add_node("x", &["L"]);
    b.ensure_node("dangling");
    let m = b.freeze().unwrap();
    let d = m.node_by_key("dangling").unwrap();
    assert!(m.node_labels(d).is_empty());
    assert_eq!(m.group_of(d).unwrap().label, NO_LABEL);
    assert_eq!(m.schema().unlabelled_nodes, 1);
}

#[test]
fn empty_model() {
    let m = ModelBuilder::new().freeze().unwrap();
    assert_eq!(m.node_count(), 0);
    assert_eq!(m.edge_count(), 0);
    assert_eq!(m.out().degree(0), 0);
    assert_eq!(m.node_property(0, "x"), ValueRef::Null);
}

/// A random graph as plain lists: node labels (first is primary), edges, an int property.
#[derive(Debug, Clone)]
struct Spec {
    labels: Vec<Vec<u8>>,
    edges: Vec<(usize, usize, u8)>,
    props: Vec<Option<i64>>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..40).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::collection::vec(0u8..4, 0..3), n),
            prop::collection::vec((0..n, 0..n, 0u8..3), 0..120),
            prop::collection::vec(prop::option::of(-5i64..5), n),
        )
            .prop_map(|(labels, edges, props)| Spec {
                labels,
                edges,
                props,
            })
    })
}

proptest! {
    #[test]
    fn freeze_matches_a_naive_reference(s in spec()) {
        let mut b = ModelBuilder::new();
        let types: Vec<u32> = (0..3).map(|t| b.rel_type(&format!("T{t}"))).collect();
        let prop = b.node_property("p");
        // Edges first (nodes exist but without labels), labels afterwards.
        let ids: Vec<u32> = (0..s.labels.len()).map(|i| b.ensure_node(&format!("n{i}")).0).collect();
        for &(u, v, t) in &s.edges {
            b.add_edge(ids[u], ids[v], types[t as usize]).unwrap();
        }
        for (i, ls) in s.labels.iter().enumerate() {
            for l in ls {
                let lid = b.label(&format!("L{l}"));
                b.add_label(ids[i], lid);
            }
            if let Some(v) = s.props[i] {
                b.set_node_property(ids[i], prop, ValueRef::Int(v)).unwrap();
            }
        }
        let m = b.freeze().unwrap();
        prop_assert_eq!(m.node_count(), s.labels.len());
        prop_assert_eq!(m.edge_count(), s.edges.len());
        let id = |i: usize| m.node_by_key(&format!("n{i}")).unwrap();
        // Labels.
        for (i, ls) in s.labels.iter().enumerate() {
            let mut want: Vec<String> = ls.iter().map(|l| format!("L{l}")).collect();
            want.sort(); want.dedup();
            let mut got: Vec<String> = m.node_labels(id(i)).iter().map(|&l| m.labels().name(l).unwrap().to_owned()).collect();
            got.sort();
            prop_assert_eq!(got, want);
            let expected = s.props[i].map_or(ValueRef::Null, ValueRef::Int);
            prop_assert_eq!(m.node_property(id(i), "p"), expected);
        }
        // Label index agrees with node labels.
        for l in 0..m.labels().len() as u32 {
            for &n in m.nodes_with_label(l) { prop_assert!(m.has_label(n, l)); }
            let count = (0..m.node_count() as u32).filter(|&n| m.has_label(n, l)).count();
            prop_assert_eq!(m.label_count(l), count);
        }
        // Adjacency: same multiset of edges; lists sorted by (type, neighbour).
        let mut want: Vec<(String, String, String)> = s.edges.iter()
            .map(|&(u, v, t)| (format!("n{u}"), format!("n{v}"), format!("T{t}"))).collect();
        want.sort();
        let mut got_out = Vec::new();
        let mut got_in = Vec::new();
        for n in 0..m.node_count() as u32 {
            let r = m.out().range(n);
            let pairs: Vec<(u32, u32)> = r.clone().map(|p| (m.out().types[p], m.out().neighbors[p])).collect();
            prop_assert!(pairs.windows(2).all(|w| w[0] <= w[1]));
            for (t, v) in pairs {
                got_out.push((key(&m, n), key(&m, v), m.rel_types().name(t).unwrap().to_owned()));
            }
            let r = m.inc().range(n);
            let pairs: Vec<(u32, u32)> = r.clone().map(|p| (m.inc().types[p], m.inc().neighbors[p])).collect();
            prop_assert!(pairs.windows(2).all(|w| w[0] <= w[1]));
            for p in r {
                let e = m.inc().edge_id_at(p);
                prop_assert_eq!(m.edge_source(e), Some(m.inc().neighbors[p]));
                prop_assert_eq!(m.edge_target(e).map(|x| x.0), Some(n));
                got_in.push((key(&m, m.inc().neighbors[p]), key(&m, n), m.rel_types().name(m.inc().types[p]).unwrap().to_owned()));
            }
        }
        got_out.sort();
        got_in.sort();
        prop_assert_eq!(&got_out, &want);
        prop_assert_eq!(&got_in, &want);
    }
}
