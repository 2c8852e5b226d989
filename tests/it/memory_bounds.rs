//! Memory is bounded by the query, not by the result: a query with ≥ 10⁷ result rows runs under
//! a data-segment limit far below what holding its rows would take, in every output format, with
//! and without `ORDER BY … LIMIT`, on the host and on the OpenCL device (skipped without a
//! platform). State that does grow with the data ends in a clean error naming the stage, also
//! under an address-space limit (`ulimit -v`).

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The data-segment limit (`ulimit -d`, KiB): 1 GiB. Holding the 16 M rows of the query below as
/// values takes about 4 GB (measured before rows streamed).
const LIMIT_KIB: u64 = 1 << 20;

/// Persons in the bundled sample.
const PERSONS: u64 = 4000;

fn sample_snapshot(dir: &Path) -> PathBuf {
    common::load_snapshot(dir, &common::root().join("datasets/imdb-sample"))
}

/// Runs gemp under the limit; returns (exit code, lines on stdout, last line, stderr).
fn run_capped(args: &[&str]) -> (Option<i32>, u64, String, String) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -d {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_gemp"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running gemp under a limit");
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut last, mut current) = (0u64, Vec::new(), Vec::new());
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                lines += 1;
                last = std::mem::take(&mut current);
            } else if current.len() < 4096 {
                current.push(b);
            }
        }
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    (
        status.code(),
        lines,
        String::from_utf8_lossy(&last).into_owned(),
        err,
    )
}

fn check_backend(snap: &Path, dir: &Path, backend: &str) {
    let pairs = dir.join("pairs.cypher");
    std::fs::write(
        &pairs,
        "// gemp: semantics=isomorphism\n\
         MATCH (a:Person), (b:Person) RETURN a.primaryName AS x, b.primaryName AS y",
    )
    .unwrap();
    let pair_nodes = dir.join("pair-nodes.cypher");
    std::fs::write(
        &pair_nodes,
        "// gemp: semantics=isomorphism\nMATCH (a:Person), (b:Person) RETURN a, b",
    )
    .unwrap();
    let top = dir.join("top.cypher");
    std::fs::write(
        &top,
        "// gemp: semantics=isomorphism\n\
         MATCH (a:Person), (b:Person) RETURN id(a) AS x, id(b) AS y ORDER BY x DESC, y DESC \
         LIMIT 3",
    )
    .unwrap();
    let rows = PERSONS * (PERSONS - 1);
    assert!(rows >= 10_000_000);
    let snap = snap.to_str().unwrap();
    for format in ["jsonl", "csv", "table", "dot"] {
        // DOT draws nodes: the rows return them.
        let all = if format == "dot" { &pair_nodes } else { &pairs };
        let run = |query: &Path| {
            run_capped(&[
                "-q",
                "match",
                "--model",
                snap,
                "--backend",
                backend,
                "--format",
                format,
                query.to_str().unwrap(),
            ])
        };
        let (code, lines, last, err) = run(all);
        assert_eq!(code, Some(0), "{backend} {format}: {err}");
        let expected = match format {
            "jsonl" => rows,
            "csv" => rows + 1,
            "table" => rows + 2,
            // digraph { + one line per person + }
            _ => PERSONS + 2,
        };
        assert_eq!(lines, expected, "{backend} {format}: lines");
        let (code, lines, last_top, err) = run(&top);
        assert_eq!(code, Some(0), "{backend} {format} ORDER BY … LIMIT: {err}");
        match format {
            "jsonl" => {
                // The three largest pairs: (p0, p1), (p0, p2), (p0, p3) for ids p0 > p1 > p2 > p3.
                let p = top_person_ids(snap);
                assert_eq!(lines, 3);
                assert_eq!(last_top, format!(r#"{{"x":{},"y":{}}}"#, p[0], p[3]));
            }
            "csv" => assert_eq!(lines, 4, "{last_top}"),
            "table" => assert_eq!(lines, 5, "{last_top}"),
            _ => assert!(last_top.starts_with('}'), "{last_top}"),
        }
        if format == "dot" {
            assert_eq!(last, "}");
        }
    }
}

/// The four largest person ids, largest first (asked of gemp, not assumed).
fn top_person_ids(snap: &str) -> Vec<u64> {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("ids.cypher");
    std::fs::write(
        &q,
        "MATCH (a:Person) RETURN id(a) AS i ORDER BY i DESC LIMIT 4",
    )
    .unwrap();
    let out = common::gemp(&[
        "-q",
        "match",
        "--model",
        snap,
        "--format",
        "csv",
        q.to_str().unwrap(),
    ]);
    let ids: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 4);
    ids
}

#[test]
fn ten_million_rows_on_the_host_run_in_bounded_memory_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    check_backend(&snap, dir.path(), "host");
}

