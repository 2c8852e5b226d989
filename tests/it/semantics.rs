//! The three matching semantics on small multigraphs (parallel edges, self-loops, a triangle with
//! a doubled edge, a 2-cycle), with counts worked out by hand; and a property test: on random
//! multigraphs and patterns, Cypher semantics (relationship isomorphism) equals a brute-force
//! enumerator of node and edge assignments with distinct edges per `MATCH` clause.

use crate::common;
use common::random_graphs::{build, graph, pattern_vars, random_rels, rel_specs, RandomRel};
use common::{count_star, id_rows};

use gemp::engines::gemp::{execute, execute_streaming};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::{Model, ModelBuilder};
use gemp::pattern::binder::Params;
use gemp::pattern::ir::BoundQuery;
use gemp::session::{Session, SessionOptions};
use proptest::prelude::*;

const ALL: [Semantics; 3] = [
    Semantics::Isomorphism,
    Semantics::Homomorphism,
    Semantics::Cypher,
];

/// A model of nodes `names` (label `N`) and `:T` edges between them (by index).
fn model(names: &[&str], edges: &[(usize, usize)]) -> Model {
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    let ids: Vec<u32> = names.iter().map(|n| b.add_node(n, &["N"])).collect();
    for &(s, d) in edges {
        b.add_edge(ids[s], ids[d], t).unwrap();
    }
    b.freeze().unwrap()
}

fn compile(m: &Model, source: &str) -> BoundQuery {
    Session::host(m)
        .compile(source, &Params::default())
        .unwrap_or_else(|e| panic!("{source}: {e}"))
}

/// The number of matches of `pattern` (a query without `RETURN`) under `semantics`, taken three
/// ways that must agree: `RETURN count(*)`, `--count` of the plain rows, and the streamed rows.
fn count(m: &Model, pattern: &str, semantics: Semantics) -> u64 {
    let opts = MatchOptions {
        semantics,
        ..Default::default()
    };
    let q = compile(m, &format!("{pattern} RETURN count(*) AS n"));
    let out = execute(m, &q, &opts).unwrap();
    let Val::Int(n) = out.rows[0][0] else {
        panic!("count(*) is not an integer");
    };
    let rows = compile(m, pattern);
    let counted = execute(
        m,
        &rows,
        &MatchOptions {
            count_only: true,
            ..opts.clone()
        },
    )
    .unwrap()
    .count;
    let mut streamed = 0u64;
    execute_streaming(m, &rows, &opts, &mut |_, batch| {
        streamed += batch.len() as u64;
        Ok(())
    })
    .unwrap();
    assert_eq!(
        (counted, streamed),
        (n as u64, n as u64),
        "{pattern} under {semantics}: count(*), --count and streamed rows differ"
    );
    n as u64
}

/// Asserts the counts of `pattern` under isomorphism, homomorphism and Cypher semantics.
fn assert_counts(m: &Model, pattern: &str, want: [u64; 3]) {
    let got = ALL.map(|s| count(m, pattern, s));
    assert_eq!(got, want, "{pattern}: [isomorphism, homomorphism, cypher]");
}

/// a → b twice.
fn parallel() -> Model {
    model(&["a", "b"], &[(0, 1), (0, 1)])
}

#[test]
fn parallel_edges() {
    let m = parallel();
    // Anonymous: an existence check (1 pair) except under Cypher (each edge: 2).
    assert_counts(&m, "MATCH (x)-[:T]->(y)", [1, 1, 2]);
    // Named: edge by edge everywhere.
    assert_counts(&m, "MATCH (x)-[r:T]->(y)", [2, 2, 2]);
    // Two named relationships over the same pair: 2 × 2 unless edges must differ (2 orderings).
    assert_counts(&m, "MATCH (x)-[r:T]->(y), (x)-[s:T]->(y)", [4, 4, 2]);
    // The same, anonymous: one existence check twice, or the 2 orderings of distinct edges.
    assert_counts(&m, "MATCH (x)-[:T]->(y), (x)-[:T]->(y)", [1, 1, 2]);
    // Undirected: both orientations of the pair; Cypher: each edge in both orientations.
    assert_counts(&m, "MATCH (x)-[:T]-(y)", [2, 2, 4]);
    // A node reached twice: x and z both a (not under isomorphism); Cypher: two distinct edges.
    assert_counts(&m, "MATCH (x)-[:T]->(y)<-[:T]-(z)", [0, 1, 2]);
    // Distinct edges hold within one MATCH only: two clauses may reuse an edge (2 × 2).
    assert_counts(&m, "MATCH (x)-[r:T]->(y) MATCH (x)-[s:T]->(y)", [4, 4, 4]);
    assert_counts(&m, "MATCH (x)-[:T]->(y) MATCH (x)-[:T]->(y)", [1, 1, 4]);
}

