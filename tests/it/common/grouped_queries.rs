//! Grouped queries over random connected patterns, checked against a brute-force enumeration:
//! the property the factorised (counting without enumerating) execution must keep on every
//! engine (the host in `tests/factorised.rs`, the OpenCL kernel in `tests/device_factorised.rs`).

use std::collections::{BTreeMap, BTreeSet};

use super::projection;
use super::random_graphs::{pattern_vars, RelSpec};
use gemp::exec::eval::Val;
use gemp::exec::{QueryOutput, Semantics};
use gemp::model::{Model, Value};
use gemp::pattern::ir::*;
use proptest::prelude::*;

/// A pattern: node labels and anonymous relationships.
#[derive(Debug, Clone)]
pub struct P {
    /// Label number per node (`None`: no label).
    pub labels: Vec<Option<u8>>,
    /// (src, dst, type, undirected); all anonymous.
    pub rels: Vec<(usize, usize, Option<u8>, bool)>,
}

/// Connected patterns of 2 to 6 nodes: a random spanning tree plus up to three extra
/// relationships (closing cycles).
pub fn pattern() -> impl Strategy<Value = P> {
    (2usize..7).prop_flat_map(|k| {
        let tree = prop::collection::vec((any::<prop::sample::Index>(), any::<bool>()), k - 1);
        let extra = prop::collection::vec((0..k, 0..k), 0..4);
        let types = prop::collection::vec(prop::option::of(0u8..2), k + 3);
        let undirected = prop::collection::vec(prop::bool::weighted(0.2), k + 3);
        (
            prop::collection::vec(prop::option::of(0u8..2), k),
            tree,
            extra,
            types,
            undirected,
        )
            .prop_map(move |(labels, tree, extra, types, undirected)| {
                let mut rels = Vec::new();
                for (i, (parent, flip)) in tree.into_iter().enumerate() {
                    let child = i + 1;
                    let parent = parent.index(child);
                    let (s, d) = if flip {
                        (child, parent)
                    } else {
                        (parent, child)
                    };
                    rels.push((s, d));
                }
                rels.extend(extra.into_iter().filter(|(a, b)| a != b));
                let rels = rels
                    .into_iter()
                    .enumerate()
                    .map(|(i, (s, d))| (s, d, types[i], undirected[i]))
                    .collect();
                P { labels, rels }
            })
    })
}

/// The pattern as a query without projections.
pub fn bind(m: &Model, p: &P) -> BoundQuery {
    let specs: Vec<RelSpec> = p
        .rels
        .iter()
        .map(|&(s, d, t, u)| (s, d, t.into_iter().collect(), u, false))
        .collect();
    BoundQuery {
        pattern: pattern_vars(m, &p.labels, &specs),
        filter: vec![],
        stages: vec![],
        clauses: None,
    }
}

