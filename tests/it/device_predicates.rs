//! Phase-1 predicates on the device against the host matcher: random patterns with random
//! numeric, id-order, label, null and NAC conjuncts over random property graphs (ints, floats with
//! NaN / ±0.0 / infinities / large values, booleans, nulls); the example queries of
//! datasets/queries/ on the bundled IMDb sample.
//!
//! Every test skips with a message (and passes) when the machine has no OpenCL platform.

#![cfg(feature = "opencl")]

use crate::common;
use common::{count_star, gpu, id_rows, sample_model, Rng};

use std::path::Path;
use std::sync::Arc;

use gemp::engines::gemp::device::{bytecode, DeviceConfig, DeviceMatcher};
use gemp::engines::gemp::{execute, prepare};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::gpu::Gpu;
use gemp::model::{Model, ModelBuilder, Value, ValueRef};
use gemp::pattern::ir::*;
use gemp::pattern::{compile, Params};
use proptest::prelude::*;

const FLOATS: [f64; 12] = [
    -1.5,
    0.0,
    -0.0,
    2.0,
    1.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    9007199254740992.0,
    9007199254740994.0,
    1e300,
    -3.0,
];
const INTS: [i64; 12] = [
    -3,
    -1,
    0,
    1,
    2,
    3,
    9007199254740993,
    9007199254740992,
    i64::MAX,
    i64::MIN,
    -9007199254740993,
    1 << 62,
];

fn int(rng: &mut Rng) -> i64 {
    if rng.chance(70) {
        rng.below(7) as i64 - 3
    } else {
        INTS[rng.below(INTS.len())]
    }
}

/// A random property graph: labels L0/L1, types T0/T1, node properties x (int), f (float),
/// b (bool), s (string); edge properties w (int), z (float); about a quarter of values null.
fn graph(rng: &mut Rng) -> Model {
    let n = 3 + rng.below(8);
    let mut b = ModelBuilder::new();
    let t: Vec<u32> = (0..2).map(|i| b.rel_type(&format!("T{i}"))).collect();
    b.label("L0");
    b.label("L1");
    let (x, f, bo, s) = (
        b.node_property("x"),
        b.node_property("f"),
        b.node_property("b"),
        b.node_property("s"),
    );
    let (w, z) = (b.edge_property("w"), b.edge_property("z"));
    let mut ids = Vec::new();
    for i in 0..n {
        let mut labels = vec![format!("L{}", rng.below(2))];
        if rng.chance(20) {
            labels.push("L1".into());
        }
        let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let id = b.add_node(&format!("{i}"), &refs);
        if rng.chance(75) {
            b.set_node_property(id, x, ValueRef::Int(int(rng))).unwrap();
        }
        if rng.chance(75) {
            let v = FLOATS[rng.below(FLOATS.len())];
            b.set_node_property(id, f, ValueRef::Float(v)).unwrap();
        }
        if rng.chance(75) {
            b.set_node_property(id, bo, ValueRef::Bool(rng.chance(50)))
                .unwrap();
        }
        if rng.chance(75) {
            let v = ["a", "b", "ab"][rng.below(3)];
            b.set_node_property(id, s, ValueRef::Str(v)).unwrap();
        }
        ids.push(id);
    }
    for _ in 0..rng.below(3 * n) {
        let (u, v) = (ids[rng.below(n)], ids[rng.below(n)]);
        let e = b.add_edge(u, v, t[rng.below(2)]).unwrap();
        if rng.chance(75) {
            b.set_edge_property(e, w, ValueRef::Int(int(rng))).unwrap();
        }
        if rng.chance(50) {
            let v = FLOATS[rng.below(FLOATS.len())];
            b.set_edge_property(e, z, ValueRef::Float(v)).unwrap();
        }
    }
    b.freeze().unwrap()
}

fn pattern(rng: &mut Rng, m: &Model) -> Pattern {
    let k = 1 + rng.below(4);
    let label = |l: usize| m.labels().get(&format!("L{l}")).unwrap();
    let ty = |t: usize| m.rel_types().get(&format!("T{t}")).unwrap();
    let nodes = (0..k)
        .map(|i| NodeVar {
            name: format!("n{i}"),
            named: true,
            labels: if rng.chance(40) {
                vec![vec![label(rng.below(2))]]
            } else {
                vec![]
            },
        })
        .collect();
    let rels = (0..rng.below(k + 2))
        .map(|i| {
            let (src, dst) = if i + 1 < k {
                (i, i + 1)
            } else {
                (rng.below(k), rng.below(k))
            };
            RelVar {
                name: format!("r{i}"),
                named: rng.chance(50),
                src,
                dst,
                types: match rng.below(3) {
                    0 => vec![],
                    t => vec![ty(t - 1)],
                },
                undirected: rng.chance(30),
                clause: 0,
            }
        })
        .collect();
    Pattern { nodes, rels }
}

