//! The candidate-space core (`gemp::engines::gemp::space`) against brute force on random labelled
//! multigraphs (parallel edges, self-loops, two types) and random connected patterns of anonymous
//! relationships: the candidate space never loses an embedding, every order with and without
//! failing sets gives the brute-force count, `--limit` is exact, and work stealing on four threads
//! gives the same counts. Then the command line: `--limit` on `.graph` and Cypher queries, and its
//! refusals.

use crate::common;
use common::grouped_queries::brute;
use common::random_graphs::{build, graph, pattern_vars, RelSpec};
use common::{count_star, gemp, id_rows};

use gemp::engines::gemp::execute;
use gemp::engines::gemp::space::{self, Space, SpaceOptions};
use gemp::exec::eval::Val;
use gemp::exec::Control;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::Model;
use gemp::pattern::ir::BoundQuery;
use proptest::prelude::*;

/// A connected pattern: `k` nodes (label or none), relationship `i` ties node `i + 1` to an
/// earlier node (a spanning tree), plus extra relationships; each relationship has a type (or
/// any) and is directed or not. All anonymous.
#[derive(Debug, Clone)]
struct P {
    labels: Vec<Option<u8>>,
    tree: Vec<(usize, Option<u8>, bool, bool)>,
    extra: Vec<(usize, usize, Option<u8>, bool)>,
}

fn pattern() -> impl Strategy<Value = P> {
    pattern_with(2..6, 0..3)
}

/// A connected pattern of `nodes` nodes with `extra` relationships beyond its spanning tree.
fn pattern_with(
    nodes: std::ops::Range<usize>,
    extra: std::ops::Range<usize>,
) -> impl Strategy<Value = P> {
    nodes.prop_flat_map(move |k| {
        (
            prop::collection::vec(prop::option::of(0u8..2), k),
            prop::collection::vec(
                (0..k, prop::option::of(0u8..2), any::<bool>(), any::<bool>()),
                k - 1,
            ),
            prop::collection::vec(
                (0..k, 0..k, prop::option::of(0u8..2), any::<bool>()),
                extra.clone(),
            ),
        )
            .prop_map(|(labels, tree, extra)| P {
                labels,
                tree,
                extra,
            })
    })
}

