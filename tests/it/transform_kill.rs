//! `gemp transform` killed with SIGKILL at random moments: the output snapshot (`-o`) and the
//! input of `--in-place` always hold either the old file, intact (it opens and its checksums
//! verify), or the complete transformed model — never a torn one; the next run removes the
//! temporary files the killed processes left. Linux only (`/proc` tells which process is gone).
#![cfg(target_os = "linux")]

use crate::common;
use common::{gemp, temps, wait_for_temp, Rng};

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gemp::api::{Graph, RunOptions};

/// Nodes of the generated input model (big enough that a debug build takes a while on it).
const NODES: usize = 60_000;
/// Nodes of the small snapshot that stands at the output before each run (the "old" file).
const OLD_NODES: usize = 50;
/// The rule: every `L0` node's value moves up by 1000 (values are generated in 0..1000).
const RULE: &str = "MATCH (n:L0) SET n.value = n.value + 1000";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `gemp generate graph` into `out`.
fn generate(out: &Path, nodes: usize) {
    let edges = (nodes * 4).to_string();
    let nodes = nodes.to_string();
    let args = [
        "-q",
        "generate",
        "graph",
        "--nodes",
        &nodes,
        "--edges",
        &edges,
        "-o",
        s(out),
        "--force",
    ];
    let out = gemp(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

fn count(g: &Graph, q: &str) -> u64 {
    let options = RunOptions::host().count_only();
    let query = g.query_with(q, &options).unwrap();
    g.execute(&query, &options).unwrap().count()
}

/// What a snapshot holds after a run: `Old` (the untransformed file) or `New` (the complete
/// transformed model). Panics on anything else, a torn or corrupt file included.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum State {
    Old,
    New,
}

fn state(snap: &Path, old_nodes: usize) -> State {
    // `Graph::open` validates the structure and verifies every section's checksum.
    let g = Graph::open(snap)
        .unwrap_or_else(|e| panic!("{} is not a complete snapshot: {e}", snap.display()));
    let nodes = g.model().node_count();
    let l0 = count(&g, "MATCH (n:L0) RETURN n");
    let moved = count(&g, "MATCH (n:L0) WHERE n.value >= 1000 RETURN n");
    match nodes {
        n if n == NODES && moved == l0 && l0 > 0 => State::New,
        n if n == old_nodes && moved == 0 => State::Old,
        n => panic!(
            "{}: {n} nodes, {moved} of {l0} L0 values moved: neither the old nor the new model",
            snap.display()
        ),
    }
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("running gemp")
}

/// Kills `child` at round `i`'s moment: even rounds anywhere up to 1.6 times a run of `full`, odd rounds
/// while its temporary file exists.
fn kill_at(mut child: Child, i: usize, full: Duration, rng: &mut Rng, dir: &Path) -> u32 {
    if i % 2 == 0 {
        std::thread::sleep(full.mul_f64(rng.below(160) as f64 / 100.0));
    } else {
        wait_for_temp(&mut child, dir, Duration::from_secs(60), "gemp transform");
    }
    let _ = child.kill();
    child.wait().unwrap();
    child.id()
}

#[test]
fn sigkill_during_transform_leaves_the_old_or_the_new_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.gemp");
    let x = dir.path().join("x.gemp");
    let rules = dir.path().join("rule.cypher");
    std::fs::write(&rules, RULE).unwrap();
    generate(&input, NODES);
    let args = [
        "-q",
        "transform",
        "--model",
        s(&input),
        s(&rules),
        "-o",
        s(&x),
        "--force",
    ];
    generate(&x, OLD_NODES);
    let t = Instant::now();
    assert!(spawn(&args).wait().unwrap().success());
    let full = t.elapsed();
    assert_eq!(state(&x, OLD_NODES), State::New);
    assert_eq!(state(&input, NODES), State::Old, "the input is untouched");

    let mut rng = Rng(20261126);
    let (mut left_behind, mut old, mut new) = (0, 0, 0);
    for i in 0..12 {
        generate(&x, OLD_NODES);
        let pid = kill_at(spawn(&args), i, full, &mut rng, dir.path());
        match state(&x, OLD_NODES) {
            State::Old => old += 1,
            State::New => new += 1,
        }
        left_behind += temps(dir.path(), Some(pid)).len();
    }
    eprintln!(
        "transform -o, run {full:?}: after SIGKILL {old} old, {new} new snapshots, \
         {left_behind} temporary files left"
    );
    assert!(
        left_behind > 0,
        "no SIGKILL landed while the temporary file existed"
    );
    assert_eq!(state(&input, NODES), State::Old, "the input is untouched");
    // The next run removes what the killed processes left.
    let out = gemp(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(state(&x, OLD_NODES), State::New);
    assert_eq!(temps(dir.path(), None), Vec::<PathBuf>::new());
}

#[test]
fn sigkill_during_in_place_transform_leaves_the_old_or_the_new_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.gemp");
    let rules = dir.path().join("rule.cypher");
    std::fs::write(&rules, RULE).unwrap();
    let args = ["-q", "transform", "--model", s(&x), s(&rules), "--in-place"];
    generate(&x, NODES);
    let t = Instant::now();
    assert!(spawn(&args).wait().unwrap().success());
    let full = t.elapsed();
    assert_eq!(state(&x, NODES), State::New);

    let mut rng = Rng(20261127);
    let mut left_behind = 0;
    for i in 0..10 {
        generate(&x, NODES);
        let pid = kill_at(spawn(&args), i, full, &mut rng, dir.path());
        // The old file here is the untransformed input (NODES nodes, no value moved).
        state(&x, NODES);
        left_behind += temps(dir.path(), Some(pid)).len();
    }
    assert!(
        left_behind > 0,
        "no SIGKILL landed while the temporary file existed"
    );
    let out = gemp(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(state(&x, NODES), State::New);
    assert_eq!(temps(dir.path(), None), Vec::<PathBuf>::new());
}
