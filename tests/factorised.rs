//! Property tests for factorised execution (counting without enumerating): on random labelled
//! multigraphs and random connected patterns of up to six nodes with anonymous relationships
//! (cycles, cliques, stars, paths; parallel edges and self-loops in the data), grouped queries
//! equal a brute-force enumeration under both semantics. Pattern nodes that only `count(*)` or
//! `count(n)` sees are eliminated by the planner, so these queries take the factorised path.

mod common;
use std::collections::{BTreeMap, BTreeSet};

use common::projection;
use common::random_graphs::{build, graph, pattern_vars, RelSpec};
use gemp::matcher::eval::Val;
use gemp::matcher::{execute, factorised, prepare, MatchOptions, Semantics};
use gemp::model::{Model, Value};
use gemp::pattern::ir::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct P {
    labels: Vec<Option<u8>>,
    /// (src, dst, type, undirected); all anonymous.
    rels: Vec<(usize, usize, Option<u8>, bool)>,
}

/// Connected patterns of 2 to 6 nodes: a random spanning tree plus up to three extra
/// relationships (closing cycles).
fn pattern() -> impl Strategy<Value = P> {
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

fn bind(m: &Model, p: &P) -> BoundQuery {
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
fn brute(m: &Model, q: &BoundQuery, sem: Semantics) -> Vec<Vec<u32>> {
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

fn agg(func: AggFn, distinct: bool, arg: Option<Expr>, name: &str) -> ProjItem {
    ProjItem {
        expr: Expr::Aggregate {
            func,
            distinct,
            arg: arg.map(Box::new),
        },
        name: name.into(),
    }
}

fn id(slot: usize) -> Expr {
    Expr::Id(Box::new(Expr::Node(slot)))
}

fn int(v: &Val<'_>) -> i64 {
    match v {
        Val::Int(i) => *i,
        Val::Null => 0,
        other => panic!("not an integer: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn grouped_queries_equal_brute_force(g in graph(7, 18), p in pattern(), homo in any::<bool>()) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let opts = MatchOptions { semantics: sem, ..Default::default() };
        let mut q = bind(&m, &p);
        let matches = brute(&m, &q, sem);
        let k = p.labels.len();
        let last = k - 1;

        // RETURN count(*): only counted nodes, all of them eliminable but one.
        q.stages = vec![projection(vec![agg(AggFn::Count, false, None, "c")])];
        let out = execute(&m, &q, &opts).unwrap();
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
                    ProjItem { expr: Expr::Node(0), name: "a".into() },
                    ProjItem { expr: id(last), name: "b".into() },
                    agg(AggFn::Count, false, Some(Expr::Node(1)), "c"),
                ])
            },
            projection(vec![
                agg(AggFn::Count, false, None, "groups"),
                agg(AggFn::Sum, false, Some(Expr::Column(2)), "total"),
            ]),
        ];
        let out = execute(&m, &q, &opts).unwrap();
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
        let out = execute(&m, &q, &opts).unwrap();
        let firsts: BTreeSet<u32> = matches.iter().map(|a| a[0]).collect();
        prop_assert_eq!(int(&out.rows[0][0]), firsts.len() as i64);
        prop_assert_eq!(int(&out.rows[0][1]), matches.len() as i64);
        prop_assert_eq!(int(&out.rows[0][2]), matches.iter().map(|a| a[0] as i64).sum::<i64>());
        if matches.is_empty() {
            prop_assert_eq!(&out.rows[0][3], &Val::Null);
        } else {
            prop_assert_eq!(int(&out.rows[0][3]), *firsts.first().unwrap() as i64);
            prop_assert_eq!(int(&out.rows[0][4]), *firsts.last().unwrap() as i64);
        }

        // RETURN count(DISTINCT [id(n0), id(n_last)]), count(*): when n0 and n_last are the
        // kept nodes, the distinct count is the number of kept bindings (no hash set).
        q.stages = vec![projection(vec![
            agg(AggFn::Count, true, Some(Expr::List(vec![id(0), id(last)])), "d"),
            agg(AggFn::Count, false, None, "c"),
        ])];
        let out = execute(&m, &q, &opts).unwrap();
        let pairs: BTreeSet<(u32, u32)> = matches.iter().map(|a| (a[0], a[last])).collect();
        prop_assert_eq!(int(&out.rows[0][0]), pairs.len() as i64);
        prop_assert_eq!(int(&out.rows[0][1]), matches.len() as i64);

        // RETURN count(DISTINCT n0) alone (a lone count item counts without rows).
        q.stages = vec![projection(vec![agg(AggFn::Count, true, Some(Expr::Node(0)), "d")])];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(int(&out.rows[0][0]), firsts.len() as i64);

        // Grouped by n0 (ordered), count(*): a hash grouping of weighted rows.
        q.stages = vec![Projection {
            order_by: vec![(Expr::Column(0), false)],
            ..projection(vec![
                ProjItem { expr: id(0), name: "a".into() },
                agg(AggFn::Count, false, None, "c"),
            ])
        }];
        let out = execute(&m, &q, &opts).unwrap();
        let mut per: BTreeMap<i64, i64> = BTreeMap::new();
        for a in &matches {
            *per.entry(a[0] as i64).or_default() += 1;
        }
        let got: Vec<(i64, i64)> = out.rows.iter().map(|r| (int(&r[0]), int(&r[1]))).collect();
        prop_assert_eq!(got, per.into_iter().collect::<Vec<_>>());
    }
}

