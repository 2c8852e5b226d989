//! GpSense engine: identical results to the default engine on random graphs × random patterns
//! (both semantics, named and anonymous relationships, unary, id-order and string conjuncts), with
//! and without multi-level compression; the example queries on the bundled sample; a device-memory
//! budget smaller than the graph; the saved compressed graph.

use crate::common;
use common::random_graphs::{
    build_with_properties, graph, pattern_vars, random_rels, rel_specs, RandomRel, G,
};
use common::{id_rows, sample_model, sorted_ids};

use std::path::Path;

use gemp::engines::gemp::execute;
use gemp::engines::gpsense::compress::{self, CompressConfig};
use gemp::engines::gpsense::{store, Engine, EngineConfig};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::{Model, ModelBuilder};
use gemp::pattern::ir::*;
use gemp::pattern::{compile, Params};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct P {
    labels: Vec<Option<u8>>,
    rels: Vec<RandomRel>,
    id_order: Option<(usize, usize)>,
    value_not: Option<(usize, i64)>,
    string_contains: Option<usize>,
}

fn pattern() -> impl Strategy<Value = P> {
    (1usize..5).prop_flat_map(|k| {
        (
            prop::collection::vec(prop::option::of(0u8..2), k),
            random_rels(k),
            prop::option::of((0..k, 0..k)),
            prop::option::of((0..k, 0i64..3)),
            prop::option::of(0..k),
        )
            .prop_map(|(labels, rels, id_order, value_not, string_contains)| P {
                labels,
                rels,
                id_order,
                value_not,
                string_contains,
            })
    })
}

fn node(s: usize) -> Box<Expr> {
    Box::new(Expr::Node(s))
}

fn bind(m: &Model, p: &P) -> BoundQuery {
    let pattern = pattern_vars(m, &p.labels, &rel_specs(&p.rels));
    let mut filter = Vec::new();
    if let Some((a, b)) = p.id_order {
        filter.push(Expr::Compare(
            CmpOp::Lt,
            Box::new(Expr::Id(node(a))),
            Box::new(Expr::Id(node(b))),
        ));
    }
    if let Some((a, x)) = p.value_not {
        filter.push(Expr::Compare(
            CmpOp::Ne,
            Box::new(Expr::Property(node(a), "v".into())),
            Box::new(Expr::Literal(gemp::model::Value::Int(x))),
        ));
    }
    if let Some(a) = p.string_contains {
        filter.push(Expr::Str(
            StrOp::Contains,
            Box::new(Expr::Property(node(a), "s".into())),
            Box::new(Expr::Literal(gemp::model::Value::Str("lph".into()))),
        ));
    }
    BoundQuery {
        pattern,
        filter,
        stages: vec![id_rows(p.labels.len())],
        clauses: None,
    }
}

