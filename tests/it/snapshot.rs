//! Snapshot round-trips and rejection of truncated, bit-flipped and hostile files.

use crate::common;

use gemp::model::snapshot::{self, OpenOptions};
use gemp::model::{Model, ModelBuilder, ValueRef};

fn sample() -> Model {
    let mut b = ModelBuilder::new();
    let actor = b.rel_type("ACTOR");
    let director = b.rel_type("DIRECTOR");
    let name = b.node_property("primaryName");
    let year = b.node_property("startYear");
    let rating = b.node_property("averageRating");
    let adult = b.node_property("isAdult");
    let genre = b.node_property("genres");
    let ord = b.edge_property("ordering");
    let chars = b.edge_property("characters");
    for t in 0..100 {
        let n = b.add_node(
            &format!("tt{t:07}"),
            &["Title", if t % 3 == 0 { "Movie" } else { "TvEpisode" }],
        );
        b.set_node_property(n, year, ValueRef::Int(1950 + t))
            .unwrap();
        if t % 4 == 0 {
            b.set_node_property(n, rating, ValueRef::Float(t as f64 / 10.0))
                .unwrap();
        }
        b.set_node_property(n, adult, ValueRef::Bool(t == 7))
            .unwrap();
        b.set_node_property(n, genre, ValueRef::Str(["Drama", "Comedy"][t as usize % 2]))
            .unwrap();
    }
    for p in 0..60 {
        let n = b.add_node(&format!("nm{p:07}"), &["Person"]);
        b.set_node_property(n, name, ValueRef::Str(&format!("Jack Zoë {p}")))
            .unwrap();
        for k in 0..3 {
            let t = b
                .node_id(&format!("tt{:07}", (p * 7 + k * 13) % 100))
                .unwrap();
            let e = b
                .add_edge(n, t, if k == 2 { director } else { actor })
                .unwrap();
            b.set_edge_property(e, ord, ValueRef::Int(k)).unwrap();
            if k == 0 {
                b.set_edge_property(e, chars, ValueRef::Str("[\"Self\"]"))
                    .unwrap();
            }
        }
    }
    b.ensure_node("nm9999999");
    b.freeze().unwrap()
}

/// Everything observable through the public API, as comparable text.
fn fingerprint(m: &Model) -> String {
    let mut s = format!("{:?}\n", serde_json::to_string(&m.schema()).unwrap());
    for n in 0..m.node_count() as u32 {
        s += &format!("{} {:?}", m.node_key(n).unwrap(), m.node_labels(n));
        for c in [
            "primaryName",
            "startYear",
            "averageRating",
            "isAdult",
            "genres",
        ] {
            s += &format!(" {:?}", m.node_property(n, c));
        }
        for p in m.out().range(n) {
            let e = m.out().edge_id_at(p);
            s += &format!(
                " ->{}:{}:{:?}:{:?}",
                m.out().neighbors[p],
                m.out().types[p],
                m.edge_property(e, "ordering"),
                m.edge_property(e, "characters")
            );
        }
        for p in m.inc().range(n) {
            s += &format!(
                " <-{}:{}:{}",
                m.inc().neighbors[p],
                m.inc().types[p],
                m.inc().edge_id_at(p)
            );
        }
        s.push('\n');
    }
    s
}

fn write_bytes(m: &Model) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gemp");
    snapshot::write(m, &path).unwrap();
    std::fs::read(path).unwrap()
}

#[test]
fn round_trip_is_equal() {
    let m = sample();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gemp");
    snapshot::write(&m, &path).unwrap();
    assert!(snapshot::is_snapshot(&path));
    let back = snapshot::open(&path).unwrap();
    assert_eq!(fingerprint(&m), fingerprint(&back));
    assert_eq!(back.node_by_key("nm0000005"), m.node_by_key("nm0000005"));
    // Writing the reopened model gives the same bytes.
    assert_eq!(write_bytes(&m), write_bytes(&back));
}

#[test]
fn empty_model_round_trips() {
    let m = ModelBuilder::new().freeze().unwrap();
    let bytes = write_bytes(&m);
    let back = snapshot::from_bytes(&bytes, &OpenOptions::default()).unwrap();
    assert_eq!(back.node_count(), 0);
}

