//! Safe writes: every file gemp writes goes through this module, so that a write either leaves
//! the complete new file at its place or leaves what was there before untouched — never a
//! truncated file, a replaced device node, or a forgotten temporary file.
//!
//! How a write works ([`SafeFile`]):
//!
//! 1. The target is checked ([`check`]): only a missing path or an existing **regular file** may
//!    be written. A directory, character or block device (`/dev/null`, `/dev/full`), FIFO or
//!    socket is refused with an [`Error::Refused`] naming the path and what it is. An existing
//!    regular file is replaced only with [`WriteOptions::force`] (the CLI's `--force`, as `cp -f`
//!    users expect); without it the error says "exists; pass --force to replace it" (and notes
//!    when the file is read-only).
//! 2. **Symbolic links are written through**, as `cp` and the shell's `>` do: the link is
//!    resolved, the rules above apply to the file it points to, and that file is replaced; the
//!    link itself stays a link. A link to a device, FIFO or directory is refused like the thing it
//!    points to, and a dangling link is refused.
//! 3. The data is written to a temporary file in the target's directory, named
//!    `.NAME.PID.RANDOM.gemp-tmp` (created exclusively, so two writers never share one), then
//!    flushed and `fsync`ed, renamed over the target (without `force`, linked into place so that a
//!    file created meanwhile is never replaced), and the directory is `fsync`ed.
//! 4. The temporary file is removed on every error and when the [`SafeFile`] is dropped without
//!    [`SafeFile::commit`]; on SIGINT, SIGTERM or SIGHUP once [`install_signal_cleanup`] ran (the
//!    `gemp` binary does at start): the handler removes every live temporary file and exits with
//!    `128 + signal` (130, 143, 129).
//! 5. After a SIGKILL (or a crash) nothing can clean up; the next write to the same target removes
//!    that target's temporary files whose owning process is gone ([`remove_stale_temps`]; on Linux
//!    `/proc/PID` tells, elsewhere stale files are left alone).
//!
//! A directory written as a whole (a Neo4j CSV export) goes through [`super::safe_dir`], which
//! uses the same temporary names, registry and signal cleanup for its temporary directory.
//!
//! The library's convenience writers (e.g. [`crate::model::snapshot::write`]) replace an existing
//! regular file, as `std::fs::write` does; their `_with` variants take [`WriteOptions`]. The CLI
//! always passes its `--force` flag.

use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, Result};

/// Suffix of every temporary file written by this module.
pub const TEMP_SUFFIX: &str = ".gemp-tmp";

/// How a write treats an existing file at the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Replace an existing regular file (also a read-only one). Without it an existing file is an
    /// [`Error::Refused`]. Never allows replacing anything that is not a regular file.
    pub force: bool,
    /// Skip the `fsync`s of [`SafeFile::commit`] (the file's and its directory's): the file is
    /// still written whole and renamed into place (a killed process leaves the old file or the
    /// new one), but it is made durable against a power loss only by a later
    /// [`sync_filesystem`] — for writers of many small files (`gemp batch`), one sync at the end
    /// instead of two per file.
    pub defer_sync: bool,
    /// The caller removed the directory's stale temporary files already
    /// ([`remove_stale_temps_in`]): [`SafeFile::create`] does not scan the directory again — for
    /// writers of many files in one directory (`gemp batch`), whose scan per file made a batch's
    /// housekeeping quadratic in its number of queries.
    pub swept: bool,
}

impl WriteOptions {
    /// Options with the given `force`.
    pub const fn force(force: bool) -> Self {
        WriteOptions {
            force,
            defer_sync: false,
            swept: false,
        }
    }

    /// These options with the `fsync`s deferred to a [`sync_filesystem`] call (see
    /// [`WriteOptions::defer_sync`]).
    pub const fn deferring_sync(self) -> Self {
        WriteOptions {
            defer_sync: true,
            ..self
        }
    }

    /// These options for a directory swept already (see [`WriteOptions::swept`]).
    pub const fn swept(self) -> Self {
        WriteOptions {
            swept: true,
            ..self
        }
    }

    /// Replace an existing regular file (what the library's plain writers use).
    pub const REPLACE: WriteOptions = WriteOptions::force(true);

    /// Refuse to replace an existing file (what the CLI does without `--force`).
    pub const KEEP: WriteOptions = WriteOptions::force(false);
}

