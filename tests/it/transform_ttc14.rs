//! The TTC 2014 Movie Database Case's transformations as rule files
//! (`datasets/queries/ttc14/couples.transform.cypher`, `ttc14/cliques.transform.cypher`) on
//! `gemp generate ttc14 --blocks N` models, against the case's closed form (see
//! `src/generate/ttc14.rs` and `tests/generate_ttc14.rs`): per block `i`, persons `10i + 1`,
//! `10i + 2`, `10i + 3` (keys `nm` + number + 1) form the three couples and the one 3-clique, with
//! the five common movies `10i + 0 … 10i + 4`, rated `10i + 0 … 10i + 4`: average `10i + 2`.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::gemp;
use gemp::api::Graph;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn rules(name: &str) -> PathBuf {
    common::root().join("datasets/queries/ttc14").join(name)
}

/// `gemp generate ttc14 --blocks N`, loaded into `dir/model.gemp`.
fn model(dir: &Path, blocks: u64) -> PathBuf {
    let data = common::generate_ttc14(dir, blocks);
    common::load_snapshot(dir, &data)
}

/// Person key of local person `k` of block `i`.
fn person(i: u64, k: u64) -> String {
    format!("nm{:07}", 10 * i + k + 1)
}

/// Every row of `source` as the text of its columns `cols`.
fn rows(g: &Graph, source: &str, cols: &[&str]) -> Vec<Vec<String>> {
    let matches = g.run(source).unwrap();
    let mut out: Vec<Vec<String>> = matches
        .rows()
        .map(|r| {
            cols.iter()
                .map(|c| match r.node(c) {
                    Some(n) => n.key().to_owned(),
                    None => r.value(c).unwrap().to_string(),
                })
                .collect()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn couples_transformation_matches_the_closed_form() {
    for blocks in [1u64, 5] {
        let dir = tempfile::tempdir().unwrap();
        let mut g = Graph::open(model(dir.path(), blocks)).unwrap();
        let text = std::fs::read_to_string(rules("couples.transform.cypher")).unwrap();
        let report = g.apply(&text).unwrap();
        let t = report.totals();
        assert_eq!(t.nodes_created, 3 * blocks);
        // p1, p2 and five common movies per couple.
        assert_eq!(t.relationships_created, 3 * blocks * 7);

        let found = rows(
            &g,
            "MATCH (a:Person)<-[:p1]-(c:Couple)-[:p2]->(b:Person) \
             RETURN a, b, c.numberOfCommonMovies AS n, c.avgRating AS r",
            &["a", "b", "n", "r"],
        );
        let mut expected = Vec::new();
        for i in 0..blocks {
            let r = format!("{}", (10 * i + 2) as f64);
            for (x, y) in [(1, 2), (1, 3), (2, 3)] {
                expected.push(vec![person(i, x), person(i, y), "5".into(), r.clone()]);
            }
        }
        expected.sort();
        assert_eq!(found, expected, "{blocks} blocks");

        // Every common movie has both persons of its couple as actors, and no couple has
        // another.
        assert_eq!(
            g.count(
                "MATCH (a:Person)<-[:p1]-(c:Couple)-[:p2]->(b:Person), (c)-[:commonMovies]->(t:Title), \
                 (a)-[:ACTOR|ACTRESS]->(t), (b)-[:ACTOR|ACTRESS]->(t) RETURN c, t"
            )
            .unwrap(),
            15 * blocks
        );
        assert_eq!(
            g.count("MATCH (c:Couple)-[:commonMovies]->(t) RETURN c, t")
                .unwrap(),
            15 * blocks
        );
        let movies: BTreeSet<String> = rows(
            &g,
            "MATCH (:Couple)-[:commonMovies]->(t:Title) RETURN DISTINCT t",
            &["t"],
        )
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
        let want: BTreeSet<String> = (0..blocks)
            .flat_map(|i| (0..5).map(move |k| format!("tt{:07}", 10 * i + k + 1)))
            .collect();
        assert_eq!(movies, want);
    }
}

#[test]
fn cliques_transformation_through_the_cli_matches_the_closed_form() {
    let blocks = 4u64;
    let dir = tempfile::tempdir().unwrap();
    let snap = model(dir.path(), blocks);
    let out_path = dir.path().join("cliques.gemp");
    let out = gemp(&[
        "-q",
        "transform",
        "--model",
        snap.to_str().unwrap(),
        rules("cliques.transform.cypher").to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["totals"]["nodes_created"], blocks);
    assert_eq!(report["totals"]["relationships_created"], blocks * (3 + 5));

    let g = Graph::open(&out_path).unwrap();
    let found = rows(
        &g,
        "MATCH (c:Clique)-[:persons]->(p:Person) \
         RETURN p, c.numberOfCommonMovies AS n, c.avgRating AS r",
        &["p", "n", "r"],
    );
    let mut expected = Vec::new();
    for i in 0..blocks {
        for k in 1..=3 {
            let r = format!("{}", (10 * i + 2) as f64);
            expected.push(vec![person(i, k), "5".into(), r]);
        }
    }
    expected.sort();
    assert_eq!(found, expected);
    // The three persons of a clique are of one block, and its five movies all have the three.
    assert_eq!(
        g.count(
            "MATCH (c:Clique)-[:commonMovies]->(t:Title), (c)-[:persons]->(a:Person), \
             (c)-[:persons]->(b:Person), (c)-[:persons]->(d:Person), (a)-[:ACTOR|ACTRESS]->(t), \
             (b)-[:ACTOR|ACTRESS]->(t), (d)-[:ACTOR|ACTRESS]->(t) \
             WHERE id(a) < id(b) AND id(b) < id(d) RETURN c, t"
        )
        .unwrap(),
        5 * blocks
    );
    assert_eq!(
        g.count("MATCH (c:Clique)-[:commonMovies]->(t) RETURN c, t")
            .unwrap(),
        5 * blocks
    );
    // The input snapshot is untouched.
    let before = Graph::open(&snap).unwrap();
    assert_eq!(before.model().node_count() as u64, 20 * blocks);
    assert_eq!(g.model().node_count() as u64, 21 * blocks);
}
