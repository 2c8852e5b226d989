//! Model transformation: each updating clause on small hand-built models, with hand-computed
//! results; atomicity, fixpoints, MERGE idempotence, type errors, equality with a loaded model.

use std::collections::BTreeMap;

use gemp::api::Graph;
use gemp::model::Model;
use gemp::transform::ApplyOptions;

/// a:A -R-> b:B, a -R-> c:B, c -S-> b; a.x = 1, b.name = 'b', c.name = 'c'.
fn small() -> Graph {
    Graph::from_json_str(
        r#"{ "nodes": [
              {"id": "a", "labels": ["A"], "properties": {"x": 1}},
              {"id": "b", "labels": ["B"], "properties": {"name": "b"}},
              {"id": "c", "labels": ["B"], "properties": {"name": "c"}} ],
            "edges": [
              {"source": "a", "target": "b", "type": "R", "properties": {"w": 5}},
              {"source": "a", "target": "c", "type": "R", "properties": {"w": 6}},
              {"source": "c", "target": "b", "type": "S"} ] }"#,
    )
    .unwrap()
}

/// A canonical text of a model: nodes by key with sorted labels and properties, edges by end keys.
fn dump(m: &Model) -> Vec<String> {
    let mut out = Vec::new();
    for n in 0..m.node_count() as u32 {
        let mut labels: Vec<&str> = m
            .node_labels(n)
            .iter()
            .filter_map(|&l| m.labels().name(l))
            .collect();
        labels.sort();
        let mut props = BTreeMap::new();
        if let Some(g) = m.group_of(n) {
            for c in &g.columns {
                let v = c.get((n - g.start) as usize);
                if !v.is_null() {
                    props.insert(c.name.clone(), v.to_string());
                }
            }
        }
        out.push(format!(
            "node {} {:?} {:?}",
            m.node_key(n).unwrap(),
            labels,
            props
        ));
    }
    for e in 0..m.edge_count() as u32 {
        let s = m.edge_source(e).unwrap();
        let (d, t) = m.edge_target(e).unwrap();
        let mut props = BTreeMap::new();
        for c in m.edge_columns() {
            let v = c.get(e as usize);
            if !v.is_null() {
                props.insert(c.name.clone(), v.to_string());
            }
        }
        out.push(format!(
            "edge {} -{}-> {} {:?}",
            m.node_key(s).unwrap(),
            m.rel_types().name(t).unwrap(),
            m.node_key(d).unwrap(),
            props
        ));
    }
    out.sort();
    out
}

fn count(g: &Graph, q: &str) -> u64 {
    let options = gemp::api::RunOptions::host().count_only();
    let query = g.query_with(q, &options).unwrap();
    g.execute(&query, &options).unwrap().count()
}

#[test]
fn create_nodes_and_relationships_between_bound_and_created_nodes() {
    let mut g = small();
    let r = g
        .apply("MATCH (a:A), (b:B {name: 'b'})\nCREATE (a)-[:T {w: 1}]->(b), (n:C:D {name: 'n'})-[:U]->(a)")
        .unwrap();
    let t = r.totals();
    assert_eq!(t.nodes_created, 1);
    assert_eq!(t.relationships_created, 2);
    assert_eq!(t.properties_set, 2);
    assert_eq!(r.statements[0].matches, 1);
    assert_eq!(
        count(&g, "MATCH (a:A)-[t:T]->(b:B) WHERE t.w = 1 RETURN a"),
        1
    );
    assert_eq!(
        count(&g, "MATCH (n:C:D)-[:U]->(a:A) WHERE n.name = 'n' RETURN n"),
        1
    );
    assert_eq!(g.model().node_count(), 4);
    assert_eq!(g.model().edge_count(), 5);
    // One node per match: two B's give two new nodes; a statement without MATCH runs once.
    let r = g
        .apply("MATCH (b:B) CREATE (b)-[:HAS]->(:Tag); CREATE (:Tag {name: 'lone'})")
        .unwrap();
    assert_eq!(r.statements[0].counts.nodes_created, 2);
    assert_eq!(r.statements[1].counts.nodes_created, 1);
    assert_eq!(count(&g, "MATCH (t:Tag) RETURN t"), 3);
}

