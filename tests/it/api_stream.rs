//! The library's streamed rows (`Graph::for_each_row`, `Runner::for_each_row`) and structured
//! errors (`Error::kind`, `Error::position`), on the bundled IMDb sample.

use std::ops::ControlFlow;

use gemp::api::{Graph, Item, LoadSpec, Row, RunOptions};
use gemp::io::Format;
use gemp::{ErrorKind, Location};

use crate::common;

fn sample() -> Graph {
    let spec = LoadSpec {
        format: Format::ImdbTsv,
        ..Default::default()
    };
    Graph::load_with(&[common::root().join("datasets/imdb-sample")], &spec).unwrap()
}

/// A row as text: nodes by key, values as gemp prints them.
fn text(row: Row<'_, '_>) -> Vec<String> {
    row.items()
        .iter()
        .map(|i| match i {
            Item::Node(n) => n.key().to_owned(),
            Item::Rel(r) => format!("{}->{}", r.source().key(), r.target().key()),
            Item::List(l) => format!("list of {}", l.len()),
            Item::Map(m) => format!("map of {}", m.len()),
            Item::Path { rels, .. } => format!("path of {}", rels.len()),
            Item::Value(v) => v.as_ref().to_string(),
            Item::Temporal(t) => t.to_string(),
        })
        .collect()
}

#[test]
fn streamed_rows_are_execute_s_rows() {
    let g = sample();
    let host = RunOptions::host();
    for source in [
        // Streams from the matcher as matches are found.
        "MATCH (p:Person)-[:ACTOR]->(m:Movie) WHERE m.startYear >= 2000 RETURN p, m.primaryTitle",
        // Sorted: handed over at the end, one row at a time all the same.
        "MATCH (p:Person)-[:ACTOR]->(m:Movie) RETURN m.startYear AS y, count(*) AS n ORDER BY y",
    ] {
        let q = g.query(source).unwrap();
        let executed = g.execute(&q, &host).unwrap();
        let want: Vec<Vec<String>> = executed.rows().map(text).collect();
        assert!(want.len() > 5, "{source}: {}", want.len());
        let mut got = Vec::new();
        let end = g
            .for_each_row(&q, &host, |row| {
                got.push(text(row));
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(
            (end.rows, end.stopped, end.partial),
            (want.len() as u64, false, false)
        );
        assert_eq!(end.columns, executed.columns());
        let (mut got, mut want) = (got, want);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{source}");
    }
}

#[test]
fn stopping_early_stops_a_huge_cross_product() {
    // 3,000 titles cubed: 2.7·10¹⁰ rows, which the test would never see the end of.
    let g = sample();
    let q = g
        .query("MATCH (a:Title), (b:Title), (c:Title) RETURN a, b, c")
        .unwrap();
    let runner = g.runner(&RunOptions::host()).unwrap();
    let mut first = Vec::new();
    let end = runner
        .for_each_row(&q, &RunOptions::host(), |row| {
            first.push(text(row));
            if first.len() == 10 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
    assert_eq!((end.rows, end.stopped), (10, true));
    assert_eq!(end.columns, ["a", "b", "c"]);
    assert_eq!(first.len(), 10);
    assert!(first
        .iter()
        .all(|r| r.len() == 3 && r.iter().all(|k| k.starts_with("tt"))));
    // The graph's session is usable again at once.
    let n = g
        .execute(
            &g.query("MATCH (t:Title) RETURN count(*) AS n").unwrap(),
            &RunOptions::host(),
        )
        .unwrap();
    assert_eq!(n.output().rows[0][0].to_string(), "3000");
}

#[test]
fn errors_tell_their_kind_and_position() {
    let g = sample();
    // A binding error in query text: line 2, column 10 (`nope`), no file.
    let e = g.query("MATCH (p:Person)\nRETURN p.nope").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Query);
    assert_eq!(
        e.position(),
        Some(&Location {
            file: None,
            line: 2,
            column: 10
        })
    );
    // A syntax error in a query file: the file is named.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.cypher");
    std::fs::write(&path, "// a comment\nMATCH (p:Person RETURN p\n").unwrap();
    let e = g.query_file(&path, &RunOptions::host()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Query);
    let at = e.position().unwrap();
    assert_eq!(
        (at.file.as_deref(), at.line, at.column),
        (Some(path.as_path()), 2, 17)
    );
    assert_eq!(e.file(), Some(path.as_path()));
    assert_eq!(e.cypher_class().map(|c| c.name()), Some("SyntaxError"));
    // A missing file: Io, with the path and no position.
    let missing = dir.path().join("missing.cypher");
    let e = g.query_file(&missing, &RunOptions::host()).unwrap_err();
    assert_eq!((e.kind(), e.position()), (ErrorKind::Io, None));
    assert_eq!(e.file(), Some(missing.as_path()));
    // Malformed input data: Parse at file:line.
    let bad = dir.path().join("g.json");
    std::fs::write(
        &bad,
        "{\"nodes\": [{\"id\": \"a\", \"labels\": [\"A\"]}],\n \"edges\": [{\"source\": \"a\", \"target\": \"nowhere\", \"type\": \"T\"}]}\n",
    )
    .unwrap();
    let spec = LoadSpec {
        strict: true,
        ..Default::default()
    };
    let e = Graph::load_with(&[&bad], &spec).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Parse, "{e}");
    let at = e.position().unwrap();
    assert_eq!(
        (at.file.as_deref(), at.line),
        (Some(bad.as_path()), 2),
        "{e}"
    );
}
