//! The subgraph-matching benchmark graph format: exact graphs, malformed lines with their line
//! numbers, and headers that claim more than the file holds.

use std::path::PathBuf;

use gemp::io::{subgraph_bench, LoadOptions, LoadReport};

fn file(dir: &tempfile::TempDir, text: &str) -> PathBuf {
    let p = dir.path().join("g.graph");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn reads_an_exact_graph() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "t 3 2\nv 0 5 1\nv 2 7 1\nv 1 5 2\ne 0 1\ne 1 2\n");
    let (m, _) = subgraph_bench::load(&p, &LoadOptions::default()).unwrap();
    assert_eq!(m.node_count(), 3);
    assert_eq!(m.edge_count(), 4); // one edge each way
    let n = |k: &str| m.node_by_key(k).unwrap();
    let five = m.labels().get("5").unwrap();
    assert!(m.has_label(n("0"), five) && m.has_label(n("1"), five));
    assert!(m.has_label(n("2"), m.labels().get("7").unwrap()));
    let e = m.rel_types().get(subgraph_bench::EDGE_TYPE).unwrap();
    for (a, b) in [("0", "1"), ("1", "0"), ("1", "2"), ("2", "1")] {
        assert!(m.out().has_edge(n(a), n(b), e), "{a}->{b}");
    }
    assert!(!m.out().has_edge(n("0"), n("2"), e));
}

#[test]
fn malformed_lines_are_counted_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(
        &dir,
        "t 2 1\nv 0 1 1\nv 1 x\nv 1 2 1\ne 0 9\nq 1 2\ne 0 1\n",
    );
    let mut report = LoadReport::default();
    let g = subgraph_bench::parse(&p, &LoadOptions::default(), &mut report).unwrap();
    assert_eq!(g.labels, vec!["1", "2"]);
    assert_eq!(g.edges, vec![(0, 1)]);
    let lines: Vec<u64> = report.malformed.iter().map(|m| m.line).collect();
    assert_eq!(lines, vec![3, 5, 6]);
    assert!(report.malformed[1].message.contains("out of range"));
    let strict = LoadOptions {
        strict: true,
        ..Default::default()
    };
    let err = subgraph_bench::parse(&p, &strict, &mut LoadReport::default()).unwrap_err();
    assert!(err.to_string().contains("g.graph:3"), "{err}");
}

#[test]
fn inconsistent_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let opts = LoadOptions::default();
    let err = |text: &str| {
        subgraph_bench::load(&file(&dir, text), &opts)
            .unwrap_err()
            .to_string()
    };
    assert!(err("").contains("empty file"));
    assert!(err("t 3 0\nv 0 1 0\n").contains("2 of 3 vertices have no `v` line"));
    assert!(err("t 2 0\nv 0 1 0\nv 0 1 0\n").contains("vertex 0 is defined twice"));
    // A header claiming billions of vertices allocates nothing up front (found by fuzzing).
    assert!(err("t 4000000000 1\nv 0 1 0\n").contains("have no `v` line"));
    assert!(err("v 0 1 0\n").contains("empty file") || err("v 0 1 0\n").contains("header"));
}

/// Issue 31, item 15: a bad or missing `t N M` header is an error at its line saying what is
/// wrong with it (it said "empty file" for both), in the default mode as in `--strict`; only a
/// file of blank lines is "empty".
#[test]
fn a_bad_or_missing_header_is_reported_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for strict in [false, true] {
        let opts = LoadOptions {
            strict,
            ..Default::default()
        };
        let p = |text: &str| file(&dir, text);
        let err = |text: &str| {
            subgraph_bench::load(&p(text), &opts)
                .unwrap_err()
                .to_string()
        };
        let g = dir.path().join("g.graph");
        let g = g.display();
        assert_eq!(
            err("t 4294967296 1\nv 0 1 0\n"),
            format!("{g}:1: bad `t N M` header: 4294967296 vertices is more than a model holds (4294967294 at most)")
        );
        assert_eq!(
            err("\n\nt 99999999999999999999999 1\n"),
            format!(
                "{g}:3: bad `t N M` header: vertex count `99999999999999999999999` is too large"
            )
        );
        assert_eq!(
            err("t 3\nv 0 1 0\n"),
            format!("{g}:1: bad `t N M` header: missing edge count")
        );
        assert_eq!(
            err("t x 1\n"),
            format!("{g}:1: bad `t N M` header: vertex count `x` is not a number")
        );
        assert_eq!(
            err("\nv 0 1 0\nv 1 1 0\ne 0 1\n"),
            format!("{g}:2: expected the `t N M` header (N vertices, M edges) as the first line, found a `v` line")
        );
        assert_eq!(
            err("\n  \n"),
            format!("{g}: empty file (no line but blank ones), expected a `t N M` header")
        );
    }
}

/// A byte-order mark before the `t` header is skipped.
#[test]
fn a_bom_before_the_header_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "\u{feff}t 2 1\nv 0 1 1\nv 1 1 1\ne 0 1\n");
    let (m, _) = subgraph_bench::load(&p, &LoadOptions::default()).unwrap();
    assert_eq!((m.node_count(), m.edge_count()), (2, 2));
}