/// Makes every file written under `dir` durable: one `syncfs` of its file system on Linux (the
/// end of writes made with [`WriteOptions::defer_sync`]); elsewhere the directory is synced.
pub fn sync_filesystem(dir: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let d = File::open(dir).map_err(|e| Error::io(dir, e))?;
        // SAFETY: `d` is an open descriptor for the duration of the call.
        if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
            return Err(Error::io(dir, io::Error::last_os_error()));
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        sync_dir(dir).map_err(|e| Error::io(dir, e))
    }
}

/// Temporary files of unfinished writes in this process (removed by the signal handler).
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

pub(crate) fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

fn refused(path: &Path, message: impl Into<String>) -> Error {
    Error::Refused {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// What a non-regular file is, in words.
fn kind_of(meta: &Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_dir() {
        return "a directory";
    }
    if ft.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Resolves `path` (following a symbolic link) to the file a write replaces, with its metadata
/// when it exists; refuses what may not be written.
fn resolve(path: &Path, options: &WriteOptions) -> Result<(PathBuf, Option<Metadata>)> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((path.to_path_buf(), None)),
        Err(e) => return Err(Error::io(path, e)),
    };
    let (real, meta, via) = if meta.file_type().is_symlink() {
        match std::fs::canonicalize(path) {
            Ok(real) => {
                let m = std::fs::metadata(&real).map_err(|e| Error::io(&real, e))?;
                let via = format!("is a symbolic link to {}, which is ", real.display());
                (real, m, via)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(refused(
                    path,
                    "is a dangling symbolic link; not written through",
                ))
            }
            Err(e) => return Err(Error::io(path, e)),
        }
    } else {
        (path.to_path_buf(), meta, "is ".to_owned())
    };
    if !meta.is_file() {
        return Err(refused(
            path,
            format!(
                "{via}{}; only a regular file can be replaced",
                kind_of(&meta)
            ),
        ));
    }
    if !options.force {
        let ro = if meta.permissions().readonly() {
            " and is read-only"
        } else {
            ""
        };
        let what = if via == "is " {
            format!("exists{ro}")
        } else {
            format!("{via}an existing file{ro}")
        };
        return Err(refused(path, format!("{what}; pass --force to replace it")));
    }
    Ok((real, Some(meta)))
}

/// Checks, without writing anything, that a write to `path` with `options` would be allowed (so
/// a long computation can fail before it starts). The same checks run again at
/// [`SafeFile::create`] and just before the final rename.
pub fn check(path: &Path, options: &WriteOptions) -> Result<()> {
    resolve(path, options).map(|_| ())
}

pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The `NAME` part of the temporary names of `target` (shortened so the whole name stays within
/// the usual 255-byte limit).
pub(crate) fn temp_stem(target: &Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut end = name.len().min(200);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_owned()
}

pub(crate) fn random_u64() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// The owning pid of a temporary file name of `stem`'s target, if `name` is one.
fn temp_owner(name: &str, stem: &str) -> Option<u32> {
    temp_owner_with(name, stem, TEMP_SUFFIX)
}

/// The owning pid of a name `.STEM.PID.RANDOM<suffix>` (what this module and
/// [`super::safe_dir`] name their temporary files and directories), if `name` is one.
pub(crate) fn temp_owner_with(name: &str, stem: &str, suffix: &str) -> Option<u32> {
    let mid = name
        .strip_prefix('.')?
        .strip_prefix(stem)?
        .strip_prefix('.')?
        .strip_suffix(suffix)?;
    let (pid, random) = mid.split_once('.')?;
    let hex = random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit());
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    (hex && digits).then(|| pid.parse().ok()).flatten()
}

/// Whether process `pid` is alive (Linux: `/proc/PID` exists; elsewhere assumed alive).
pub(crate) fn pid_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// Removes the temporary files that writes to `target` left behind in its directory when their
/// process died without cleaning up (SIGKILL, crash, power loss); files of live processes are
/// kept. Returns how many were removed. Errors (an unreadable directory) are ignored: this is
/// housekeeping.
pub fn remove_stale_temps(target: &Path) -> usize {
    sweep_stale_temps(&parent_dir(target), Some(&temp_stem(target)))
}

/// Removes the stale temporary files of *every* target in `dir` (see [`remove_stale_temps`]):
/// one scan before many writes into `dir` made with [`WriteOptions::swept`]. Returns how many
/// were removed.
pub fn remove_stale_temps_in(dir: &Path) -> usize {
    sweep_stale_temps(dir, None)
}

/// The target stem of a temporary file name `.STEM.PID.RANDOM<suffix>`: what precedes its last
/// two dots.
fn temp_stem_of(name: &str) -> Option<&str> {
    let mid = name.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let mut parts = mid.rsplitn(3, '.');
    let (_, _, stem) = (parts.next()?, parts.next()?, parts.next()?);
    Some(stem)
}

/// Removes the temporary files in `dir` of the target stem `only` (of every target when `None`)
/// whose owning process is gone.
fn sweep_stale_temps(dir: &Path, only: Option<&str>) -> usize {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = only.or_else(|| temp_stem_of(&name)) else {
            continue;
        };
        let Some(pid) = temp_owner(&name, stem) else {
            continue;
        };
        // A directory of that name is a directory write's (`super::safe_dir` cleans those).
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if pid == me || pid_alive(pid) {
            continue;
        }
        let path = entry.path();
        match std::fs::remove_file(&path) {
            Ok(()) => {
                log::info!(
                    "removed {} (left by process {pid}, which is gone)",
                    path.display()
                );
                removed += 1;
            }
            Err(e) => log::debug!("could not remove {}: {e}", path.display()),
        }
    }
    removed
}

