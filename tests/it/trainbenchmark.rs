//! Train Benchmark conformance: the six benchmark queries (`datasets/queries/trainbenchmark/`)
//! on the scale-1 railway models of the three scenarios, read as EMF XMI (with the
//! `railway.xcore` metamodel) and as Neo4j-style CSV, on the host and on the OpenCL pipeline,
//! must give the published counts (`../shared/data/README.md`).
//!
//! The data lives outside the repository, at `../shared/data/trainbenchmark` from the project
//! root (or under `$GEMP_SHARED_DATA`); the tests skip with a message when it is absent.

use crate::common;

use std::path::PathBuf;

use gemp::exec::{MatchOptions, Semantics};
use gemp::io::{Format, LoadOptions};
use gemp::model::Model;

const QUERIES: [&str; 6] = [
    "PosLength",
    "SwitchMonitored",
    "RouteSensor",
    "SwitchSet",
    "ConnectedSegments",
    "SemaphoreNeighbor",
];

/// Published counts, in the order of [`QUERIES`].
const EXPECTED: [(&str, [u64; 6]); 3] = [
    ("batch", [0, 0, 0, 0, 0, 0]),
    ("inject", [12, 0, 7, 1, 4, 0]),
    ("repair", [52, 0, 12, 1, 4, 8]),
];

fn xmi_model(dir: &std::path::Path, scenario: &str) -> Model {
    let paths = vec![
        dir.join("railway.xcore"),
        dir.join(format!("railway-{scenario}-1.xmi")),
    ];
    let (model, report) = gemp::io::load(&paths, Format::Auto, &LoadOptions::default()).unwrap();
    assert_eq!(report.malformed_count(), 0, "{:?}", report.malformed);
    model
}

fn csv_model(dir: &std::path::Path, scenario: &str) -> Model {
    let prefix = format!("railway-{scenario}-1-");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with(&prefix) && n.ends_with(".csv")
        })
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 14, "7 node files and 7 relationship files");
    let (model, report) = gemp::io::load_with_metamodel(
        &paths,
        Format::Auto,
        Some(&dir.join("railway.xcore")),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(report.malformed_count(), 0, "{:?}", report.malformed);
    assert_eq!(report.dangling_nodes, 0);
    model
}

fn query_source(name: &str) -> String {
    let p = common::root().join(format!("datasets/queries/trainbenchmark/{name}.cypher"));
    std::fs::read_to_string(&p).unwrap()
}

/// Counts every query on `model` with `run`, checking them against the published numbers.
fn check_counts(
    model: &Model,
    what: &str,
    expected: &[u64; 6],
    run: &dyn Fn(&gemp::pattern::ir::BoundQuery) -> u64,
) {
    for (q, &want) in QUERIES.iter().zip(expected) {
        let query = gemp::pattern::compile(&query_source(q), model, &Default::default())
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        assert_eq!(run(&query), want, "{q} on {what}");
    }
}

fn host_counts(load: fn(&std::path::Path, &str) -> Model, test: &str, input: &str) {
    let Some(dir) = common::trainbenchmark_dir(test) else {
        return;
    };
    for (scenario, expected) in EXPECTED {
        let model = load(&dir, scenario);
        for semantics in [Semantics::Isomorphism, Semantics::Homomorphism] {
            let opts = MatchOptions {
                semantics,
                count_only: true,
                ..Default::default()
            };
            check_counts(
                &model,
                &format!("{scenario} ({input}, host, {semantics:?})"),
                &expected,
                &|q| {
                    gemp::engines::gemp::execute(&model, q, &opts)
                        .unwrap()
                        .count
                },
            );
        }
    }
}

#[test]
fn published_counts_on_xmi_with_the_host_matcher() {
    host_counts(
        xmi_model,
        "published_counts_on_xmi_with_the_host_matcher",
        "xmi",
    );
}

#[test]
fn published_counts_on_csv_with_the_host_matcher() {
    host_counts(
        csv_model,
        "published_counts_on_csv_with_the_host_matcher",
        "csv",
    );
}

