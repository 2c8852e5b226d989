//! The same query on a cluster (`gemp partition`, `gemp match --parts`, `gemp cluster run`):
//! counts and rows equal to the single-process engine on random labelled graphs, the bundled
//! IMDb sample's queries and subgraph-matching `.graph` queries, with 1, 2 and 3 processes of 1
//! or 2 worker threads; refusals; a process that never comes up, a process killed mid-query and
//! a mismatched partition set, each ending the others with an error (exit status 1).
//! Most Cypher text runs under `--semantics isomorphism`; `cypher_semantics_*` run Cypher's own
//! default (relationship isomorphism) on multigraphs with parallel edges and self-loops.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, gemp, Rng};
use gemp::model::{ModelBuilder, ValueRef};

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A random multigraph of `n` nodes labelled `A`/`B`, about `m` edges typed `X`/`Y`, with an
/// integer `v` (0..3) and a string `s` on every node, written as `dir/model.gemp`.
fn random_snapshot(dir: &Path, seed: u64, n: usize, m: usize) -> PathBuf {
    typed_random_snapshot(dir, seed, n, m, &["X", "Y"])
}

/// [`random_snapshot`] with the relationship types `type_names`, each edge's type drawn among
/// them.
fn typed_random_snapshot(
    dir: &Path,
    seed: u64,
    n: usize,
    m: usize,
    type_names: &[&str],
) -> PathBuf {
    let mut rng = Rng(seed);
    let mut b = ModelBuilder::new();
    let types: Vec<u32> = type_names.iter().map(|t| b.rel_type(t)).collect();
    let (v, s) = (b.node_property("v"), b.node_property("s"));
    let ids: Vec<u32> = (0..n)
        .map(|i| {
            let label = if rng.chance(40) { "A" } else { "B" };
            b.add_node(&format!("n{i}"), &[label])
        })
        .collect();
    for &id in &ids {
        b.set_node_property(id, v, ValueRef::Int(rng.below(3) as i64))
            .unwrap();
        let text = if rng.chance(50) { "alpha" } else { "beta" };
        b.set_node_property(id, s, ValueRef::Str(text)).unwrap();
    }
    for _ in 0..m {
        let (x, y) = (ids[rng.below(n)], ids[rng.below(n)]);
        b.add_edge(x, y, types[rng.below(types.len())]).unwrap();
    }
    let path = dir.join("model.gemp");
    gemp::model::snapshot::write(&b.freeze().unwrap(), &path).unwrap();
    path
}

fn partition(snapshot: &Path, parts: u32, dir: &Path) {
    ok(&gemp(&[
        "-q",
        "partition",
        snapshot.to_str().unwrap(),
        "--parts",
        &parts.to_string(),
        "-o",
        dir.to_str().unwrap(),
    ]));
}

/// `gemp match` on one machine.
fn single(snapshot: &Path, query: &str, extra: &[&str]) -> String {
    single_as(snapshot, query, &["--semantics", "isomorphism"], extra)
}

/// `gemp match` on one machine with `semantics` (empty: the query language's default).
fn single_as(snapshot: &Path, query: &str, semantics: &[&str], extra: &[&str]) -> String {
    let mut args = vec![
        "-q",
        "match",
        "--backend",
        "host",
        "-m",
        snapshot.to_str().unwrap(),
    ];
    args.extend_from_slice(semantics);
    args.extend_from_slice(&["-c", query]);
    args.extend_from_slice(extra);
    ok(&gemp(&args))
}

/// The same on `processes` local processes of `threads` workers (one process: in-process).
fn clustered(
    parts: &Path,
    processes: usize,
    threads: usize,
    query: &str,
    extra: &[&str],
) -> String {
    clustered_as(
        parts,
        processes,
        threads,
        query,
        &["--semantics", "isomorphism"],
        extra,
    )
}

/// [`clustered`] with `semantics` (empty: the query language's default).
fn clustered_as(
    parts: &Path,
    processes: usize,
    threads: usize,
    query: &str,
    semantics: &[&str],
    extra: &[&str],
) -> String {
    let threads = threads.to_string();
    let processes_s = processes.to_string();
    let mut args = if processes == 1 {
        vec!["-q", "match"]
    } else {
        vec!["-q", "cluster", "run", "--processes", &processes_s]
    };
    args.extend_from_slice(&[
        "--parts",
        parts.to_str().unwrap(),
        "--threads",
        &threads,
        "--batch",
        "7",
    ]);
    args.extend_from_slice(semantics);
    args.extend_from_slice(&["-c", query]);
    args.extend_from_slice(extra);
    ok(&gemp(&args))
}

