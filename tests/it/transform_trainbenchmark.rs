//! Train Benchmark repairs: for each of the six queries, check → repair (the
//! `datasets/queries/trainbenchmark/*.repair.cypher` rule file) → re-check on the scale-1 railway
//! models; the re-check finds nothing, and the repair changed what the check found. Injects: each
//! grows its query's count as expected; on a model of `scripts/gen-railway-xmi.py`,
//! SemaphoreNeighbor's inject makes faults and a [`gemp::api::LiveQuery`] kept across repeated
//! injects counts what a full re-check counts, for all six queries.
//!
//! The data lives at `../shared/data/trainbenchmark` from the project root (or under
//! `$GEMP_SHARED_DATA`); the tests skip with a message when it is absent (the generated-model
//! tests also when python3 cannot be run).

use crate::common;

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

/// The values of the columns `cols` of every row of `source`, as text.
fn rows(g: &Graph, source: &str, cols: &[&str]) -> std::collections::BTreeSet<Vec<String>> {
    let matches = g.run(source).unwrap();
    matches
        .rows()
        .map(|r| {
            cols.iter()
                .map(|c| r.value(c).unwrap().to_string())
                .collect()
        })
        .collect()
}

/// Check, inject (the `*.inject.cypher` rule file), re-check: how much the query's count grew.
fn inject(g: &mut Graph, name: &str) -> (u64, gemp::transform::Counts) {
    let check = rules(&format!("{name}.cypher"));
    let before = count(g, &check);
    let report = g.apply(&rules(&format!("{name}.inject.cypher"))).unwrap();
    let after = count(g, &check);
    assert!(after >= before, "{name}: {before} -> {after}");
    (after - before, report.totals())
}

