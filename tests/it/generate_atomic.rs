//! Issue 31: `gemp generate imdb -o DIR` and `gemp generate ttc14 -o DIR` write DIR as one set
//! (through `util::safe_dir`, as directory exports do). A full disk at any file or a SIGKILL at
//! any moment leaves the old generation's four files, byte for byte, or the new one's, never new
//! files beside old ones; files of an earlier generation that the new one does not write (`.tsv.gz`
//! after a plain run) are removed; the user's own files stay. Linux only (SIGKILL, `/proc`).
#![cfg(target_os = "linux")]

use crate::common;
use common::{gemp, temps, wait_for_temp, Rng};

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const FILES: [&str; 4] = [
    "title.basics.tsv",
    "name.basics.tsv",
    "title.principals.tsv",
    "title.ratings.tsv",
];

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn generate_args(dir: &Path, titles: u32, seed: u32) -> Vec<String> {
    [
        "-q",
        "generate",
        "imdb",
        "--titles",
        &titles.to_string(),
        "--persons",
        &(titles * 3 / 2).to_string(),
        "--seed",
        &seed.to_string(),
        "-o",
        s(dir),
        "--force",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn generate(dir: &Path, titles: u32, seed: u32, env: Option<(&str, &str)>) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gemp"));
    cmd.args(generate_args(dir, titles, seed));
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    cmd.output().expect("running gemp")
}

/// The four files' bytes (a missing file as None).
fn set(dir: &Path) -> Vec<Option<Vec<u8>>> {
    FILES
        .iter()
        .map(|f| std::fs::read(dir.join(f)).ok())
        .collect()
}

fn spawn(dir: &Path, titles: u32, seed: u32) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(generate_args(dir, titles, seed))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("running gemp")
}

#[test]
fn a_full_disk_at_any_file_leaves_the_old_generation_whole() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let out = generate(&dir, 300, 1, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
    let old = set(&dir);
    assert!(old.iter().all(Option::is_some));
    // Files 1–4 are the data files, 5 the manifest.
    for at in 1..=5 {
        let out = generate(
            &dir,
            400,
            2,
            Some(("GEMP_FAULT_ENOSPC_AT_FILE", &at.to_string())),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "file {at}: {err}");
        assert!(err.contains("No space left on device"), "file {at}: {err}");
        assert!(set(&dir) == old, "file {at}: the old generation changed");
        assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"mine");
        assert!(
            temps(root.path(), None).is_empty(),
            "file {at}: a temporary directory is left"
        );
    }
    let out = generate(&dir, 400, 2, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(set(&dir) != old);
    assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"mine");
}

#[test]
fn an_earlier_generation_is_replaced_as_a_whole() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let gz = gemp(&[
        "-q",
        "generate",
        "imdb",
        "--titles",
        "50",
        "--persons",
        "60",
        "--gzip",
        "-o",
        s(&dir),
    ]);
    assert!(
        gz.status.success(),
        "{}",
        String::from_utf8_lossy(&gz.stderr)
    );
    assert!(dir.join("title.basics.tsv.gz").exists());
    // Without --force an earlier generation is refused, untouched.
    let again = gemp(&[
        "-q",
        "generate",
        "imdb",
        "--titles",
        "50",
        "--persons",
        "60",
        "-o",
        s(&dir),
    ]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert!(!dir.join("title.basics.tsv").exists());
    // A plain run over a gzip one: the .tsv.gz files are gone, so loading the directory reads
    // one generation only.
    let out = generate(&dir, 50, 1, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "gemp-generated.manifest",
            "name.basics.tsv",
            "title.basics.tsv",
            "title.principals.tsv",
            "title.ratings.tsv"
        ]
    );
    // TTC14 the same way: its four files replace the IMDb ones.
    let ttc = gemp(&[
        "-q",
        "generate",
        "ttc14",
        "--blocks",
        "2",
        "-o",
        s(&dir),
        "--force",
    ]);
    assert!(
        ttc.status.success(),
        "{}",
        String::from_utf8_lossy(&ttc.stderr)
    );
    let basics = std::fs::read_to_string(dir.join("title.basics.tsv")).unwrap();
    assert_eq!(
        basics.lines().count(),
        1 + 2 * 10,
        "header + 10 movies per block"
    );
}

#[test]
fn sigkill_at_random_moments_leaves_the_old_or_the_new_generation() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    let (old_titles, new_titles) = (2_000, 30_000);
    assert!(generate(&dir, old_titles, 1, None).status.success());
    let old = set(&dir);
    let t = Instant::now();
    assert!(spawn(&dir, new_titles, 2).wait().unwrap().success());
    let full = t.elapsed();
    let new = set(&dir);
    assert!(new != old);

    let mut rng = Rng(20261127);
    let (mut saw_old, mut saw_new) = (0, 0);
    for i in 0..10 {
        assert!(generate(&dir, old_titles, 1, None).status.success());
        let mut child = spawn(&dir, new_titles, 2);
        if i % 2 == 0 {
            std::thread::sleep(full.mul_f64(rng.below(120) as f64 / 100.0));
        } else {
            wait_for_temp(
                &mut child,
                root.path(),
                Duration::from_secs(30),
                "gemp generate",
            );
        }
        let _ = child.kill();
        child.wait().unwrap();
        let now = set(&dir);
        if now == old {
            saw_old += 1;
        } else if now == new {
            saw_new += 1;
        } else {
            panic!("kill {i}: neither the old nor the new generation");
        }
    }
    assert_eq!(saw_old + saw_new, 10);
    // The next run removes what the killed ones left.
    assert!(generate(&dir, old_titles, 1, None).status.success());
    assert!(
        temps(root.path(), None).is_empty(),
        "{:?}",
        temps(root.path(), None)
    );
}