/// Builds the co-star cycle (p1-t1-p2-t2-p3-t3-p1) over a small hand-made cast and checks the
/// factorised count against a hand count, and that the plan eliminates the three titles.
#[test]
fn costar_cycle_eliminates_titles_and_counts_by_inclusion_exclusion() {
    use gemp::model::ModelBuilder;
    // Persons a, b, c all act in t1 and t2; a and b also in t3.
    let mut b = ModelBuilder::new();
    let acts = b.rel_type("ACTS");
    let titles: Vec<u32> = (1..=3)
        .map(|i| b.add_node(&format!("t{i}"), &["Title"]))
        .collect();
    let persons: Vec<u32> = ["a", "b", "c"]
        .iter()
        .map(|n| b.add_node(n, &["Person"]))
        .collect();
    for &p in &persons {
        b.add_edge(p, titles[0], acts).unwrap();
        b.add_edge(p, titles[1], acts).unwrap();
    }
    b.add_edge(persons[0], titles[2], acts).unwrap();
    b.add_edge(persons[1], titles[2], acts).unwrap();
    let m = b.freeze().unwrap();
    let person = m.labels().get("Person").unwrap();
    let title = m.labels().get("Title").unwrap();
    // Slots: p1 0, t1 1, p2 2, t2 3, p3 4, t3 5.
    let labels = [person, title, person, title, person, title];
    let nodes = labels
        .iter()
        .enumerate()
        .map(|(i, &l)| NodeVar {
            name: format!("n{i}"),
            named: true,
            labels: vec![vec![l]],
        })
        .collect();
    let rel = |src: usize, dst: usize| RelVar {
        name: format!("_r{src}{dst}"),
        named: false,
        src,
        dst,
        types: vec![],
        undirected: false,
        clause: 0,
    };
    let q = BoundQuery {
        pattern: Pattern {
            nodes,
            rels: vec![
                rel(0, 1),
                rel(2, 1),
                rel(2, 3),
                rel(4, 3),
                rel(4, 5),
                rel(0, 5),
            ],
        },
        filter: vec![],
        stages: vec![projection(vec![agg(AggFn::Count, false, None, "c")])],
        clauses: None,
    };
    // Ordered person triples are the 6 permutations of (a, b, c); each has the three pairs once:
    // (a, b) share {t1, t2, t3}, (a, c) and (b, c) share {t1, t2}. With three distinct titles
    // around the cycle, (a, c) and (b, c) take t1 and t2 in either order and (a, b) takes t3:
    // 2 per ordered triple, 12 in all.
    let out = execute(&m, &q, &MatchOptions::default()).unwrap();
    assert_eq!(out.rows, vec![vec![Val::Int(12)]]);
    let (plan, cands, _) = prepare(&m, &q, Semantics::Isomorphism);
    let fp = factorised::plan(&q, &plan, &cands, Semantics::Isomorphism).expect("factorised");
    assert_eq!(fp.eliminated.len(), 3);
    assert!(fp.describe(&q).contains("inclusion–exclusion"));
}

