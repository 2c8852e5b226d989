//! The OpenCL phase-1 pipeline against the host matcher: random labelled multigraphs × random
//! patterns (named, anonymous, undirected, multi-type, any-type, self-loop relationships,
//! disconnected components), both semantics, comparing counts and sorted binding sets; the pivot
//! step against the host filter; all HPRD queries against the published counts.
//!
//! Every test skips with a message (and passes) when the machine has no OpenCL platform.

#![cfg(feature = "opencl")]

use crate::common;
use common::random_graphs::{build, graph, pattern_vars, RelSpec, G};
use common::{count_star, gpu, hprd_dir};

use std::time::Instant;

use gemp::engines::gemp::device::{DeviceConfig, DeviceMatcher};
use gemp::engines::gemp::{execute, prepare};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::io::{subgraph_bench, LoadOptions, LoadReport};
use gemp::model::Model;
use gemp::pattern::bench_query;
use gemp::pattern::ir::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct P {
    labels: Vec<Option<u8>>,
    /// src, dst, types (0 = any, 1 = T0, 2 = T1, 3 = [T1, T0]), undirected, named
    rels: Vec<(usize, usize, u8, bool, bool)>,
}

fn pattern() -> impl Strategy<Value = P> {
    (1usize..5).prop_flat_map(|k| {
        (
            prop::collection::vec(prop::option::of(0u8..2), k),
            prop::collection::vec(
                (
                    0..k,
                    0..k,
                    0u8..4,
                    any::<bool>(),
                    prop::bool::weighted(0.35),
                ),
                0..5,
            ),
        )
            .prop_map(|(labels, rels)| P { labels, rels })
    })
}

fn bind(m: &Model, p: &P) -> BoundQuery {
    // Type 0: any; 1: T0; 2: T1; 3: T1|T0.
    let rels: Vec<RelSpec> = p
        .rels
        .iter()
        .map(|&(s, d, t, undirected, named)| {
            let types = match t {
                0 => vec![],
                1 => vec![0],
                2 => vec![1],
                _ => vec![1, 0],
            };
            (s, d, types, undirected, named)
        })
        .collect();
    BoundQuery {
        pattern: pattern_vars(m, &p.labels, &rels),
        filter: vec![],
        stages: vec![],
        clauses: None,
    }
}

/// id() of every node, then of every named relationship.
fn binding_rows(q: &BoundQuery) -> Projection {
    let mut items: Vec<ProjItem> = (0..q.pattern.nodes.len())
        .map(|i| ProjItem {
            expr: Expr::Id(Box::new(Expr::Node(i))),
            name: format!("n{i}"),
        })
        .collect();
    for (i, r) in q.pattern.rels.iter().enumerate() {
        if r.named {
            items.push(ProjItem {
                expr: Expr::Id(Box::new(Expr::Rel(i))),
                name: format!("r{i}"),
            });
        }
    }
    Projection {
        items,
        distinct: false,
        filter: None,
        order_by: vec![],
        skip: None,
        limit: None,
    }
}

fn sorted_ints(rows: &[Vec<Val<'_>>]) -> Vec<Vec<i64>> {
    let mut v: Vec<Vec<i64>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| match x {
                    Val::Int(i) => *i,
                    _ => -1,
                })
                .collect()
        })
        .collect();
    v.sort();
    v
}