#[cfg(feature = "opencl")]
#[test]
fn ten_million_rows_on_the_device_run_in_bounded_memory_in_every_format() {
    if common::gpu("ten_million_rows_on_the_device_run_in_bounded_memory_in_every_format").is_none()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    check_backend(&snap, dir.path(), "opencl");
}

/// State as large as the result (16 M distinct pairs, 16 M groups) passes the memory limit: the
/// query stops with an error naming the stage (exit 1), never an abort — under the default limit
/// (a third of `ulimit -d`) and under `--memory-limit`.
#[test]
fn state_beyond_the_memory_limit_is_a_clear_error_naming_the_stage() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    let distinct = dir.path().join("distinct.cypher");
    std::fs::write(
        &distinct,
        "MATCH (a:Person), (b:Person) RETURN DISTINCT a.primaryName AS x, b.primaryName AS y",
    )
    .unwrap();
    let (code, _, _, err) = run_capped(&[
        "-q",
        "match",
        "--model",
        snap,
        "--backend",
        "host",
        "--format",
        "csv",
        distinct.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("memory limit of"), "{err}");
    assert!(err.contains("DISTINCT state"), "{err}");
    let grouped = dir.path().join("grouped.cypher");
    std::fs::write(
        &grouped,
        "MATCH (a:Person), (b:Person) RETURN a.primaryName AS x, b.primaryName AS y, count(*) AS c",
    )
    .unwrap();
    let out = common::gemp(&[
        "-q",
        "--memory-limit",
        "64M",
        "match",
        "--model",
        snap,
        "--backend",
        "host",
        grouped.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("memory limit of 64.0 MiB reached in the result stage's grouping state"),
        "{err}"
    );
    let out = common::gemp(&["--memory-limit", "lots", "match", "x.cypher"]);
    assert_eq!(out.status.code(), Some(2), "a bad limit is a usage error");
}

/// A run the memory limit stops prints no result before its error: an aggregate over the rows
/// it had would be wrong (a count of a million rows printed as a few thousand). The clause
/// executor (`UNWIND`) and the core matcher (grouping), in every output format and with
/// `--count`: exit status 1, the error on stderr, nothing on stdout.
#[test]
fn an_aggregate_is_never_printed_before_a_memory_error() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    let unwind = dir.path().join("unwind.cypher");
    // A list of four million values unwound, held while its rows are made: far beyond 64 MiB.
    // (The rows themselves go into the count as they come.)
    std::fs::write(
        &unwind,
        "UNWIND range(1, 4000000) AS x RETURN count(*) AS n",
    )
    .unwrap();
    // Two million distinct values counted after an `UNWIND`: the aggregate's state grows.
    let distinct = dir.path().join("distinct.cypher");
    std::fs::write(
        &distinct,
        "UNWIND range(1, 2000000) AS x RETURN count(DISTINCT x) AS n",
    )
    .unwrap();
    let grouped = dir.path().join("grouped.cypher");
    std::fs::write(
        &grouped,
        "MATCH (a:Person), (b:Person) RETURN a.primaryName AS x, b.primaryName AS y, count(*) AS c",
    )
    .unwrap();
    for (query, stage) in [
        (&unwind, "the rows of the UNWIND and MATCH steps"),
        (&distinct, "the result stage's grouping state"),
        (&grouped, "the result stage's grouping state"),
    ] {
        let name = query.file_name().unwrap().to_str().unwrap();
        for output in [
            &["--format", "table"][..],
            &["--format", "csv"],
            &["--format", "jsonl"],
            &["--count"],
        ] {
            let mut args = vec![
                "-q",
                "--memory-limit",
                "64M",
                "match",
                "--model",
                snap,
                "--backend",
                "host",
                query.to_str().unwrap(),
            ];
            args.extend_from_slice(output);
            let out = common::gemp(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "",
                "{name} {output:?}: a result printed before the error ({err})"
            );
            assert_eq!(out.status.code(), Some(1), "{name} {output:?}: {err}");
            assert!(
                err.contains(&format!("memory limit of 64.0 MiB reached in {stage}")),
                "{name} {output:?}: {err}"
            );
        }
    }
}

/// Runs gemp under `ulimit -v 4000000` (an address space of about 3.8 GiB) with `args`;
/// returns the exit status and stderr.
fn run_under_ulimit_v(args: &[&str]) -> (std::process::ExitStatus, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4000000 && exec \"$0\" \"$@\" > /dev/null")
        .arg(env!("CARGO_BIN_EXE_gemp"))
        .args(args)
        .stderr(Stdio::piped())
        .output()
        .expect("running gemp under ulimit -v");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a clean memory-limit error naming `stage`: exit status 1, not a signal (SIGABRT).