#[test]
fn every_truncation_is_rejected_cleanly() {
    let bytes = write_bytes(&sample());
    let step = (bytes.len() / 200).max(1);
    for len in (0..bytes.len()).step_by(step) {
        let r = snapshot::from_bytes(&bytes[..len], &OpenOptions::default());
        let err = r
            .err()
            .unwrap_or_else(|| panic!("truncation to {len} bytes accepted"));
        assert!(err.to_string().starts_with("snapshot"), "{err}");
    }
}

#[test]
fn bit_flips_are_rejected_cleanly() {
    let bytes = write_bytes(&sample());
    let step = (bytes.len() / 300).max(1);
    for pos in (0..bytes.len()).step_by(step) {
        let mut b = bytes.clone();
        b[pos] ^= 0x10;
        // A flip in alignment padding changes nothing observable and may be accepted; anything else
        // must be an error. Either way, no panic.
        if let Ok(m) = snapshot::from_bytes(&b, &OpenOptions::default()) {
            assert_eq!(
                fingerprint(&m),
                fingerprint(&sample()),
                "flip at {pos} changed the model silently"
            );
        }
    }
}

#[test]
fn structural_checks_catch_corruption_even_without_checksums() {
    // With checksum verification off, the structural validation must still refuse out-of-range ids.
    let bytes = write_bytes(&sample());
    let opts = OpenOptions {
        verify_checksums: false,
    };
    let mut rejected = 0;
    for pos in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[pos] = 0xff;
        match snapshot::from_bytes(&b, &opts) {
            Err(_) => rejected += 1,
            Ok(m) => {
                // Whatever was accepted must be safe to read everywhere.
                let _ = fingerprint(&m);
            }
        }
    }
    assert!(rejected > 0);
}