/// A file being written safely: data goes to a temporary file beside the target, which
/// [`SafeFile::commit`] moves into place; dropping it uncommitted removes the temporary file.
#[derive(Debug)]
pub struct SafeFile {
    /// The path as the caller named it (for messages).
    shown: PathBuf,
    /// The file replaced (the link's target for a symbolic link).
    target: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    options: WriteOptions,
    committed: bool,
}

impl SafeFile {
    /// Checks `path` (see the module docs), removes stale temporary files of it, and creates a new
    /// temporary file for it.
    pub fn create(path: &Path, options: &WriteOptions) -> Result<SafeFile> {
        let (target, _) = resolve(path, options)?;
        if !options.swept {
            remove_stale_temps(&target);
        }
        let dir = parent_dir(&target);
        let stem = temp_stem(&target);
        let pid = std::process::id();
        let mut attempt = 0;
        loop {
            let tmp = dir.join(format!(".{stem}.{pid}.{:016x}{TEMP_SUFFIX}", random_u64()));
            let mut guard = live();
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(file) => {
                    guard.push(tmp.clone());
                    return Ok(SafeFile {
                        shown: path.to_path_buf(),
                        target,
                        tmp,
                        file: Some(file),
                        options: *options,
                        committed: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 8 => attempt += 1,
                Err(e) => {
                    return Err(Error::io(
                        path,
                        io::Error::new(
                            e.kind(),
                            format!("cannot create a temporary file in {}: {e}", dir.display()),
                        ),
                    ))
                }
            }
        }
    }

    /// The temporary file the data goes to (for writers that open it themselves, e.g. with
    /// `O_DIRECT`; it exists and is empty after [`SafeFile::create`]).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// The file that [`SafeFile::commit`] replaces (a symbolic link's target for a link).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The open temporary file.
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("SafeFile holds its file until commit")
    }

    /// Flushes and syncs the temporary file, moves it over the target (checking once more that the
    /// target may be replaced) and syncs the directory. On an error the temporary file is removed
    /// and the target is untouched.
    pub fn commit(mut self) -> Result<()> {
        let shown = self.shown.clone();
        let io_err = |e| Error::io(&shown, e);
        if let Some(mut file) = self.file.take() {
            file.flush().map_err(io_err)?;
            if !self.options.defer_sync {
                file.sync_all().map_err(io_err)?;
            }
        }
        {
            // Held across the move so a signal handler sees either the temporary file or none.
            let mut guard = live();
            // Something may have appeared at the target since `create`.
            let (target, _) = resolve(&self.shown, &self.options)?;
            if target != self.target {
                return Err(refused(
                    &self.shown,
                    format!("now resolves to {}; not replaced", target.display()),
                ));
            }
            self.place().map_err(io_err)?;
            guard.retain(|p| p != &self.tmp);
            self.committed = true;
        }
        if self.options.defer_sync {
            return Ok(());
        }
        sync_dir(&parent_dir(&self.target)).map_err(io_err)
    }

    /// Moves the temporary file to the target: a rename with `force`; otherwise a hard link,
    /// which fails instead of replacing a file that appeared meanwhile (a rename where the file
    /// system has no hard links).
    fn place(&self) -> io::Result<()> {
        if !self.options.force {
            match std::fs::hard_link(&self.tmp, &self.target) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&self.tmp);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(io::Error::new(
                        e.kind(),
                        "was created while gemp wrote it; pass --force to replace it",
                    ))
                }
                Err(e) => log::debug!(
                    "{}: no hard link ({e}); renaming instead",
                    self.tmp.display()
                ),
            }
        }
        std::fs::rename(&self.tmp, &self.target)
    }
}

