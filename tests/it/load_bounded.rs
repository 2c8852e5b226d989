//! Issue 36: the model builder frees what it was given as it freezes (node keys, edge arrays,
//! property columns) and builds the incoming adjacency from the outgoing one. The snapshot a load
//! writes must stay byte for byte what the loader wrote before that change.

use std::fmt::Write as _;
use std::path::Path;

use gemp::generate::imdb::{generate_imdb, ImdbGenConfig};
use gemp::io::format::Format;
use gemp::io::LoadOptions;
use gemp::model::{snapshot, ModelBuilder, ValueRef};

/// 64-bit FNV-1a: what the expected hashes below were computed with (a few lines of Python over
/// the file written by the old binary).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A `title.crew` and a `title.episode` file beside the generated ones (the generator writes
/// neither): directors and writers of the first 201 titles (every fifth without directors, one
/// dangling person), and 100 episodes of the first ten titles (one without a series).
fn crew_and_episodes(dir: &Path) {
    let mut crew = String::from("tconst\tdirectors\twriters\n");
    for t in 1..=200u32 {
        let directors = if t % 5 == 0 {
            "\\N".to_string()
        } else {
            format!("nm{:07}", t * 13 % 4000 + 1)
        };
        writeln!(
            crew,
            "tt{t:07}\t{directors}\tnm{:07},nm{:07}",
            t * 17 % 4000 + 1,
            t * 29 % 4000 + 1
        )
        .unwrap();
    }
    crew.push_str("tt0000201\tnm9999999\t\\N\n");
    std::fs::write(dir.join("title.crew.tsv"), crew).unwrap();
    let mut episodes = String::from("tconst\tparentTconst\tseasonNumber\tepisodeNumber\n");
    for t in 1..=99u32 {
        writeln!(
            episodes,
            "tt{:07}\ttt{:07}\t{}\t{t}",
            t + 1000,
            t % 10 + 1,
            t % 3 + 1
        )
        .unwrap();
    }
    episodes.push_str("tt0001100\t\\N\t\\N\t\\N\n");
    std::fs::write(dir.join("title.episode.tsv"), episodes).unwrap();
}

/// The generated sample (3000 titles, 4000 persons, seed 42) plus crew and episodes, loaded and
/// written: the same length and FNV-1a hash as the snapshot `gemp load DIR -o m.gemp` wrote at
/// main 105540e (before issue 36) for the same files (`gemp generate imdb --titles 3000
/// --persons 4000 --seed 42 -o DIR`, the two files above added by a Python transcription of
/// `crew_and_episodes`).
#[test]
fn generated_imdb_snapshot_is_byte_for_byte_the_old_loaders() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = ImdbGenConfig {
        titles: 3000,
        persons: 4000,
        seed: 42,
        ..Default::default()
    };
    generate_imdb(&config, &data).unwrap();
    crew_and_episodes(&data);
    let (model, report) = gemp::io::load(
        std::slice::from_ref(&data),
        Format::Auto,
        &LoadOptions::default(),
    )
    .unwrap();
    // 3000 titles, 4000 persons, and the crew file's one dangling person.
    assert_eq!(model.node_count(), 7001);
    assert_eq!(report.dangling_nodes, 1);
    let out = dir.path().join("m.gemp");
    snapshot::write(&model, &out).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(
        (bytes.len(), fnv1a(&bytes)),
        (EXPECTED_LEN, EXPECTED_FNV),
        "the snapshot differs from the one the loader wrote before issue 36"
    );
}

const EXPECTED_LEN: usize = 1_838_656;
const EXPECTED_FNV: u64 = 0x30a7_801e_41aa_1ca8;

/// The incoming adjacency, now built from the outgoing one, over parallel edges, self-loops and
/// several types: each list sorted by (type, source, edge id), edge ids the out-CSR positions.
#[test]
fn incoming_lists_of_parallel_edges_and_loops() {
    let mut b = ModelBuilder::new();
    let a = b.add_node("a", &["N"]);
    let c = b.add_node("c", &["N"]);
    let d = b.add_node("d", &["M"]);
    let (x, y) = (b.rel_type("X"), b.rel_type("Y"));
    let w = b.edge_property("w");
    // Builder order: e0 d-Y->c, e1 a-X->c, e2 c-X->c, e3 a-X->c, e4 d-X->c, e5 a-Y->a.
    for (i, (s, t, ty)) in [
        (d, c, y),
        (a, c, x),
        (c, c, x),
        (a, c, x),
        (d, c, x),
        (a, a, y),
    ]
    .into_iter()
    .enumerate()
    {
        let e = b.add_edge(s, t, ty).unwrap();
        b.set_edge_property(e, w, ValueRef::Int(i as i64)).unwrap();
    }
    let m = b.freeze().unwrap();
    // New ids: a = 0, c = 1 (label N first), d = 2. Out-CSR positions: a: (X,c,e1)=0,
    // (X,c,e3)=1, (Y,a,e5)=2; c: (X,c,e2)=3; d: (X,c,e4)=4, (Y,c,e0)=5.
    let w_of = |pos: usize| m.edge_columns()[0].get(pos);
    assert_eq!(
        (0..6).map(w_of).collect::<Vec<_>>(),
        [1, 3, 5, 2, 4, 0].map(ValueRef::Int)
    );
    let inc = m.inc();
    let list = |v: u32| {
        inc.range(v)
            .map(|p| (inc.types[p], inc.neighbors[p], inc.edge_id_at(p)))
            .collect::<Vec<_>>()
    };
    assert_eq!(list(0), [(y, 0, 2)]);
    assert_eq!(
        list(1),
        [(x, 0, 0), (x, 0, 1), (x, 1, 3), (x, 2, 4), (y, 2, 5)]
    );
    assert_eq!(list(2), []);
}

/// `--memory-limit` holds in the freeze: a dump whose 4 M credits parse within 90 MiB (the three
/// edge arrays, 48 MiB, and the reading buffers) but whose outgoing adjacency would need 64 MiB
/// more ends with the memory-limit error naming that stage, before the stage allocates, and
/// writes no snapshot.
#[test]
fn memory_limit_stops_the_freeze_naming_its_stage() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("title.principals.tsv.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&data).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(b"tconst\tordering\tnconst\tcategory\tjob\tcharacters\n")
        .unwrap();
    let mut rows = String::new();
    for t in 1..=2000u32 {
        rows.clear();
        for p in 1..=2000u32 {
            writeln!(rows, "tt{t:07}\t\\N\tnm{p:07}\tactor\t\\N\t\\N").unwrap();
        }
        gz.write_all(rows.as_bytes()).unwrap();
    }
    gz.finish().unwrap();
    let out = dir.path().join("m.gemp");
    let run = crate::common::gemp(&[
        "-q",
        "--memory-limit",
        "90M",
        "load",
        data.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("memory limit"), "{err}");
    assert!(
        err.contains("loading the model (freezing the outgoing adjacency)"),
        "the stage is not named: {err}"
    );
    assert!(!out.exists(), "a load stopped by memory wrote its output");
}
