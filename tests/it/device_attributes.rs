//! Phase 2 on the device against the host matcher: random patterns with random string conjuncts
//! (=, <>, <, <=, >, >=, CONTAINS, STARTS WITH, ENDS WITH, IN, literal on either side), regular
//! expressions and mixed string logic (host share), over random graphs with string, integer and
//! missing properties (empty and non-ASCII strings included).
//!
//! Every test skips with a message (and passes) when the machine has no OpenCL platform.

#![cfg(feature = "opencl")]

use crate::common;
use common::{gpu, Rng};

use std::sync::Arc;

use gemp::engines::gemp::device::{attributes, DeviceConfig, DeviceMatcher};
use gemp::engines::gemp::{execute, prepare};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::gpu::Gpu;
use gemp::model::{Model, ModelBuilder, Value, ValueRef};
use gemp::pattern::ir::*;
use proptest::prelude::*;

const STRINGS: [&str; 10] = [
    "", "a", "ab", "ba", "Jack", "Jackson", "é", "aé", "b", "Zoë",
];
const LITERALS: [&str; 8] = ["", "a", "Jack", "ck", "é", "b", "ab", "Zz"];

fn graph(rng: &mut Rng) -> Model {
    let n = 3 + rng.below(9);
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    let (name, title, x) = (
        b.node_property("name"),
        b.node_property("title"),
        b.node_property("x"),
    );
    let mut ids = Vec::new();
    for i in 0..n {
        let label = ["A", "B"][rng.below(2)];
        let id = b.add_node(&format!("{i}"), &[label]);
        if rng.chance(80) {
            let s = STRINGS[rng.below(STRINGS.len())];
            b.set_node_property(id, name, ValueRef::Str(s)).unwrap();
        }
        if label == "B" && rng.chance(80) {
            let s = STRINGS[rng.below(STRINGS.len())];
            b.set_node_property(id, title, ValueRef::Str(s)).unwrap();
        }
        if rng.chance(70) {
            b.set_node_property(id, x, ValueRef::Int(rng.below(3) as i64))
                .unwrap();
        }
        ids.push(id);
    }
    for _ in 0..rng.below(3 * n) {
        b.add_edge(ids[rng.below(n)], ids[rng.below(n)], t).unwrap();
    }
    b.freeze().unwrap()
}

fn lit(rng: &mut Rng) -> Box<Expr> {
    Box::new(Expr::Literal(Value::Str(
        LITERALS[rng.below(LITERALS.len())].into(),
    )))
}

fn prop(rng: &mut Rng, k: usize) -> Box<Expr> {
    let key = ["name", "name", "title", "x", "none"][rng.below(5)];
    Box::new(Expr::Property(
        Box::new(Expr::Node(rng.below(k))),
        key.into(),
    ))
}

/// A device-shaped string conjunct.
fn simple(rng: &mut Rng, k: usize) -> Expr {
    let ops = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];
    match rng.below(6) {
        0 => Expr::Compare(ops[rng.below(6)], prop(rng, k), lit(rng)),
        1 => Expr::Compare(ops[rng.below(6)], lit(rng), prop(rng, k)),
        2 => Expr::Str(
            [StrOp::Contains, StrOp::StartsWith, StrOp::EndsWith][rng.below(3)],
            prop(rng, k),
            lit(rng),
        ),
        3 => Expr::Str(StrOp::Contains, prop(rng, k), lit(rng)),
        4 => Expr::In(
            prop(rng, k),
            Box::new(Expr::List((0..rng.below(4)).map(|_| *lit(rng)).collect())),
        ),
        _ => Expr::Compare(CmpOp::Eq, prop(rng, k), lit(rng)),
    }
}

/// A string conjunct the host evaluates.
fn host_only(rng: &mut Rng, k: usize) -> Expr {
    match rng.below(4) {
        0 => {
            let re = ["J.*", "a|b", ".*é", ""][rng.below(4)];
            Expr::Regex(
                prop(rng, k),
                WholeRegex(regex::Regex::new(&format!("^(?:{re})$")).unwrap()),
            )
        }
        1 => Expr::Or(vec![simple(rng, k), simple(rng, k)]),
        2 => Expr::Not(Box::new(simple(rng, k))),
        _ => Expr::Str(StrOp::Contains, lit(rng), prop(rng, k)),
    }
}

fn rows_projection(k: usize) -> Projection {
    Projection {
        items: (0..k)
            .map(|i| ProjItem {
                expr: Expr::Id(Box::new(Expr::Node(i))),
                name: format!("n{i}"),
            })
            .collect(),
        distinct: false,
        filter: None,
        order_by: vec![],
        skip: None,
        limit: None,
    }
}