#[test]
fn every_inject_adds_the_expected_matches() {
    let Some(dir) = common::trainbenchmark_dir("transform_trainbenchmark") else {
        return;
    };
    let mut g = railway(&dir, "inject");
    let zero = "MATCH (s:Segment) WHERE s.length = 0 RETURN s";
    let zeros = count(&g, zero);
    // Ten positive segments get the length 0: ten new faults, twice.
    for _ in 0..2 {
        let (grown, t) = inject(&mut g, "PosLength");
        assert_eq!((grown, t.properties_set), (10, 10));
    }
    assert_eq!(count(&g, zero), zeros + 20);

    // Ten monitored switches lose every sensor (both directions): ten unmonitored switches.
    let mut g = railway(&dir, "inject");
    let refs = |g: &Graph, t: &str| count(g, &format!("MATCH ()-[r:{t}]->() RETURN r"));
    let chosen = "MATCH (sw:Switch)-[:monitoredBy]->(s:Sensor) WHERE sw.id <= 305 RETURN sw, s";
    let sensors_of_first_ten = count(&g, chosen);
    assert_eq!(
        count(&g, "MATCH (sw:Switch) WHERE sw.id <= 305 RETURN sw"),
        10,
        "the ten lowest switch ids end at 305"
    );
    let (by, of) = (refs(&g, "monitoredBy"), refs(&g, "monitors"));
    let (grown, t) = inject(&mut g, "SwitchMonitored");
    assert_eq!(grown, 10);
    assert_eq!(t.relationships_deleted, 2 * sensors_of_first_ten);
    assert_eq!(
        (refs(&g, "monitoredBy"), refs(&g, "monitors")),
        (by - sensors_of_first_ten, of - sensors_of_first_ten)
    );
    // The temporary label is gone from every node.
    assert_eq!(count(&g, "MATCH (n:SwitchMonitoredInject) RETURN n"), 0);
    let (grown, _) = inject(&mut g, "SwitchMonitored");
    assert_eq!(grown, 10, "the next ten switches");

    // Ten `requires` references go; each (route, sensor) pair removed turns every path from the
    // route through a followed switch to that sensor into a match.
    let mut g = railway(&dir, "inject");
    let req = "MATCH (r:Route)-[:requires]->(s:Sensor) RETURN r.id AS r, s.id AS s";
    let ids = |g: &Graph| -> std::collections::BTreeSet<(i64, i64)> {
        rows(g, req, &["r", "s"])
            .into_iter()
            .map(|p| (p[0].parse().unwrap(), p[1].parse().unwrap()))
            .collect()
    };
    let before = ids(&g);
    // In the rule's order (route id, then sensor id), the first ten pairs.
    let first: Vec<(i64, i64)> = before.iter().take(10).copied().collect();
    let paths: u64 = first
        .iter()
        .map(|(route, sensor)| {
            count(
                &g,
                &format!(
                    "MATCH (route:Route)-[:follows]->(:SwitchPosition)-[:target]->(:Switch)\
                     -[:monitoredBy]->(sensor:Sensor) WHERE route.id = {route} \
                     AND sensor.id = {sensor} RETURN route"
                ),
            )
        })
        .sum();
    let (grown, t) = inject(&mut g, "RouteSensor");
    assert_eq!(t.relationships_deleted, 10);
    let gone: Vec<(i64, i64)> = before.difference(&ids(&g)).copied().collect();
    assert_eq!(gone, first);
    assert_eq!(grown, paths);
    assert_eq!(
        grown, 10,
        "hand-checked: each of the ten sensors monitors one followed switch"
    );

    // The scale-1 model has five routes: all lose their entry, so the negative condition holds
    // for every match of the positive pattern.
    let mut g = railway(&dir, "inject");
    let positive =
        rules("SemaphoreNeighbor.cypher").replace("AND NOT (route2)-[:entry]->(semaphore)", "");
    let all = count(&g, &positive);
    let (grown, t) = inject(&mut g, "SemaphoreNeighbor");
    assert_eq!(t.relationships_deleted, 5);
    assert_eq!(count(&g, &rules("SemaphoreNeighbor.cypher")), all);
    assert_eq!(grown, 25);

    // Every switch has one switch position, of an active route whose entry shows GO; all but
    // one (id 359) are set right. The first ten switches by id move on: ten new matches.
    let mut g = railway(&dir, "inject");
    let pos = "MATCH (sw:Switch) RETURN sw.id AS id, sw.currentPosition AS p";
    let before = rows(&g, pos, &["id", "p"]);
    let (grown, _) = inject(&mut g, "SwitchSet");
    assert_eq!(grown, 10);
    let after = rows(&g, pos, &["id", "p"]);
    let next = |p: &str| match p {
        "FAILURE" => "STRAIGHT",
        "STRAIGHT" => "DIVERGING",
        _ => "FAILURE",
    };
    let moved: Vec<_> = before.difference(&after).collect();
    assert_eq!(moved.len(), 10);
    for old in moved {
        let new = after.iter().find(|r| r[0] == old[0]).unwrap();
        assert_eq!(new[1], next(&old[1]), "switch {}", old[0]);
    }
    assert_eq!(count(&g, "MATCH (n:SwitchSetInject) RETURN n"), 0);
    let (grown, _) = inject(&mut g, "SwitchSet");
    assert_eq!(grown, 10, "the next ten switches");

    // Segments 7..12 form a run of six monitored by sensor 6 (one match) and 14..18 a run of five
    // monitored by sensor 13 (none). The first ten connections by id start at 7, 8, …, 12 and
    // 14, …, 17; each new segment lengthens its run by one: 12 segments (7 matches) and 9
    // (4 matches), ten more.
    let mut g = railway(&dir, "inject");
    let nodes = g.model().node_count();
    let (grown, t) = inject(&mut g, "ConnectedSegments");
    assert_eq!(grown, 10);
    assert_eq!(
        (
            t.nodes_created,
            t.relationships_created,
            t.relationships_deleted
        ),
        (10, 50, 10)
    );
    assert_eq!(g.model().node_count(), nodes + 10);
    assert_eq!(
        count(
            &g,
            "MATCH (r:Region)-[:elements]->(s:Segment:TrackElement)-[:monitoredBy]->(x:Sensor)\
             -[:monitors]->(s) WHERE s.id IS NULL AND s.length = 1 RETURN s"
        ),
        10
    );
}