struct FilterGen<'a> {
    m: &'a Model,
    p: &'a Pattern,
    /// Also generate conjuncts the device cannot evaluate (strings, arithmetic).
    residual: bool,
}

impl FilterGen<'_> {
    fn node(&self, rng: &mut Rng) -> Box<Expr> {
        Box::new(Expr::Node(rng.below(self.p.nodes.len())))
    }

    fn named_rel(&self, rng: &mut Rng) -> Option<usize> {
        let named: Vec<usize> = (0..self.p.rels.len())
            .filter(|&i| self.p.rels[i].named)
            .collect();
        (!named.is_empty()).then(|| named[rng.below(named.len())])
    }

    fn literal(&self, rng: &mut Rng) -> Expr {
        Expr::Literal(match rng.below(5) {
            0 => Value::Null,
            1 => Value::Bool(rng.chance(50)),
            2 => Value::Float(FLOATS[rng.below(FLOATS.len())]),
            _ => Value::Int(int(rng)),
        })
    }

    /// A scalar operand.
    fn value(&self, rng: &mut Rng, depth: usize) -> Expr {
        match rng.below(12) {
            0 | 1 => self.literal(rng),
            2 | 3 => Expr::Id(self.node(rng)),
            4 => Expr::Property(self.node(rng), "x".into()),
            5 => Expr::Property(self.node(rng), "f".into()),
            6 => Expr::Property(self.node(rng), "b".into()),
            7 => Expr::Property(self.node(rng), "missing".into()),
            8 => match self.named_rel(rng) {
                Some(r) => {
                    let key = ["w", "z", "none"][rng.below(3)];
                    Expr::Property(Box::new(Expr::Rel(r)), key.into())
                }
                None => self.literal(rng),
            },
            9 => match self.named_rel(rng) {
                Some(r) if rng.chance(50) => Expr::Id(Box::new(Expr::Rel(r))),
                Some(r) => Expr::Rel(r),
                None => *self.node(rng),
            },
            10 if depth > 0 => Expr::Neg(Box::new(self.value(rng, depth - 1))),
            10 => *self.node(rng),
            _ if self.residual && rng.chance(50) => Expr::Arith(
                ArithOp::Add,
                Box::new(Expr::Property(self.node(rng), "x".into())),
                Box::new(Expr::Literal(Value::Int(1))),
            ),
            _ => Expr::Property(self.node(rng), "x".into()),
        }
    }

    fn nac(&self, rng: &mut Rng) -> Expr {
        let k = self.p.nodes.len();
        let ty = |t: usize| self.m.rel_types().get(&format!("T{t}")).unwrap();
        let label = |l: usize| self.m.labels().get(&format!("L{l}")).unwrap();
        let types = match rng.below(3) {
            0 => vec![],
            t => vec![ty(t - 1)],
        };
        let a = rng.below(k);
        let mut nodes = vec![NodeVar {
            name: "a".into(),
            named: true,
            labels: if rng.chance(20) {
                vec![vec![label(rng.below(2))]]
            } else {
                vec![]
            },
        }];
        let mut anchors = vec![(a, 0)];
        let b_outer = rng.below(k);
        let to_anchor = rng.chance(50) && b_outer != a;
        if to_anchor {
            anchors.push((b_outer, 1));
        }
        nodes.push(NodeVar {
            name: "b".into(),
            named: true,
            labels: if rng.chance(40) {
                vec![vec![label(rng.below(2))]]
            } else {
                vec![]
            },
        });
        let (src, dst) = if rng.chance(50) { (0, 1) } else { (1, 0) };
        let sub = SubPattern {
            anchors,
            pattern: Pattern {
                nodes,
                rels: vec![RelVar {
                    name: "_s".into(),
                    named: false,
                    src,
                    dst,
                    types,
                    undirected: rng.chance(30),
                    clause: 0,
                }],
            },
            filter: vec![],
        };
        let e = Expr::Exists(Box::new(sub));
        if rng.chance(60) {
            Expr::Not(Box::new(e))
        } else {
            e
        }
    }

    /// A boolean-ish condition.
    fn cond(&self, rng: &mut Rng, depth: usize) -> Expr {
        let op = [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ][rng.below(6)];
        match rng.below(if depth == 0 { 5 } else { 11 }) {
            0..=2 => Expr::Compare(
                op,
                Box::new(self.value(rng, depth)),
                Box::new(self.value(rng, depth)),
            ),
            3 => Expr::IsNull(Box::new(self.value(rng, depth)), rng.chance(50)),
            4 => {
                let label = self.m.labels().get(&format!("L{}", rng.below(2))).unwrap();
                Expr::HasLabels(self.node(rng), vec![vec![label]])
            }
            5 => Expr::Not(Box::new(self.cond(rng, depth - 1))),
            6 => Expr::And(
                (0..1 + rng.below(3))
                    .map(|_| self.cond(rng, depth - 1))
                    .collect(),
            ),
            7 => Expr::Or(
                (0..1 + rng.below(3))
                    .map(|_| self.cond(rng, depth - 1))
                    .collect(),
            ),
            8 => Expr::Xor(
                Box::new(self.cond(rng, depth - 1)),
                Box::new(self.cond(rng, depth - 1)),
            ),
            9 => Expr::In(
                Box::new(self.value(rng, depth - 1)),
                Box::new(Expr::List(
                    (0..rng.below(4)).map(|_| self.value(rng, 0)).collect(),
                )),
            ),
            _ if self.residual && rng.chance(30) => Expr::Compare(
                CmpOp::Eq,
                Box::new(Expr::Property(self.node(rng), "s".into())),
                Box::new(Expr::Property(self.node(rng), "s".into())),
            ),
            _ => self.nac(rng),
        }
    }

    /// Conjuncts: id orders, numeric conditions, NACs.
    fn filter(&self, rng: &mut Rng) -> Vec<Expr> {
        let k = self.p.nodes.len();
        let mut out = Vec::new();
        for _ in 0..rng.below(4) {
            out.push(match rng.below(4) {
                0 => Expr::Compare(
                    CmpOp::Lt,
                    Box::new(Expr::Id(Box::new(Expr::Node(rng.below(k))))),
                    Box::new(Expr::Id(Box::new(Expr::Node(rng.below(k))))),
                ),
                1 => self.nac(rng),
                _ => self.cond(rng, 2),
            });
        }
        out
    }
}