fn bind(m: &Model, p: &P) -> BoundQuery {
    let mut rels: Vec<RelSpec> = Vec::new();
    for (i, &(to, t, undirected, flip)) in p.tree.iter().enumerate() {
        let (child, parent) = (i + 1, to % (i + 1));
        let (s, d) = if flip {
            (parent, child)
        } else {
            (child, parent)
        };
        rels.push((s, d, t.into_iter().collect(), undirected, false));
    }
    for &(s, d, t, undirected) in &p.extra {
        if s != d {
            rels.push((s, d, t.into_iter().collect(), undirected, false));
        }
    }
    BoundQuery {
        pattern: pattern_vars(m, &p.labels, &rels),
        filter: vec![],
        stages: vec![],
        clauses: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(250))]

    /// The candidate space keeps every embedding: each node of an embedding is a candidate of its
    /// pattern node, and each relationship's pair is a candidate edge of both tables.
    #[test]
    fn candidate_space_never_loses_an_embedding(g in graph(9, 22), p in pattern(), homo in any::<bool>()) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        prop_assert!(space::eligible(&q, sem), "{:?}", space::ineligible_because(&q, sem));
        let control = Control::new(None);
        let s = Space::build(&m, &q, sem, &SpaceOptions::default(), &control, None).unwrap();
        for a in brute(&m, &q, sem) {
            for (v, &x) in a.iter().enumerate() {
                prop_assert!(s.cands[v].contains(x), "node {x} lost from {v}'s candidates");
            }
            for (r, rel) in s.query.rels.iter().enumerate() {
                let (i, j) = (s.cands[rel.src].index_of(a[rel.src]).unwrap(), s.cands[rel.dst].index_of(a[rel.dst]).unwrap());
                prop_assert!(s.tables[space::tables::table_id(r, true)].row(i).contains(&j));
                prop_assert!(s.tables[space::tables::table_id(r, false)].row(j).contains(&i));
            }
        }
    }

    /// Every order, with and without failing sets, counts what brute force finds; a limit caps
    /// the count exactly.
    #[test]
    fn every_order_and_failing_sets_give_the_brute_force_count(
        g in graph(9, 22), p in pattern(), homo in any::<bool>(), limit in 0u64..6,
    ) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        let want = brute(&m, &q, sem).len() as u64;
        for order in [None, Some("gql"), Some("ri"), Some("cost"), Some("adaptive")] {
            for failing_sets in [true, false] {
                let o = SpaceOptions { order: order.map(str::to_owned), failing_sets, ..SpaceOptions::default() };
                prop_assert_eq!(space::count(&m, &q, sem, &o, None), Some(want), "order {:?}, failing sets {}", order, failing_sets);
                prop_assert_eq!(space::count(&m, &q, sem, &o, Some(limit)), Some(want.min(limit)));
            }
        }
    }

    /// Through the host matcher: rows are the brute-force embeddings, `--count` and `count(*)`
    /// their number, `--limit` (rows and counts) exact.
    #[test]
    fn host_matcher_rows_and_limits_equal_brute_force(
        g in graph(8, 20), p in pattern(), homo in any::<bool>(), limit in 0u64..5,
    ) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let mut q = bind(&m, &p);
        let k = p.labels.len();
        let mut want: Vec<Vec<i64>> = brute(&m, &q, sem).into_iter().map(|a| a.into_iter().map(i64::from).collect()).collect();
        want.sort();
        let total = want.len() as u64;
        let opts = MatchOptions { semantics: sem, ..Default::default() };
        q.stages = vec![id_rows(k)];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(common::sorted_ids(&out.rows), want.clone());
        let counted = execute(&m, &q, &MatchOptions { count_only: true, ..opts.clone() }).unwrap();
        prop_assert_eq!(counted.count, total);
        let limited = execute(&m, &q, &MatchOptions { limit: Some(limit), ..opts.clone() }).unwrap();
        prop_assert_eq!(limited.rows.len() as u64, total.min(limit));
        for row in common::sorted_ids(&limited.rows) {
            prop_assert!(want.contains(&row), "{:?} is not a match", row);
        }
        let limited_count = execute(&m, &q, &MatchOptions { limit: Some(limit), count_only: true, ..opts.clone() }).unwrap();
        prop_assert_eq!(limited_count.count, total.min(limit));
        q.stages = vec![count_star()];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(&out.rows, &vec![vec![Val::Int(total as i64)]]);
    }
}