#[test]
fn self_loops() {
    // a → a, a → b.
    let m = model(&["a", "b"], &[(0, 0), (0, 1)]);
    // Isomorphism needs x ≠ y: (a, b) only; the others also take the loop (a, a).
    assert_counts(&m, "MATCH (x)-[:T]->(y)", [1, 2, 2]);
    // Undirected: a loop matches once, in either orientation; a–b in both.
    assert_counts(&m, "MATCH (x)-[:T]-(y)", [2, 3, 3]);
    // Paths of two: homomorphism (a,a,a) over the loop twice and (a,a,b); Cypher cannot take the
    // loop twice: (a,a,b) only; isomorphism: none.
    assert_counts(&m, "MATCH (x)-[:T]->(y)-[:T]->(z)", [0, 2, 1]);
    assert_counts(&m, "MATCH (x)-[:T]->(x)", [1, 1, 1]);

    // Two loops on a: the self-loop pattern is an existence check, or one match per loop.
    let m = model(&["a"], &[(0, 0), (0, 0)]);
    assert_counts(&m, "MATCH (x)-[:T]->(x)", [1, 1, 2]);
    assert_counts(&m, "MATCH (x)-[r:T]->(x)", [2, 2, 2]);
    // Two loops in one pattern: ordered pairs of loops, distinct under Cypher.
    assert_counts(&m, "MATCH (x)-[r:T]->(x)-[s:T]->(x)", [4, 4, 2]);
    // A path of three loops: Cypher runs out of distinct edges.
    assert_counts(&m, "MATCH (x)-[:T]->(y)-[:T]->(z)-[:T]->(w)", [0, 1, 0]);
}

#[test]
fn triangle_with_a_doubled_edge() {
    // a → b twice, b → c, c → a.
    let m = model(&["a", "b", "c"], &[(0, 1), (0, 1), (1, 2), (2, 0)]);
    // Three rotations; Cypher: each rotation takes one of the two a → b edges.
    assert_counts(&m, "MATCH (x)-[:T]->(y)-[:T]->(z)-[:T]->(x)", [3, 3, 6]);
    // r named: (a,b,c) twice, (b,c,a) and (c,a,b) once each (r is the other edge there).
    assert_counts(&m, "MATCH (x)-[r:T]->(y)-[:T]->(z)-[:T]->(x)", [4, 4, 6]);
    // Adjacent ordered pairs: 3 pairs × 2 orientations; Cypher: 4 edges × 2 orientations.
    assert_counts(&m, "MATCH (x)-[:T]-(y)", [6, 6, 8]);
    // Labels and a WHERE keep working: only edges out of a (node 0).
    assert_counts(&m, "MATCH (x:N)-[:T]->(y) WHERE id(x) = 0", [1, 1, 2]);
}

#[test]
fn two_cycle() {
    // a → b, b → a.
    let m = model(&["a", "b"], &[(0, 1), (1, 0)]);
    assert_counts(&m, "MATCH (x)-[:T]-(y)", [2, 2, 4]);
    assert_counts(&m, "MATCH (x)-[:T]->(y)-[:T]->(x)", [2, 2, 2]);
    // Walks of two undirected steps: z = x always; Cypher: the second step takes the other edge.
    assert_counts(&m, "MATCH (x)-[:T]-(y)-[:T]-(z)", [0, 2, 4]);
    // Three steps need a third edge under Cypher.
    assert_counts(&m, "MATCH (x)-[:T]-(y)-[:T]-(z)-[:T]-(w)", [0, 2, 0]);
}

#[test]
fn exists_bodies_keep_their_own_edges_distinct() {
    let m = parallel();
    // Inside EXISTS, two relationships need two distinct edges a → b under Cypher: there are two.
    let two = "MATCH (x)-[:T]->(y) WHERE EXISTS { (x)-[:T]->(y), (x)-[:T]->(y) }";
    assert_counts(&m, two, [1, 1, 2]);
    // Three need three: none under Cypher.
    let three = "MATCH (x)-[:T]->(y) WHERE EXISTS { (x)-[:T]->(y), (x)-[:T]->(y), (x)-[:T]->(y) }";
    assert_counts(&m, three, [1, 1, 0]);
}