#[test]
fn set_properties_labels_and_maps() {
    let mut g = small();
    let r = g
        .apply("MATCH (a:A)-[r:R]->(b:B) SET b.len = r.w * 2, b:Long, a += {x: 1, y: 'y'}, r.seen = true")
        .unwrap();
    let t = r.totals();
    // b.len twice, a.y once (a.x already 1; a is matched twice but changed once), r.seen twice.
    assert_eq!(t.properties_set, 5);
    assert_eq!(t.labels_added, 2);
    assert_eq!(
        count(
            &g,
            "MATCH (b:B:Long) WHERE b.len = 10 AND b.name = 'b' RETURN b"
        ),
        1
    );
    assert_eq!(count(&g, "MATCH (b:B:Long) WHERE b.len = 12 RETURN b"), 1);
    assert_eq!(
        count(&g, "MATCH (a:A) WHERE a.x = 1 AND a.y = 'y' RETURN a"),
        1
    );
    assert_eq!(
        count(&g, "MATCH ()-[r:R]->() WHERE r.seen = true RETURN r"),
        2
    );
    // The same again changes nothing.
    let again = g
        .apply("MATCH (a:A)-[r:R]->(b:B) SET b.len = r.w * 2, b:Long, a += {x: 1, y: 'y'}")
        .unwrap();
    assert!(again.totals().is_empty());
    // SET after WITH: an aggregate through its alias.
    g.apply("MATCH (a:A)-[:R]->(b:B) WITH a, count(b) AS n SET a.degree = n")
        .unwrap();
    assert_eq!(count(&g, "MATCH (a:A) WHERE a.degree = 2 RETURN a"), 1);
}

#[test]
fn remove_properties_and_labels() {
    let mut g = small();
    g.apply("MATCH (b:B {name: 'b'}) SET b:Extra").unwrap();
    let r = g
        .apply("MATCH (a:A)-[r:R]->(b:B) REMOVE a.x, r.w, b:Extra")
        .unwrap();
    let t = r.totals();
    assert_eq!(t.properties_set, 3); // a.x once, r.w twice
    assert_eq!(t.labels_removed, 1);
    let a = g.model().node_by_key("a").unwrap();
    assert!(g.model().node_property(a, "x").is_null());
    assert_eq!(count(&g, "MATCH (b:Extra) RETURN b"), 0);
    // No relationship keeps `w`: the property is gone from the schema.
    assert!(g.model().edge_columns().iter().all(|c| c.name != "w"));
    // Removing the primary label moves the node to its other label's group; keys stay.
    let mut g = small();
    g.apply("MATCH (b:B {name: 'b'}) SET b:Other REMOVE b:B")
        .unwrap();
    assert_eq!(count(&g, "MATCH (b:Other) WHERE b.name = 'b' RETURN b"), 1);
    assert_eq!(count(&g, "MATCH (b:B) RETURN b"), 1);
    assert!(g.model().node_by_key("b").is_some());
}

#[test]
fn delete_and_detach_delete() {
    let mut g = small();
    let r = g.apply("MATCH (c:B)-[s:S]->(b:B) DELETE s").unwrap();
    assert_eq!(r.totals().relationships_deleted, 1);
    assert_eq!(g.model().edge_count(), 2);
    // Deleting relationships and their nodes in one statement is fine.
    let r = g
        .apply("MATCH (a:A)-[r:R]->(b:B {name: 'c'}) DELETE r, b")
        .unwrap();
    assert_eq!(
        (r.totals().nodes_deleted, r.totals().relationships_deleted),
        (1, 1)
    );
    assert_eq!(g.model().node_count(), 2);
    assert!(g.model().node_by_key("c").is_none());
    // DETACH DELETE takes the relationships along; a node matched twice is deleted once.
    let mut g = small();
    let r = g
        .apply("MATCH (x)-[]->(b:B {name: 'b'}) DETACH DELETE b")
        .unwrap();
    assert_eq!(r.statements[0].matches, 2);
    let t = r.totals();
    assert_eq!((t.nodes_deleted, t.relationships_deleted), (1, 2));
    assert_eq!(dump(g.model()).len(), 2 + 1);
}

#[test]
fn a_failing_delete_applies_nothing_of_its_statement() {
    let mut g = small();
    let before = dump(g.model());
    let e = g
        .apply("MATCH (a:A) SET a.x = 99;\nMATCH (b:B {name: 'b'})\nSET b.name = 'gone' DELETE b")
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot delete node `b` (key `b`)"), "{e}");
    assert!(e.contains("2 relationships"), "{e}");
    assert!(e.contains("--> 3:"), "line 3 is named: {e}");
    assert!(e.contains("DETACH DELETE"), "{e}");
    // Neither the failing statement nor the earlier one of the same call is kept.
    assert_eq!(dump(g.model()), before);
    // In a transaction, the earlier call's changes stay, the failing call's do not.
    let mut tx = g.transaction();
    tx.apply("MATCH (a:A) SET a.x = 99").unwrap();
    assert!(tx.apply("MATCH (b:B) SET b.k = 1 DELETE b").is_err());
    assert_eq!(tx.count("MATCH (a:A) WHERE a.x = 99 RETURN a").unwrap(), 1);
    assert!(tx
        .model()
        .groups()
        .iter()
        .all(|gr| gr.column("k").is_none()));
    let report = tx.commit();
    assert_eq!(report.totals().properties_set, 1);
    assert_eq!(count(&g, "MATCH (a:A) WHERE a.x = 99 RETURN a"), 1);
}

