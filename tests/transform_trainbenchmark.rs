//! Train Benchmark repairs: for each of the six queries, check → repair (the
//! `datasets/queries/trainbenchmark/*.repair.cypher` rule file) → re-check on the scale-1 railway
//! models; the re-check finds nothing, and the repair changed what the check found.
//!
//! The data lives at `../shared/data/trainbenchmark` from the project root (or under
//! `$GEMP_SHARED_DATA`); the test skips with a message when it is absent.

mod common;

use gemp::api::{Graph, RunOptions};

fn rules(name: &str) -> String {
    let path = common::root().join(format!("datasets/queries/trainbenchmark/{name}"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn count(g: &Graph, source: &str) -> u64 {
    let options = RunOptions::host().count_only();
    let q = g.query_with(source, &options).unwrap();
    g.execute(&q, &options).unwrap().count()
}

fn railway(dir: &std::path::Path, scenario: &str) -> Graph {
    Graph::load(&[
        dir.join("railway.xcore"),
        dir.join(format!("railway-{scenario}-1.xmi")),
    ])
    .unwrap()
}

/// Check, repair, re-check one query; returns (matches before, the repair's totals).
fn repair(g: &mut Graph, name: &str) -> (u64, gemp::transform::Counts) {
    let check = rules(&format!("{name}.cypher"));
    let before = count(g, &check);
    let report = g.apply(&rules(&format!("{name}.repair.cypher"))).unwrap();
    assert_eq!(count(g, &check), 0, "{name}: matches left after the repair");
    (before, report.totals())
}

#[test]
fn every_repair_leaves_no_match() {
    let Some(dir) = common::trainbenchmark_dir("transform_trainbenchmark") else {
        return;
    };
    for scenario in ["repair", "inject"] {
        let base = railway(&dir, scenario);
        let elements = base.model().node_count();

        let mut g = railway(&dir, scenario);
        let (n, t) = repair(&mut g, "PosLength");
        assert_eq!(n, if scenario == "repair" { 52 } else { 12 });
        assert_eq!(t.properties_set, n, "one length per bad segment");

        let mut g = railway(&dir, scenario);
        let pairs = count(
            &g,
            "MATCH (route:Route)-[:follows]->(:SwitchPosition)-[:target]->(:Switch)-[:monitoredBy]->(sensor:Sensor) \
             WHERE NOT (route)-[:requires]->(sensor) RETURN DISTINCT route, sensor",
        );
        let (n, t) = repair(&mut g, "RouteSensor");
        assert_eq!(n, if scenario == "repair" { 12 } else { 7 });
        assert_eq!(
            t.relationships_created, pairs,
            "one `requires` per route and sensor"
        );

        let mut g = railway(&dir, scenario);
        let (n, t) = repair(&mut g, "SwitchSet");
        assert_eq!((n, t.properties_set), (1, 1));

        let mut g = railway(&dir, scenario);
        let middles = count(
            &g,
            &rules("ConnectedSegments.cypher").replace(
                "RETURN sensor, s1, s2, s3, s4, s5, s6",
                "RETURN DISTINCT s2",
            ),
        );
        let (n, t) = repair(&mut g, "ConnectedSegments");
        assert_eq!(n, 4);
        assert_eq!(t.nodes_deleted, middles);
        assert_eq!(g.model().node_count(), elements - middles as usize);

        let mut g = railway(&dir, scenario);
        let (n, _) = repair(&mut g, "SemaphoreNeighbor");
        assert_eq!(n, if scenario == "repair" { 8 } else { 0 });
    }
}

#[test]
fn switch_monitored_repair_after_injected_faults() {
    let Some(dir) = common::trainbenchmark_dir("transform_trainbenchmark") else {
        return;
    };
    let mut g = railway(&dir, "repair");
    assert_eq!(count(&g, &rules("SwitchMonitored.cypher")), 0);
    // Inject: switches with an even id lose their sensors (both directions of the reference).
    let faulty = count(&g, "MATCH (sw:Switch) WHERE sw.id % 2 = 0 RETURN sw");
    assert!(faulty > 0);
    g.apply(
        "MATCH (sw:Switch)-[m:monitoredBy]->(:Sensor) WHERE sw.id % 2 = 0 DELETE m;\n\
         MATCH (:Sensor)-[m:monitors]->(sw:Switch) WHERE sw.id % 2 = 0 DELETE m",
    )
    .unwrap();
    let sensors = count(&g, "MATCH (s:Sensor) RETURN s");
    let (n, t) = repair(&mut g, "SwitchMonitored");
    assert_eq!(n, faulty);
    assert_eq!(
        (t.nodes_created, t.relationships_created),
        (faulty, 2 * faulty)
    );
    assert_eq!(count(&g, "MATCH (s:Sensor) RETURN s"), sensors + faulty);
    assert_eq!(
        count(&g, "MATCH (s:Sensor)-[:monitors]->(sw:Switch)-[:monitoredBy]->(s) WHERE sw.id % 2 = 0 RETURN sw"),
        faulty
    );
}