/// Compression as far as it goes (budget 0), with low thresholds so small graphs merge a lot.
fn aggressive() -> CompressConfig {
    CompressConfig {
        deltas: vec![0.8, 0.5, 0.3],
        min_delta: 0.1,
        max_levels: 8,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn gpsense_equals_the_default_engine(g in graph(12, 30), p in pattern(), homo in any::<bool>(), rounds in 0usize..3) {
        let m = build_with_properties(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        let opts = MatchOptions { semantics: sem, ..Default::default() };
        let want = sorted_ids(&execute(&m, &q, &opts).unwrap().rows);

        let mut config = EngineConfig::default();
        config.filter.refine_rounds = rounds;
        let plain = Engine::new(&m, config.clone()).unwrap();
        prop_assert!(plain.compressed().is_none());
        let got = sorted_ids(&plain.execute(&q, &opts).unwrap().rows);
        prop_assert_eq!(&got, &want);

        let c = compress::compress(&m, 0, &aggressive());
        let packed = Engine::with_compressed(&m, config, c);
        let out = packed.execute(&q, &opts).unwrap();
        prop_assert_eq!(sorted_ids(&out.rows), want.clone());

        // --count of plain rows
        let out = packed.execute(&q, &MatchOptions { count_only: true, ..opts.clone() }).unwrap();
        prop_assert_eq!(out.count, want.len() as u64);
    }
}

#[test]
fn compression_merges_similar_nodes_and_keeps_weights_sound() {
    // Ten persons acting in the same two titles are similar (identical edge lists): one level at
    // δ = 0.8 pairs them up, later levels keep merging.
    let mut b = ModelBuilder::new();
    let acted = b.rel_type("ACTED");
    let t1 = b.add_node("t1", &["Title"]);
    let t2 = b.add_node("t2", &["Title"]);
    for i in 0..10 {
        let p = b.add_node(&format!("p{i}"), &["Person"]);
        b.add_edge(p, t1, acted).unwrap();
        b.add_edge(p, t2, acted).unwrap();
    }
    let m = b.freeze().unwrap();
    let c = compress::compress(&m, 0, &CompressConfig::default());
    assert_eq!(c.levels[0].nodes, 12);
    assert_eq!(c.levels[0].edges, 20);
    // Level 1: 5 pairs of persons + the two titles (similar too: same in-edges) → 1 title node.
    assert_eq!(c.levels[1].nodes, 6);
    assert_eq!(c.levels[1].edges, 5);
    // Every person ends in one hyper-node with all ten, titles in another.
    let persons = c.node_of[2];
    assert!((2..12).all(|x| c.node_of[x] == persons));
    assert_eq!(c.members_of(persons).len(), 10);
    assert_eq!(c.node_of[0], c.node_of[1]);
    // Definition 4: no member has a neighbour inside its hyper-node.
    assert_eq!(c.node_weight[persons as usize], 0);
    // Edge weight: one person has two ACTED edges into the title hyper-node; a title has ten in.
    assert_eq!(c.degree_bound(persons, &[acted], true), 2);
    assert_eq!(c.degree_bound(c.node_of[0], &[acted], false), 10);
    let ratios = c.ratios();
    assert!((ratios[0] - 11.0 / 32.0).abs() < 1e-9, "{ratios:?}");
    assert!(ratios.windows(2).all(|w| w[1] <= w[0]));
}

fn example(name: &str) -> (BoundQuery, String) {
    let m = sample_model();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/queries")
        .join(name);
    let src = std::fs::read_to_string(path).unwrap();
    let mut params = Params::new();
    params.insert("year".into(), gemp::model::Value::Int(2000).into());
    let q = compile(&src, m, &params).unwrap_or_else(|e| panic!("{}", e.render(&src, Some(name))));
    (q, src)
}

fn rendered(rows: &[Vec<Val<'_>>], ordered: bool) -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|x| x.to_string()).collect())
        .collect();
    if !ordered {
        v.sort();
    }
    v
}

fn example_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/queries");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.ends_with(".cypher").then_some(n)
        })
        .collect();
    names.sort();
    names
}

fn check_examples(engine: &Engine<'_>, what: &str) {
    let m = sample_model();
    let names = example_names();
    assert!(names.len() >= 7);
    for name in &names {
        let (q, _) = example(name);
        let ordered = q.stages.last().is_some_and(|s| !s.order_by.is_empty());
        for sem in [Semantics::Isomorphism, Semantics::Homomorphism] {
            let opts = MatchOptions {
                semantics: sem,
                ..Default::default()
            };
            let want = execute(m, &q, &opts).unwrap();
            let start = std::time::Instant::now();
            let got = engine.execute(&q, &opts).unwrap();
            eprintln!("{name} ({what}, {sem:?}): {:.3?}", start.elapsed());
            assert_eq!(got.columns, want.columns, "{name} ({what})");
            assert_eq!(
                rendered(&got.rows, ordered),
                rendered(&want.rows, ordered),
                "{name} ({what}, {sem:?})"
            );
            assert!(!want.rows.is_empty(), "{name}: the example has results");
        }
    }
}

#[test]
fn example_queries_match_the_default_engine() {
    let m = sample_model();
    let engine = Engine::new(m, EngineConfig::default()).unwrap();
    check_examples(&engine, "uncompressed");
}

