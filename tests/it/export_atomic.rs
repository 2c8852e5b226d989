//! Issue 31, item 3: `gemp export --format neo4j-csv -o DIR` replaces DIR as a whole. A full disk
//! at any file, or a SIGKILL at any moment, leaves DIR holding the complete old export or the
//! complete new one (loaded, they give their own node and edge counts), never a mix; the next run
//! removes what a killed one left. A directory whose files do not match its manifest (one
//! missing, one changed, a stray file of another export) is refused with a message naming the
//! file; one without a manifest (hand-made CSV) loads as before. Linux only (`/proc` tells which
//! process is gone; SIGKILL).
#![cfg(target_os = "linux")]

use crate::common;
use common::{gemp, temps, wait_for_temp, Rng};

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use gemp::io::export_manifest::{self, MANIFEST_NAME};
use gemp::io::{Format, LoadOptions};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(out: &Output) {
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `gemp generate imdb` into `dir/name`, loaded as `dir/name.gemp`.
fn imdb(dir: &Path, name: &str, titles: u32, persons: u32) -> PathBuf {
    let data = dir.join(name);
    let snap = dir.join(format!("{name}.gemp"));
    ok(&gemp(&[
        "-q",
        "generate",
        "imdb",
        "--titles",
        &titles.to_string(),
        "--persons",
        &persons.to_string(),
        "-o",
        s(&data),
    ]));
    ok(&gemp(&["-q", "load", s(&data), "-o", s(&snap)]));
    snap
}

/// A small model from JSON text, as a snapshot `dir/name.gemp`.
fn json_model(dir: &Path, name: &str, json: &str) -> PathBuf {
    let src = dir.join(format!("{name}.json"));
    std::fs::write(&src, json).unwrap();
    let snap = dir.join(format!("{name}.gemp"));
    ok(&gemp(&["-q", "load", s(&src), "-o", s(&snap), "--force"]));
    snap
}

fn export_args<'a>(model: &'a Path, dir: &'a Path) -> Vec<&'a str> {
    vec![
        "-q",
        "export",
        s(model),
        "--format",
        "neo4j-csv",
        "-o",
        s(dir),
        "--force",
    ]
}

/// Node and edge counts of the export in `dir`, loaded through the library (which checks the
/// manifest); panics when it does not load.
fn counts(dir: &Path) -> (usize, usize) {
    let (m, report) = gemp::io::load(&[dir.to_path_buf()], Format::Auto, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{} is not one complete export: {e}", dir.display()));
    assert_eq!(report.dangling_nodes, 0, "{}", dir.display());
    (m.node_count(), m.edge_count())
}

fn snapshot_counts(snap: &Path) -> (usize, usize) {
    let m = gemp::model::snapshot::open(snap).unwrap();
    (m.node_count(), m.edge_count())
}

/// The leftovers of directory writes beside `dir` (temporary and renamed-aside directories).
fn leftovers(parent: &Path, pid: Option<u32>) -> Vec<PathBuf> {
    let mut v = temps(parent, pid);
    v.extend(
        std::fs::read_dir(parent)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name.ends_with(".gemp-old")
                    && pid.is_none_or(|pid| name.contains(&format!(".{pid}.")))
            }),
    );
    v
}

fn data_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    v.sort();
    v
}

const OLD_JSON: &str = r#"{"nodes": [
  {"id": "a", "labels": ["Person"], "properties": {"name": "Ann"}},
  {"id": "b", "labels": ["Person"], "properties": {"name": "Bob"}},
  {"id": "m", "labels": ["Movie"], "properties": {"title": "M"}}
], "edges": [
  {"source": "a", "target": "m", "type": "ACTED_IN"},
  {"source": "b", "target": "m", "type": "ACTED_IN"},
  {"source": "a", "target": "b", "type": "KNOWS"},
  {"source": "b", "target": "a", "type": "LIKES"}
]}"#;

const NEW_JSON: &str = r#"{"nodes": [
  {"id": "x", "labels": ["Person"], "properties": {"name": "Xi"}},
  {"id": "y", "labels": ["Person"], "properties": {"name": "Yu"}},
  {"id": "z", "labels": ["Person"], "properties": {"name": "Zoe"}},
  {"id": "w", "labels": ["Person"], "properties": {"name": "Wu"}},
  {"id": "n", "labels": ["Movie"], "properties": {"title": "N"}}
], "edges": [
  {"source": "x", "target": "n", "type": "ACTED_IN"},
  {"source": "y", "target": "n", "type": "ACTED_IN"},
  {"source": "z", "target": "n", "type": "ACTED_IN"}
]}"#;

