//! `--backend auto` remembers "no GPU here" between command-line runs (gpu::probe_memo): the
//! second run takes the host without probing OpenCL, a changed set-up probes again, `gemp
//! devices` forgets, and `GEMP_NO_PROBE_MEMO` turns it off. Results are the same either way.

use std::path::Path;
use std::process::{Command, Output};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `gemp -v match <four actors on the bundled sample> --count` with the cache under `cache`;
/// must succeed.
fn run(cache: &Path, env: &[(&str, &str)]) -> Output {
    let out = run_allowing_failure(cache, &[], env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    out
}

#[test]
fn the_host_choice_is_remembered_until_the_set_up_changes() {
    let cache = tempfile::tempdir().unwrap();
    let memo = cache.path().join("gemp").join("auto-backend");
    let first = run(cache.path(), &[]);
    let log = text(&first.stderr);
    if log.contains("backend auto: OpenCL device") {
        // A machine with a GPU: a device choice is never remembered.
        assert!(!memo.exists(), "a device choice was remembered");
        return;
    }
    assert!(log.contains("backend auto: the host"), "{log}");
    assert!(!log.contains("remembered"), "{log}");
    let written = std::fs::read_to_string(&memo).expect("the host choice is remembered");
    assert!(
        written.starts_with("gemp auto-backend memo 1\nreason: "),
        "{written}"
    );

    let second = run(cache.path(), &[]);
    let log = text(&second.stderr);
    assert!(
        log.contains("backend auto: the host") && log.contains("remembered"),
        "{log}"
    );
    assert_eq!(text(&first.stdout), text(&second.stdout));
    assert!(!text(&first.stdout).trim().is_empty());

    // A variable the OpenCL loaders and drivers read changes the fingerprint: probed again, and
    // the memo rewritten for the new set-up.
    let changed = run(cache.path(), &[("ZE_AFFINITY_MASK", "0")]);
    let log = text(&changed.stderr);
    assert!(!log.contains("remembered"), "{log}");
    assert_eq!(text(&first.stdout), text(&changed.stdout));
    assert!(std::fs::read_to_string(&memo)
        .unwrap()
        .contains("env ZE_AFFINITY_MASK=0"));
    let again = run(cache.path(), &[("ZE_AFFINITY_MASK", "0")]);
    assert!(text(&again.stderr).contains("remembered"));

    // `gemp devices` probes, so it forgets (whether or not it finds a platform).
    let _ = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .arg("devices")
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("GEMP_NO_PROBE_MEMO")
        .output()
        .expect("running gemp devices");
    assert!(!memo.exists(), "gemp devices left the memo");

    // Turned off: nothing read, nothing written.
    let off = run(cache.path(), &[("GEMP_NO_PROBE_MEMO", "1")]);
    assert!(!text(&off.stderr).contains("remembered"));
    assert!(!memo.exists(), "written although turned off");
}

#[test]
fn a_named_device_is_never_answered_from_the_memo() {
    let cache = tempfile::tempdir().unwrap();
    let memo = cache.path().join("gemp").join("auto-backend");
    std::fs::create_dir_all(memo.parent().unwrap()).unwrap();
    // A memo for this very set-up (the child inherits this process's environment).
    let fingerprint = gemp::gpu::probe_memo::fingerprint();
    std::fs::write(
        &memo,
        format!("gemp auto-backend memo 1\nreason: planted\n{fingerprint}"),
    )
    .unwrap();
    let plain = run(cache.path(), &[]);
    let log = text(&plain.stderr);
    assert!(
        log.contains("planted") && log.contains("remembered"),
        "{log}"
    );
    for env in [[("GEMP_DEVICE", "0")], [("GEMP_DEVICE", " 0 ")]] {
        let named = run_allowing_failure(cache.path(), &[], &env);
        assert!(
            !text(&named.stderr).contains("planted"),
            "{}",
            text(&named.stderr)
        );
    }
    let named = run_allowing_failure(cache.path(), &["--device", "99"], &[]);
    assert!(
        !text(&named.stderr).contains("planted"),
        "{}",
        text(&named.stderr)
    );
}

/// [`run`] with extra arguments, whatever its exit status.
fn run_allowing_failure(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let query =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/queries/four-actors-jack.cypher");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gemp"));
    cmd.args(["-v", "match", "--count"])
        .args(args)
        .arg(&query)
        .env("XDG_CACHE_HOME", cache)
        .env_remove("GEMP_DEVICE")
        .env_remove("GEMP_NO_PROBE_MEMO");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("running gemp")
}