#[test]
fn set_on_a_node_the_statement_deleted_is_an_error() {
    let mut g = small();
    let e = g
        .apply("MATCH (b:B {name: 'b'}) DETACH DELETE b SET b.name = 'x'")
        .unwrap_err()
        .to_string();
    assert!(e.contains("was deleted by this statement"), "{e}");
    assert_eq!(g.model().node_count(), 3);
}

#[test]
fn wrong_type_for_an_existing_property_is_an_error() {
    let mut g = small();
    let e = g
        .apply("MATCH (a:A) SET a.x = 'one'")
        .unwrap_err()
        .to_string();
    assert!(e.contains("property `x` holds int values"), "{e}");
    assert!(e.contains("1:"), "{e}");
    let e = g
        .apply("MATCH ()-[r:R]->() SET r.w = true")
        .unwrap_err()
        .to_string();
    assert!(e.contains("property `w`"), "{e}");
    // Numbers mix; a new property gets the type of its first value.
    g.apply("MATCH (a:A) SET a.x = 2.5").unwrap();
    assert_eq!(count(&g, "MATCH (a:A) WHERE a.x = 2.5 RETURN a"), 1);
    let e = g
        .apply("MATCH (b:B {name: 'b'}) SET b.k = 1;\nMATCH (b:B {name: 'c'}) SET b.k = 'x'")
        .unwrap_err()
        .to_string();
    assert!(e.contains("property `k`"), "{e}");
}

#[test]
fn merge_matches_or_creates_and_is_idempotent() {
    let mut g = small();
    let rules = "MERGE (s:Sensor {name: 's1'});\n\
                 MATCH (a:A), (s:Sensor {name: 's1'}) MERGE (a)-[:MON]->(s);\n\
                 MATCH (b:B) MERGE (t:Tag {name: 'shared'}) MERGE (b)-[:TAGGED]->(t)";
    let r = g.apply(rules).unwrap();
    let counts: Vec<(u64, u64)> = r
        .statements
        .iter()
        .map(|s| (s.counts.nodes_created, s.counts.relationships_created))
        .collect();
    // The second row of the third statement finds the tag the first row created.
    assert_eq!(counts, vec![(1, 0), (0, 1), (1, 2)]);
    let snapshot = dump(g.model());
    let r = g.apply(rules).unwrap();
    assert!(r.totals().is_empty(), "{r:?}");
    assert_eq!(dump(g.model()), snapshot);
    // MERGE binds every match: two sensors named alike give two rows.
    g.apply("CREATE (:Sensor {name: 's1'})").unwrap();
    let r = g
        .apply("MERGE (s:Sensor {name: 's1'}) SET s.seen = true")
        .unwrap();
    assert_eq!(r.totals().properties_set, 2);
}

#[test]
fn fixpoint_computes_a_transitive_closure() {
    let chain = r#"{ "nodes": [ {"id": "1", "labels": ["N"]}, {"id": "2", "labels": ["N"]},
                                {"id": "3", "labels": ["N"]}, {"id": "4", "labels": ["N"]} ],
                     "edges": [ {"source": "1", "target": "2", "type": "Next"},
                                {"source": "2", "target": "3", "type": "Next"},
                                {"source": "3", "target": "4", "type": "Next"} ] }"#;
    let rule = "MATCH (a:N)-[:Next|Reach]->(:N)-[:Next|Reach]->(c:N) MERGE (a)-[:Reach]->(c)";
    let mut g = Graph::from_json_str(chain).unwrap();
    let options = ApplyOptions {
        until_fixpoint: true,
        ..Default::default()
    };
    let r = g.apply_with(rule, &options).unwrap();
    // Pass 1: 1->3, 2->4; pass 2: 1->4; pass 3: nothing.
    assert_eq!(r.iterations, 3);
    assert!(r.fixpoint_reached);
    let created: Vec<u64> = r
        .statements
        .iter()
        .map(|s| s.counts.relationships_created)
        .collect();
    assert_eq!(created, vec![2, 1, 0]);
    assert_eq!(count(&g, "MATCH (a)-[r:Reach]->(b) RETURN r"), 3);
    // One pass allowed: not a fixpoint.
    let mut g = Graph::from_json_str(chain).unwrap();
    let options = ApplyOptions {
        until_fixpoint: true,
        max_iterations: 1,
        ..Default::default()
    };
    let r = g.apply_with(rule, &options).unwrap();
    assert!(!r.fixpoint_reached);
    assert_eq!(r.iterations, 1);
}