#[test]
fn a_full_disk_at_any_file_leaves_the_old_export() {
    let dir = tempfile::tempdir().unwrap();
    let old = json_model(dir.path(), "old", OLD_JSON);
    let new = json_model(dir.path(), "new", NEW_JSON);
    let csv = dir.path().join("csv");
    ok(&gemp(&export_args(&old, &csv)));
    assert_eq!(counts(&csv), (3, 4));
    let old_files = data_files(&csv);
    assert_eq!(
        old_files,
        [
            "nodes-0-Person.csv",
            "nodes-1-Movie.csv",
            "rels-0-ACTED_IN.csv",
            "rels-1-KNOWS.csv",
            "rels-2-LIKES.csv"
        ]
    );
    std::fs::write(csv.join("notes.txt"), "mine").unwrap();
    // The new export writes 2 node files, 1 relationship file and the manifest: a full disk at
    // each of them, and at none.
    for n in 1..=4 {
        let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
            .args(export_args(&new, &csv))
            .env("GEMP_FAULT_ENOSPC_AT_FILE", n.to_string())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "file {n}: {}",
            text(&out.stderr)
        );
        let err = text(&out.stderr);
        assert!(err.contains("No space left on device"), "file {n}: {err}");
        assert!(err.contains(s(&csv)), "file {n}: the path is named: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(counts(&csv), (3, 4), "file {n}: the old export is intact");
        assert_eq!(data_files(&csv), old_files, "file {n}");
        assert_eq!(leftovers(dir.path(), None), Vec::<PathBuf>::new());
    }
    ok(&gemp(&export_args(&new, &csv)));
    assert_eq!(counts(&csv), (5, 3));
    assert_eq!(
        data_files(&csv),
        [
            "nodes-0-Person.csv",
            "nodes-1-Movie.csv",
            "rels-0-ACTED_IN.csv"
        ],
        "the old export's other files are gone"
    );
    assert_eq!(
        std::fs::read_to_string(csv.join("notes.txt")).unwrap(),
        "mine",
        "the user's own file is kept"
    );
    let m = export_manifest::read(&csv).unwrap().unwrap();
    assert_eq!((m.format.as_str(), m.nodes, m.edges), ("neo4j-csv", 5, 3));
    let rows: Vec<(&str, u64)> = m.files.iter().map(|f| (f.name.as_str(), f.rows)).collect();
    assert_eq!(
        rows,
        [
            ("nodes-0-Person.csv", 4),
            ("nodes-1-Movie.csv", 1),
            ("rels-0-ACTED_IN.csv", 3)
        ]
    );
}

#[test]
fn a_mixed_or_incomplete_export_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let old = json_model(dir.path(), "old", OLD_JSON);
    let new = json_model(dir.path(), "new", NEW_JSON);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    ok(&gemp(&export_args(&old, &a)));
    ok(&gemp(&export_args(&new, &b)));
    let refused = |d: &Path, what: &[&str]| {
        for cmd in [&["info"][..], &["load"][..]] {
            let mut args = vec!["-q"];
            args.extend_from_slice(cmd);
            args.push(s(d));
            let out = gemp(&args);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{args:?}: {}",
                text(&out.stderr)
            );
            let err = text(&out.stderr);
            for w in what {
                assert!(err.contains(w), "{args:?}: expected {w:?} in {err}");
            }
        }
    };
    // A stale relationship file of the other export.
    std::fs::copy(a.join("rels-2-LIKES.csv"), b.join("rels-2-LIKES.csv")).unwrap();
    refused(
        &b,
        &[
            &format!(
                "{}: is not part of the export",
                s(&b.join("rels-2-LIKES.csv"))
            ),
            MANIFEST_NAME,
        ],
    );
    std::fs::remove_file(b.join("rels-2-LIKES.csv")).unwrap();
    assert_eq!(counts(&b), (5, 3));
    // A file missing.
    std::fs::remove_file(a.join("rels-1-KNOWS.csv")).unwrap();
    refused(
        &a,
        &[&format!("{}: is missing", s(&a.join("rels-1-KNOWS.csv")))],
    );
    // A file of the other export under a listed name.
    std::fs::copy(b.join("nodes-0-Person.csv"), a.join("rels-1-KNOWS.csv")).unwrap();
    refused(&a, &[s(&a.join("rels-1-KNOWS.csv")), "another export"]);
    // A row removed (same name, other content).
    ok(&gemp(&export_args(&old, &a)));
    let person = a.join("nodes-0-Person.csv");
    let kept: Vec<String> = std::fs::read_to_string(&person)
        .unwrap()
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&person, kept.concat()).unwrap();
    refused(&a, &[s(&person), MANIFEST_NAME]);
    // The export over it without --force is refused, with it the directory is whole again.
    let out = gemp(&export_args(&old, &a)[..7]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("pass --force"),
        "{}",
        text(&out.stderr)
    );
    ok(&gemp(&export_args(&old, &a)));
    assert_eq!(counts(&a), (3, 4));
    // Without a manifest the directory is plain CSV, read as it is (hand-made or from Neo4j),
    // a file of another export included.
    std::fs::remove_file(a.join(MANIFEST_NAME)).unwrap();
    assert_eq!(counts(&a), (3, 4));
    std::fs::copy(b.join("nodes-0-Person.csv"), a.join("nodes-9-Other.csv")).unwrap();
    assert_eq!(counts(&a), (7, 4));
}