const RANDOM_QUERIES: &[&str] = &[
    "MATCH (a)-->(b)-->(c)-->(a) RETURN count(*)",
    "MATCH (a)-[:X]->(b)-[:X]->(c)-[:Y]->(d)-->(a) RETURN count(*)",
    "MATCH (a:A)-[:X]->(b)<-[:Y]-(c:B) RETURN count(*)",
    "MATCH (a)--(b)--(c) WHERE a.v = 1 AND c.s = 'beta' RETURN count(*)",
    "MATCH (a:A)-->(b:A)-->(c) WHERE id(a) < id(c) RETURN count(*)",
    "MATCH (a)-[:X|Y]->(b) WHERE b.v >= 1 RETURN count(*)",
    "MATCH (a)-->(a) RETURN count(*)",
    "MATCH (a:B)-->(b)-->(c:A) RETURN a.v, c.s, count(*) ORDER BY a.v, c.s",
    "MATCH (a:A)-[:Y]->(b) RETURN DISTINCT b.v ORDER BY b.v DESC",
    "MATCH (a:A)-->(b) RETURN id(a) AS x, id(b) AS y ORDER BY x, y LIMIT 5",
    "MATCH (a:A)-->(b) RETURN a.v AS k, sum(b.v) AS s, min(b.s) AS lo, max(b.v) AS hi, \
     count(b.v) AS n ORDER BY k",
    "MATCH (a)-->(b)-->(c) RETURN avg(c.v) AS m, count(DISTINCT a.s) AS d, \
     sum(DISTINCT b.v) AS sd, count(*) AS n",
    "MATCH (a:B)-->(b:A) WHERE a.v = 7 RETURN sum(b.v) AS s, avg(b.v) AS m, max(b.s) AS x",
];

#[test]
fn random_graphs_count_as_on_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    for (g, (n, m)) in [(30, 90), (60, 150), (12, 60)].into_iter().enumerate() {
        let sub = dir.path().join(format!("g{g}"));
        std::fs::create_dir(&sub).unwrap();
        let snap = random_snapshot(&sub, 7 + g as u64, n, m);
        let parts = sub.join("parts");
        partition(&snap, 3, &parts);
        for (q, query) in RANDOM_QUERIES.iter().enumerate() {
            let expected = single(&snap, query, &[]);
            // Every configuration on the first graph; one per query on the others.
            let configs: &[(usize, usize)] = if g == 0 {
                &[(1, 1), (1, 2), (2, 1), (3, 2)]
            } else {
                &[[(1, 2), (2, 1), (2, 2)][q % 3]]
            };
            for &(p, t) in configs {
                assert_eq!(
                    clustered(&parts, p, t, query, &[]),
                    expected,
                    "graph {g}, {p} processes of {t} threads: {query}"
                );
            }
        }
    }
}

/// Patterns whose later vertices have two or three back-edges: BiGJoin's count stage picks, per
/// partial match, the smallest of their lists to propose and intersects with the others.
const BACK_EDGE_QUERIES: &[&str] = &[
    "MATCH (a)-->(b)-->(c)-->(a) RETURN count(*)",
    "MATCH (a)--(b)--(c)--(a) RETURN count(*)",
    "MATCH (a)-->(b), (a)-->(c), (b)-->(c), (a)-->(d), (b)-->(d), (c)-->(d) RETURN count(*)",
    "MATCH (a:A)-[:X]->(b)<-[:Y]-(c)-->(d), (a)-->(d), (b)--(d) RETURN count(*)",
    "MATCH (a)-[:X]->(b), (c)-[:Y]->(b), (d)-->(b), (a)--(c), (c)--(d) RETURN count(*)",
    "MATCH (h)-->(b)-->(c), (h)-->(c) WHERE c.v = 2 RETURN b.s, count(*) ORDER BY b.s",
];

