//! Property tests: on random small labelled multigraphs and random patterns, the host matcher's
//! results equal a brute-force enumerator's, under both semantics, with and without aggregates.

use crate::common;
use common::random_graphs::{build, graph, pattern_vars, random_rels, rel_specs, RandomRel};
use common::{count_star, id_rows};

use gemp::engines::gemp::execute;
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::{Model, ModelBuilder};
use gemp::pattern::ir::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct P {
    labels: Vec<Option<u8>>,
    rels: Vec<RandomRel>,
    id_order: Option<(usize, usize)>,
}

fn pattern() -> impl Strategy<Value = P> {
    (1usize..5).prop_flat_map(|k| {
        (
            prop::collection::vec(prop::option::of(0u8..2), k),
            random_rels(k),
            prop::option::of((0..k, 0..k)),
        )
            .prop_map(|(labels, rels, id_order)| P {
                labels,
                rels,
                id_order,
            })
    })
}

fn bind(m: &Model, p: &P) -> BoundQuery {
    let pattern = pattern_vars(m, &p.labels, &rel_specs(&p.rels));
    let filter = match p.id_order {
        Some((a, b)) => vec![Expr::Compare(
            CmpOp::Lt,
            Box::new(Expr::Id(Box::new(Expr::Node(a)))),
            Box::new(Expr::Id(Box::new(Expr::Node(b)))),
        )],
        None => vec![],
    };
    BoundQuery {
        pattern,
        filter,
        stages: vec![],
        clauses: None,
    }
}

/// Brute force: every assignment of nodes; relationships multiply when named.
fn brute(m: &Model, q: &BoundQuery, sem: Semantics) -> Vec<(Vec<u32>, u64)> {
    let n = m.node_count() as u32;
    let k = q.pattern.nodes.len();
    let mut out = Vec::new();
    let mut a = vec![0u32; k];
    loop {
        let ok_inj = sem == Semantics::Homomorphism || {
            let mut s = a.clone();
            s.sort();
            s.windows(2).all(|w| w[0] != w[1])
        };
        let ok_labels = q.pattern.nodes.iter().enumerate().all(|(i, v)| {
            v.labels
                .iter()
                .all(|g| g.iter().any(|&l| m.has_label(a[i], l)))
        });
        let ok_filter = q.filter.iter().all(|f| match f {
            Expr::Compare(CmpOp::Lt, x, y) => {
                let slot = |e: &Expr| match e {
                    Expr::Id(b) => match **b {
                        Expr::Node(s) => s,
                        _ => unreachable!(),
                    },
                    _ => unreachable!(),
                };
                a[slot(x)] < a[slot(y)]
            }
            _ => unreachable!(),
        });
        if ok_inj && ok_labels && ok_filter {
            let mut mult = 1u64;
            for r in &q.pattern.rels {
                let count_dir = |x: u32, y: u32| -> u64 {
                    (0..m.edge_count() as u32)
                        .filter(|&e| {
                            m.edge_source(e) == Some(x)
                                && m.edge_target(e).unwrap().0 == y
                                && (r.types.is_empty()
                                    || r.types.contains(&m.edge_target(e).unwrap().1))
                        })
                        .count() as u64
                };
                let (x, y) = (a[r.src], a[r.dst]);
                let c = if r.undirected && x != y {
                    count_dir(x, y) + count_dir(y, x)
                } else {
                    count_dir(x, y)
                };
                mult *= if r.named { c } else { u64::from(c > 0) };
            }
            if mult > 0 {
                out.push((a.clone(), mult));
            }
        }
        // next assignment
        let mut i = 0;
        loop {
            if i == k {
                return out;
            }
            a[i] += 1;
            if a[i] < n {
                break;
            }
            a[i] = 0;
            i += 1;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]
    #[test]
    fn matcher_equals_brute_force(g in graph(9, 22), p in pattern(), homo in any::<bool>()) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let mut q = bind(&m, &p);
        let expected = brute(&m, &q, sem);
        let total: u64 = expected.iter().map(|e| e.1).sum();
        let opts = MatchOptions { semantics: sem, ..Default::default() };

        // count(*)
        q.stages = vec![count_star()];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(&out.rows, &vec![vec![Val::Int(total as i64)]]);

        // Rows: every binding of node ids, with multiplicity for named relationships.
        q.stages = vec![id_rows(p.labels.len())];
        let out = execute(&m, &q, &opts).unwrap();
        let mut got: Vec<Vec<i64>> = out.rows.iter().map(|r| r.iter().map(|v| match v { Val::Int(i) => *i, _ => -1 }).collect()).collect();
        got.sort();
        let mut want: Vec<Vec<i64>> = expected.iter().flat_map(|(a, mult)| std::iter::repeat_n(a.iter().map(|&x| x as i64).collect::<Vec<_>>(), *mult as usize)).collect();
        want.sort();
        prop_assert_eq!(got, want);

        // --count of plain rows
        let out = execute(&m, &q, &MatchOptions { count_only: true, ..opts.clone() }).unwrap();
        prop_assert_eq!(out.count, total);

        // Grouping: count per first node.
        q.stages = vec![Projection {
            items: vec![
                ProjItem { expr: Expr::Id(Box::new(Expr::Node(0))), name: "n0".into() },
                ProjItem { expr: Expr::Aggregate { func: AggFn::Count, distinct: false, arg: None }, name: "c".into() },
            ],
            distinct: false, filter: None, order_by: vec![(Expr::Column(0), false)], skip: None, limit: None,
        }];
        let out = execute(&m, &q, &opts).unwrap();
        let mut want_groups: std::collections::BTreeMap<i64, i64> = Default::default();
        for (a, mult) in &expected { *want_groups.entry(a[0] as i64).or_default() += *mult as i64; }
        let got_groups: Vec<(i64, i64)> = out.rows.iter().map(|r| match (&r[0], &r[1]) { (Val::Int(a), Val::Int(b)) => (*a, *b), _ => (-1, -1) }).collect();
        prop_assert_eq!(got_groups, want_groups.into_iter().collect::<Vec<_>>());

        // LIMIT caps and stays within the result.
        q.stages = vec![Projection { limit: Some(3), ..id_rows(p.labels.len()) }];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(out.rows.len() as u64, total.min(3));
    }
}