fn assert_clean_memory_error(case: &str, status: std::process::ExitStatus, err: &str, stage: &str) {
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), None, "{case}: killed by a signal: {err}");
    assert_eq!(status.code(), Some(1), "{case}: {err}");
    assert!(err.contains("memory limit"), "{case}: {err}");
    assert!(
        err.contains(stage),
        "{case}: the stage `{stage}` is not named: {err}"
    );
}

/// Issue 31, item 10: under `ulimit -v 4000000` nothing aborts. The default memory limit is a
/// third of the address-space limit (it ignored `RLIMIT_AS`), the row-by-row executor, the
/// result stages, a transform's changes and the loaders charge the account, and an allocation
/// the system refuses anyway is the memory-limit error naming the stage: each case ends with
/// exit status 1 and a message naming its stage.
#[test]
fn nothing_aborts_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    // A 1,000-node undirected chain alternating persons and titles, its end points sorted: the
    // walks it matches are held for ORDER BY until the limit.
    let nodes: Vec<String> = (0..1000)
        .map(|i| format!("(n{i}:{})", ["Person", "Title"][i % 2]))
        .collect();
    let long_chain = format!(
        "MATCH {} RETURN n0.primaryName AS x, n998.primaryName AS y ORDER BY x",
        nodes.join("--")
    );
    let queries = [
        (
            "a 1,000-node pattern",
            long_chain.as_str(),
            "the rows held for ORDER BY",
        ),
        (
            "ORDER BY over 16 M rows",
            "MATCH (a:Person), (b:Person) RETURN a.primaryName AS x, b.primaryName AS y \
             ORDER BY x, y",
            "the rows held for ORDER BY",
        ),
        (
            "collect over an UNWIND cross product",
            "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN collect(x) AS c",
            "memory limit of",
        ),
        (
            "OPTIONAL MATCH over a cartesian product",
            "MATCH (a:Person), (b:Person) OPTIONAL MATCH (a)-->(t:Title) \
             RETURN a.primaryName AS x, b.primaryName AS y, t.primaryTitle AS z",
            "memory limit of",
        ),
        // (`*1..32` over the whole sample left out: since the row executor streams a MATCH's
        // extensions in batches its memory stays bounded and the count runs for many minutes;
        // it needs a deadline, not a memory error: the deadline module's
        // `streaming_counts_under_an_address_space_limit_stop_at_the_deadline` runs it under
        // `ulimit -v` with `--timeout 5`.)
    ];
    for (case, query, stage) in queries {
        let (status, err) = run_under_ulimit_v(&[
            "-q", "match", "--model", snap, "--format", "csv", "-c", query,
        ]);
        assert_clean_memory_error(case, status, &err, stage);
    }

    // CREATE from a cartesian product: the transform stops, nothing is written.
    let rules = dir.path().join("create.cypher");
    std::fs::write(
        &rules,
        "MATCH (a:Person), (b:Person) CREATE (a)-[:KNOWS]->(b)",
    )
    .unwrap();
    let out = dir.path().join("created.gemp");
    let (status, err) = run_under_ulimit_v(&[
        "-q",
        "transform",
        "--model",
        snap,
        rules.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_clean_memory_error(
        "CREATE from a cartesian product",
        status,
        &err,
        "memory limit of",
    );
    assert!(
        !out.exists(),
        "a transform stopped by memory wrote its output"
    );

    // A JSON graph of 10⁷ nodes with the same id, and a gzip bomb (4 GiB of blanks in 4 MB).
    use std::io::Write;
    let dups = dir.path().join("dups.json.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&dups).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(b"{\"nodes\": [").unwrap();
    let node = b"{\"id\": \"n1\", \"labels\": [\"A\"]},";
    let block: Vec<u8> = node
        .iter()
        .copied()
        .cycle()
        .take(node.len() * 100_000)
        .collect();
    for _ in 0..100 {
        gz.write_all(&block).unwrap();
    }
    gz.write_all(b"{\"id\": \"n1\", \"labels\": [\"A\"]}], \"edges\": []}")
        .unwrap();
    gz.finish().unwrap();
    let bomb = dir.path().join("bomb.json.gz");
    let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    member.write_all(&vec![b' '; 64 << 20]).unwrap();
    let member = member.finish().unwrap();
    let mut head = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    head.write_all(b"{\"nodes\": [").unwrap();
    let mut file = head.finish().unwrap();
    for _ in 0..64 {
        file.extend_from_slice(&member);
    }
    std::fs::write(&bomb, file).unwrap();
    for (case, input) in [("10^7 duplicate ids", &dups), ("a gzip bomb", &bomb)] {
        let out = dir.path().join("loaded.gemp");
        let (status, err) = run_under_ulimit_v(&[
            "-q",
            "load",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_clean_memory_error(case, status, &err, "loading the model");
        assert!(
            !out.exists(),
            "{case}: a load stopped by memory wrote its output"
        );
    }
}

/// Runs gemp with `args` (stdout discarded; `-v` is added so that gemp logs its own peak resident
/// memory, `VmHWM`); returns the exit code, stderr and that peak in bytes. Not `ru_maxrss` from
/// `wait4`: Linux carries into a child's `ru_maxrss` the resident memory of the process that
/// spawned it, and inside the full, parallel test suite this harness itself holds several hundred
/// MiB (a run that peaked at 267 MiB was once reported as 466 MiB).
fn run_measuring_peak(args: &[&str]) -> (Option<i32>, String, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .arg("-v")
        .args(args)
        .stdout(Stdio::null())
        .output()
        .expect("running gemp");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let kib: u64 = err
        .lines()
        .find_map(|l| l.split("peak resident memory ").nth(1))
        .and_then(|rest| rest.strip_suffix(" KiB"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak resident memory in gemp's log: {err}"));
    (out.status.code(), err, kib * 1024)
}

/// Issue 31, item 10: `--memory-limit` holds resident memory, not only the bytes asked for. The
/// account counts heap blocks as the allocator takes them (a row of one computed string asks 81
/// bytes and takes 120), sorting holds only flat keys and an index beside the rows, the
/// row-by-row executor stops at the limit and hands its rows on a chunk at a time, and the
/// allocator keeps at most an eighth of the limit in freed memory: with `--memory-limit 256M`
/// the peak resident memory of a run stopped by the limit stays within 40 % above it (see below). (Before:
/// 365 MiB for the computed strings sorted, 528 MiB for the `OPTIONAL MATCH` one; `ORDER BY` with
/// `--memory-limit 1G` reached 3.1 GB resident on a large IMDb.)
#[test]
fn resident_memory_stays_within_two_fifths_over_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample_snapshot(dir.path());
    let snap = snap.to_str().unwrap();
    let limit: u64 = 256 << 20;
    let cases = [
        // Node-isomorphism, as measured when the account was fixed, and Cypher's default, under
        // which the relationship-free product runs as homomorphism (reported once to peak at
        // 330 MiB, 29 % over; 267 MiB on this branch, as under node-isomorphism).
        (
            "// gemp: semantics=isomorphism\n\
             MATCH (a:Person), (b:Person) RETURN a.primaryName + b.primaryName AS x ORDER BY x",
            "the rows held for ORDER BY",
        ),
        (
            "// gemp: semantics=isomorphism\n\
             MATCH (a:Person), (b:Person) RETURN a.primaryName AS x, b.primaryName AS y \
             ORDER BY x, y",
            "the rows held for ORDER BY",
        ),
        (
            "MATCH (a:Person), (b:Person) RETURN a.primaryName + b.primaryName AS x ORDER BY x",
            "the rows held for ORDER BY",
        ),
        (
            "MATCH (a:Person), (b:Person) RETURN a.primaryName AS x, b.primaryName AS y \
             ORDER BY x, y",
            "the rows held for ORDER BY",
        ),
        (
            "// gemp: semantics=homomorphism\n\
             MATCH (a:Person), (b:Person) RETURN a.primaryName + b.primaryName AS x ORDER BY x",
            "the rows held for ORDER BY",
        ),
        (
            "MATCH (a:Person) OPTIONAL MATCH (b:Person) \
             RETURN a.primaryName + b.primaryName AS x ORDER BY x",
            "memory limit of 256.0 MiB reached",
        ),
    ];
    for (query, stage) in cases {
        let (code, err, peak) = run_measuring_peak(&[
            "--memory-limit",
            "256M",
            "match",
            "--model",
            snap,
            "--backend",
            "host",
            "--format",
            "csv",
            "-c",
            query,
        ]);
        assert_eq!(code, Some(1), "{query}: {err}");
        assert!(err.contains(stage), "{query}: {err}");
        // Within 40 %: the cases peak at 266-268 MiB (4 % over), also with both cores busy
        // elsewhere. (Reports of 330 and 466 MiB inside the full suite were the harness's own
        // resident memory, which `wait4`'s `ru_maxrss` carried into the child's; see
        // `run_measuring_peak`.) Before the account was fixed they reached 365 and 528 MiB.
        assert!(
            peak <= limit + limit * 2 / 5,
            "{query}: peak resident memory {} MiB with --memory-limit 256M",
            peak >> 20
        );
    }
}