/// A random multigraph as [`random_snapshot`], plus hubs: node 0 linked to and from every
/// other node, node 1 to every third, so that a vertex's lists differ widely in length.
fn hub_snapshot(dir: &Path, seed: u64, n: usize, m: usize) -> PathBuf {
    let mut rng = Rng(seed);
    let mut b = ModelBuilder::new();
    let types = [b.rel_type("X"), b.rel_type("Y")];
    let (v, s) = (b.node_property("v"), b.node_property("s"));
    let ids: Vec<u32> = (0..n)
        .map(|i| {
            let label = if rng.chance(40) { "A" } else { "B" };
            b.add_node(&format!("n{i}"), &[label])
        })
        .collect();
    for &id in &ids {
        b.set_node_property(id, v, ValueRef::Int(rng.below(3) as i64))
            .unwrap();
        let text = if rng.chance(50) { "alpha" } else { "beta" };
        b.set_node_property(id, s, ValueRef::Str(text)).unwrap();
    }
    for i in 1..n {
        b.add_edge(ids[0], ids[i], types[i % 2]).unwrap();
        b.add_edge(ids[i], ids[0], types[(i + 1) % 2]).unwrap();
        if i % 3 == 0 {
            b.add_edge(ids[1], ids[i], types[0]).unwrap();
        }
    }
    for _ in 0..m {
        let (x, y) = (ids[rng.below(n)], ids[rng.below(n)]);
        b.add_edge(x, y, types[rng.below(2)]).unwrap();
    }
    let path = dir.join("model.gemp");
    gemp::model::snapshot::write(&b.freeze().unwrap(), &path).unwrap();
    path
}

#[test]
fn several_back_edges_count_as_on_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    for (g, (n, m, procs)) in [(40, 160, 2usize), (50, 200, 3), (30, 150, 4)]
        .into_iter()
        .enumerate()
    {
        let sub = dir.path().join(format!("g{g}"));
        std::fs::create_dir(&sub).unwrap();
        let snap = hub_snapshot(&sub, 21 + g as u64, n, m);
        let parts = sub.join("parts");
        partition(&snap, procs as u32, &parts);
        for query in BACK_EDGE_QUERIES {
            let expected = single(&snap, query, &[]);
            assert_eq!(
                clustered(&parts, procs, 1, query, &[]),
                expected,
                "graph {g}, {procs} processes: {query}"
            );
        }
    }
}

/// Queries under Cypher's default semantics (relationship isomorphism): parallel edges multiply
/// matches, a relationship of a `MATCH` clause never binds the edge another one binds, nodes
/// may repeat.
const CYPHER_QUERIES: &[&str] = &[
    "MATCH (a)-->(b) RETURN count(*)",
    "MATCH (a)-->(a) RETURN count(*)",
    "MATCH (a)-->(b)-->(c) RETURN count(*)",
    "MATCH (a)--(b)--(c) RETURN count(*)",
    "MATCH (a)-[:X]->(b)<-[:X]-(c) RETURN count(*)",
    "MATCH (a)-->(b)-->(c)-->(a) RETURN count(*)",
    "MATCH (a)--(b)--(c)--(a) RETURN count(*)",
    "MATCH (a)-->(b), (a)-->(b) RETURN count(*)",
    "MATCH (a)-[:X]->(b), (a)-->(b), (b)-->(a) RETURN count(*)",
    "MATCH (a)-->(a)-->(b) RETURN count(*)",
    "MATCH (a:A)-[:X|Y]-(b)-->(c) RETURN a.v, count(*) ORDER BY a.v",
    "MATCH (a)-->(b)-->(c) WHERE c.v = 1 RETURN id(a) AS x, id(c) AS z ORDER BY x, z",
    "MATCH (a)-->(b)--(c) RETURN b.s AS k, sum(a.v) AS s, avg(c.v) AS m, count(*) AS n ORDER BY k",
];

#[test]
fn cypher_semantics_count_as_on_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    // Few nodes, many edges: parallel edges and self-loops throughout.
    for (g, (n, m, procs)) in [(8, 50, 2usize), (12, 60, 3), (10, 70, 4)]
        .into_iter()
        .enumerate()
    {
        let sub = dir.path().join(format!("g{g}"));
        std::fs::create_dir(&sub).unwrap();
        let snap = random_snapshot(&sub, 40 + g as u64, n, m);
        let parts = sub.join("parts");
        partition(&snap, procs as u32, &parts);
        for query in CYPHER_QUERIES {
            let expected = single_as(&snap, query, &[], &[]);
            assert_eq!(
                clustered_as(&parts, procs, 1, query, &[], &[]),
                expected,
                "graph {g}, {procs} processes: {query}"
            );
        }
    }
}