/// One thread pool per size, built once (building a pool per case costs more than the case).
fn pool(threads: usize) -> &'static rayon::ThreadPool {
    use std::sync::OnceLock;
    static ONE: OnceLock<rayon::ThreadPool> = OnceLock::new();
    static FOUR: OnceLock<rayon::ThreadPool> = OnceLock::new();
    let cell = if threads == 1 { &ONE } else { &FOUR };
    cell.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Work stealing with failing sets on four threads (tasks handed the rest of shallow lists,
    /// whose failing sets are then unknown) counts what one thread counts without failing sets, on
    /// graphs large enough for threads to go idle and take work, with and without a limit.
    #[test]
    fn four_threads_with_failing_sets_count_what_one_plain_thread_counts(
        g in graph(48, 420), p in pattern(), homo in any::<bool>(), limit in 1u64..2000,
    ) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        let plain = SpaceOptions { failing_sets: false, ..SpaceOptions::default() };
        let want = pool(1).install(|| space::count(&m, &q, sem, &plain, None)).unwrap();
        for order in [None, Some("gql"), Some("ri"), Some("adaptive")] {
            let o = SpaceOptions { order: order.map(str::to_owned), ..SpaceOptions::default() };
            prop_assert_eq!(pool(4).install(|| space::count(&m, &q, sem, &o, None)), Some(want), "order {:?}", order);
            prop_assert_eq!(pool(4).install(|| space::count(&m, &q, sem, &o, Some(limit))), Some(want.min(limit)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// The rate trials (every order tried with a tiny visit budget, side by side on four threads,
    /// the first to finish stopping the others; else the best rate runs to the end) count what
    /// one plain thread counts, with and without a limit, on one thread and on four.
    #[test]
    fn racing_rate_trials_count_what_one_plain_thread_counts(
        g in graph(40, 300), p in pattern(), homo in any::<bool>(), limit in 1u64..500,
        trial_visits in 1u64..64,
    ) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        let plain = SpaceOptions { failing_sets: false, ..SpaceOptions::default() };
        let want = pool(1).install(|| space::count(&m, &q, sem, &plain, None)).unwrap();
        let o = SpaceOptions { trial_visits, ..SpaceOptions::default() };
        for threads in [1, 4] {
            prop_assert_eq!(pool(threads).install(|| space::count(&m, &q, sem, &o, None)), Some(want));
            prop_assert_eq!(
                pool(threads).install(|| space::count(&m, &q, sem, &o, Some(limit))),
                Some(want.min(limit))
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Orders scored on sampled estimates (forced from any estimated cost; counting, after a tiny
    /// first run of the model's order, else up front) count what one plain thread counts, on one
    /// thread and on four.
    #[test]
    fn sampled_orders_count_what_one_plain_thread_counts(
        g in graph(40, 300), p in pattern(), homo in any::<bool>(), after in 1u64..64,
    ) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        let plain = SpaceOptions { failing_sets: false, sampling: false, ..SpaceOptions::default() };
        let want = pool(1).install(|| space::count(&m, &q, sem, &plain, None)).unwrap();
        // Counting: sampled once the model's order overran; not counting: sampled up front.
        for counting in [true, false] {
            let o = SpaceOptions { sample_from: 0.0, sampled_after_visits: after, counting, ..SpaceOptions::default() };
            for threads in [1, 4] {
                prop_assert_eq!(pool(threads).install(|| space::count(&m, &q, sem, &o, None)), Some(want), "counting {}", counting);
            }
        }
    }
}

/// A larger connected pattern than [`pattern`] (5–7 nodes, up to 6 more relationships), so that
/// the adaptive order's choices, dead ends and failing sets go several levels deep.
fn larger_pattern() -> impl Strategy<Value = P> {
    pattern_with(5..8, 0..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(80))]

    /// The adaptive order (next node: the fewest local candidates under the bindings made), with
    /// failing sets over pattern nodes, on one thread and on four (root candidates in chunks),
    /// counts what a static order counts on one thread without failing sets, on patterns deep
    /// enough for its choices and backjumps to matter; under a limit, exactly the limit.
    #[test]
    fn adaptive_order_counts_what_a_plain_static_order_counts(
        g in graph(14, 48), p in larger_pattern(), homo in any::<bool>(), limit in 1u64..200,
    ) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let q = bind(&m, &p);
        let plain = SpaceOptions { failing_sets: false, adaptive: false, sampling: false, ..SpaceOptions::default() };
        let want = pool(1).install(|| space::count(&m, &q, sem, &plain, None)).unwrap();
        for failing_sets in [true, false] {
            let o = SpaceOptions { order: Some("adaptive".into()), failing_sets, ..SpaceOptions::default() };
            for threads in [1, 4] {
                prop_assert_eq!(pool(threads).install(|| space::count(&m, &q, sem, &o, None)), Some(want), "failing sets {}, {} threads", failing_sets, threads);
            }
            prop_assert_eq!(pool(4).install(|| space::count(&m, &q, sem, &o, Some(limit))), Some(want.min(limit)));
        }
    }
}

/// Work stealing: on four threads, with splits at every depth, the counts of a dense random graph
/// equal one thread's and the planner-driven enumerator's, with and without a limit.
#[test]
fn four_threads_count_what_one_thread_counts() {
    use gemp::model::ModelBuilder;
    let mut b = ModelBuilder::new();
    let t = b.rel_type("E");
    let nodes: Vec<u32> = (0..60)
        .map(|i| b.add_node(&i.to_string(), &[["A", "B"][i % 2]]))
        .collect();
    let mut x = 12345u64;
    for _ in 0..900 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (u, v) = ((x >> 33) as usize % 60, (x >> 13) as usize % 60);
        if u != v {
            b.add_edge(nodes[u], nodes[v], t).unwrap();
        }
    }
    let m = b.freeze().unwrap();
    let a = m.labels().get("A").unwrap();
    let specs: Vec<RelSpec> = vec![
        (0, 1, vec![], true, false),
        (1, 2, vec![], true, false),
        (2, 3, vec![], true, false),
        (3, 0, vec![], true, false),
        (0, 2, vec![], false, false),
    ];
    let mut pattern = pattern_vars(&m, &[None, None, None, None], &specs);
    pattern.nodes[0].labels = vec![vec![a]];
    let q = BoundQuery {
        pattern,
        filter: vec![],
        stages: vec![],
        clauses: None,
    };
    let sem = Semantics::Isomorphism;
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let four = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let o = SpaceOptions::default();
    let total = one.install(|| space::count(&m, &q, sem, &o, None)).unwrap();
    assert!(
        total > 1000,
        "the test needs a search worth splitting: {total}"
    );
    for _ in 0..5 {
        assert_eq!(
            four.install(|| space::count(&m, &q, sem, &o, None)),
            Some(total)
        );
        assert_eq!(
            four.install(|| space::count(&m, &q, sem, &o, Some(777))),
            Some(777)
        );
    }
    // The planner-driven enumerator (not the core) agrees.
    assert_eq!(total, gemp::engines::gemp::count(&m, &q, sem));
}

/// `--limit` on the command line: a `.graph` query's count and rows capped exactly, a Cypher
/// plain projection capped, an aggregate the core cannot cap refused with the reason.
#[test]
fn limit_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("g.graph");
    // A 5-cycle with one chord, every vertex labelled 0: triangles and paths.
    std::fs::write(
        &data,
        "t 5 6\nv 0 0 3\nv 1 0 2\nv 2 0 3\nv 3 0 2\nv 4 0 2\ne 0 1\ne 1 2\ne 2 3\ne 3 4\ne 4 0\ne 0 2\n",
    )
    .unwrap();
    let query = dir.path().join("path.graph");
    std::fs::write(&query, "t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\ne 1 2\n").unwrap();
    let model = dir.path().join("g.gemp");
    let out = gemp(&[
        "load",
        data.to_str().unwrap(),
        "-o",
        model.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = |extra: &[&str]| {
        let mut args = vec![
            "match",
            "-q",
            "--backend",
            "host",
            "--model",
            model.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = gemp(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    // Paths of two edges, both directions: each vertex's degree d gives d(d-1) ordered pairs.
    let total = 3 * 2 + 2 + 3 * 2 + 2 + 2;
    let (rc, text, err) = run(&[query.to_str().unwrap(), "--count"]);
    assert_eq!(
        (rc, text.as_str()),
        (Some(0), total.to_string().as_str()),
        "{err}"
    );
    let (rc, text, _) = run(&[query.to_str().unwrap(), "--count", "--limit", "7"]);
    assert_eq!((rc, text.as_str()), (Some(0), "7"));
    let (rc, text, _) = run(&[query.to_str().unwrap(), "--count", "--limit", "1000"]);
    assert_eq!((rc, text), (Some(0), total.to_string()));
    let (rc, text, _) = run(&[query.to_str().unwrap(), "--format", "csv", "--limit", "4"]);
    assert_eq!(rc, Some(0));
    assert_eq!(
        text.lines().count(),
        1 + 4,
        "a header and four rows: {text}"
    );

    let cypher = dir.path().join("q.cypher");
    std::fs::write(&cypher, "MATCH (a)-[r:EDGE]->(b) RETURN id(a), id(b)\n").unwrap();
    let (rc, text, err) = run(&[cypher.to_str().unwrap(), "--count", "--limit", "5"]);
    assert_eq!((rc, text.as_str()), (Some(0), "5"), "{err}");
    let grouped = dir.path().join("g.cypher");
    std::fs::write(&grouped, "MATCH (a)-[r:EDGE]->(b) RETURN id(a), count(*)\n").unwrap();
    let (rc, _, err) = run(&[grouped.to_str().unwrap(), "--limit", "5"]);
    assert_ne!(rc, Some(0));
    assert!(
        err.contains("--limit") && err.contains("cannot count one by one"),
        "{err}"
    );
}
