//! `gemp generate ttc14`: the synthetic models of the TTC 2014 Movie Database Case (Horn, Krause,
//! Tichy, CEUR-WS Vol-1305), generated, loaded and queried through the binary.
//!
//! The case's `createExample(N)` builds N independent blocks (`createPositive(i)` and
//! `createNegative(i)`: 10 movies, 10 persons, 32 acting credits). Per block, the positive half
//! holds the three couples {b, c}, {b, d}, {c, d} with five common movies each and the one 3-clique
//! {b, c, d} (five common movies); no other pair or triple shares three movies. So a model of N
//! blocks has exactly `3N` couples with `15N` common movies in all, and `N` 3-cliques with `5N`
//! common movies in all, which is what `benches/peers/couples.gemp.cypher` (`pairs`,
//! `embeddings`) and `benches/peers/three-cliques.gemp.cypher` (`triples`, `embeddings`) count.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::gemp;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn peers_query(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/peers")
        .join(name)
        .display()
        .to_string()
}

/// Runs a query file with `--format csv`; returns its one result row as column → value.
fn run(snap: &Path, query: &str) -> BTreeMap<String, u64> {
    let out = gemp(&[
        "-q",
        "match",
        "--model",
        snap.to_str().unwrap(),
        "--backend",
        "host",
        "--format",
        "csv",
        &peers_query(query),
    ]);
    assert!(out.status.success(), "{query}: {}", text(&out.stderr));
    let csv = text(&out.stdout);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let values: Vec<&str> = lines.next().expect("one row").split(',').collect();
    header
        .iter()
        .zip(values)
        .map(|(h, v)| (h.to_string(), v.parse().unwrap_or(0)))
        .collect()
}

fn rows(data: &Path, file: &str) -> Vec<Vec<String>> {
    let body = std::fs::read_to_string(data.join(format!("{file}.tsv"))).unwrap();
    body.lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Couples and 3-cliques counted straight from `title.principals.tsv` by the case's definition
/// (persons sharing at least three movies): (couples, their movies, 3-cliques, their movies).
fn count_from_tsv(data: &Path) -> (u64, u64, u64, u64) {
    let mut cast: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in rows(data, "title.principals") {
        assert!(r[3] == "actor" || r[3] == "actress", "{r:?}");
        cast.entry(r[0].clone()).or_default().insert(r[2].clone());
    }
    let mut pairs: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut triples: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    for persons in cast.values() {
        let v: Vec<&String> = persons.iter().collect();
        for a in 0..v.len() {
            for b in a + 1..v.len() {
                *pairs.entry((v[a].clone(), v[b].clone())).or_default() += 1;
                for c in b + 1..v.len() {
                    *triples
                        .entry((v[a].clone(), v[b].clone(), v[c].clone()))
                        .or_default() += 1;
                }
            }
        }
    }
    let couples: Vec<u64> = pairs.into_values().filter(|&n| n >= 3).collect();
    let cliques: Vec<u64> = triples.into_values().filter(|&n| n >= 3).collect();
    (
        couples.len() as u64,
        couples.iter().sum(),
        cliques.len() as u64,
        cliques.iter().sum(),
    )
}

#[test]
fn couples_and_three_cliques_follow_the_case_closed_form() {
    for n in [1u64, 3, 10] {
        let dir = tempfile::tempdir().unwrap();
        let data = common::generate_ttc14(dir.path(), n);
        // The four IMDb files with their sizes: 10N movies (all rated), 10N persons, 32N credits.
        assert_eq!(rows(&data, "title.basics").len() as u64, 10 * n);
        assert_eq!(rows(&data, "name.basics").len() as u64, 10 * n);
        assert_eq!(rows(&data, "title.principals").len() as u64, 32 * n);
        assert_eq!(rows(&data, "title.ratings").len() as u64, 10 * n);
        // The case's definitions counted on the raw credits: 3N couples sharing 15N movies in all,
        // N 3-cliques sharing 5N.
        assert_eq!(count_from_tsv(&data), (3 * n, 15 * n, n, 5 * n), "N = {n}");

        let snap = common::load_snapshot(dir.path(), &data);
        let info = gemp(&["info", snap.to_str().unwrap(), "--json", "--top", "0"]);
        assert!(info.status.success(), "{}", text(&info.stderr));
        let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        assert_eq!(info["nodes"].as_u64(), Some(20 * n), "movies + persons");
        assert_eq!(info["edges"].as_u64(), Some(32 * n), "acting credits");

        let couples = run(&snap, "couples.gemp.cypher");
        assert_eq!(couples["pairs"], 3 * n, "couples, N = {n}");
        assert_eq!(
            couples["embeddings"],
            15 * n,
            "couples' common movies, N = {n}"
        );
        let cliques = run(&snap, "three-cliques.gemp.cypher");
        assert_eq!(cliques["triples"], n, "3-cliques, N = {n}");
        assert_eq!(
            cliques["embeddings"],
            5 * n,
            "3-cliques' common movies, N = {n}"
        );
    }
}

#[test]
fn the_dump_is_deterministic_and_in_imdb_format() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let da = common::generate_ttc14(a.path(), 3);
    let db = common::generate_ttc14(b.path(), 3);
    for f in [
        "title.basics",
        "name.basics",
        "title.principals",
        "title.ratings",
    ] {
        let path = da.join(format!("{f}.tsv"));
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes, std::fs::read(db.join(format!("{f}.tsv"))).unwrap());
        assert!(bytes.ends_with(b"\n"), "{f}");
    }
    let basics = rows(&da, "title.basics");
    assert_eq!(
        basics[0],
        [
            "tt0000001",
            "movie",
            "m0",
            "m0",
            "0",
            "2013",
            "\\N",
            "\\N",
            "\\N"
        ]
    );
    // Movie j is rated j, as in the case.
    let ratings = rows(&da, "title.ratings");
    assert_eq!(ratings[29], ["tt0000030", "29.0", "100"]);
    // Persons 3, 4, 7, 8, 9 of each block are actresses, the others actors.
    let names = rows(&da, "name.basics");
    let actresses: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(_, r)| r[4] == "actress")
        .map(|(i, _)| i % 10)
        .collect();
    assert_eq!(actresses, [3, 4, 7, 8, 9].repeat(3));
    // A person's category in the credits is their profession.
    let profession: BTreeMap<&str, &str> = names
        .iter()
        .map(|r| (r[0].as_str(), r[4].as_str()))
        .collect();
    for r in rows(&da, "title.principals") {
        assert_eq!(profession[r[2].as_str()], r[3], "{r:?}");
    }
}

#[test]
fn bad_block_counts_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("x");
    for blocks in ["0", "100000001", "-3", "many"] {
        let out = gemp(&[
            "generate",
            "ttc14",
            "--blocks",
            blocks,
            "-o",
            out_dir.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "--blocks {blocks} succeeded");
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "--blocks {blocks}: {err}");
        assert!(err.contains("blocks"), "--blocks {blocks}: {err}");
    }
}
