//! Property tests for factorised execution (counting without enumerating): on random labelled
//! multigraphs and random connected patterns of up to six nodes with anonymous relationships
//! (cycles, cliques, stars, paths; parallel edges and self-loops in the data), grouped queries
//! equal a brute-force enumeration under both semantics. Pattern nodes that only `count(*)` or
//! `count(n)` sees are eliminated by the planner, so these queries take the factorised path.

use crate::common;
use std::collections::BTreeSet;

use common::grouped_queries::{
    agg, bipartite, bipartite_model, chained_costar_cycle, check_grouped_queries, costar_cycle,
    int, pattern,
};
use common::projection;
use common::random_graphs::{build, graph};
use gemp::engines::gemp::{execute, factorised, prepare};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::pattern::ir::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn grouped_queries_equal_brute_force(g in graph(7, 18), p in pattern(), homo in any::<bool>()) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let opts = MatchOptions { semantics: sem, ..Default::default() };
        check_grouped_queries(&m, &p, sem, |q| execute(&m, q, &opts).unwrap())?;
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The co-star cycle `n0-n1-n2-n3-n4-n5-n0` (persons n0, n2, n4; titles n1, n3, n5) runs as
    /// weighted triangle listing: `count(*)` (with symmetry breaking) and, under an id chain,
    /// `count(*)` and `count(DISTINCT triple)` equal a brute-force count over every ordered
    /// assignment of distinct persons and distinct titles.
    #[test]
    fn costar_cycles_by_triangle_listing_equal_brute_force(
        (np, nt, edges) in bipartite(8, 7, 40),
        types in prop::sample::select(vec![vec![], vec![0u8], vec![0u8, 1]]),
    ) {
        let m = bipartite_model(np, nt, &edges);
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
        let q = costar_cycle(&m, &types);
        let opts = MatchOptions::default();
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(int(&out.rows[0][0]), all);

        let q = chained_costar_cycle(&m, &types);
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(int(&out.rows[0][0]), chained);
        prop_assert_eq!(int(&out.rows[0][1]), triples.len() as i64);
        let (plan, cands, _) = prepare(&m, &q, Semantics::Isomorphism);
        if let Some(fp) = factorised::plan(&q, &plan, &cands, Semantics::Isomorphism) {
            prop_assert!(fp.triangle.is_some(), "{}", fp.describe(&q));
        }
    }
}