/// `scripts/gen-railway-xmi.py REGIONS` written into `dir`: the model's path, or `None` (after a
/// skip message naming `test`) when python3 cannot be run.
fn generated_railway(
    test: &str,
    dir: &std::path::Path,
    regions: u32,
) -> Option<std::path::PathBuf> {
    let xmi = dir.join(format!("railway-gen-{regions}.xmi"));
    let script = common::root().join("scripts/gen-railway-xmi.py");
    let ran = std::process::Command::new("python3")
        .arg(&script)
        .arg(regions.to_string())
        .arg(&xmi)
        .status();
    match ran {
        Ok(status) => assert!(status.success(), "{} failed: {status}", script.display()),
        Err(e) => {
            eprintln!("skipping {test}: python3 cannot be run ({e})");
            return None;
        }
    }
    Some(xmi)
}

/// The six queries.
const QUERIES: [&str; 6] = [
    "ConnectedSegments",
    "PosLength",
    "RouteSensor",
    "SemaphoreNeighbor",
    "SwitchMonitored",
    "SwitchSet",
];

#[test]
fn semaphore_neighbor_inject_raises_the_count_on_a_generated_model() {
    let test = "semaphore_neighbor_inject_raises_the_count_on_a_generated_model";
    let Some(dir) = common::trainbenchmark_dir(test) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let Some(xmi) = generated_railway(test, tmp.path(), 3) else {
        return;
    };
    let mut g = Graph::load(&[dir.join("railway.xcore"), xmi]).unwrap();
    let check = rules("SemaphoreNeighbor.cypher");
    assert_eq!(
        count(&g, &check),
        0,
        "every route enters where its neighbour exits"
    );
    let report = g.apply(&rules("SemaphoreNeighbor.inject.cypher")).unwrap();
    assert_eq!(
        report.totals().relationships_deleted,
        3,
        "the three routes lose their entry"
    );
    // Route r exits at region r+1's semaphore and requires the sensor of region r's last track
    // element, which connects to region r+1's first, whose sensor route r+1 requires: one match
    // per route once route r+1 no longer enters there.
    assert_eq!(count(&g, &check), 3);
}

#[test]
fn incremental_recheck_agrees_with_the_full_one_after_every_inject() {
    let test = "incremental_recheck_agrees_with_the_full_one_after_every_inject";
    let Some(dir) = common::trainbenchmark_dir(test) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let Some(xmi) = generated_railway(test, tmp.path(), 3) else {
        return;
    };
    for name in QUERIES {
        let mut g = Graph::load(&[dir.join("railway.xcore"), xmi.clone()]).unwrap();
        let check = rules(&format!("{name}.cypher"));
        let inject = rules(&format!("{name}.inject.cypher"));
        let mut live = g.live_query(&check).unwrap();
        let mut full = count(&g, &check);
        assert_eq!(
            live.len() as u64,
            full,
            "{name}: the live query's first count"
        );
        for iteration in 1..=3 {
            g.apply(&inject).unwrap();
            let diff = live.refresh(&g).unwrap();
            let now = count(&g, &check);
            assert_eq!(
                live.len() as u64,
                now,
                "{name}, iteration {iteration}: incremental vs full"
            );
            assert_eq!(
                full as i64 + diff.added.len() as i64 - diff.removed.len() as i64,
                now as i64,
                "{name}, iteration {iteration}: the diff accounts for the change"
            );
            full = now;
        }
        assert!(full > 0, "{name}: the injects made faults");
    }
}
