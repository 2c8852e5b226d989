//! `--backend auto`'s "no GPU here" remembered between command-line runs.
//!
//! Deciding `auto` means asking OpenCL for its platforms, which loads and initialises every
//! installed driver: on a machine whose only OpenCL device is a CPU (PoCL) that takes 25–30 ms per
//! process (the first one after boot much longer), more than many queries take. When the answer
//! is "run on the host", the command line writes it down with a fingerprint of what OpenCL would
//! find: the ICD vendor files (names, sizes, modification times, contents), the environment
//! variables the ICD loaders and drivers read, the GPU device nodes (`/dev/nvidia*`,
//! `/dev/dri/*`, `/dev/kfd`, `/dev/accel/*`) and gemp's version. A later run whose fingerprint is
//! the same takes the host without loading any driver; any change (a driver installed or removed,
//! a GPU appearing, another `OCL_ICD_VENDORS`) probes again. A "use this device" answer is never
//! remembered: the device has to be opened anyway.
//!
//! Only the command line turns this on ([`enable`]); the library always probes. The memo lives in
//! `$XDG_CACHE_HOME/gemp/auto-backend` (else `~/.cache/gemp/auto-backend`), is written atomically
//! ([`crate::util::safe_write`]), and is ignored when unreadable or malformed. `gemp devices` deletes
//! it ([`forget`]); `GEMP_NO_PROBE_MEMO=1` turns it off.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::UNIX_EPOCH;

/// Environment variable that turns the memo off (any non-empty value).
pub const NO_PROBE_MEMO_ENV: &str = "GEMP_NO_PROBE_MEMO";

/// First line of a memo file (changed when the format changes).
const HEADER: &str = "gemp auto-backend memo 1";

/// Environment variables read by the ICD loaders and the common drivers: a change in any of them
/// can change what OpenCL finds.
const ENV_VARS: [&str; 9] = [
    "OCL_ICD_VENDORS",
    "OCL_ICD_FILENAMES",
    "OPENCL_VENDOR_PATH",
    "POCL_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ZE_AFFINITY_MASK",
    "LD_LIBRARY_PATH",
];

/// Where device nodes of GPUs and accelerators appear, and the name prefixes that count.
const DEVICE_NODES: [(&str, &[&str]); 3] = [
    ("/dev", &["nvidia", "kfd", "dri"]),
    ("/dev/dri", &["card", "render"]),
    ("/dev/accel", &["accel"]),
];

/// The memo file of this process, once [`enable`]d (`None` inside: turned off).
static MEMO: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Turns the memo on for this process at its default place (the command line calls this once at
/// start); does nothing when `GEMP_NO_PROBE_MEMO` is set or no cache directory is known.
pub fn enable() {
    let off = std::env::var_os(NO_PROBE_MEMO_ENV).is_some_and(|v| !v.is_empty());
    let _ = MEMO.set(if off { None } else { default_path() });
}

/// The memo file in use, if the memo is on.
pub fn path() -> Option<&'static Path> {
    MEMO.get().and_then(|p| p.as_deref())
}

/// Deletes the memo (if on and present), so that the next `auto` run probes again.
pub fn forget() {
    if let Some(p) = path() {
        match std::fs::remove_file(p) {
            Ok(()) => log::info!("removed the remembered auto-backend choice {}", p.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => log::warn!("could not remove {}: {e}", p.display()),
        }
    }
}

/// `$XDG_CACHE_HOME/gemp/auto-backend`, else `$HOME/.cache/gemp/auto-backend`.
fn default_path() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".cache"))
        })?;
    Some(base.join("gemp").join("auto-backend"))
}

/// The fingerprint of what OpenCL would find on this machine now (see the module docs).
pub fn fingerprint() -> String {
    let vendors = std::env::var_os("OCL_ICD_VENDORS")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/etc/OpenCL/vendors"), PathBuf::from);
    let env: Vec<(&str, String)> = ENV_VARS
        .iter()
        .map(|&k| (k, std::env::var(k).unwrap_or_default()))
        .collect();
    let nodes: Vec<(PathBuf, &[&str])> = DEVICE_NODES
        .iter()
        .map(|&(dir, prefixes)| (PathBuf::from(dir), prefixes))
        .collect();
    fingerprint_of(&vendors, &env, &nodes)
}

/// [`fingerprint`] from explicit inputs: the ICD vendor directory (or single `.icd` file), the
/// environment, and the device-node directories with the name prefixes that count.
fn fingerprint_of(vendors: &Path, env: &[(&str, String)], nodes: &[(PathBuf, &[&str])]) -> String {
    let mut out = format!("version {}\n", env!("CARGO_PKG_VERSION"));
    for (k, v) in env {
        out.push_str(&format!("env {k}={v}\n"));
    }
    let icd_files: Vec<PathBuf> = if vendors.is_dir() {
        sorted_entries(vendors)
    } else {
        vec![vendors.to_path_buf()]
    };
    for f in icd_files {
        let Ok(meta) = std::fs::metadata(&f) else {
            out.push_str(&format!("icd {} absent\n", f.display()));
            continue;
        };
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let content = if meta.len() <= 4096 {
            std::fs::read_to_string(&f).unwrap_or_default()
        } else {
            String::new()
        };
        out.push_str(&format!(
            "icd {} {} {modified} {}\n",
            f.display(),
            meta.len(),
            content.trim().replace('\n', " ")
        ));
    }
    for (dir, prefixes) in nodes {
        for p in sorted_entries(dir) {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| prefixes.iter().any(|pre| n.starts_with(pre))) {
                out.push_str(&format!("node {}\n", p.display()));
            }
        }
    }
    out
}