#[test]
fn names_and_aliases_parse() {
    for (name, s) in [
        ("cypher", Semantics::Cypher),
        ("relationship-isomorphism", Semantics::Cypher),
        ("Cypher", Semantics::Cypher),
        ("isomorphism", Semantics::Isomorphism),
        ("homomorphism", Semantics::Homomorphism),
    ] {
        assert_eq!(Semantics::parse(name), Some(s), "{name}");
    }
    assert_eq!(Semantics::parse("trail"), None);
    assert_eq!(Semantics::Cypher.to_string(), "cypher");
}

#[test]
fn gpsense_refuses_cypher_semantics() {
    let m = parallel();
    let session = Session::new(
        &m,
        &SessionOptions {
            engine: gemp::session::EngineKind::Gpsense,
            ..SessionOptions::host()
        },
    )
    .unwrap();
    let q = compile(&m, "MATCH (x)-[:T]->(y) RETURN count(*)");
    let opts = MatchOptions {
        semantics: Semantics::Cypher,
        ..Default::default()
    };
    let err = session.run(&q, &opts).unwrap_err().to_string();
    assert!(err.contains("not in this engine"), "{err}");
}

#[cfg(feature = "opencl")]
#[test]
fn the_device_refuses_cypher_semantics_and_auto_falls_back() {
    use gemp::engines::gemp::device::{DeviceConfig, DeviceMatcher};
    let Some(gpu) = common::gpu("the_device_refuses_cypher_semantics_and_auto_falls_back") else {
        return;
    };
    let m = parallel();
    let q = compile(&m, "MATCH (x)-[:T]->(y) RETURN count(*) AS n");
    let opts = MatchOptions {
        semantics: Semantics::Cypher,
        ..Default::default()
    };
    let device = DeviceMatcher::new(gpu, &m, DeviceConfig::default()).unwrap();
    let err = device.execute(&q, &opts).unwrap_err();
    assert!(
        matches!(err, gemp::Error::DeviceLimit(_)),
        "expected a device limit, got {err:?}"
    );
    // Under auto with the device named, the session runs the query on the host.
    let session = Session::new(
        &m,
        &SessionOptions {
            backend: gemp::session::Backend::Auto,
            device: gemp::gpu::DeviceSelector::Index(0),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(session.uses_device());
    let (out, report) = session.run(&q, &opts).unwrap();
    assert_eq!(out.rows[0][0], Val::Int(2));
    assert_eq!(report.backend, "host");
    assert!(report.fallback.unwrap().contains("cypher"));
}

/// A random pattern: labels per node, relationships, and the `MATCH` clause of each.
#[derive(Debug, Clone)]
struct P {
    labels: Vec<Option<u8>>,
    rels: Vec<RandomRel>,
    clauses: Vec<usize>,
}

fn pattern() -> impl Strategy<Value = P> {
    (1usize..5).prop_flat_map(|k| {
        (
            prop::collection::vec(prop::option::of(0u8..2), k),
            random_rels(k),
            prop::collection::vec(0usize..2, 4),
        )
            .prop_map(|(labels, rels, clauses)| P {
                labels,
                rels,
                clauses,
            })
    })
}

fn bind(m: &Model, p: &P) -> BoundQuery {
    let mut pattern = pattern_vars(m, &p.labels, &rel_specs(&p.rels));
    for (i, r) in pattern.rels.iter_mut().enumerate() {
        r.clause = p.clauses[i % p.clauses.len()];
    }
    BoundQuery {
        pattern,
        filter: vec![],
        stages: vec![],
        clauses: None,
    }
}

/// Brute force under Cypher semantics: every assignment of data nodes to pattern nodes and of
/// edges to pattern relationships (type, endpoints and direction checked; an undirected one takes
/// an edge either way, a loop once), the relationships of one clause on distinct edges. Returns
/// the node bindings, one per match.
fn brute(m: &Model, q: &BoundQuery) -> Vec<Vec<u32>> {
    let n = m.node_count() as u32;
    let e = m.edge_count() as u32;
    let p = &q.pattern;
    let k = p.nodes.len();
    let mut out = Vec::new();
    let mut nodes = vec![0u32; k];
    'assign: loop {
        let labels_ok = p.nodes.iter().enumerate().all(|(i, v)| {
            v.labels
                .iter()
                .all(|g| g.iter().any(|&l| m.has_label(nodes[i], l)))
        });
        if labels_ok {
            // The edges each relationship can take, then every choice of one per relationship.
            let fitting: Vec<Vec<u32>> = p
                .rels
                .iter()
                .map(|r| {
                    (0..e)
                        .filter(|&edge| {
                            let src = m.edge_source(edge).unwrap();
                            let (dst, ty) = m.edge_target(edge).unwrap();
                            let (x, y) = (nodes[r.src], nodes[r.dst]);
                            (r.types.is_empty() || r.types.contains(&ty))
                                && ((src == x && dst == y)
                                    || (r.undirected && src == y && dst == x))
                        })
                        .collect()
                })
                .collect();
            let choices: usize = fitting.iter().map(Vec::len).product();
            for mut c in 0..choices {
                let edges: Vec<u32> = fitting
                    .iter()
                    .map(|f| {
                        let edge = f[c % f.len()];
                        c /= f.len();
                        edge
                    })
                    .collect();
                let distinct = (0..edges.len()).all(|i| {
                    (0..i).all(|j| p.rels[i].clause != p.rels[j].clause || edges[i] != edges[j])
                });
                if distinct {
                    out.push(nodes.clone());
                }
            }
        }
        let mut i = 0;
        loop {
            if i == k {
                break 'assign;
            }
            nodes[i] += 1;
            if nodes[i] < n {
                break;
            }
            nodes[i] = 0;
            i += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]
    #[test]
    fn cypher_semantics_equals_brute_force(g in graph(6, 10), p in pattern()) {
        let m = build(&g);
        let mut q = bind(&m, &p);
        let mut want: Vec<Vec<i64>> = brute(&m, &q)
            .into_iter()
            .map(|a| a.into_iter().map(i64::from).collect())
            .collect();
        want.sort();
        let opts = MatchOptions { semantics: Semantics::Cypher, ..Default::default() };

        q.stages = vec![count_star()];
        let out = execute(&m, &q, &opts).unwrap();
        prop_assert_eq!(&out.rows, &vec![vec![Val::Int(want.len() as i64)]]);

        q.stages = vec![id_rows(p.labels.len())];
        let out = execute(&m, &q, &opts).unwrap();
        let mut got: Vec<Vec<i64>> = out
            .rows
            .iter()
            .map(|r| r.iter().map(|v| match v { Val::Int(i) => *i, _ => -1 }).collect())
            .collect();
        got.sort();
        prop_assert_eq!(got, want.clone());

        let out = execute(&m, &q, &MatchOptions { count_only: true, ..opts.clone() }).unwrap();
        prop_assert_eq!(out.count, want.len() as u64);
    }
}

/// The `gemp` binary on a snapshot of [`parallel`] and a query file `q.cypher` holding `query`:
/// (exit status, stdout, stderr).
fn gemp_on_parallel(query: &str, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("parallel.gemp");
    gemp::model::snapshot::write(&parallel(), &snap).unwrap();
    let q = dir.path().join("q.cypher");
    std::fs::write(&q, query).unwrap();
    let (snap, q) = (snap.to_str().unwrap(), q.to_str().unwrap());
    let mut all: Vec<&str> = args.to_vec();
    let at = all.iter().position(|a| *a == "Q").expect("a Q argument");
    all[at] = q;
    all.extend(["--model", snap]);
    let out = common::gemp(&all);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

const ANONYMOUS: &str = "MATCH (x)-[:T]->(y) RETURN count(*) AS n";
const DECLARED: &str = "// two parallel edges, one match\n// gemp: semantics=isomorphism\n\
                        MATCH (x)-[:T]->(y) RETURN count(*) AS n";

#[test]
fn a_query_file_declares_its_semantics_and_the_flag_overrides_it() {
    let count = ["match", "Q", "--count", "--backend", "host"];
    let (code, out, _) = gemp_on_parallel(ANONYMOUS, &count);
    assert_eq!(
        (code, out.trim()),
        (0, "2"),
        "the default for Cypher text: Cypher's, each parallel edge a match"
    );
    let (code, out, err) = gemp_on_parallel(DECLARED, &count);
    assert_eq!((code, out.trim()), (0, "1"), "{err}");
    let flag = [&count[..], &["--semantics", "isomorphism"]].concat();
    let (code, out, _) = gemp_on_parallel(ANONYMOUS, &flag);
    assert_eq!((code, out.trim()), (0, "1"));
    let flag = [&count[..], &["--semantics", "relationship-isomorphism"]].concat();
    let (code, out, err) = gemp_on_parallel(DECLARED, &flag);
    assert_eq!((code, out.trim()), (0, "2"));
    assert!(
        err.contains("q.cypher:2 declares semantics=isomorphism; --semantics cypher overrides it"),
        "{err}"
    );
}

#[test]
fn a_bad_declaration_is_an_error_naming_file_and_line() {
    let (code, _, err) = gemp_on_parallel(
        "// gemp: semantics=trails\nMATCH (x) RETURN x",
        &["match", "Q", "--backend", "host"],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("q.cypher: line 1: unknown semantics `trails`"),
        "{err}"
    );
}

/// A file declaring the default for Cypher text, explicitly.
const DECLARED_CYPHER: &str = "// two parallel edges\n// gemp: semantics=cypher\n\
                               MATCH (x)-[:T]->(y) RETURN count(*) AS n";

#[test]
fn the_semantics_is_visible_in_explain_verbose_and_jsonl_meta() {
    let (code, out, err) =
        gemp_on_parallel(DECLARED_CYPHER, &["explain", "Q", "--backend", "host"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("semantics: cypher (relationship-isomorphism)")),
        "{out}"
    );
    assert!(
        out.contains("rel 0: (x)-[:T]->(y)  (enumerated, distinct edges in MATCH 1)"),
        "{out}"
    );
    let (code, _, err) = gemp_on_parallel(
        DECLARED_CYPHER,
        &["-v", "match", "Q", "--count", "--backend", "host"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("semantics cypher").count(), 1, "{err}");
    assert!(err.contains("(from line 2 of the query file)"), "{err}");
    let (code, out, err) = gemp_on_parallel(
        DECLARED_CYPHER,
        &[
            "match",
            "Q",
            "--format",
            "jsonl",
            "--meta",
            "--backend",
            "host",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"_meta":{"semantics":"cypher","engine":"host"}}"#,
            r#"{"n":2}"#
        ]
    );
    let (code, _, err) = gemp_on_parallel(DECLARED_CYPHER, &["match", "Q", "--meta"]);
    assert_ne!(code, 0);
    assert!(err.contains("--meta applies to --format jsonl"), "{err}");
}

#[test]
fn batch_runs_each_file_under_its_own_declaration() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("parallel.gemp");
    gemp::model::snapshot::write(&parallel(), &snap).unwrap();
    let (plain, declared) = (
        dir.path().join("plain.cypher"),
        dir.path().join("declared.cypher"),
    );
    std::fs::write(&plain, ANONYMOUS).unwrap();
    std::fs::write(&declared, DECLARED).unwrap();
    let out_dir = dir.path().join("out");
    let out = common::gemp(&[
        "batch",
        "--model",
        snap.to_str().unwrap(),
        plain.to_str().unwrap(),
        declared.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--count",
        "--backend",
        "host",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(out_dir.join(name)).unwrap();
    assert_eq!(read("plain.count").trim(), "2");
    assert_eq!(read("declared.count").trim(), "1");
}

/// The default is the language's: Cypher's for Cypher text, node-isomorphism for a `.graph`
/// query graph (and a relationship-free Cypher query runs on engines without Cypher semantics,
/// with the same answer).
#[test]
fn the_default_semantics_is_the_language_s() {
    use gemp::session::{PrepareOptions, SemanticsFrom};
    let dir = tempfile::tempdir().unwrap();
    let m = parallel();
    let session = Session::host(&m);
    let cypher = dir.path().join("q.cypher");
    std::fs::write(&cypher, ANONYMOUS).unwrap();
    let graph = dir.path().join("q.graph");
    std::fs::write(&graph, "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\n").unwrap();
    let options = PrepareOptions::default();
    let c = session.prepare_file(&cypher, &options).unwrap();
    assert_eq!(
        (c.semantics(), c.semantics_from()),
        (Semantics::Cypher, &SemanticsFrom::Default)
    );
    let g = session.prepare_file(&graph, &options).unwrap();
    assert_eq!(
        (g.semantics(), g.semantics_from()),
        (Semantics::Isomorphism, &SemanticsFrom::Default)
    );
    // No relationship: GpSense (node-isomorphism and homomorphism only) answers Cypher's count,
    // both nodes for each of x and y: 2 x 2.
    let q = session
        .prepare("MATCH (x), (y) RETURN count(*) AS n", &options)
        .unwrap();
    let gpsense = Session::new(
        &m,
        &SessionOptions {
            engine: gemp::session::EngineKind::Gpsense,
            backend: gemp::session::Backend::Host,
            ..Default::default()
        },
    )
    .unwrap();
    let (out, _) = gpsense.run(q.bound(), &q.options()).unwrap();
    assert_eq!(out.rows[0][0], Val::Int(4));
}