impl Write for SafeFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Drop for SafeFile {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        self.file = None;
        let mut guard = live();
        match std::fs::remove_file(&self.tmp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => log::warn!("could not remove {}: {e}", self.tmp.display()),
        }
        guard.retain(|p| p != &self.tmp);
    }
}

/// Syncs a directory so a rename in it survives a crash (file systems that cannot sync a
/// directory are skipped).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        match File::open(dir).and_then(|d| d.sync_all()) {
            Ok(()) => Ok(()),
            Err(e)
                if e.kind() == io::ErrorKind::InvalidInput
                    || e.kind() == io::ErrorKind::Unsupported =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Writes `bytes` to `path` safely (see the module docs).
pub fn write(path: &Path, bytes: &[u8], options: &WriteOptions) -> Result<()> {
    let mut f = SafeFile::create(path, options)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// The paths of the temporary files this process is writing now (for tests and diagnostics).
pub fn live_temp_files() -> Vec<PathBuf> {
    live().clone()
}

/// Removes the temporary files of unfinished writes, for a process about to end at once (a
/// refused allocation, see [`crate::util::memory::exit_on_failed_allocation`]); skipped when
/// another thread holds the list. Allocates nothing for paths of a few hundred bytes.
pub fn remove_live_temps_at_exit() {
    if let Ok(guard) = LIVE.try_lock() {
        for p in guard.iter() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Installs (once per process) a handler for SIGINT, SIGTERM and SIGHUP that removes the
/// temporary files of unfinished writes and exits with `128 + signal` (130, 143, 129). Meant for
/// binaries: a library does not take over signals by itself. A no-op where signals do not exist.
pub fn install_signal_cleanup() -> Result<()> {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        static INSTALLED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
        if INSTALLED.get().is_some() {
            return Ok(());
        }
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            .map_err(|e| Error::io("signal handler", e))?;
        std::thread::Builder::new()
            .name("gemp-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    // Keep the lock until exit: no write can commit or start meanwhile.
                    let guard = live();
                    for p in guard.iter() {
                        // A temporary directory of `super::safe_dir` goes with its contents.
                        if std::fs::remove_file(p).is_err() {
                            let _ = std::fs::remove_dir_all(p);
                        }
                    }
                    std::process::exit(128 + sig);
                }
            })
            .map_err(|e| Error::io("signal handler", e))?;
        let _ = INSTALLED.set(());
    }
    Ok(())
}