/// Counts the cluster answers without sending every candidate to its owner: stars counted at
/// their centre (leaves with labels, typed, undirected, a centre with a filter), paths whose last
/// vertex is counted where its proposer is bound, and patterns of pairwise disjoint types whose
/// candidates are weighed by the parallel edges of the lists that propose and intersect them —
/// besides shapes that must take the general dataflow (untyped relationships, id comparisons).
const COUNTED_IN_PLACE_QUERIES: &[&str] = &[
    "MATCH (a:A)-[:X]->(b)-[:Y]->(c:B) RETURN count(*)",
    "MATCH (a:A)<-[:X]-(b)-[:Y]->(c:A), (b)-[:Z]->(d) RETURN count(*)",
    "MATCH (a)-[:X]-(b:B)-[:Y]-(c) RETURN count(*)",
    "MATCH (b:A)-[:X|Y]->(c:B) RETURN count(*)",
    "MATCH (a)-[:X]->(b:B)-[:Y]->(c) WHERE b.v = 1 RETURN count(*)",
    "MATCH (a)-->(b)<--(c:A) RETURN count(*)",
    "MATCH (a)-[:X]->(b)-[:Y]->(c), (a)-[:Z]->(c) RETURN count(*)",
    "MATCH (a)-[:X]-(b)-[:Y]-(c)-[:Z]-(a) RETURN count(*)",
    "MATCH (a:A)-[:X]->(b)-[:Y]->(c)-[:Z]->(d:B) RETURN count(*)",
    "MATCH (a)-[:X]->(b)-[:Y]->(a) RETURN count(*)",
    "MATCH (a)-[:X]->(b)-[:Y]->(c)-[:Z]->(b) RETURN count(*)",
    "MATCH (a)-[:X]->(b)-[:Y]->(c) WHERE id(a) < id(c) RETURN count(*)",
];

#[test]
fn counts_made_in_place_equal_the_single_machine() {
    let dir = tempfile::tempdir().unwrap();
    let semantics: [&[&str]; 3] = [
        &[],
        &["--semantics", "homomorphism"],
        &["--semantics", "isomorphism"],
    ];
    for (g, (n, m, procs, threads)) in [(9, 70, 2usize, 1usize), (14, 90, 3, 2)]
        .into_iter()
        .enumerate()
    {
        let sub = dir.path().join(format!("g{g}"));
        std::fs::create_dir(&sub).unwrap();
        let snap = typed_random_snapshot(&sub, 60 + g as u64, n, m, &["X", "Y", "Z"]);
        let parts = sub.join("parts");
        partition(&snap, (procs * threads) as u32, &parts);
        for query in COUNTED_IN_PLACE_QUERIES {
            for sem in semantics {
                let expected = single_as(&snap, query, sem, &[]);
                assert_eq!(
                    clustered_as(&parts, procs, threads, query, sem, &[]),
                    expected,
                    "graph {g}, {procs} processes of {threads} threads, {sem:?}: {query}"
                );
            }
        }
    }
}

#[test]
fn cypher_semantics_matches_a_hand_count() {
    // Node x with two self-loops, an edge x→y and two parallel edges y→x.
    let dir = tempfile::tempdir().unwrap();
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    let x = b.add_node("x", &["N"]);
    let y = b.add_node("y", &["N"]);
    for (s, d) in [(x, x), (x, x), (x, y), (y, x), (y, x)] {
        b.add_edge(s, d, t).unwrap();
    }
    let snap = dir.path().join("m.gemp");
    gemp::model::snapshot::write(&b.freeze().unwrap(), &snap).unwrap();
    let parts = dir.path().join("p");
    partition(&snap, 2, &parts);
    let count = |q: &str| clustered_as(&parts, 2, 1, q, &[], &["--count"]);
    // Every edge once.
    assert_eq!(count("MATCH (a)-->(b) RETURN count(*)").trim(), "5");
    // Two distinct loops in order: 2 × 1.
    assert_eq!(count("MATCH (a)-->(a)-->(a) RETURN count(*)").trim(), "2");
    // a→b→c with distinct edges: x→x→x (2·1), x→x→y (2·1), y→x→x (2·2), y→x→y (2·1),
    // x→y→x (1·2): 2 + 2 + 4 + 2 + 2.
    assert_eq!(count("MATCH (a)-->(b)-->(c) RETURN count(*)").trim(), "12");
    // Under node-isomorphism a 2-path needs three distinct nodes: none here.
    let iso = clustered(
        &parts,
        2,
        1,
        "MATCH (a)-->(b)-->(c) RETURN count(*)",
        &["--count"],
    );
    assert_eq!(iso.trim(), "0");
}