/// Every match (node assignment) by brute force; anonymous relationships are existence checks.
pub fn brute(m: &Model, q: &BoundQuery, sem: Semantics) -> Vec<Vec<u32>> {
    let n = m.node_count() as u32;
    let k = q.pattern.nodes.len();
    let has = |x: u32, y: u32, types: &[u32]| {
        (0..m.edge_count() as u32).any(|e| {
            m.edge_source(e) == Some(x) && {
                let (to, t) = m.edge_target(e).unwrap();
                to == y && (types.is_empty() || types.contains(&t))
            }
        })
    };
    let mut out = Vec::new();
    let mut a = vec![0u32; k];
    loop {
        let distinct = sem == Semantics::Homomorphism || {
            let s: BTreeSet<u32> = a.iter().copied().collect();
            s.len() == k
        };
        let ok = distinct
            && q.pattern.nodes.iter().enumerate().all(|(i, v)| {
                v.labels
                    .iter()
                    .all(|g| g.iter().any(|&l| m.has_label(a[i], l)))
            })
            && q.pattern.rels.iter().all(|r| {
                let (x, y) = (a[r.src], a[r.dst]);
                has(x, y, &r.types) || (r.undirected && has(y, x, &r.types))
            });
        if ok {
            out.push(a.clone());
        }
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

/// An aggregate item.
pub fn agg(func: AggFn, distinct: bool, arg: Option<Expr>, name: &str) -> ProjItem {
    ProjItem {
        expr: Expr::Aggregate {
            func,
            distinct,
            arg: arg.map(Box::new),
        },
        name: name.into(),
    }
}

/// `id(slot)`.
pub fn id(slot: usize) -> Expr {
    Expr::Id(Box::new(Expr::Node(slot)))
}

/// An integer cell (null as 0).
pub fn int(v: &Val<'_>) -> i64 {
    match v {
        Val::Int(i) => *i,
        Val::Null => 0,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Runs the grouped queries over pattern `p` with `run` and checks each answer against a
/// brute-force enumeration under `sem`: `count(*)`; `WITH n0, n_last, count(n1) AS c WHERE c >= 2
/// RETURN count(*), sum(c)`; weighted aggregates into one group; `count(DISTINCT [id(n0),
/// id(n_last)])`; a lone `count(DISTINCT n0)`; a grouping by `id(n0)` ordered.
pub fn check_grouped_queries<'m>(
    m: &'m Model,
    p: &P,
    sem: Semantics,
    run: impl Fn(&BoundQuery) -> QueryOutput<'m>,
) -> Result<(), TestCaseError> {
    let mut q = bind(m, p);
    let matches = brute(m, &q, sem);
    let k = p.labels.len();
    let last = k - 1;

    // RETURN count(*): only counted nodes, all of them eliminable but one.
    q.stages = vec![projection(vec![agg(AggFn::Count, false, None, "c")])];
    let out = run(&q);
    prop_assert_eq!(int(&out.rows[0][0]), matches.len() as i64);

    // WITH n0, n_last, count(n1) AS c WHERE c >= 2 RETURN count(*), sum(c): per-binding groups.
    let mut groups: BTreeMap<(u32, u32), i64> = BTreeMap::new();
    for a in &matches {
        *groups.entry((a[0], a[last])).or_default() += 1;
    }
    let kept: Vec<i64> = groups.values().copied().filter(|&c| c >= 2).collect();
    q.stages = vec![
        Projection {
            filter: Some(Expr::Compare(
                CmpOp::Ge,
                Box::new(Expr::Column(2)),
                Box::new(Expr::Literal(Value::Int(2))),
            )),
            ..projection(vec![
                ProjItem {
                    expr: Expr::Node(0),
                    name: "a".into(),
                },
                ProjItem {
                    expr: id(last),
                    name: "b".into(),
                },
                agg(AggFn::Count, false, Some(Expr::Node(1)), "c"),
            ])
        },
        projection(vec![
            agg(AggFn::Count, false, None, "groups"),
            agg(AggFn::Sum, false, Some(Expr::Column(2)), "total"),
        ]),
    ];
    let out = run(&q);
    prop_assert_eq!(int(&out.rows[0][0]), kept.len() as i64);
    prop_assert_eq!(int(&out.rows[0][1]), kept.iter().sum::<i64>());

    // RETURN count(DISTINCT id(n0)), count(*), sum(id(n0)), min(id(n0)), max(id(n0)):
    // weighted rows into one group.
    q.stages = vec![projection(vec![
        agg(AggFn::Count, true, Some(id(0)), "d"),
        agg(AggFn::Count, false, None, "c"),
        agg(AggFn::Sum, false, Some(id(0)), "s"),
        agg(AggFn::Min, false, Some(id(0)), "lo"),
        agg(AggFn::Max, false, Some(id(0)), "hi"),
    ])];
    let out = run(&q);
    let firsts: BTreeSet<u32> = matches.iter().map(|a| a[0]).collect();
    prop_assert_eq!(int(&out.rows[0][0]), firsts.len() as i64);
    prop_assert_eq!(int(&out.rows[0][1]), matches.len() as i64);
    prop_assert_eq!(
        int(&out.rows[0][2]),
        matches.iter().map(|a| a[0] as i64).sum::<i64>()
    );
    if matches.is_empty() {
        prop_assert_eq!(&out.rows[0][3], &Val::Null);
    } else {
        prop_assert_eq!(int(&out.rows[0][3]), *firsts.first().unwrap() as i64);
        prop_assert_eq!(int(&out.rows[0][4]), *firsts.last().unwrap() as i64);
    }

    // RETURN count(DISTINCT [id(n0), id(n_last)]), count(*): when n0 and n_last are the
    // kept nodes, the distinct count is the number of kept bindings (no hash set).
    q.stages = vec![projection(vec![
        agg(
            AggFn::Count,
            true,
            Some(Expr::List(vec![id(0), id(last)])),
            "d",
        ),
        agg(AggFn::Count, false, None, "c"),
    ])];
    let out = run(&q);
    let pairs: BTreeSet<(u32, u32)> = matches.iter().map(|a| (a[0], a[last])).collect();
    prop_assert_eq!(int(&out.rows[0][0]), pairs.len() as i64);
    prop_assert_eq!(int(&out.rows[0][1]), matches.len() as i64);

    // RETURN count(DISTINCT n0) alone (a lone count item counts without rows).
    q.stages = vec![projection(vec![agg(
        AggFn::Count,
        true,
        Some(Expr::Node(0)),
        "d",
    )])];
    let out = run(&q);
    prop_assert_eq!(int(&out.rows[0][0]), firsts.len() as i64);

    // Grouped by n0 (ordered), count(*): a hash grouping of weighted rows.
    q.stages = vec![Projection {
        order_by: vec![(Expr::Column(0), false)],
        ..projection(vec![
            ProjItem {
                expr: id(0),
                name: "a".into(),
            },
            agg(AggFn::Count, false, None, "c"),
        ])
    }];
    let out = run(&q);
    let mut per: BTreeMap<i64, i64> = BTreeMap::new();
    for a in &matches {
        *per.entry(a[0] as i64).or_default() += 1;
    }
    let got: Vec<(i64, i64)> = out.rows.iter().map(|r| (int(&r[0]), int(&r[1]))).collect();
    prop_assert_eq!(got, per.into_iter().collect::<Vec<_>>());
    Ok(())
}

/// A random bipartite multigraph of fewer than `max_persons` persons (at least 3) and fewer than
/// `max_titles` titles (at least 2) with fewer than `max_edges` edges person → title of type `T0`
/// or `T1` (parallel edges included): (persons, titles, edges by person and title index).
pub fn bipartite(
    max_persons: usize,
    max_titles: usize,
    max_edges: usize,
) -> impl Strategy<Value = (usize, usize, Vec<(usize, usize, u8)>)> {
    (3usize..max_persons, 2usize..max_titles).prop_flat_map(move |(np, nt)| {
        (
            Just(np),
            Just(nt),
            prop::collection::vec((0..np, 0..nt, 0u8..2), 0..max_edges),
        )
    })
}

/// The graph of [`bipartite`]: persons labelled `L0`, then titles labelled `L1`.
pub fn bipartite_model(np: usize, nt: usize, edges: &[(usize, usize, u8)]) -> Model {
    let labels: Vec<u8> = (0..np).map(|_| 0).chain((0..nt).map(|_| 1)).collect();
    super::random_graphs::build(&super::random_graphs::G {
        labels,
        edges: edges.iter().map(|&(p, t, ty)| (p, np + t, ty)).collect(),
    })
}

/// The co-star cycle `n0-n1-n2-n3-n4-n5-n0` (persons n0, n2, n4; titles n1, n3, n5) over
/// relationships of `types` (empty = any), `RETURN count(*)`.
pub fn costar_cycle(m: &Model, types: &[u8]) -> BoundQuery {
    let specs: Vec<RelSpec> = [(0, 1), (2, 1), (2, 3), (4, 3), (4, 5), (0, 5)]
        .iter()
        .map(|&(s, d)| (s, d, types.to_vec(), false, false))
        .collect();
    let label = [Some(0), Some(1), Some(0), Some(1), Some(0), Some(1)];
    BoundQuery {
        pattern: pattern_vars(m, &label, &specs),
        filter: vec![],
        stages: vec![projection(vec![agg(AggFn::Count, false, None, "c")])],
        clauses: None,
    }
}

/// [`costar_cycle`] under `id(n0) < id(n2) < id(n4)`, `RETURN count(*), count(DISTINCT [id(n0),
/// id(n2), id(n4)])`.
pub fn chained_costar_cycle(m: &Model, types: &[u8]) -> BoundQuery {
    let lt = |x: usize, y: usize| Expr::Compare(CmpOp::Lt, Box::new(id(x)), Box::new(id(y)));
    BoundQuery {
        filter: vec![lt(0, 2), lt(2, 4)],
        stages: vec![projection(vec![
            agg(AggFn::Count, false, None, "c"),
            agg(
                AggFn::Count,
                true,
                Some(Expr::List(vec![id(0), id(2), id(4)])),
                "d",
            ),
        ])],
        ..costar_cycle(m, types)
    }
}