/// The GpSense engine (issue 8) on the same models: uncompressed, and compressed as far as its
/// thresholds go (matches found on hyper-nodes, then expanded to the original graph).
fn gpsense_counts(load: fn(&std::path::Path, &str) -> Model, test: &str, input: &str) {
    use gemp::engines::gpsense::compress::{compress, CompressConfig};
    use gemp::engines::gpsense::{Engine, EngineConfig};
    let Some(dir) = common::trainbenchmark_dir(test) else {
        return;
    };
    for (scenario, expected) in EXPECTED {
        let model = load(&dir, scenario);
        let plain = Engine::new(&model, EngineConfig::default()).unwrap();
        let compressed = Engine::with_compressed(
            &model,
            EngineConfig::default(),
            compress(&model, 0, &CompressConfig::default()),
        );
        for (engine, how) in [(&plain, "uncompressed"), (&compressed, "compressed")] {
            let opts = MatchOptions {
                count_only: true,
                ..Default::default()
            };
            check_counts(
                &model,
                &format!("{scenario} ({input}, gpsense {how})"),
                &expected,
                &|q| engine.execute(q, &opts).unwrap().count,
            );
        }
    }
}

#[test]
fn published_counts_on_xmi_with_gpsense() {
    gpsense_counts(xmi_model, "published_counts_on_xmi_with_gpsense", "xmi");
}

#[test]
fn published_counts_on_csv_with_gpsense() {
    gpsense_counts(csv_model, "published_counts_on_csv_with_gpsense", "csv");
}

#[cfg(feature = "opencl")]
fn device_counts(load: fn(&std::path::Path, &str) -> Model, test: &str, input: &str) {
    use gemp::engines::gemp::device::{DeviceConfig, DeviceMatcher};
    let Some(dir) = common::trainbenchmark_dir(test) else {
        return;
    };
    let Some(gpu) = common::gpu(test) else { return };
    for (scenario, expected) in EXPECTED {
        let model = load(&dir, scenario);
        let dev = DeviceMatcher::new(gpu.clone(), &model, DeviceConfig::default()).unwrap();
        let opts = MatchOptions {
            count_only: true,
            ..Default::default()
        };
        check_counts(
            &model,
            &format!("{scenario} ({input}, opencl)"),
            &expected,
            &|q| dev.execute(q, &opts).unwrap().count,
        );
    }
}

#[cfg(feature = "opencl")]
#[test]
fn published_counts_on_xmi_with_the_opencl_pipeline() {
    device_counts(
        xmi_model,
        "published_counts_on_xmi_with_the_opencl_pipeline",
        "xmi",
    );
}

#[cfg(feature = "opencl")]
#[test]
fn published_counts_on_csv_with_the_opencl_pipeline() {
    device_counts(
        csv_model,
        "published_counts_on_csv_with_the_opencl_pipeline",
        "csv",
    );
}

/// The XMI and CSV exports describe the same railway: same classes (but the XMI root container),
/// same cross-reference edges (opposites completed on both), same typed properties.
#[test]
fn xmi_and_csv_give_the_same_railway() {
    let Some(dir) = common::trainbenchmark_dir("xmi_and_csv_give_the_same_railway") else {
        return;
    };
    for (scenario, _) in EXPECTED {
        let x = xmi_model(&dir, scenario);
        let c = csv_model(&dir, scenario);
        assert_eq!(
            x.node_count(),
            c.node_count() + 1,
            "{scenario}: the root container"
        );
        for label in [
            "Region",
            "Route",
            "Segment",
            "Semaphore",
            "Sensor",
            "Switch",
            "SwitchPosition",
            "TrackElement",
            "RailwayElement",
        ] {
            let count = |m: &Model| m.labels().get(label).map_or(0, |l| m.label_count(l));
            assert!(count(&x) > 0, "{scenario}: {label}");
            assert_eq!(count(&x), count(&c), "{scenario}: {label} nodes");
        }
        for ty in [
            "connectsTo",
            "entry",
            "exit",
            "follows",
            "monitoredBy",
            "requires",
            "target",
            "monitors",
            "positions",
            "route",
        ] {
            let count = |m: &Model| m.rel_types().get(ty).map_or(0, |t| m.type_count(t));
            assert!(count(&x) > 0, "{scenario}: {ty}");
            assert_eq!(count(&x), count(&c), "{scenario}: {ty} edges");
        }
        // Switch positions: the XMI omits FAILURE (the default); the metamodel fills it in.
        let positions = |m: &Model| {
            let l = m.labels().get("SwitchPosition").unwrap();
            let mut v: Vec<(i64, String)> = m
                .nodes_with_label(l)
                .iter()
                .map(|&n| {
                    let id = match m.node_property(n, "id") {
                        gemp::model::ValueRef::Int(i) => i,
                        other => panic!("id {other:?}"),
                    };
                    (id, m.node_property(n, "position").to_string())
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(positions(&x), positions(&c), "{scenario}");
    }
}