#[test]
fn an_unlabelled_count_matches_a_hand_count() {
    // A directed 4-cycle and a chord: one directed triangle (0→1→2→0? no: 0→1, 1→2, 2→0).
    let dir = tempfile::tempdir().unwrap();
    let mut b = ModelBuilder::new();
    let t = b.rel_type("T");
    let ids: Vec<u32> = (0..4)
        .map(|i| b.add_node(&format!("{i}"), &["N"]))
        .collect();
    for (x, y) in [(0, 1), (1, 2), (2, 3), (3, 0), (2, 0)] {
        b.add_edge(ids[x], ids[y], t).unwrap();
    }
    let snap = dir.path().join("m.gemp");
    gemp::model::snapshot::write(&b.freeze().unwrap(), &snap).unwrap();
    let parts = dir.path().join("p");
    partition(&snap, 2, &parts);
    // The triangle 0→1→2→0, found from each of its three nodes.
    let q = "MATCH (a)-->(b)-->(c)-->(a) RETURN count(*)";
    assert_eq!(clustered(&parts, 2, 1, q, &["--count"]).trim(), "3");
    // Directed 2-paths: 0→1→2, 1→2→3, 1→2→0, 2→3→0, 3→0→1, 2→0→1.
    let q = "MATCH (a)-->(b)-->(c) RETURN count(*)";
    assert_eq!(clustered(&parts, 2, 1, q, &["--count"]).trim(), "6");
}

#[test]
fn the_imdb_sample_queries_print_as_on_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let snap = common::load_snapshot(dir.path(), &common::root().join("datasets/imdb-sample"));
    let parts = dir.path().join("parts");
    partition(&snap, 4, &parts);
    let queries = common::root().join("datasets/queries");
    for (file, extra) in [
        ("top-rated-recent.cypher", &["--param", "year=2000"][..]),
        ("four-actors-jack.cypher", &[][..]),
    ] {
        let path = queries.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = single(&snap, &text, extra);
        assert!(expected.lines().count() > 2, "{file}: {expected}");
        for (p, t) in [(2, 1), (3, 1), (1, 2)] {
            assert_eq!(clustered(&parts, p, t, &text, extra), expected, "{file}");
        }
        for format in ["jsonl", "csv"] {
            let e = single(&snap, &text, &[extra, &["--format", format][..]].concat());
            let got = clustered(
                &parts,
                2,
                2,
                &text,
                &[extra, &["--format", format][..]].concat(),
            );
            assert_eq!(got, e, "{file} as {format}");
        }
    }
    // Movies by credits: a labelled 2-path count.
    let q = "MATCH (p:Person)-[:ACTOR|ACTRESS]->(t:Movie) RETURN count(*) AS credits";
    let expected = single(&snap, q, &[]);
    assert_eq!(clustered(&parts, 2, 1, q, &[]), expected);
}