#[test]
fn result_equals_loading_the_expected_model() {
    let mut g = small();
    g.apply(
        "MATCH (a:A)-[r:R]->(b:B {name: 'c'}) SET r.w = r.w + 1, b.name = 'cc';\n\
         MATCH (c:B)-[s:S]->(b:B) DELETE s CREATE (b)-[:S2 {k: 'v'}]->(c);\n\
         MATCH (a:A) REMOVE a.x SET a:Z;\n\
         CREATE (:A {x: 7})",
    )
    .unwrap();
    let expected = Graph::from_json_str(
        r#"{ "nodes": [
              {"id": "a", "labels": ["A", "Z"]},
              {"id": "b", "labels": ["B"], "properties": {"name": "b"}},
              {"id": "c", "labels": ["B"], "properties": {"name": "cc"}},
              {"id": "new:3", "labels": ["A"], "properties": {"x": 7}} ],
            "edges": [
              {"source": "a", "target": "b", "type": "R", "properties": {"w": 5}},
              {"source": "a", "target": "c", "type": "R", "properties": {"w": 7}},
              {"source": "b", "target": "c", "type": "S2", "properties": {"k": "v"}} ] }"#,
    )
    .unwrap();
    assert_eq!(dump(g.model()), dump(expected.model()));
}

#[test]
fn read_parts_tolerate_names_the_model_does_not_have_yet() {
    let mut g = small();
    // An unknown label in MATCH: no match, no error. An unknown property reads as null.
    let r = g
        .apply(
            "MATCH (c:Couple) DELETE c;\nMATCH (a:A) WHERE a.visited IS NULL SET a.visited = true",
        )
        .unwrap();
    assert_eq!(r.statements[0].matches, 0);
    assert_eq!(r.statements[1].counts.properties_set, 1);
}

#[test]
fn binding_errors_name_line_and_column() {
    let mut g = small();
    let e = g.apply("MATCH (a:A)\nSET b.x = 1").unwrap_err().to_string();
    assert!(
        e.contains("variable `b` is not defined") && e.contains("--> 2:5"),
        "{e}"
    );
    let e = g
        .apply("MATCH (a:A) CREATE (n:N) SET a.x = n.y")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`n` is created by this statement"), "{e}");
    let e = g
        .apply("MATCH (a:A) SET a.n = count(*)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("aggregates"), "{e}");
    let e = g
        .apply("MATCH (a:A) CREATE (a)-[:T|U]->(a)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("exactly one relationship type"), "{e}");
    let e = g
        .apply("MATCH (a:A) CREATE (a)-[:T]-(a)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("direction"), "{e}");
    let e = g
        .apply("MATCH (a:A) MERGE (a)-[:T]->(:B)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unsupported"), "{e}");
    let e = g
        .apply("CREATE (n:N {v: $missing})")
        .unwrap_err()
        .to_string();
    assert!(e.contains("$missing"), "{e}");
    assert_eq!(g.model().node_count(), 3);
}

#[test]
fn parameters_and_elements_created_and_deleted_in_one_statement() {
    let mut g = small();
    let mut options = ApplyOptions::default();
    options
        .params
        .insert("name".into(), gemp::model::Value::Str("p".into()).into());
    let r = g
        .apply_with(
            "CREATE (n:P {name: $name});\nMATCH (a:A) CREATE (a)-[t:TMP]->(x:Tmp) DETACH DELETE x",
            &options,
        )
        .unwrap();
    assert_eq!(r.statements[0].counts.nodes_created, 1);
    let t = r.statements[1].counts;
    assert_eq!((t.nodes_created, t.nodes_deleted), (1, 1));
    assert_eq!((t.relationships_created, t.relationships_deleted), (1, 1));
    assert_eq!(count(&g, "MATCH (p:P) WHERE p.name = 'p' RETURN p"), 1);
    assert_eq!(g.model().node_count(), 4);
    assert_eq!(g.model().edge_count(), 3);
}