fn sorted_strings(rows: &[Vec<Val<'_>>]) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| format!("{x:?}"))
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    v.sort();
    v
}

fn check_case(gpu: Arc<Gpu>, seed: u64, residual: bool) {
    let mut rng = Rng(seed);
    let m = graph(&mut rng);
    let p = pattern(&mut rng, &m);
    let k = p.nodes.len();
    let gen = FilterGen {
        m: &m,
        p: &p,
        residual,
    };
    let filter = gen.filter(&mut rng);
    let mut q = BoundQuery {
        pattern: p.clone(),
        filter,
        stages: vec![count_star()],
        clauses: None,
    };
    let sem = if rng.chance(50) {
        Semantics::Homomorphism
    } else {
        Semantics::Isomorphism
    };
    let (plan, _, _) = prepare(&m, &q, sem);
    let compiled = bytecode::compile(&m, &q, &plan);
    if !residual {
        assert!(compiled.residual.is_empty(), "residual {:?}", q.filter);
    }
    let dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    let opts = MatchOptions {
        semantics: sem,
        ..Default::default()
    };
    let host = execute(&m, &q, &opts).unwrap();
    let device = dev.execute(&q, &opts).unwrap();
    assert_eq!(device.rows, host.rows, "seed {seed}: {q:#?}");
    q.stages = vec![id_rows(k)];
    let host = execute(&m, &q, &opts).unwrap();
    let device = dev.execute(&q, &opts).unwrap();
    assert_eq!(
        sorted_strings(&device.rows),
        sorted_strings(&host.rows),
        "seed {seed}: {q:#?}"
    );
    // With host threads sharing the pivots.
    let mut dev = dev;
    dev.config.host_threads = Some(2);
    dev.config.host_chunk = 1;
    dev.config.max_threads = 2;
    let device = dev.execute(&q, &opts).unwrap();
    assert_eq!(
        sorted_strings(&device.rows),
        sorted_strings(&host.rows),
        "seed {seed} (host threads): {q:#?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]
    #[test]
    fn device_predicates_equal_host(seed in any::<u64>()) {
        let Some(gpu) = gpu("device_predicates_equal_host") else { return Ok(()); };
        check_case(gpu, seed, false);
    }

    #[test]
    fn residual_conjuncts_equal_host(seed in any::<u64>()) {
        let Some(gpu) = gpu("residual_conjuncts_equal_host") else { return Ok(()); };
        check_case(gpu, seed, true);
    }
}

/// Integer/float comparisons at the edges of f64 precision, evaluated as unary conjuncts in the
/// pivot step and as step filters.
#[test]
fn numeric_comparison_edges() {
    let Some(gpu) = gpu("numeric_comparison_edges") else {
        return;
    };
    let mut b = ModelBuilder::new();
    let (x, f) = (b.node_property("x"), b.node_property("f"));
    let t = b.rel_type("T");
    let mut ids = Vec::new();
    for (i, &v) in INTS.iter().enumerate() {
        let id = b.add_node(&format!("i{i}"), &["I"]);
        b.set_node_property(id, x, ValueRef::Int(v)).unwrap();
        ids.push(id);
    }
    for (i, &v) in FLOATS.iter().enumerate() {
        let id = b.add_node(&format!("f{i}"), &["F"]);
        b.set_node_property(id, f, ValueRef::Float(v)).unwrap();
        ids.push(id);
    }
    for &u in &ids {
        for &v in &ids {
            b.add_edge(u, v, t).unwrap();
        }
    }
    let m = b.freeze().unwrap();
    let dev = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    let i_label = m.labels().get("I").unwrap();
    let f_label = m.labels().get("F").unwrap();
    for op in [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ] {
        for (a_label, a_key, b_label, b_key) in [
            (i_label, "x", f_label, "f"),
            (f_label, "f", i_label, "x"),
            (f_label, "f", f_label, "f"),
            (i_label, "x", i_label, "x"),
        ] {
            let q = BoundQuery {
                pattern: Pattern {
                    nodes: vec![
                        NodeVar {
                            name: "a".into(),
                            named: true,
                            labels: vec![vec![a_label]],
                        },
                        NodeVar {
                            name: "b".into(),
                            named: true,
                            labels: vec![vec![b_label]],
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
                filter: vec![Expr::Compare(
                    op,
                    Box::new(Expr::Property(Box::new(Expr::Node(0)), a_key.into())),
                    Box::new(Expr::Property(Box::new(Expr::Node(1)), b_key.into())),
                )],
                stages: vec![id_rows(2)],
                clauses: None,
            };
            let opts = MatchOptions {
                semantics: Semantics::Homomorphism,
                ..Default::default()
            };
            let host = execute(&m, &q, &opts).unwrap();
            let device = dev.execute(&q, &opts).unwrap();
            assert_eq!(
                sorted_strings(&device.rows),
                sorted_strings(&host.rows),
                "{op:?} {a_key} {b_key}"
            );
            // The same comparisons against literals, as unary conjuncts of the pivot.
            for lit in INTS
                .iter()
                .map(|&i| Value::Int(i))
                .chain(FLOATS.iter().map(|&f| Value::Float(f)))
            {
                let mut q1 = q.clone();
                q1.filter = vec![Expr::Compare(
                    op,
                    Box::new(Expr::Property(Box::new(Expr::Node(0)), a_key.into())),
                    Box::new(Expr::Literal(lit.clone())),
                )];
                let (plan, cands, _) = prepare(&m, &q1, Semantics::Homomorphism);
                let pivots = dev.pivots(&q1, Semantics::Homomorphism).unwrap();
                assert_eq!(pivots, cands[plan.steps[0].node].nodes, "{op:?} {lit:?}");
                let host = execute(&m, &q1, &opts).unwrap();
                let device = dev.execute(&q1, &opts).unwrap();
                assert_eq!(
                    sorted_strings(&device.rows),
                    sorted_strings(&host.rows),
                    "{op:?} {a_key} {lit:?}"
                );
            }
        }
    }
}

#[test]
fn example_queries_equal_host() {
    let Some(gpu) = gpu("example_queries_equal_host") else {
        return;
    };
    let m = sample_model();
    let dev = DeviceMatcher::new(gpu, m, DeviceConfig::default()).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/queries");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cypher"))
        .collect();
    files.sort();
    assert!(files.len() >= 7);
    let mut params = Params::new();
    params.insert("year".into(), Value::Int(2000).into());
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let q = compile(&src, m, &params).unwrap();
        for sem in [Semantics::Isomorphism, Semantics::Homomorphism] {
            let opts = MatchOptions {
                semantics: sem,
                ..Default::default()
            };
            let host = execute(m, &q, &opts).unwrap();
            let device = dev.execute(&q, &opts).unwrap();
            assert_eq!(device.columns, host.columns, "{}", path.display());
            assert_eq!(device.count, host.count, "{}", path.display());
            assert_eq!(
                sorted_strings(&device.rows),
                sorted_strings(&host.rows),
                "{} {sem:?}",
                path.display()
            );
            let counted = dev
                .execute(
                    &q,
                    &MatchOptions {
                        count_only: true,
                        ..opts.clone()
                    },
                )
                .unwrap();
            assert_eq!(counted.count, host.count, "{} --count", path.display());
        }
    }
}