#[test]
fn graph_queries_count_as_on_one_machine() {
    // A subgraph-matching data graph (undirected, labels 0..3) and query graphs.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(99);
    let n = 80;
    let mut edges = std::collections::BTreeSet::new();
    while edges.len() < 240 {
        let (a, b) = (rng.below(n), rng.below(n));
        if a != b {
            edges.insert((a.min(b), a.max(b)));
        }
    }
    let mut text = format!("t {n} {}\n", edges.len());
    let mut degree = vec![0; n];
    for &(a, b) in &edges {
        degree[a] += 1;
        degree[b] += 1;
    }
    for (v, d) in degree.iter().enumerate() {
        text += &format!("v {v} {} {d}\n", v % 3);
    }
    for (a, b) in &edges {
        text += &format!("e {a} {b}\n");
    }
    let data = dir.path().join("data.graph");
    std::fs::write(&data, text).unwrap();
    let snap = common::load_snapshot(dir.path(), &data);
    let parts = dir.path().join("parts");
    partition(&snap, 3, &parts);
    let queries = [
        // triangle with labels 0, 1, 2
        "t 3 3\nv 0 0 2\nv 1 1 2\nv 2 2 2\ne 0 1\ne 1 2\ne 0 2\n",
        // 4-cycle, any labels 0/1
        "t 4 4\nv 0 0 2\nv 1 1 2\nv 2 0 2\nv 3 1 2\ne 0 1\ne 1 2\ne 2 3\ne 3 0\n",
        // path of 4
        "t 4 3\nv 0 1 1\nv 1 0 2\nv 2 2 2\nv 3 1 1\ne 0 1\ne 1 2\ne 2 3\n",
    ];
    for (i, q) in queries.iter().enumerate() {
        let path = dir.path().join(format!("q{i}.graph"));
        std::fs::write(&path, q).unwrap();
        let p = path.to_str().unwrap();
        let expected = ok(&gemp(&[
            "-q",
            "match",
            "--backend",
            "host",
            "-m",
            snap.to_str().unwrap(),
            p,
            "--count",
        ]));
        assert!(expected.trim().parse::<u64>().unwrap() > 0, "query {i}");
        for (procs, t) in [(1, 2), (2, 1), (3, 1)] {
            let threads = t.to_string();
            let procs_s = procs.to_string();
            let mut args = if procs == 1 {
                vec!["-q", "match"]
            } else {
                vec!["-q", "cluster", "run", "--processes", &procs_s]
            };
            args.extend_from_slice(&[
                "--parts",
                parts.to_str().unwrap(),
                "--threads",
                &threads,
                p,
                "--count",
            ]);
            assert_eq!(ok(&gemp(&args)), expected, "query {i}, {procs}×{t}");
        }
    }
}

#[test]
fn what_the_distributed_plan_cannot_do_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let snap = random_snapshot(dir.path(), 1, 10, 20);
    let parts = dir.path().join("parts");
    partition(&snap, 2, &parts);
    for (query, says) in [
        (
            "MATCH (a) OPTIONAL MATCH (a)-->(b) RETURN count(*)",
            "OPTIONAL MATCH",
        ),
        ("MATCH (a)-[*1..2]->(b) RETURN count(*)", "variable-length"),
        ("MATCH (a)-[r]->(b) RETURN count(*)", "named relationships"),
        (
            "MATCH (a)-->(b) WHERE a.v < b.v RETURN count(*)",
            "two or more",
        ),
        ("MATCH (a)-->(b) RETURN a", "whole nodes"),
        ("MATCH (a)-->(b) RETURN sum(a.v + b.v)", "two or more"),
        ("MATCH (a)-->(b) RETURN collect(b)", "whole nodes"),
        ("MATCH (a), (b) RETURN count(*)", "unconnected"),
    ] {
        let out = gemp(&[
            "-q",
            "match",
            "--parts",
            parts.to_str().unwrap(),
            "--semantics",
            "isomorphism",
            "-c",
            query,
        ]);
        assert_eq!(out.status.code(), Some(1), "{query}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not supported on a cluster") && err.contains(says),
            "{query}: {err}"
        );
    }
}

fn hostfile(dir: &Path, ports: &[u16]) -> PathBuf {
    let path = dir.join("hosts");
    let text: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn free_ports(n: usize) -> Vec<u16> {
    let l: Vec<_> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    l.iter().map(|l| l.local_addr().unwrap().port()).collect()
}

fn member(hosts: &Path, i: usize, parts: &Path, query: &str, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gemp"));
    c.args([
        "-q",
        "match",
        "--cluster",
        hosts.to_str().unwrap(),
        "--process",
    ])
    .arg(i.to_string())
    .args([
        "--parts",
        parts.to_str().unwrap(),
        "--semantics",
        "isomorphism",
        "-c",
        query,
    ])
    .args(extra)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    c
}

#[test]
fn a_process_that_never_comes_up_ends_the_query_within_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let snap = random_snapshot(dir.path(), 3, 10, 20);
    let parts = dir.path().join("parts");
    partition(&snap, 2, &parts);
    let hosts = hostfile(dir.path(), &free_ports(2));
    let started = Instant::now();
    let out = member(
        &hosts,
        0,
        &parts,
        "MATCH (a)-->(b) RETURN count(*)",
        &["--connect-timeout", "2"],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("could not connect to every process"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_inherited_descriptor_that_is_not_a_listening_socket_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let snap = random_snapshot(dir.path(), 3, 10, 20);
    let parts = dir.path().join("parts");
    partition(&snap, 2, &parts);
    let hosts = hostfile(dir.path(), &free_ports(2));
    // Descriptor 0 is standard input (not a socket); 977 is not open.
    for fd in ["0", "977"] {
        let out = member(
            &hosts,
            0,
            &parts,
            "MATCH (a)-->(b) RETURN count(*)",
            &["--listen-fd", fd, "--connect-timeout", "2"],
        )
        .stdin(Stdio::null())
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("--listen-fd {fd} is not a listening socket")),
            "{err}"
        );
    }
}