#[test]
fn example_queries_match_on_the_compressed_sample() {
    let m = sample_model();
    let c = compress::compress(m, 0, &CompressConfig::default());
    assert!(c.levels.len() >= 3, "{:?}", c.levels);
    assert!(c.ratios().last().unwrap() < &0.9, "{:?}", c.ratios());
    let engine = Engine::with_compressed(m, EngineConfig::default(), c);
    check_examples(&engine, "compressed");
}

#[test]
fn a_budget_below_the_graph_size_compresses_and_stays_exact() {
    let m = sample_model();
    let full = compress::model_bytes(m);
    let budget = full * 3 / 4;
    let engine = Engine::new(
        m,
        EngineConfig {
            device_memory: Some(budget),
            ..Default::default()
        },
    )
    .unwrap();
    let c = engine.compressed().expect("over the budget: compressed");
    assert!(c.levels.last().unwrap().bytes <= budget);
    assert!(c.levels.len() >= 2);
    for name in ["costar-triangle.cypher", "couples.cypher"] {
        let (q, _) = example(name);
        let want = execute(m, &q, &MatchOptions::default()).unwrap();
        let got = engine.execute(&q, &MatchOptions::default()).unwrap();
        assert_eq!(
            rendered(&got.rows, true),
            rendered(&want.rows, true),
            "{name}"
        );
    }
    // A budget no compression can reach is a clear error.
    let err = Engine::new(
        m,
        EngineConfig {
            device_memory: Some(16),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("--device-memory 16"), "{err}");
}

#[test]
fn the_compressed_graph_is_saved_and_reused() {
    let m = sample_model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.gemp.gpsense");
    let budget = compress::model_bytes(m) * 3 / 4;
    let built =
        compress::load_or_build(m, budget, &CompressConfig::default(), Some(&path)).unwrap();
    assert!(path.is_file());
    let loaded = store::load(&path, m).unwrap();
    assert_eq!(loaded.node_of, built.node_of);
    assert_eq!(loaded.levels, built.levels);
    assert_eq!(loaded.out_weight, built.out_weight);
    // Reuse: a (valid) identity mapping saved over the file is what comes back, so nothing was
    // recompressed.
    let identity: Vec<u32> = (0..m.node_count() as u32).collect();
    let mut levels = built.levels.clone();
    levels.truncate(1);
    levels.push(compress::LevelStats {
        nodes: m.node_count() as u64,
        bytes: budget,
        ..levels[0]
    });
    let fake = gemp::engines::gpsense::compress::Compressed::from_mapping(
        m,
        compress::fingerprint(m),
        budget,
        levels,
        identity.clone(),
    );
    store::save(&fake, &path).unwrap();
    let again =
        compress::load_or_build(m, budget, &CompressConfig::default(), Some(&path)).unwrap();
    assert_eq!(again.node_of, identity);
    // A smaller budget than the saved graph's size rebuilds (and saves) it.
    let rebuilt =
        compress::load_or_build(m, budget - 1, &CompressConfig::default(), Some(&path)).unwrap();
    assert_ne!(rebuilt.node_of, identity);
    let bytes = std::fs::read(&path).unwrap();
    // Damage is an error naming the file.
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let err = store::load(&path, m).unwrap_err().to_string();
    assert!(
        err.contains("sample.gemp.gpsense") && err.contains("truncated"),
        "{err}"
    );
    // Another model's file is refused.
    let other = ModelBuilder::new().freeze().unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let err = store::load(&path, &other).unwrap_err().to_string();
    assert!(err.contains("another model"), "{err}");
}

/// `../shared/data/hprd` (or the shared data beside the worktrees), or `None` with a skip message.
fn hprd(test: &str) -> Option<std::path::PathBuf> {
    let root = common::root();
    let found = [
        root.join("../shared/data/hprd"),
        root.join("../../shared/data/hprd"),
    ]
    .into_iter()
    .find(|d| d.join("HPRD.graph").is_file());
    if found.is_none() {
        eprintln!("skipping {test}: ../shared/data/hprd not found");
    }
    found
}

/// Every HPRD query through `engines`, each count equal to the published one.
fn check_hprd(test: &str, engines: &dyn Fn(&Model) -> Vec<(String, Engine<'_>)>) {
    use gemp::io::{subgraph_bench, LoadOptions, LoadReport};
    let Some(dir) = hprd(test) else {
        return;
    };
    let opts = LoadOptions::default();
    let (model, _) = subgraph_bench::load(&dir.join("HPRD.graph"), &opts).unwrap();
    let engines = engines(&model);
    let expected = std::fs::read_to_string(dir.join("expected_counts.txt")).unwrap();
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.trim().is_empty()) {
        let (name, count) = line.split_once(':').unwrap();
        let count: u64 = count.trim().parse().unwrap();
        let g = subgraph_bench::parse(
            &dir.join(format!("queries/{name}.graph")),
            &opts,
            &mut LoadReport::default(),
        )
        .unwrap();
        let q = gemp::pattern::bench_query::bind(&g, &model);
        let options = MatchOptions {
            count_only: true,
            ..Default::default()
        };
        for (what, engine) in &engines {
            let out = engine.execute(&q, &options).unwrap();
            assert_eq!(out.count, count, "{name} ({what})");
        }
        checked += 1;
    }
    assert_eq!(checked, 100);
}

#[test]
fn all_hprd_queries_give_the_published_counts_with_and_without_compression() {
    check_hprd(
        "all_hprd_queries_give_the_published_counts_with_and_without_compression",
        &|m| {
            let c = compress::compress(m, 0, &CompressConfig::default());
            assert!(c.levels.len() >= 2, "HPRD compresses: {:?}", c.levels);
            vec![
                (
                    "host".into(),
                    Engine::new(m, EngineConfig::default()).unwrap(),
                ),
                (
                    "host, compressed".into(),
                    Engine::with_compressed(m, EngineConfig::default(), c),
                ),
            ]
        },
    );
}

#[cfg(feature = "opencl")]
mod device {
    use super::*;
    use crate::common::{gpu, Rng};

    fn random_graph(rng: &mut Rng) -> G {
        let n = 2 + rng.below(10);
        G {
            labels: (0..n).map(|_| rng.below(2) as u8).collect(),
            edges: (0..rng.below(30))
                .map(|_| (rng.below(n), rng.below(n), rng.below(2) as u8))
                .collect(),
        }
    }

    fn random_pattern(rng: &mut Rng) -> P {
        let k = 1 + rng.below(4);
        let opt = |rng: &mut Rng, n: usize| (rng.chance(50)).then(|| rng.below(n));
        P {
            labels: (0..k).map(|_| opt(rng, 2).map(|l| l as u8)).collect(),
            rels: (0..rng.below(5))
                .map(|_| {
                    (
                        rng.below(k),
                        rng.below(k),
                        opt(rng, 2).map(|t| t as u8),
                        rng.chance(50),
                        rng.chance(25),
                    )
                })
                .collect(),
            id_order: rng.chance(30).then(|| (rng.below(k), rng.below(k))),
            value_not: rng.chance(30).then(|| (rng.below(k), rng.below(3) as i64)),
            string_contains: opt(rng, k),
        }
    }

    #[test]
    fn device_filtering_gives_the_default_engines_results() {
        let Some(gpu) = gpu("device_filtering_gives_the_default_engines_results") else {
            return;
        };
        let mut rng = Rng(0x6505);
        let mut compressed_cases = 0;
        for case in 0..60 {
            let g = random_graph(&mut rng);
            let p = random_pattern(&mut rng);
            let m = build_with_properties(&g);
            let q = bind(&m, &p);
            let sem = if rng.chance(50) {
                Semantics::Homomorphism
            } else {
                Semantics::Isomorphism
            };
            let opts = MatchOptions {
                semantics: sem,
                ..Default::default()
            };
            let want = sorted_ids(&execute(&m, &q, &opts).unwrap().rows);
            let engine = Engine::with_device(&m, EngineConfig::default(), gpu.clone()).unwrap();
            assert!(engine.uses_device());
            let got = sorted_ids(&engine.execute(&q, &opts).unwrap().rows);
            assert_eq!(got, want, "case {case}: {g:?} {p:?} {sem:?}");
            // Compressed graph on the device: a budget of one byte less than the graph.
            let budget = compress::model_bytes(&m) - 1;
            let packed = Engine::with_device(
                &m,
                EngineConfig {
                    device_memory: Some(budget),
                    compress: aggressive(),
                    ..Default::default()
                },
                gpu.clone(),
            );
            // (A graph whose nodes all differ in labels cannot get under the budget: an error.)
            if let Ok(packed) = packed {
                compressed_cases += 1;
                let got = sorted_ids(&packed.execute(&q, &opts).unwrap().rows);
                assert_eq!(got, want, "case {case} compressed: {g:?} {p:?} {sem:?}");
            }
        }
        assert!(
            compressed_cases >= 30,
            "{compressed_cases} compressed cases"
        );
    }

    #[test]
    fn example_queries_on_the_device_with_and_without_compression() {
        let Some(gpu) = gpu("example_queries_on_the_device_with_and_without_compression") else {
            return;
        };
        let m = sample_model();
        let engine = Engine::with_device(m, EngineConfig::default(), gpu.clone()).unwrap();
        check_examples(&engine, "device");
        let budget = compress::model_bytes(m) * 3 / 4;
        let packed = Engine::with_device(
            m,
            EngineConfig {
                device_memory: Some(budget),
                ..Default::default()
            },
            gpu,
        )
        .unwrap();
        assert!(packed.compressed().is_some());
        check_examples(&packed, "device, compressed");
    }

    #[test]
    fn all_hprd_queries_on_the_device() {
        let Some(gpu) = gpu("all_hprd_queries_on_the_device") else {
            return;
        };
        check_hprd("all_hprd_queries_on_the_device", &|m| {
            vec![(
                "device".into(),
                Engine::with_device(m, EngineConfig::default(), gpu.clone()).unwrap(),
            )]
        });
    }
}

mod cli {
    use std::process::{Command, Output};

    fn gemp(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_gemp"))
            .args(args)
            .output()
            .expect("run gemp")
    }

    fn query(name: &str) -> String {
        crate::common::root()
            .join("datasets/queries")
            .join(name)
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn engine_gpsense_prints_the_default_engines_rows() {
        let q = query("couples.cypher");
        let want = gemp(&["-q", "match", &q, "--format", "csv", "--backend", "host"]);
        assert!(want.status.success());
        let got = gemp(&[
            "-q",
            "match",
            &q,
            "--format",
            "csv",
            "--backend",
            "host",
            "--engine",
            "gpsense",
        ]);
        assert!(
            got.status.success(),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(got.stdout, want.stdout);
        assert!(want.stdout.len() > 100);
    }

    #[test]
    fn device_memory_compresses_beside_the_snapshot_and_needs_gpsense() {
        let dir = tempfile::tempdir().unwrap();
        let snap = dir.path().join("sample.gemp");
        let sample = crate::common::root().join("datasets/imdb-sample");
        let out = gemp(&[
            "-q",
            "load",
            sample.to_str().unwrap(),
            "-o",
            snap.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let m = crate::common::sample_model();
        let budget = (gemp::engines::gpsense::compress::model_bytes(m) * 3 / 4).to_string();
        let q = query("costar-triangle.cypher");
        let args = |engine: &'static str| {
            vec![
                "-q".to_string(),
                "match".into(),
                "--model".into(),
                snap.to_string_lossy().into_owned(),
                q.clone(),
                "--format".into(),
                "csv".into(),
                "--backend".into(),
                "host".into(),
                "--engine".into(),
                engine.into(),
            ]
        };
        let want = gemp(&args("gemp").iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let mut with_budget = args("gpsense");
        with_budget.extend(["--device-memory".to_string(), budget]);
        let argv: Vec<&str> = with_budget.iter().map(|s| s.as_str()).collect();
        let got = gemp(&argv);
        assert!(
            got.status.success(),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(got.stdout, want.stdout);
        assert!(dir.path().join("sample.gemp.gpsense").is_file());
        // Reused on the next run (same output).
        let again = gemp(&argv);
        assert_eq!(again.stdout, want.stdout);
        // --device-memory without --engine gpsense is refused.
        let mut wrong = args("gemp");
        wrong.extend(["--device-memory".to_string(), "1000".to_string()]);
        let out = gemp(&wrong.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("--engine gpsense"));
    }
}
