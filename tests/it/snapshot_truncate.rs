//! Issue 31, item 11: another program truncating or overwriting a snapshot that gemp has open
//! must not kill gemp with SIGBUS. Snapshots are read into private memory when opened (see
//! `gemp::model::snapshot`), so queries after the file changed answer from the bytes that were
//! opened and validated: the same answers as before. Unix only (signals).
#![cfg(unix)]

use crate::common;
use common::gemp;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gemp::api::{Graph, RunOptions};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A generated graph as a snapshot `dir/g.gemp` (a few MB: many pages to lose).
fn snapshot(dir: &Path) -> PathBuf {
    let snap = dir.join("g.gemp");
    let out = gemp(&[
        "-q",
        "generate",
        "graph",
        "--nodes",
        "40000",
        "--edges",
        "160000",
        "-o",
        s(&snap),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    snap
}

/// Truncates `snap` to nothing, then fills it with other bytes, shorter than before (what `cp
/// other.gemp snap` or a shell's `>` does to a file another program has open).
fn clobber(snap: &Path) {
    let len = std::fs::metadata(snap).unwrap().len() as usize;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(snap)
        .unwrap();
    f.sync_all().unwrap();
    drop(f);
    std::fs::write(snap, vec![0xA5u8; len / 3]).unwrap();
}

const QUERIES: [&str; 3] = [
    "MATCH (a)-[]->(b) RETURN count(*)",
    "MATCH (a:L0)-[]->(b)-[]->(c) RETURN count(*)",
    "MATCH (a) RETURN sum(a.value)",
];

fn answers(g: &Graph) -> Vec<String> {
    let options = RunOptions::host();
    QUERIES
        .iter()
        .map(|q| {
            let query = g.query_with(q, &options).unwrap();
            format!("{:?}", g.execute(&query, &options).unwrap().output().rows)
        })
        .collect()
}

#[test]
fn a_snapshot_changed_under_an_open_graph_answers_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let snap = snapshot(dir.path());
    let g = Graph::open(&snap).unwrap();
    let before = answers(&g);
    clobber(&snap);
    assert_eq!(answers(&g), before);
    // Every array of the model is still readable (a mapped file would raise SIGBUS here).
    let m = g.model();
    let keys: usize = (0..m.node_count() as u32)
        .map(|n| m.node_key(n).map_or(0, str::len))
        .sum();
    assert!(keys > 0);
    // Opening the clobbered file is a clean error.
    let Err(err) = Graph::open(&snap) else {
        panic!("a clobbered snapshot is refused");
    };
    assert!(err.to_string().contains(s(&snap)), "{err}");
}

#[test]
fn a_running_gemp_match_survives_its_snapshot_being_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let snap = snapshot(dir.path());
    let expected = gemp(&[
        "-q",
        "match",
        "-m",
        s(&snap),
        "-c",
        QUERIES[1],
        "--count",
        "--backend",
        "host",
    ]);
    assert!(expected.status.success(), "{}", text(&expected.stderr));
    let expected = text(&expected.stdout);
    assert!(expected.trim().parse::<u64>().unwrap() > 0, "{expected}");
    // The query comes from standard input, read once the model is open (`-vv` says when).
    let mut child = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args([
            "-vv",
            "match",
            "-m",
            s(&snap),
            "-",
            "--count",
            "--backend",
            "host",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "gemp ended before opening the model: {log}"
        );
        log.push_str(&line);
        if line.contains("opened") && line.contains("g.gemp") {
            break;
        }
    }
    clobber(&snap);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(QUERIES[1].as_bytes()).unwrap();
    drop(stdin);
    let rest = std::thread::spawn(move || {
        let mut t = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut t).unwrap();
        t
    });
    let out = child.wait_with_output().unwrap();
    log.push_str(&rest.join().unwrap());
    assert_eq!(
        out.status.signal(),
        None,
        "gemp died of a signal when its snapshot was truncated: {log}"
    );
    assert_eq!(out.status.code(), Some(0), "{log}");
    assert_eq!(text(&out.stdout), expected);
}