/// `path` with `suffix` appended to its file name (`a/b.gemp` + `.gpsense` = `a/b.gemp.gpsense`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temps_in(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(TEMP_SUFFIX))
            .collect()
    }

    #[test]
    fn writes_a_new_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        write(&p, b"hello", &WriteOptions::KEEP).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"hello");
        assert!(temps_in(dir.path()).is_empty());
        assert!(live_temp_files().iter().all(|t| !t.starts_with(dir.path())));
    }

    #[test]
    fn existing_file_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        std::fs::write(&p, b"old").unwrap();
        let err = write(&p, b"new", &WriteOptions::KEEP).unwrap_err();
        assert!(matches!(err, Error::Refused { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("exists; pass --force to replace it"),
            "{err}"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        write(&p, b"new", &WriteOptions::REPLACE).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    fn read_only_file_is_named_and_replaced_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ro.txt");
        std::fs::write(&p, b"old").unwrap();
        let mut perm = std::fs::metadata(&p).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(&p, perm).unwrap();
        let err = write(&p, b"new", &WriteOptions::KEEP).unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        write(&p, b"new", &WriteOptions::REPLACE).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }

    #[test]
    fn directory_is_refused_even_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let err = write(&sub, b"x", &WriteOptions::REPLACE).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        assert!(sub.is_dir());
        assert!(temps_in(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn device_is_refused_even_with_force() {
        let err = check(Path::new("/dev/null"), &WriteOptions::REPLACE).unwrap_err();
        assert!(
            err.to_string().contains("/dev/null: is a character device"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through_and_dangling_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = write(&link, b"new", &WriteOptions::KEEP).unwrap_err();
        assert!(err.to_string().contains("pass --force"), "{err}");
        write(&link, b"new", &WriteOptions::REPLACE).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");

        let dangling = dir.path().join("dangling.txt");
        std::os::unix::fs::symlink(dir.path().join("missing"), &dangling).unwrap();
        let err = write(&dangling, b"x", &WriteOptions::REPLACE).unwrap_err();
        assert!(err.to_string().contains("dangling"), "{err}");

        let to_dev = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &to_dev).unwrap();
        let err = write(&to_dev, b"x", &WriteOptions::REPLACE).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    fn dropping_uncommitted_removes_the_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        let mut f = SafeFile::create(&p, &WriteOptions::KEEP).unwrap();
        f.write_all(b"partial").unwrap();
        let tmp = f.temp_path().to_path_buf();
        assert!(tmp.exists());
        assert!(live_temp_files().contains(&tmp));
        let name = tmp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".out.bin."), "{name}");
        assert!(
            name.contains(&format!(".{}.", std::process::id())),
            "{name}"
        );
        drop(f);
        assert!(!tmp.exists());
        assert!(!p.exists());
        assert!(!live_temp_files().contains(&tmp));
    }

    #[test]
    fn a_file_created_meanwhile_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("race.txt");
        let mut f = SafeFile::create(&p, &WriteOptions::KEEP).unwrap();
        f.write_all(b"mine").unwrap();
        std::fs::write(&p, b"theirs").unwrap();
        assert!(f.commit().is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"theirs");
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    fn temp_names_parse_back_to_their_owner() {
        assert_eq!(
            temp_owner(".q.jsonl.1234.00000000deadbeef.gemp-tmp", "q.jsonl"),
            Some(1234)
        );
        assert_eq!(
            temp_owner(".q.jsonl.1234.00000000deadbeef.gemp-tmp", "q"),
            None
        );
        assert_eq!(temp_owner(".q.x.gemp-tmp", "q"), None);
        assert_eq!(temp_owner("q.1.00000000deadbeef.gemp-tmp", "q"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stale_temps_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.gemp");
        // A pid above the kernel's maximum (4194304) is never alive.
        let dead = dir
            .path()
            .join(".m.gemp.99999999.0123456789abcdef.gemp-tmp");
        let alive = dir.path().join(format!(
            ".m.gemp.{}.0123456789abcdef.gemp-tmp",
            std::process::id()
        ));
        let other = dir
            .path()
            .join(".n.gemp.99999999.0123456789abcdef.gemp-tmp");
        for f in [&dead, &alive, &other] {
            std::fs::write(f, b"x").unwrap();
        }
        write(&p, b"new", &WriteOptions::KEEP).unwrap();
        assert!(!dead.exists());
        assert!(alive.exists(), "our own pid's temp file is live");
        assert!(other.exists(), "another target's temp file is not ours");
    }

    /// A directory-wide sweep removes every dead process's temp file, whatever its target, and
    /// keeps live ones and names that only look alike; a swept write then does not scan again.
    #[cfg(target_os = "linux")]
    #[test]
    fn directory_sweep_removes_every_targets_stale_temps_once() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead_m = d.join(".m.gemp.99999999.0123456789abcdef.gemp-tmp");
        let dead_dotted = d.join(".a.b.count.99999999.0123456789abcdef.gemp-tmp");
        let alive = d.join(format!(
            ".m.gemp.{}.0123456789abcdef.gemp-tmp",
            std::process::id()
        ));
        let lookalike = d.join(".m.gemp.99999999.xyz.gemp-tmp");
        for f in [&dead_m, &dead_dotted, &alive, &lookalike] {
            std::fs::write(f, b"x").unwrap();
        }
        assert_eq!(remove_stale_temps_in(d), 2);
        assert!(!dead_m.exists() && !dead_dotted.exists());
        assert!(alive.exists() && lookalike.exists());
        // A stale temp appearing after the sweep is left to the next sweep by swept writes.
        let later = d.join(".q.gemp.99999999.0123456789abcdef.gemp-tmp");
        std::fs::write(&later, b"x").unwrap();
        write(&d.join("q.gemp"), b"new", &WriteOptions::KEEP.swept()).unwrap();
        assert!(later.exists());
        assert_eq!(std::fs::read(d.join("q.gemp")).unwrap(), b"new");
    }

    #[test]
    fn missing_directory_is_an_io_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/out.txt");
        let err = write(&p, b"x", &WriteOptions::KEEP).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err:?}");
        assert!(err.to_string().contains("out.txt"), "{err}");
    }
}