#[test]
fn a_killed_process_ends_the_query_on_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let snap = random_snapshot(dir.path(), 5, 20000, 40000);
    let parts = dir.path().join("parts");
    partition(&snap, 2, &parts);
    let hosts = hostfile(dir.path(), &free_ports(2));
    // One start vertex per round: thousands of rounds, each a round trip between the processes.
    let q = "MATCH (a)-->(b)-->(c) RETURN count(*)";
    let extra = ["--batch", "1", "--connect-timeout", "20"];
    let mut p0 = member(&hosts, 0, &parts, q, &extra).spawn().unwrap();
    let mut p1 = member(&hosts, 1, &parts, q, &extra).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    if let Ok(Some(_)) = p0.try_wait() {
        let _ = p1.kill();
        panic!("the query finished before the kill: make it longer");
    }
    p1.kill().unwrap();
    let _ = p1.wait();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = p0.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = p0.kill();
            panic!("process 0 still runs 30 s after process 1 was killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = p0.wait_with_output().unwrap();
    assert_eq!(status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lost the cluster"), "{err}");
}

#[test]
fn a_mismatched_partition_set_is_refused_before_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let (da, db) = (dir.path().join("ma"), dir.path().join("mb"));
    std::fs::create_dir(&da).unwrap();
    std::fs::create_dir(&db).unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    partition(&random_snapshot(&da, 4, 20, 40), 2, &a);
    partition(&random_snapshot(&db, 6, 20, 40), 2, &b);
    let hosts = hostfile(dir.path(), &free_ports(2));
    let q = "MATCH (a)-->(b) RETURN count(*)";
    let p0 = member(&hosts, 0, &a, q, &[]).spawn().unwrap();
    let p1 = member(&hosts, 1, &b, q, &[]).spawn().unwrap();
    for p in [p0, p1] {
        let out = p.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("same partition set"), "{err}");
    }
    // A part copied in from another set is refused when it is opened.
    std::fs::copy(b.join("part-1.gemp"), a.join("part-1.gemp")).unwrap();
    let out = gemp(&[
        "-q",
        "match",
        "--parts",
        a.to_str().unwrap(),
        "--threads",
        "2",
        "--semantics",
        "isomorphism",
        "-c",
        q,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mixed or incomplete"));
}

#[test]
fn a_partition_set_of_an_older_version_is_refused_before_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let snap = random_snapshot(dir.path(), 3, 20, 40);
    let parts = dir.path().join("p");
    partition(&snap, 2, &parts);
    let q = "MATCH (a)-->(b) RETURN count(*)";
    let run = || {
        gemp(&[
            "-q",
            "match",
            "--parts",
            parts.to_str().unwrap(),
            "--threads",
            "2",
            "-c",
            q,
        ])
    };
    ok(&run());
    // A part is not a model: `-m part-0.gemp` names the set instead.
    let out = gemp(&[
        "-q",
        "match",
        "-m",
        parts.join("part-0.gemp").to_str().unwrap(),
        "-c",
        q,
    ]);
    assert!(!out.status.success());
    // A version 1 set (parts over the whole model's node ids) is refused with the advice.
    let manifest = parts.join("partitions.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let old = text.replace("\"version\": 2", "\"version\": 1");
    assert_ne!(old, text);
    std::fs::write(&manifest, old).unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("partition the model again"), "{err}");
}