#[test]
fn star_of_four_counts_binomially() {
    // One movie with 10 actors; pattern a1..a4 around m with id(a2)<id(a3)<id(a4), count(*):
    // a1 any of 10, the other three an increasing triple from the remaining 9: 10 * C(9,3) = 840.
    let mut b = ModelBuilder::new();
    let t = b.rel_type("ACTOR");
    let m = b.add_node("m", &["Movie"]);
    for i in 0..10 {
        let p = b.add_node(&format!("p{i}"), &["Person"]);
        b.add_edge(p, m, t).unwrap();
    }
    let model = b.freeze().unwrap();
    let person = model.labels().get("Person").unwrap();
    let movie = model.labels().get("Movie").unwrap();
    let mut nodes = vec![NodeVar {
        name: "m".into(),
        named: true,
        labels: vec![vec![movie]],
    }];
    let mut rels = Vec::new();
    for i in 1..=4 {
        nodes.push(NodeVar {
            name: format!("a{i}"),
            named: true,
            labels: vec![vec![person]],
        });
        rels.push(RelVar {
            name: format!("_r{i}"),
            named: false,
            src: i,
            dst: 0,
            types: vec![0],
            undirected: false,
            clause: 0,
        });
    }
    let lt = |a: usize, b: usize| {
        Expr::Compare(
            CmpOp::Lt,
            Box::new(Expr::Id(Box::new(Expr::Node(a)))),
            Box::new(Expr::Id(Box::new(Expr::Node(b)))),
        )
    };
    let q = BoundQuery {
        pattern: Pattern { nodes, rels },
        filter: vec![lt(2, 3), lt(3, 4)],
        stages: vec![count_star()],
        clauses: None,
    };
    let out = execute(&model, &q, &MatchOptions::default()).unwrap();
    assert_eq!(out.rows, vec![vec![Val::Int(840)]]);
    // Homomorphic: a1 any of 10, strictly increasing triple of 10: 10 * 120.
    let out = execute(
        &model,
        &q,
        &MatchOptions {
            semantics: Semantics::Homomorphism,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out.rows, vec![vec![Val::Int(1200)]]);
}