/// The entries of `dir`, sorted (none when it cannot be read).
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The remembered reason for running on the host, when the memo is on and was written for
/// `fingerprint`.
pub fn remembered_host(fingerprint: &str) -> Option<String> {
    read_memo(path()?, fingerprint)
}

/// Remembers that `auto` chose the host for `reason` under `fingerprint` (when the memo is on);
/// a failure to write only costs the next run a probe, so it is logged, not returned.
pub fn remember_host(fingerprint: &str, reason: &str) {
    if let Some(p) = path() {
        if let Err(e) = write_memo(p, fingerprint, reason) {
            log::debug!(
                "could not remember the auto-backend choice in {}: {e}",
                p.display()
            );
        }
    }
}

fn read_memo(path: &Path, fingerprint: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let rest = text.strip_prefix(HEADER)?.strip_prefix('\n')?;
    let (reason_line, recorded) = rest.split_once('\n')?;
    let reason = reason_line.strip_prefix("reason: ")?;
    (recorded == fingerprint).then(|| reason.to_string())
}

fn write_memo(path: &Path, fingerprint: &str, reason: &str) -> crate::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))?;
    }
    let reason = reason.replace('\n', " ");
    let text = format!("{HEADER}\nreason: {reason}\n{fingerprint}");
    crate::util::safe_write::write(
        path,
        text.as_bytes(),
        &crate::util::safe_write::WriteOptions::REPLACE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Vec<(&'static str, String)> {
        vec![
            ("OCL_ICD_VENDORS", String::new()),
            ("POCL_DEVICES", "cpu".into()),
        ]
    }

    /// The fingerprint is stable while nothing changes, and changes when an ICD file appears or
    /// changes, when a GPU device node appears, or when the environment changes.
    #[test]
    fn the_fingerprint_follows_drivers_devices_and_environment() {
        let root = tempfile::tempdir().unwrap();
        let vendors = root.path().join("vendors");
        let dev = root.path().join("dev");
        std::fs::create_dir_all(&vendors).unwrap();
        std::fs::create_dir_all(&dev).unwrap();
        std::fs::write(vendors.join("pocl.icd"), "libpocl.so.2\n").unwrap();
        std::fs::write(dev.join("null"), "").unwrap();
        let nodes: Vec<(PathBuf, &[&str])> = vec![(dev.clone(), &["nvidia", "kfd"])];
        let first = fingerprint_of(&vendors, &env(), &nodes);
        assert_eq!(first, fingerprint_of(&vendors, &env(), &nodes));
        assert!(first.contains("libpocl.so.2"), "{first}");

        // An unrelated device node changes nothing; a GPU's does.
        std::fs::write(dev.join("tty0"), "").unwrap();
        assert_eq!(first, fingerprint_of(&vendors, &env(), &nodes));
        std::fs::write(dev.join("nvidia0"), "").unwrap();
        let with_gpu = fingerprint_of(&vendors, &env(), &nodes);
        assert_ne!(first, with_gpu);

        // A new vendor file, and a vendor file pointing elsewhere.
        std::fs::write(vendors.join("nvidia.icd"), "libnvidia-opencl.so.1\n").unwrap();
        let two_vendors = fingerprint_of(&vendors, &env(), &nodes);
        assert_ne!(with_gpu, two_vendors);
        std::fs::write(
            vendors.join("nvidia.icd"),
            "/opt/other/libnvidia-opencl.so.1\n",
        )
        .unwrap();
        assert_ne!(two_vendors, fingerprint_of(&vendors, &env(), &nodes));

        // The environment the loaders read.
        let mut other = env();
        other[1].1 = "cpu,cuda".into();
        assert_ne!(
            fingerprint_of(&vendors, &env(), &nodes),
            fingerprint_of(&vendors, &other, &nodes)
        );
        // A single .icd file named instead of a directory, present or not.
        let single = fingerprint_of(&vendors.join("pocl.icd"), &env(), &nodes);
        assert!(single.contains("libpocl.so.2") && !single.contains("nvidia.icd"));
        let absent = fingerprint_of(&root.path().join("none.icd"), &env(), &nodes);
        assert!(absent.contains("absent"), "{absent}");
    }

    /// A memo is read back only for the fingerprint it was written for; damaged or foreign files
    /// read as no memo.
    #[test]
    fn a_memo_answers_only_for_its_own_fingerprint() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("cache").join("gemp").join("auto-backend");
        assert_eq!(read_memo(&path, "fp\n"), None);
        write_memo(&path, "line one\nline two\n", "no GPU\nhere").unwrap();
        assert_eq!(
            read_memo(&path, "line one\nline two\n").as_deref(),
            Some("no GPU here")
        );
        assert_eq!(read_memo(&path, "line one\nline 2\n"), None);
        assert_eq!(read_memo(&path, "line one\n"), None);
        for damaged in [
            "",
            "gemp auto-backend memo 0\nreason: x\nfp\n",
            HEADER,
            "reason: x\n",
        ] {
            std::fs::write(&path, damaged).unwrap();
            assert_eq!(read_memo(&path, "fp\n"), None, "{damaged:?}");
        }
    }
}