/// Compares the device with the host on `q` (its filter kept): counts, sorted bindings, pivots.
fn compare(dev: &DeviceMatcher<'_>, m: &Model, q: &BoundQuery, sem: Semantics) {
    let opts = MatchOptions {
        semantics: sem,
        ..Default::default()
    };
    let mut q = q.clone();
    // Pivots equal the host filter's candidates of the pivot.
    let (plan, cands, _) = prepare(m, &q, sem);
    let pivots = dev.pivots(&q, sem).unwrap();
    assert_eq!(pivots, cands[plan.steps[0].node].nodes, "pivots of {q:?}");

    q.stages = vec![count_star()];
    let host = execute(m, &q, &opts).unwrap();
    let device = dev.execute(&q, &opts).unwrap();
    assert_eq!(device.rows, host.rows, "count(*) of {q:?} {sem:?}");
    assert_eq!(device.columns, host.columns);

    q.stages = vec![binding_rows(&q)];
    let host = execute(m, &q, &opts).unwrap();
    let device = dev.execute(&q, &opts).unwrap();
    assert_eq!(device.columns, host.columns);
    assert_eq!(
        sorted_ints(&device.rows),
        sorted_ints(&host.rows),
        "bindings of {q:?} {sem:?}"
    );
    // Streamed round by round, the same rows arrive (in some order), and LIMIT stops the stream.
    let mut streamed = Vec::new();
    let (summary, _) = dev
        .execute_streaming(&q, &opts, &mut |cols, rows| {
            assert_eq!(cols, host.columns.as_slice());
            streamed.extend(rows.iter().cloned());
            Ok(())
        })
        .unwrap();
    assert_eq!(summary.count, host.count);
    assert_eq!(
        sorted_ints(&streamed),
        sorted_ints(&host.rows),
        "streamed {q:?}"
    );
    let mut limited = q.clone();
    limited.stages[0].limit = Some(3);
    let mut n = 0;
    let (summary, _) = dev
        .execute_streaming(&limited, &opts, &mut |_, rows| {
            n += rows.len() as u64;
            Ok(())
        })
        .unwrap();
    assert_eq!((summary.count, n), (host.count.min(3), host.count.min(3)));
    // The raw matches agree too.
    let matches = dev.matches(&q, sem).unwrap();
    assert_eq!(matches.len() as u64, host.count);
    let mut raw: Vec<Vec<i64>> = matches
        .iter()
        .map(|(nodes, named)| {
            let mut row: Vec<i64> = nodes.iter().map(|&x| x as i64).collect();
            let rels = matches.rels_by_slot(named);
            for (i, r) in q.pattern.rels.iter().enumerate() {
                if r.named {
                    row.push(rels[i] as i64);
                } else {
                    assert_eq!(rels[i], u32::MAX);
                }
            }
            row
        })
        .collect();
    raw.sort();
    assert_eq!(raw, sorted_ints(&host.rows));
    // --count of plain rows.
    let c = dev
        .execute(
            &q,
            &MatchOptions {
                count_only: true,
                ..opts.clone()
            },
        )
        .unwrap();
    assert_eq!(c.count, host.count);
    assert_eq!(dev.count(&q, sem).unwrap(), host.count);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn device_equals_host(g in graph(10, 26), p in pattern(), homo in any::<bool>()) {
        let Some(gpu) = gpu("device_equals_host") else { return Ok(()); };
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
        compare(&dev, &m, &bind(&m, &p), sem);
    }
}