/// A random bipartite multigraph: `persons` nodes labelled `L0`, then `titles` nodes labelled
/// `L1`, edges person → title of type `T0` or `T1` (parallel edges included).
fn bipartite() -> impl Strategy<Value = (usize, usize, Vec<(usize, usize, u8)>)> {
    (3usize..8, 2usize..7).prop_flat_map(|(np, nt)| {
        (
            Just(np),
            Just(nt),
            prop::collection::vec((0..np, 0..nt, 0u8..2), 0..40),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The co-star cycle `n0-n1-n2-n3-n4-n5-n0` (persons n0, n2, n4; titles n1, n3, n5) runs as
    /// weighted triangle listing: `count(*)` (with symmetry breaking) and, under an id chain,
    /// `count(*)` and `count(DISTINCT triple)` equal a brute-force count over every ordered
    /// assignment of distinct persons and distinct titles.
    #[test]
    fn costar_cycles_by_triangle_listing_equal_brute_force(
        (np, nt, edges) in bipartite(),
        types in prop::sample::select(vec![vec![], vec![0u8], vec![0u8, 1]]),
    ) {
        let labels: Vec<u8> = (0..np).map(|_| 0).chain((0..nt).map(|_| 1)).collect();
        let g = common::random_graphs::G {
            labels,
            edges: edges.iter().map(|&(p, t, ty)| (p, np + t, ty)).collect(),
        };
        let m = build(&g);
        let acts = |p: usize, t: usize| {
            edges.iter().any(|&(x, y, ty)| x == p && y == t && (types.is_empty() || types.contains(&ty)))
        };
        // Brute force: ordered distinct persons (a, b, c), distinct titles (x, y, z) with
        // a, b in x; b, c in y; c, a in z.
        let (mut all, mut chained, mut triples) = (0i64, 0i64, BTreeSet::new());
        for a in 0..np { for b in 0..np { for c in 0..np {
            if a == b || b == c || a == c { continue; }
            for x in 0..nt { for y in 0..nt { for z in 0..nt {
                if x == y || y == z || x == z { continue; }
                if acts(a, x) && acts(b, x) && acts(b, y) && acts(c, y) && acts(c, z) && acts(a, z) {
                    all += 1;
                    if a < b && b < c {
                        chained += 1;
                        triples.insert((a, b, c));
                    }
                }
            }}}
        }}}
        let specs: Vec<RelSpec> = [(0, 1), (2, 1), (2, 3), (4, 3), (4, 5), (0, 5)]
            .iter()
            .map(|&(s, d)| (s, d, types.clone(), false, false))
            .collect();
        let label = [Some(0), Some(1), Some(0), Some(1), Some(0), Some(1)];
        let mut q = BoundQuery {
            pattern: pattern_vars(&m, &label, &specs),
            filter: vec![],
            stages: vec![projection(vec![agg(AggFn::Count, false, None, "c")])], clauses: None, };
        let opts = MatchOptions::default();
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(int(&out.rows[0][0]), all);

        let lt = |x: usize, y: usize| Expr::Compare(CmpOp::Lt, Box::new(id(x)), Box::new(id(y)));
        q.filter = vec![lt(0, 2), lt(2, 4)];
        q.stages = vec![projection(vec![
            agg(AggFn::Count, false, None, "c"),
            agg(AggFn::Count, true, Some(Expr::List(vec![id(0), id(2), id(4)])), "d"),
        ])];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(int(&out.rows[0][0]), chained);
        prop_assert_eq!(int(&out.rows[0][1]), triples.len() as i64);
        let (plan, cands, _) = prepare(&m, &q, Semantics::Isomorphism);
        if let Some(fp) = factorised::plan(&q, &plan, &cands, Semantics::Isomorphism) {
            prop_assert!(fp.triangle.is_some(), "{}", fp.describe(&q));
        }
    }
}