fn sorted(rows: &[Vec<Val<'_>>]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
    v.sort();
    v
}

fn check(gpu: Arc<Gpu>, seed: u64) {
    let mut rng = Rng(seed);
    let m = graph(&mut rng);
    let k = 1 + rng.below(3);
    let pattern = Pattern {
        nodes: (0..k)
            .map(|i| NodeVar {
                name: format!("n{i}"),
                named: true,
                labels: vec![],
            })
            .collect(),
        rels: (1..k)
            .map(|i| RelVar {
                name: format!("_r{i}"),
                named: false,
                src: i - 1,
                dst: i,
                types: vec![],
                undirected: rng.chance(50),
                clause: 0,
            })
            .collect(),
    };
    let mut filter = Vec::new();
    for _ in 0..1 + rng.below(3) {
        filter.push(if rng.chance(75) {
            simple(&mut rng, k)
        } else {
            host_only(&mut rng, k)
        });
    }
    if rng.chance(30) {
        // A numeric conjunct too (phase 1).
        filter.push(Expr::Compare(
            CmpOp::Ge,
            Box::new(Expr::Property(Box::new(Expr::Node(0)), "x".into())),
            Box::new(Expr::Literal(Value::Int(1))),
        ));
    }
    let mut q = BoundQuery {
        pattern,
        filter,
        stages: vec![rows_projection(k)],
        clauses: None,
    };
    let opts = MatchOptions {
        semantics: if rng.chance(50) {
            Semantics::Isomorphism
        } else {
            Semantics::Homomorphism
        },
        ..Default::default()
    };
    // Every device-shaped conjunct really goes to the attribute kernel.
    let (plan, _, _) = prepare(&m, &q, opts.semantics);
    let split = attributes::split(&q, &plan);
    for (i, c) in q.filter.iter().enumerate() {
        if attributes::device_predicate(c).is_some() && c.is_string_predicate() {
            assert!(split.device_conjuncts.contains(&i), "{c:?}");
        }
    }
    let dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    let host = execute(&m, &q, &opts).unwrap();
    let (device, t) = dev.execute_timed(&q, &opts).unwrap();
    assert_eq!(
        sorted(&device.rows),
        sorted(&host.rows),
        "seed {seed}: {:#?}",
        q.filter
    );
    assert_eq!(t.phase2_matches, host.count);
    let mut shared = DeviceMatcher::new(dev.gpu_arc(), &m, DeviceConfig::default()).unwrap();
    shared.config.host_threads = Some(2);
    shared.config.host_chunk = 1;
    shared.config.max_threads = 1;
    shared.config.result_buffer_words = 4; // phase 2 runs on many small rounds
    let device = shared.execute(&q, &opts).unwrap();
    assert_eq!(
        sorted(&device.rows),
        sorted(&host.rows),
        "seed {seed} (host threads)"
    );
    // count(*) and --count through the same phases.
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
    q.stages = vec![Projection {
        items: vec![ProjItem {
            expr: Expr::Aggregate {
                func: AggFn::Count,
                distinct: false,
                arg: None,
            },
            name: "c".into(),
        }],
        ..rows_projection(0)
    }];
    let host = execute(&m, &q, &opts).unwrap();
    let device = dev.execute(&q, &opts).unwrap();
    assert_eq!(device.rows, host.rows);
}

/// Seeds the property test once failed on, kept as fixed cases: `NOT (n2.x IN [])` on a node
/// without `x` (null IN [] is false, so NOT gives true; the kernel gave null).
#[test]
fn device_attributes_equal_host_on_past_failures() {
    let Some(gpu) = gpu("device_attributes_equal_host_on_past_failures") else {
        return;
    };
    check(gpu, 1374636345409431397);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn device_attributes_equal_host(seed in any::<u64>()) {
        let Some(gpu) = gpu("device_attributes_equal_host") else { return Ok(()); };
        check(gpu, seed);
    }
}

/// The kernel's semantics equal the host's on every (value, operator, literal) combination.
#[test]
fn every_operator_on_every_value() {
    let Some(gpu) = gpu("every_operator_on_every_value") else {
        return;
    };
    let mut b = ModelBuilder::new();
    let (s, x) = (b.node_property("s"), b.node_property("x"));
    let t = b.rel_type("T");
    let hub = b.add_node("hub", &["H"]);
    for (i, v) in STRINGS.iter().enumerate() {
        let id = b.add_node(&format!("s{i}"), &["V"]);
        b.set_node_property(id, s, ValueRef::Str(v)).unwrap();
        b.add_edge(hub, id, t).unwrap();
    }
    let other = b.add_node("int", &["V"]);
    b.set_node_property(other, x, ValueRef::Int(1)).unwrap();
    b.add_edge(hub, other, t).unwrap();
    let null = b.add_node("null", &["V"]);
    b.add_edge(hub, null, t).unwrap();
    let m = b.freeze().unwrap();
    let dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    let v_label = m.labels().get("V").unwrap();
    for key in ["s", "x"] {
        for l in LITERALS {
            let p = || Box::new(Expr::Property(Box::new(Expr::Node(1)), key.into()));
            let li = || Box::new(Expr::Literal(Value::Str(l.into())));
            let mut conjuncts = vec![
                Expr::Str(StrOp::Contains, p(), li()),
                Expr::Str(StrOp::StartsWith, p(), li()),
                Expr::Str(StrOp::EndsWith, p(), li()),
                Expr::In(p(), Box::new(Expr::List(vec![*li(), *li()]))),
            ];
            for op in [
                CmpOp::Eq,
                CmpOp::Ne,
                CmpOp::Lt,
                CmpOp::Le,
                CmpOp::Gt,
                CmpOp::Ge,
            ] {
                conjuncts.push(Expr::Compare(op, p(), li()));
                conjuncts.push(Expr::Compare(op, li(), p()));
            }
            for c in conjuncts {
                let q = BoundQuery {
                    pattern: Pattern {
                        nodes: vec![
                            NodeVar {
                                name: "h".into(),
                                named: true,
                                labels: vec![],
                            },
                            NodeVar {
                                name: "v".into(),
                                named: true,
                                labels: vec![vec![v_label]],
                            },
                        ],
                        rels: vec![RelVar {
                            name: "_r".into(),
                            named: false,
                            src: 0,
                            dst: 1,
                            types: vec![],
                            undirected: false,
                            clause: 0,
                        }],
                    },
                    filter: vec![c.clone()],
                    stages: vec![rows_projection(2)],
                    clauses: None,
                };
                let host = execute(&m, &q, &MatchOptions::default()).unwrap();
                let device = dev.execute(&q, &MatchOptions::default()).unwrap();
                assert_eq!(sorted(&device.rows), sorted(&host.rows), "{c:?}");
            }
        }
    }
}