#[test]
fn other_versions_and_non_snapshots_are_rejected() {
    let mut bytes = write_bytes(&sample());
    bytes[8] = 99;
    let err = snapshot::from_bytes(&bytes, &OpenOptions::default()).unwrap_err();
    assert!(err.to_string().contains("format version 99"), "{err}");
    let err = snapshot::from_bytes(b"tconst\ttitleType\n", &OpenOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("too short") || err.to_string().contains("bad magic"),
        "{err}"
    );
    let err = snapshot::open(std::path::Path::new("/nonexistent/x.gemp")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.gemp"), "{err}");
}

/// `bytes` with `mutate` applied to the section named `section` (see `snapshot::section_map`) and
/// every checksum recomputed: a file built to be wrong, which only structural validation refuses.
fn crafted(bytes: &[u8], section: &str, mutate: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let map = snapshot::section_map(&b).unwrap();
    let (_, range, _) = map
        .iter()
        .find(|(n, _, _)| n == section)
        .unwrap_or_else(|| panic!("no section {section} in {map:?}"));
    mutate(&mut b[range.clone()]);
    snapshot::reseal(&mut b).unwrap();
    b
}

fn swap_u32(s: &mut [u8], i: usize, j: usize) {
    for k in 0..4 {
        s.swap(4 * i + k, 4 * j + k);
    }
}

fn set_u32(s: &mut [u8], i: usize, v: u32) {
    s[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
}

/// Issue 31, item 8: a snapshot whose checksums were recomputed after its arrays were changed is
/// refused on opening, naming what is wrong, for each structural invariant the matchers rely on.
#[test]
fn crafted_snapshots_with_valid_checksums_are_refused_structurally() {
    let m = sample();
    let bytes = write_bytes(&m);
    let resealed = crafted(&bytes, "label_index", |_| {});
    assert_eq!(
        resealed, bytes,
        "resealing an unchanged file changes nothing"
    );
    let label0 = m.labels().name(0).unwrap().to_string();
    let n0 = m.nodes_with_label(0).len();
    let node_labels_len = m.node_label_csr().1.len();
    let first_multi = (0..m.node_count() as u32)
        .find(|&v| m.node_labels(v).len() > 1)
        .unwrap();
    let first_multi_at = m.node_label_csr().0[first_multi as usize] as usize;
    // The first node with an out-list of two edges of one type to different targets.
    let (sorted_node, sorted_at) = (0..m.node_count() as u32)
        .find_map(|v| {
            let r = m.out().range(v);
            (r.len() >= 2
                && m.out().types[r.start] == m.out().types[r.start + 1]
                && m.out().neighbors[r.start] != m.out().neighbors[r.start + 1])
                .then_some((v, r.start))
        })
        .unwrap();
    let in_node = (0..m.node_count() as u32)
        .find(|&v| m.inc().degree(v) >= 2)
        .unwrap();
    let in_at = m.inc().range(in_node).start;
    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        (
            "two label index entries swapped (the issue's file)",
            crafted(&bytes, "label_index", |s| {
                swap_u32(s, 0, node_labels_len - 1)
            }),
            format!("the label index of `{label0}` is not sorted (entry 1)"),
        ),
        (
            "a label index entry naming a node without the label",
            crafted(&bytes, "label_index", |s| {
                set_u32(s, n0 - 1, m.node_count() as u32 - 1)
            }),
            format!(
                "the label index of `{label0}` lists node {}, which does not carry it",
                m.node_count() - 1
            ),
        ),
        (
            "a node's labels out of order",
            crafted(&bytes, "node_labels", |s| {
                swap_u32(s, first_multi_at, first_multi_at + 1)
            }),
            format!("the labels of node {first_multi} are not sorted"),
        ),
        (
            "an out-list out of order",
            crafted(&bytes, "out.neighbors", |s| {
                swap_u32(s, sorted_at, sorted_at + 1)
            }),
            format!("the out list of node {sorted_node} is not sorted by type and neighbour"),
        ),
        (
            "an in-list naming one edge twice",
            crafted(&bytes, "inc.edge_ids", |s| {
                let e = u32::from_le_bytes(s[4 * in_at..4 * in_at + 4].try_into().unwrap());
                set_u32(s, in_at + 1, e)
            }),
            format!(
                "the in list of node {in_node} does not match the out lists at edge {}",
                m.inc().edge_id_at(in_at)
            ),
        ),
        (
            "CSR offsets not monotone",
            crafted(&bytes, "out.offsets", |s| set_u32(s, 1, u32::MAX / 2)),
            "out are not monotone".to_string(),
        ),
    ];
    for (what, b, message) in cases {
        let err = match snapshot::from_bytes(&b, &OpenOptions::default()) {
            Ok(_) => panic!("{what}: accepted"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            err,
            format!("snapshot <memory>: corrupt model: {message}"),
            "{what}"
        );
    }
}

/// The CLI on such a file: `info`, `match` and `transform` end with a clean error (status 1, one
/// line naming the file and the problem), not a panic in the matcher (status 101 before).
#[test]
fn a_crafted_snapshot_is_a_clean_error_in_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let good = common::load_snapshot(dir.path(), &common::root().join("datasets/imdb-sample"));
    let m = snapshot::open(&good).unwrap();
    let title = m.labels().get("Title").unwrap();
    let bytes = std::fs::read(&good).unwrap();
    // The first Title entry swapped with the last Person entry: the swap of the issue.
    let person = m.labels().get("Person").unwrap();
    let at = |l: u32, i: usize| {
        let offsets: Vec<usize> = (0..=m.labels().len() as u32)
            .map(|k| (0..k).map(|j| m.nodes_with_label(j).len()).sum())
            .collect();
        offsets[l as usize] + i
    };
    let (i, j) = (
        at(title, 0),
        at(person, m.nodes_with_label(person).len() - 1),
    );
    let bad = dir.path().join("bad.gemp");
    std::fs::write(&bad, crafted(&bytes, "label_index", |s| swap_u32(s, i, j))).unwrap();
    let first_bad = if title < person { "Title" } else { "Person" };
    let entry = if title < person {
        1
    } else {
        m.nodes_with_label(person).len() - 1
    };
    let expected = format!(
        "error: snapshot {}: corrupt model: the label index of `{first_bad}` is not sorted (entry {entry})\n",
        bad.display()
    );
    let query = dir.path().join("q.cypher");
    std::fs::write(
        &query,
        "MATCH (p:Person)-[:ACTOR]->(t:Title) WHERE t.primaryTitle CONTAINS 'a' RETURN count(*)",
    )
    .unwrap();
    let rules = dir.path().join("r.cypher");
    std::fs::write(&rules, "MATCH (t:Title) SET t.seen = true").unwrap();
    let (b, q, r) = (
        bad.to_str().unwrap(),
        query.to_str().unwrap(),
        rules.to_str().unwrap(),
    );
    let out_path = dir.path().join("out.gemp");
    for args in [
        vec!["-q", "info", b],
        vec!["-q", "match", "--model", b, q],
        vec![
            "-q",
            "transform",
            "--model",
            b,
            r,
            "-o",
            out_path.to_str().unwrap(),
        ],
    ] {
        let out = common::gemp(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), expected, "{args:?}");
    }
    assert!(!out_path.exists());
}
