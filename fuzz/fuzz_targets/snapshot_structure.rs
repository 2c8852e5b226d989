#![no_main]
//! A snapshot built to be wrong: a valid snapshot's sections are changed in place (values set,
//! swapped, nudged, copied) and every checksum is recomputed (`snapshot::reseal`), so the
//! mutations get past the checksums and reach the structural validation. Whatever the reader
//! accepts must then be safe to query and transform (errors allowed, panics not): the matchers
//! index arrays by what the file says.
//!
//! The input is a list of 8-byte commands: section (by position in the file), operation, element
//! index (u16), value (u32). See `scripts/fuzz-all`.

use std::sync::OnceLock;

use gemp::api::{Graph, RunOptions};
use gemp::model::snapshot::{self, OpenOptions};
use gemp::model::{Model, ModelBuilder, ValueRef};
use libfuzzer_sys::fuzz_target;

/// The valid snapshot every input starts from, and its sections (name, byte range, element size).
struct Seed {
    bytes: Vec<u8>,
    sections: Vec<(String, std::ops::Range<usize>, usize)>,
}

fn model() -> Model {
    let mut b = ModelBuilder::new();
    let actor = b.rel_type("ACTOR");
    let director = b.rel_type("DIRECTOR");
    let title = b.node_property("primaryTitle");
    let name = b.node_property("primaryName");
    let year = b.node_property("startYear");
    let rating = b.node_property("averageRating");
    let adult = b.node_property("isAdult");
    let genre = b.node_property("genres");
    let ord = b.edge_property("ordering");
    let chars = b.edge_property("characters");
    for t in 0..24i64 {
        let labels: &[&str] = match t % 4 {
            0 => &["Title", "Movie"],
            1 => &["Title", "TvEpisode"],
            2 => &["Title"],
            _ => &["Movie"],
        };
        let n = b.add_node(&format!("tt{t:03}"), labels);
        b.set_node_property(n, title, ValueRef::Str(&format!("Title {t} a")))
            .unwrap();
        if t % 3 != 0 {
            b.set_node_property(n, year, ValueRef::Int(1950 + t))
                .unwrap();
        }
        if t % 4 == 0 {
            b.set_node_property(n, rating, ValueRef::Float(t as f64 / 10.0))
                .unwrap();
        }
        b.set_node_property(n, adult, ValueRef::Bool(t == 7))
            .unwrap();
        b.set_node_property(n, genre, ValueRef::Str(["Drama", "Comedy"][t as usize % 2]))
            .unwrap();
    }
    for p in 0..16i64 {
        let n = b.add_node(&format!("nm{p:03}"), &["Person"]);
        b.set_node_property(n, name, ValueRef::Str(&format!("Jack {p}")))
            .unwrap();
        for k in 0..3 {
            let t = b
                .node_id(&format!("tt{:03}", (p * 7 + k * 5) % 24))
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
    b.ensure_node("nm999");
    b.freeze().unwrap()
}

fn seed() -> &'static Seed {
    static S: OnceLock<Seed> = OnceLock::new();
    S.get_or_init(|| {
        let path = common::input_file("seed.gemp", b"");
        snapshot::write(&model(), &path).expect("write the seed snapshot");
        let bytes = std::fs::read(&path).unwrap();
        let sections = snapshot::section_map(&bytes).unwrap();
        Seed { bytes, sections }
    })
}

#[path = "common.rs"]
mod common;

const QUERIES: &[&str] = &[
    "MATCH (t:Title) RETURN count(*)",
    "MATCH (p:Person)-[:ACTOR]->(t:Title) WHERE t.primaryTitle CONTAINS 'a' RETURN count(*)",
    "MATCH (a:Person)-[:ACTOR]->(m:Movie)<-[:DIRECTOR]-(d:Person) WHERE id(a) < id(d) \
     RETURN m.primaryTitle, a.primaryName, d.primaryName, m.startYear",
    "MATCH (a)-[r]->(b)<-[s]-(c) RETURN r.ordering, s.characters, b.genres, b.averageRating",
    "MATCH (t:Title:Movie) WHERE t.startYear > 1960 AND t.isAdult = false RETURN t.genres, count(*)",
    "MATCH (n) OPTIONAL MATCH (n)-[:ACTOR]->(m) RETURN count(m)",
    "MATCH (p {primaryName: 'Jack 3'})-->(t)<--(q) RETURN q.primaryName ORDER BY q.primaryName",
];

fuzz_target!(|data: &[u8]| {
    let seed = seed();
    let mut bytes = seed.bytes.clone();
    for cmd in data.chunks_exact(8) {
        let (_, range, elem) = &seed.sections[cmd[0] as usize % seed.sections.len()];
        let section = &mut bytes[range.clone()];
        let n = section.len() / elem;
        if n == 0 {
            continue;
        }
        let i = u16::from_le_bytes([cmd[2], cmd[3]]) as usize % n;
        let value = u32::from_le_bytes([cmd[4], cmd[5], cmd[6], cmd[7]]);
        let j = value as usize % n;
        let (e, at, other) = (*elem, i * elem, j * elem);
        match cmd[1] % 6 {
            // Set the element (its low bytes for wider ones, sign-extended small values).
            0 => {
                let v = (value as i32 as i64).to_le_bytes();
                section[at..at + e].copy_from_slice(&v[..e]);
            }
            // Swap two elements.
            1 => {
                for k in 0..e {
                    section.swap(at + k, other + k);
                }
            }
            // Copy one element over another.
            2 => section.copy_within(other..other + e, at),
            // Nudge by ±1 (as a little-endian integer of the element's width).
            3 | 4 => {
                let mut v = [0u8; 8];
                v[..e].copy_from_slice(&section[at..at + e]);
                let x = u64::from_le_bytes(v);
                let x = if cmd[1] % 6 == 3 {
                    x.wrapping_add(1)
                } else {
                    x.wrapping_sub(1)
                };
                section[at..at + e].copy_from_slice(&x.to_le_bytes()[..e]);
            }
            // One byte.
            _ => section[at] = cmd[4],
        }
    }
    snapshot::reseal(&mut bytes).expect("the seed's head is intact");
    let Ok(model) = snapshot::from_bytes(&bytes, &OpenOptions::default()) else {
        return;
    };
    let _ = model.schema();
    let mut graph = Graph::from_model(model);
    let options = RunOptions::host();
    for q in QUERIES {
        if let Ok(query) = graph.query_with(q, &options) {
            if let Ok(rows) = graph.execute(&query, &options) {
                let _ = rows.count();
            }
        }
    }
    let _ = graph.apply("MATCH (t:Title) WHERE t.startYear > 1960 SET t.seen = true");
    let _ = graph.apply("MATCH (p:Person)-[r:DIRECTOR]->(t) DELETE r");
    let _ = graph.count("MATCH (a)-[:ACTOR]->(b) RETURN count(*)");
});
