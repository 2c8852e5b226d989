//! Safe writes through the `gemp` binary: what is refused (devices, FIFOs, directories, existing
//! files without `--force`), symbolic links written through, and that a write killed at any moment
//! (SIGKILL, SIGTERM, SIGINT) leaves the old or the new complete snapshot and, in the end, no
//! temporary file. Unix only (devices, FIFOs, signals); the kill tests need Linux's `/proc`.
#![cfg(target_os = "linux")]

use crate::common;
use common::{gemp, root, temps, wait_for_temp, Rng};

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use gemp::model::snapshot;

/// Nodes of the bundled sample (the "new" snapshot in the kill tests).
const SAMPLE_NODES: usize = 7000;
/// Nodes of the small generated graph (the "old" snapshot in the kill tests).
const OLD_NODES: usize = 50;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn sample() -> String {
    root().join("datasets/imdb-sample").display().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn load(out: &Path, extra: &[&str]) -> Output {
    let sample = sample();
    let mut args = vec!["-q", "load", sample.as_str(), "-o", s(out)];
    args.extend_from_slice(extra);
    gemp(&args)
}

fn refused(out: &Output, what: &str) {
    assert!(!out.status.success(), "succeeded: {}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(what), "expected {what:?} in {err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn node_count(snap: &Path) -> usize {
    snapshot::open(snap)
        .unwrap_or_else(|e| panic!("{} is not a complete snapshot: {e}", snap.display()))
        .node_count()
}

#[test]
fn devices_fifos_and_directories_are_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    for force in [&[][..], &["--force"][..]] {
        refused(
            &load(Path::new("/dev/null"), force),
            "/dev/null: is a character device",
        );
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());

        let fifo = dir.path().join("pipe.gemp");
        if !fifo.exists() {
            let c = std::ffi::CString::new(s(&fifo)).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
        }
        refused(&load(&fifo, force), "is a FIFO");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());

        let sub = dir.path().join("sub.gemp");
        std::fs::create_dir_all(&sub).unwrap();
        refused(&load(&sub, force), "is a directory");
        assert!(sub.is_dir());

        // The same for the other writers.
        let out = gemp(&[
            "export",
            &sample(),
            "--format",
            "json",
            "-o",
            "/dev/null",
            "--force",
        ]);
        refused(&out, "/dev/null: is a character device");
    }
    assert!(temps(dir.path(), None).is_empty());
}

#[test]
fn existing_and_read_only_files_are_replaced_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.gemp");
    std::fs::write(&x, b"precious").unwrap();
    refused(&load(&x, &[]), "x.gemp: exists; pass --force to replace it");
    assert_eq!(std::fs::read(&x).unwrap(), b"precious");

    let mut perm = std::fs::metadata(&x).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&x, perm).unwrap();
    refused(&load(&x, &[]), "read-only; pass --force");
    assert_eq!(std::fs::read(&x).unwrap(), b"precious");

    let out = load(&x, &["--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(node_count(&x), SAMPLE_NODES);

    // export and generate follow the same rule.
    let json = dir.path().join("g.json");
    std::fs::write(&json, b"keep").unwrap();
    let out = gemp(&["export", s(&x), "--format", "json", "-o", s(&json)]);
    refused(&out, "exists; pass --force");
    assert_eq!(std::fs::read(&json).unwrap(), b"keep");
    let out = gemp(&[
        "export",
        s(&x),
        "--format",
        "json",
        "-o",
        s(&json),
        "--force",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&json).unwrap().starts_with('{'));

    let g = dir.path().join("g.gemp");
    let args = [
        "generate",
        "graph",
        "--nodes",
        "50",
        "--edges",
        "100",
        "-o",
        s(&g),
    ];
    assert!(gemp(&args).status.success());
    refused(&gemp(&args), "exists; pass --force");
    assert!(temps(dir.path(), None).is_empty());
}

#[test]
fn symlinks_are_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.gemp");
    let link = dir.path().join("link.gemp");
    std::fs::write(&real, b"old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    refused(&load(&link, &[]), "pass --force to replace it");
    assert_eq!(std::fs::read(&real).unwrap(), b"old");

    let out = load(&link, &["--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_link(&link).unwrap(), real);
    assert_eq!(node_count(&real), SAMPLE_NODES);

    // A link to a missing file, or to a device, is refused.
    let dangling = dir.path().join("dangling.gemp");
    std::os::unix::fs::symlink(dir.path().join("missing.gemp"), &dangling).unwrap();
    refused(&load(&dangling, &["--force"]), "dangling symbolic link");
    assert!(!dir.path().join("missing.gemp").exists());
    let null = dir.path().join("null.gemp");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    refused(&load(&null, &["--force"]), "a character device");
    assert!(temps(dir.path(), None).is_empty());
}

fn spawn_load(x: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(["-q", "load", &sample(), "-o", s(x), "--force"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("running gemp")
}

/// Writes the "old" snapshot to `x`.
fn old_snapshot(x: &Path) {
    let out = gemp(&[
        "-q",
        "generate",
        "graph",
        "--nodes",
        &OLD_NODES.to_string(),
        "--edges",
        "100",
        "-o",
        s(x),
        "--force",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn sigkill_at_random_moments_leaves_old_or_new_snapshot_and_the_next_run_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.gemp");
    old_snapshot(&x);
    let t = Instant::now();
    assert!(spawn_load(&x).wait().unwrap().success());
    let full = t.elapsed();
    assert_eq!(node_count(&x), SAMPLE_NODES);

    let mut rng = Rng(20261125);
    let (mut left_behind, mut old, mut new) = (0, 0, 0);
    for i in 0..10 {
        old_snapshot(&x);
        let mut child = spawn_load(&x);
        if i % 2 == 0 {
            // Anywhere in the process's life.
            std::thread::sleep(full.mul_f64(rng.below(120) as f64 / 100.0));
        } else {
            // While the temporary file exists.
            wait_for_temp(&mut child, dir.path(), Duration::from_secs(20), "gemp load");
        }
        let _ = child.kill();
        child.wait().unwrap();
        match node_count(&x) {
            OLD_NODES => old += 1,
            SAMPLE_NODES => new += 1,
            n => panic!("x.gemp has {n} nodes: neither the old nor the new snapshot"),
        }
        left_behind += temps(dir.path(), Some(child.id())).len();
    }
    eprintln!("after SIGKILL: {old} old, {new} new snapshots, {left_behind} temporary files left");
    assert!(
        left_behind > 0,
        "no SIGKILL landed while the temporary file existed"
    );
    assert!(!temps(dir.path(), None).is_empty());
    // The next successful write removes what the killed processes left.
    let out = load(&x, &["--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(node_count(&x), SAMPLE_NODES);
    assert_eq!(temps(dir.path(), None), Vec::<PathBuf>::new());
}

#[test]
fn sigterm_and_sigint_mid_write_remove_the_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.gemp");
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let mut interrupted = 0;
        for _ in 0..4 {
            old_snapshot(&x);
            let mut child = spawn_load(&x);
            if wait_for_temp(&mut child, dir.path(), Duration::from_secs(20), "gemp load") {
                assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
            }
            let status = child.wait().unwrap();
            if status.code() == Some(code) {
                interrupted += 1;
            } else {
                assert!(status.success(), "signal {sig}: {status:?}");
            }
            assert_eq!(temps(dir.path(), None), Vec::<PathBuf>::new());
            let n = node_count(&x);
            assert!(n == OLD_NODES || n == SAMPLE_NODES, "{n} nodes");
        }
        assert!(interrupted > 0, "signal {sig} never arrived mid-write");
    }
}

#[test]
fn batch_gives_same_named_queries_distinct_result_files() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let (qa, qb) = (a.join("q.cypher"), b.join("q.cypher"));
    std::fs::write(&qa, "MATCH (p:Person) RETURN p").unwrap();
    std::fs::write(&qb, "MATCH (t:Title) RETURN t").unwrap();
    let out_dir = dir.path().join("out");
    let args = ["batch", "--count", s(&qa), s(&qb), "--out", s(&out_dir)];
    let out = gemp(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.lines().any(|l| l.starts_with("q ")), "{table}");
    assert!(table.lines().any(|l| l.starts_with("q-2 ")), "{table}");
    assert!(
        text(&out.stderr).contains("same name"),
        "{}",
        text(&out.stderr)
    );
    let read = |name: &str| {
        std::fs::read_to_string(out_dir.join(name))
            .unwrap()
            .trim()
            .to_owned()
    };
    assert_eq!(read("q.count"), "4000");
    assert_eq!(read("q-2.count"), "3000");

    // A second run into the same directory needs --force.
    refused(&gemp(&args), "exists; pass --force");
    assert_eq!(read("q.count"), "4000");
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(gemp(&forced).status.success());
    assert!(temps(&out_dir, None).is_empty());
}