/// Nodes of the IMDb model the kill rounds export (big enough that an export takes a while).
const TITLES: u32 = 40_000;
const PERSONS: u32 = 60_000;

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("running gemp")
}

#[test]
fn sigkill_during_export_leaves_the_old_or_the_new_export() {
    let dir = tempfile::tempdir().unwrap();
    let big = imdb(dir.path(), "big", TITLES, PERSONS);
    let small = imdb(dir.path(), "small", 50, 80);
    let (new_counts, old_counts) = (snapshot_counts(&big), snapshot_counts(&small));
    assert_ne!(new_counts, old_counts);
    let csv = dir.path().join("csv");
    let args = export_args(&big, &csv);
    let t = Instant::now();
    ok(&gemp(&args));
    let full = t.elapsed();
    assert_eq!(counts(&csv), new_counts);

    let mut rng = Rng(20261127);
    let (mut old, mut new, mut mid_write) = (0, 0, 0);
    for i in 0..20 {
        ok(&gemp(&export_args(&small, &csv)));
        let mut child = spawn(&args);
        if i % 2 == 0 {
            std::thread::sleep(full.mul_f64(rng.below(130) as f64 / 100.0));
        } else if wait_for_temp(&mut child, dir.path(), Duration::from_secs(60), "export") {
            // Somewhere in the write of the files.
            std::thread::sleep(full.mul_f64(rng.below(60) as f64 / 100.0));
        }
        let _ = child.kill();
        child.wait().unwrap();
        if !leftovers(dir.path(), Some(child.id())).is_empty() {
            mid_write += 1;
        }
        let got = counts(&csv);
        if got == old_counts {
            old += 1;
        } else if got == new_counts {
            new += 1;
        } else {
            panic!(
                "round {i}: {got:?} is neither the old {old_counts:?} nor the new {new_counts:?}"
            );
        }
    }
    eprintln!(
        "export of {new_counts:?} in {full:?}: after SIGKILL {old} old, {new} new exports, \
         {mid_write} killed mid-write"
    );
    assert!(
        mid_write > 0,
        "no SIGKILL landed while the export was written"
    );
    // The next run removes what the killed ones left.
    ok(&gemp(&args));
    assert_eq!(counts(&csv), new_counts);
    assert_eq!(leftovers(dir.path(), None), Vec::<PathBuf>::new());
}

#[test]
fn sigterm_during_export_removes_the_temporary_directory() {
    let dir = tempfile::tempdir().unwrap();
    let big = imdb(dir.path(), "big", TITLES / 2, PERSONS / 2);
    let old = json_model(dir.path(), "old", OLD_JSON);
    let csv = dir.path().join("csv");
    let args = export_args(&big, &csv);
    let new_counts = snapshot_counts(&big);
    let mut terminated = 0;
    for _ in 0..4 {
        ok(&gemp(&export_args(&old, &csv)));
        let mut child = spawn(&args);
        if wait_for_temp(&mut child, dir.path(), Duration::from_secs(60), "export") {
            let pid = libc::pid_t::try_from(child.id()).unwrap();
            // SAFETY: plain kill(2) of our own child, which has not been reaped.
            assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        }
        let status = child.wait().unwrap();
        let got = counts(&csv);
        match status.code() {
            // Terminated before the swap: the old export, and the handler removed the
            // temporary directory.
            Some(143) if got == (3, 4) => {
                terminated += 1;
                assert_eq!(
                    leftovers(dir.path(), Some(child.id())),
                    Vec::<PathBuf>::new()
                );
            }
            // Terminated after the swap, or finished: the new export.
            Some(143 | 0) => assert_eq!(got, new_counts),
            other => panic!("exit {other:?}"),
        }
    }
    assert!(
        terminated > 0,
        "no SIGTERM landed while the export was written"
    );
    ok(&gemp(&args));
    assert_eq!(leftovers(dir.path(), None), Vec::<PathBuf>::new());
}