/// Configurations that force many rounds: result buffers of a handful of slots, a single
/// work-item per round, and step budgets that suspend work-items at arbitrary depths.
fn round_configs() -> Vec<DeviceConfig> {
    let base = DeviceConfig::default();
    vec![
        DeviceConfig {
            result_buffer_words: 1, // one slot
            max_threads: 4,
            ..base.clone()
        },
        DeviceConfig {
            result_buffer_words: 3 * 8,
            max_threads: 1,
            ..base.clone()
        },
        DeviceConfig {
            step_budget: 1,
            ..base.clone()
        },
        DeviceConfig {
            result_buffer_words: 2 * 8,
            initial_threads: Some(1),
            step_budget: 3,
            growth: 1.5,
            ..base.clone()
        },
        // Host threads take pivots from the back while the device takes rounds from the front.
        DeviceConfig {
            result_buffer_words: 4 * 8,
            initial_threads: Some(1),
            host_threads: Some(2),
            host_chunk: 1,
            ..base
        },
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn device_rounds_equal_host(g in graph(10, 26), p in pattern(), homo in any::<bool>()) {
        let Some(gpu) = gpu("device_rounds_equal_host") else { return Ok(()); };
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let mut dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
        let q = bind(&m, &p);
        for config in round_configs() {
            dev.config = config;
            compare(&dev, &m, &q, sem);
        }
    }
}

#[test]
fn tiny_buffers_take_many_rounds() {
    let Some(gpu) = gpu("tiny_buffers_take_many_rounds") else {
        return;
    };
    // A star: one hub with 12 out-neighbours; pattern hub -> a, hub -> b: 12 * 11 matches, all from
    // one pivot, with a one-slot buffer.
    let g = G {
        labels: vec![0; 13],
        edges: (1..13).map(|i| (0, i, 0)).collect(),
    };
    let m = build(&g);
    let p = P {
        labels: vec![None, None, None],
        rels: vec![(0, 1, 1, false, false), (0, 2, 1, false, true)],
    };
    let mut q = bind(&m, &p);
    q.stages = vec![binding_rows(&q)];
    let mut dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    dev.config.result_buffer_words = 1;
    let (out, t) = dev.execute_timed(&q, &MatchOptions::default()).unwrap();
    assert_eq!(out.count, 132);
    assert!(t.rounds >= 132, "{t:?}");
    assert!(t.overflows >= 131, "{t:?}");
    assert_eq!(t.phase1_matches, 132);
    let host = execute(&m, &q, &MatchOptions::default()).unwrap();
    assert_eq!(sorted_ints(&out.rows), sorted_ints(&host.rows));
    // Step budget 1: every launch suspends every work-item after one iteration.
    dev.config = DeviceConfig {
        step_budget: 1,
        ..DeviceConfig::default()
    };
    let (out, t) = dev.execute_timed(&q, &MatchOptions::default()).unwrap();
    assert_eq!(sorted_ints(&out.rows), sorted_ints(&host.rows));
    assert!(t.rounds > 100, "{t:?}");
    assert_eq!(t.overflows, 0);
}

/// A denser graph with parallel edges and self loops, bigger patterns.
#[test]
fn dense_multigraph_patterns() {
    let Some(gpu) = gpu("dense_multigraph_patterns") else {
        return;
    };
    let mut seed = 0x1234_5678u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for round in 0..12 {
        let n = 12 + next(10);
        let g = G {
            labels: (0..n).map(|_| next(2) as u8).collect(),
            edges: (0..n * 4)
                .map(|_| {
                    let u = next(n);
                    let v = if next(8) == 0 { u } else { next(n) };
                    (u, v, next(2) as u8)
                })
                .collect(),
        };
        let m = build(&g);
        let dev = DeviceMatcher::new(gpu.clone(), &m, DeviceConfig::default()).unwrap();
        for _ in 0..6 {
            let k = 2 + next(4);
            let p = P {
                labels: (0..k).map(|_| [None, Some(0), Some(1)][next(3)]).collect(),
                rels: (0..k + next(3))
                    .map(|i| {
                        // A spanning chain first, then random extra relationships.
                        let (s, d) = if i + 1 < k {
                            (i, i + 1)
                        } else {
                            (next(k), next(k))
                        };
                        (s, d, next(4) as u8, next(2) == 0, next(3) == 0)
                    })
                    .collect(),
            };
            let q = bind(&m, &p);
            let sem = if round % 2 == 0 {
                Semantics::Isomorphism
            } else {
                Semantics::Homomorphism
            };
            compare(&dev, &m, &q, sem);
            let mut small = DeviceMatcher::new(gpu.clone(), &m, DeviceConfig::default()).unwrap();
            for config in round_configs() {
                small.config = config;
                compare(&small, &m, &q, sem);
            }
        }
    }
}

#[test]
fn all_hprd_queries_give_the_published_counts_on_the_device() {
    let Some(gpu) = gpu("all_hprd_queries_give_the_published_counts_on_the_device") else {
        return;
    };
    let Some(dir) = hprd_dir("all_hprd_queries_give_the_published_counts_on_the_device") else {
        return;
    };
    let opts = LoadOptions::default();
    let (model, _) = subgraph_bench::load(&dir.join("HPRD.graph"), &opts).unwrap();
    let dev = DeviceMatcher::new(gpu.clone(), &model, DeviceConfig::default()).unwrap();
    let mut small = DeviceMatcher::new(gpu, &model, DeviceConfig::default()).unwrap();
    small.config.result_buffer_words = 16 * 40; // 40 rows of 16 nodes
    let expected = std::fs::read_to_string(dir.join("expected_counts.txt")).unwrap();
    let (mut device_secs, mut host_secs) = (0.0f64, 0.0f64);
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
        let q = bench_query::bind(&g, &model);
        let count_opts = MatchOptions {
            count_only: true,
            ..Default::default()
        };
        let start = Instant::now();
        let out = dev.execute(&q, &count_opts).unwrap();
        device_secs += start.elapsed().as_secs_f64();
        assert_eq!(out.count, count, "{name} (device count mode)");
        assert!(!out.partial);
        let start = Instant::now();
        let host = execute(&model, &q, &count_opts).unwrap();
        host_secs += start.elapsed().as_secs_f64();
        assert_eq!(host.count, count, "{name} (host)");
        // Bindings mode gives the same embeddings as the host, also with a result buffer of a
        // few rows (many overflow rounds).
        if checked % 10 == 0 {
            let host_rows =
                sorted_ints(&execute(&model, &q, &MatchOptions::default()).unwrap().rows);
            let rows = dev.execute(&q, &MatchOptions::default()).unwrap();
            assert_eq!(sorted_ints(&rows.rows), host_rows, "{name} (bindings)");
            let (rows, t) = small.execute_timed(&q, &MatchOptions::default()).unwrap();
            assert_eq!(sorted_ints(&rows.rows), host_rows, "{name} (small buffer)");
            assert!(count < 100 || t.overflows > 0, "{name}: {t:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 100);
    // Host threads sharing the pivots with the device give the same counts.
    let mut shared = DeviceMatcher::new(
        dev.gpu_arc(),
        &model,
        DeviceConfig {
            host_threads: Some(1),
            host_chunk: 2,
            initial_threads: Some(4),
            max_threads: 4,
            ..DeviceConfig::default()
        },
    )
    .unwrap();
    let mut host_pivots = 0;
    for line in expected.lines().filter(|l| !l.trim().is_empty()).step_by(7) {
        let (name, count) = line.split_once(':').unwrap();
        let g = subgraph_bench::parse(
            &dir.join(format!("queries/{name}.graph")),
            &opts,
            &mut LoadReport::default(),
        )
        .unwrap();
        let q = bench_query::bind(&g, &model);
        for count_only in [true, false] {
            let (out, t) = shared
                .execute_timed(
                    &q,
                    &MatchOptions {
                        count_only,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert_eq!(out.count, count.trim().parse::<u64>().unwrap(), "{name}");
            host_pivots += t.host_pivots;
            assert!(t.host_pivots <= t.pivots);
        }
    }
    assert!(host_pivots > 0, "the host threads took no pivots");
    shared.config.host_threads = Some(0);
    eprintln!(
        "HPRD, 100 queries, count mode: device {device_secs:.3}s, host {host_secs:.3}s ({})",
        dev.gpu().info().name
    );
}

/// A pattern beyond the kernel's limits: `auto` runs it on the host (with the reason), `opencl`
/// refuses it with a clear error.
#[test]
fn oversized_patterns_fall_back_or_fail() {
    use gemp::session::Backend;
    use gemp::session::{Session, SessionOptions};
    let Some(dev) = gpu("oversized_patterns_fall_back_or_fail") else {
        return;
    };
    // `auto` uses a CPU device (PoCL) only when it is named.
    let named = SessionOptions {
        device: gemp::gpu::DeviceSelector::Index(dev.info().index),
        ..Default::default()
    };
    let g = G {
        labels: vec![0; 20],
        edges: (0..19).map(|i| (i, i + 1, 0)).collect(),
    };
    let m = build(&g);
    let k = 17;
    let p = P {
        labels: vec![None; k],
        rels: (0..k - 1).map(|i| (i, i + 1, 1, false, false)).collect(),
    };
    let mut q = bind(&m, &p);
    q.stages = vec![count_star()];
    let host = execute(&m, &q, &MatchOptions::default()).unwrap();
    assert_eq!(host.rows, vec![vec![Val::Int(4)]]);
    let auto = Session::new(&m, &named).unwrap();
    assert!(auto.uses_device());
    let (out, report) = auto.run(&q, &MatchOptions::default()).unwrap();
    assert_eq!(out.rows, host.rows);
    assert_eq!(report.backend, "host");
    assert!(report.fallback.unwrap().contains("at most 16"));
    let opencl = Session::new(
        &m,
        &SessionOptions {
            backend: Backend::Opencl,
            ..Default::default()
        },
    )
    .unwrap();
    let err = opencl.run(&q, &MatchOptions::default()).unwrap_err();
    assert!(err.to_string().contains("at most 16"), "{err}");
    // 16 nodes run on the device.
    let p16 = P {
        labels: vec![None; 16],
        rels: (0..15).map(|i| (i, i + 1, 1, false, true)).collect(),
    };
    let mut q16 = bind(&m, &p16);
    q16.stages = vec![count_star()];
    let (out, report) = opencl.run(&q16, &MatchOptions::default()).unwrap();
    assert!(report.backend.starts_with("opencl"));
    assert_eq!(out.rows, vec![vec![Val::Int(5)]]);
}

/// Under `auto`, a query the host counts without enumerating (a factorised plan) stays on the
/// host, with the reason in the report and in `explain`; `opencl` still runs it on the device;
/// an enumerating query runs on the device under `auto` too. Every run gives the host's answer.
#[test]
fn auto_leaves_factorised_counts_to_the_host() {
    use gemp::session::Backend;
    use gemp::session::{Session, SessionOptions};
    let Some(dev) = gpu("auto_leaves_factorised_counts_to_the_host") else {
        return;
    };
    let m = common::sample_model();
    let named = |backend| SessionOptions {
        backend,
        device: gemp::gpu::DeviceSelector::Index(dev.info().index),
        ..Default::default()
    };
    let auto = Session::new(m, &named(Backend::Auto)).unwrap();
    let opencl = Session::new(m, &named(Backend::Opencl)).unwrap();
    let host = Session::new(m, &SessionOptions::host()).unwrap();
    assert!(auto.uses_device());
    let options = MatchOptions::default();
    let couples = "MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person) \
                   WHERE id(p1) < id(p2) WITH p1, p2, count(t) AS shared WHERE shared >= 2 \
                   RETURN count(*) AS pairs, sum(shared) AS embeddings";
    let q = auto.compile(couples, &Default::default()).unwrap();
    let (want, _) = host.run(&q, &options).unwrap();
    let (got, report) = auto.run(&q, &options).unwrap();
    assert_eq!(got.rows, want.rows);
    assert_eq!(report.backend, "host");
    assert!(report.fallback.unwrap().contains("factorised"));
    assert!(auto
        .explain(&q, &options)
        .unwrap()
        .contains("--backend auto runs this query on the host"));
    let (got, report) = opencl.run(&q, &options).unwrap();
    assert_eq!(got.rows, want.rows);
    assert!(report.backend.starts_with("opencl"), "{}", report.backend);
    // Rows of every match: nothing to count, so the device takes it.
    let rows =
        "MATCH (p:Person)-[:DIRECTOR]->(t:Title) RETURN id(p) AS p, id(t) AS t ORDER BY p, t";
    let q = auto.compile(rows, &Default::default()).unwrap();
    let (want, _) = host.run(&q, &options).unwrap();
    let (got, report) = auto.run(&q, &options).unwrap();
    assert!(!want.rows.is_empty());
    assert_eq!(got.rows, want.rows);
    assert!(report.backend.starts_with("opencl"), "{}", report.backend);
    assert!(report.fallback.is_none());
}
