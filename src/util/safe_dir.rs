//! Atomic directory writes: a directory of files (a Neo4j CSV export) replaced as a whole, so
//! that a reader, a crash, a full disk or a kill at any moment finds either the complete old
//! directory or the complete new one at its place, never a mix of the two.
//!
//! The exact sequence of a write to `DIR` ([`SafeDir`]):
//!
//! 1. **Check** ([`SafeDir::create`]). `DIR` must be missing or a directory (a symbolic link to
//!    a directory is followed: the directory it points to is replaced, the link stays a link).
//!    Its entries are sorted into three kinds: *owned* ones, that the caller's `owns(name)`
//!    claims (an earlier export's files and its manifest), which are replaced only with
//!    [`WriteOptions::force`] (without it: [`Error::Refused`] naming the first one, before
//!    anything is written); the user's own regular files and symbolic links, which are
//!    *carried over* into the new directory (hard links: the same files, not copies; a copy
//!    where the file system has no hard links); anything else (a subdirectory, FIFO, socket),
//!    which is refused, since the directory is replaced as a whole.
//! 2. **Cleanup** of earlier runs that were killed: every sibling `.DIR.PID.RANDOM.gemp-tmp` or
//!    `.DIR.PID.RANDOM.gemp-old` directory whose process is gone (Linux: `/proc/PID`) is
//!    emptied and removed as in step 7; a `.gemp-old` one while `DIR` is missing (a kill
//!    between the two renames of step 6's fallback) is first renamed back to `DIR`: the old
//!    directory is restored.
//! 3. A new directory `.DIR.PID.RANDOM.gemp-tmp` is made beside `DIR` (on the same file system,
//!    so renames are atomic; the directories above `DIR` are created if missing) and registered
//!    with [`super::safe_write`]'s signal cleanup (SIGINT, SIGTERM and SIGHUP remove it).
//! 4. The caller **writes its files** into it ([`SafeDir::create_file`]); each is flushed and
//!    `fsync`ed when finished ([`DirFile::finish`], which also gives its size and xxh3
//!    checksum). An error drops the [`SafeDir`], which removes the temporary directory: `DIR` was
//!    never touched.
//! 5. [`SafeDir::commit`]: the carried files are linked in (`DIR` is surveyed again, so a file
//!    the user added meanwhile is carried too), the **manifest is written last** and `fsync`ed,
//!    then the temporary directory itself is `fsync`ed.
//! 6. **The swap**, with the registry locked (a signal cannot remove anything halfway). Linux:
//!    `renameat2(TMP, DIR, RENAME_EXCHANGE)` exchanges the two directories in one atomic step;
//!    when `DIR` is missing, `renameat2(TMP, DIR, RENAME_NOREPLACE)` (which fails rather than
//!    replace something created meanwhile). Elsewhere, or on a file system without those flags:
//!    `rename(DIR, .DIR.PID.RANDOM.gemp-old)`, then `rename(TMP, DIR)`; between the two `DIR` is
//!    missing for an instant, and a crash there is undone by step 2 of the next run.
//! 7. The parent directory is `fsync`ed, and the **old directory** (now at the temporary name,
//!    or at the `.gemp-old` one) is emptied and removed: owned files are removed, and so are
//!    carried files (the same file is in the new `DIR`); a file that is in the old directory
//!    only (one created while the export ran) is moved into `DIR`. A crash here leaves the new
//!    `DIR` complete and the old directory as a leftover that step 2 of the next run removes.
//!
//! So at every instant `DIR` is the complete old directory or the complete new one (on Linux;
//! elsewhere, also missing for the instant between two renames), plus at most one leftover
//! hidden directory beside it. Readers that want to tell a complete directory from anything
//! else check the manifest (see `crate::io::export_manifest`).
//!
//! Fault injection for tests: with the environment variable `GEMP_FAULT_ENOSPC_AT_FILE=N`,
//! the `N`-th file created through [`SafeDir::create_file`] in this process (1-based, the
//! manifest included) fails its first write with "No space left on device" (`ENOSPC`).

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::safe_write::{
    live, parent_dir, pid_alive, random_u64, sync_dir, temp_owner_with, temp_stem, WriteOptions,
    TEMP_SUFFIX,
};
use crate::error::{Error, Result};

/// Suffix of an old directory renamed aside (step 6's fallback, see the module docs).
pub const OLD_SUFFIX: &str = ".gemp-old";

/// The environment variable of the fault injection (see the module docs).
pub const FAULT_ENV: &str = "GEMP_FAULT_ENOSPC_AT_FILE";

/// Files created through [`SafeDir::create_file`] in this process (for the fault injection).
static FILES_CREATED: AtomicUsize = AtomicUsize::new(0);

/// What a directory write claims as its own: `owns(file name)`.
pub type Owns = fn(&str) -> bool;

fn refused(path: &Path, message: impl Into<String>) -> Error {
    Error::Refused {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// What an existing target directory holds (step 1).
struct Survey {
    /// The directory exists.
    exists: bool,
    /// Names of owned entries, sorted.
    owned: Vec<OsString>,
    /// Names of the user's files and links to carry over, sorted.
    carried: Vec<OsString>,
}

/// Surveys `dir` (the resolved target), refusing what cannot be replaced.
fn survey(dir: &Path, shown: &Path, owns: Owns) -> Result<Survey> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Survey {
                exists: false,
                owned: Vec::new(),
                carried: Vec::new(),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            return Err(refused(
                shown,
                "is not a directory; a directory export writes a directory",
            ))
        }
        Err(e) => return Err(Error::io(shown, e)),
    };
    let (mut owned, mut carried) = (Vec::new(), Vec::new());
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let kind = entry.file_type().map_err(|e| Error::io(entry.path(), e))?;
        if owns(&name.to_string_lossy()) && kind.is_file() {
            owned.push(name);
        } else if kind.is_file() || kind.is_symlink() {
            carried.push(name);
        } else {
            return Err(refused(
                &entry.path(),
                "is not a regular file; the directory is replaced as a whole and this would not \
                 be carried over: move it elsewhere or write to another directory",
            ));
        }
    }
    owned.sort();
    carried.sort();
    Ok(Survey {
        exists: true,
        owned,
        carried,
    })
}

/// Resolves the target: `path` itself, or the directory a symbolic link points to.
fn resolve(path: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(real) => Ok(real),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(refused(
                path,
                "is a dangling symbolic link; not written through",
            )),
            Err(e) => Err(Error::io(path, e)),
        },
        Ok(m) if !m.is_dir() => Err(refused(
            path,
            "is not a directory; a directory export writes a directory",
        )),
        Ok(_) => Ok(path.to_path_buf()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// A directory being written safely: files go to a temporary directory beside the target, which
/// [`SafeDir::commit`] swaps into place; dropping it uncommitted removes the temporary
/// directory. See the module docs for the whole sequence.
#[derive(Debug)]
pub struct SafeDir {
    /// The path as the caller named it (for messages).
    shown: PathBuf,
    /// The directory replaced (a symbolic link's target for a link).
    target: PathBuf,
    /// The temporary directory.
    tmp: PathBuf,
    owns: Owns,
    options: WriteOptions,
    /// Set once the temporary directory is no longer ours to remove (swapped in).
    done: bool,
}

impl SafeDir {
    /// Steps 1–3 of the module docs: checks `dir`, cleans up after killed runs and makes the
    /// temporary directory. `owns(name)` tells the files this kind of directory holds (they are
    /// replaced, only with `options.force`); the user's other files are carried over.
    pub fn create(dir: &Path, options: &WriteOptions, owns: Owns) -> Result<SafeDir> {
        let target = resolve(dir)?;
        if target.file_name().is_none() {
            return Err(refused(
                dir,
                "names no directory that can be replaced as a whole (`.`, `..`, `/`); name the \
                 directory by its path from outside it",
            ));
        }
        remove_stale(&target, owns);
        let found = survey(&target, dir, owns)?;
        if let (Some(first), false) = (found.owned.first(), options.force) {
            return Err(refused(
                &dir.join(first),
                "exists (an earlier export); pass --force to replace the export",
            ));
        }
        let parent = parent_dir(&target);
        // The directories above it are created as needed (as `mkdir -p`).
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let stem = temp_stem(&target);
        let pid = std::process::id();
        let mut attempt = 0;
        loop {
            let tmp = parent.join(format!(".{stem}.{pid}.{:016x}{TEMP_SUFFIX}", random_u64()));
            let mut guard = live();
            match std::fs::create_dir(&tmp) {
                Ok(()) => {
                    guard.push(tmp.clone());
                    return Ok(SafeDir {
                        shown: dir.to_path_buf(),
                        target,
                        tmp,
                        owns,
                        options: *options,
                        done: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 8 => attempt += 1,
                Err(e) => {
                    return Err(Error::io(
                        dir,
                        io::Error::new(
                            e.kind(),
                            format!(
                                "cannot create a temporary directory in {}: {e}",
                                parent.display()
                            ),
                        ),
                    ))
                }
            }
        }
    }

    /// The temporary directory the files go to.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// Where a file `name` of this directory will be once committed.
    pub fn final_path(&self, name: &str) -> PathBuf {
        self.shown.join(name)
    }

    /// A new file `name` in the temporary directory (step 4). Errors name the final path.
    pub fn create_file(&self, name: &str) -> Result<DirFile> {
        let shown = self.final_path(name);
        let n = FILES_CREATED.fetch_add(1, Ordering::Relaxed) + 1;
        let fail = std::env::var(FAULT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            == Some(n);
        // Under the registry's lock: the signal cleanup, which holds it until the process exits,
        // never races a file being created into the directory it removes.
        let file = {
            let _guard = live();
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.tmp.join(name))
                .map_err(|e| Error::io(&shown, e))?
        };
        Ok(DirFile {
            shown,
            w: BufWriter::with_capacity(1 << 16, file),
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            bytes: 0,
            fail,
        })
    }

    /// Steps 5–7 of the module docs: carries the user's files over, writes `manifest` (a file
    /// name and its bytes) last, syncs, swaps the directory into place and removes the old one.
    /// On an error before the swap the target is untouched and the temporary directory removed.
    pub fn commit(mut self, manifest: (&str, &[u8])) -> Result<()> {
        let found = survey(&self.target, &self.shown, self.owns)?;
        if let (Some(first), false) = (found.owned.first(), self.options.force) {
            return Err(refused(
                &self.shown.join(first),
                "was created while gemp wrote the export; pass --force to replace it",
            ));
        }
        for name in &found.carried {
            carry(&self.target.join(name), &self.tmp.join(name))
                .map_err(|e| Error::io(self.shown.join(name), e))?;
        }
        let (name, bytes) = manifest;
        let mut m = self.create_file(name)?;
        m.write_all(bytes)
            .map_err(|e| Error::io(self.final_path(name), e))?;
        m.finish()?;
        let io_err = |e| Error::io(&self.shown, e);
        sync_dir(&self.tmp).map_err(io_err)?;
        let old = {
            // Held across the renames: the signal cleanup sees the temporary directory or none.
            let mut guard = live();
            let now = survey(&self.target, &self.shown, self.owns)?;
            if now.exists != found.exists {
                return Err(refused(
                    &self.shown,
                    "was created or removed while gemp wrote the export; not replaced",
                ));
            }
            let old = swap(&self.tmp, &self.target, found.exists).map_err(io_err)?;
            guard.retain(|p| p != &self.tmp);
            self.done = true;
            old
        };
        sync_dir(&parent_dir(&self.target)).map_err(io_err)?;
        if let Some(old) = old {
            dispose_old(&old, &self.target, self.owns);
        }
        Ok(())
    }
}

impl Drop for SafeDir {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut guard = live();
        match std::fs::remove_dir_all(&self.tmp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => log::warn!("could not remove {}: {e}", self.tmp.display()),
        }
        guard.retain(|p| p != &self.tmp);
    }
}

/// A file being written into a [`SafeDir`]: buffered, with its size and xxh3 checksum kept as
/// it goes.
pub struct DirFile {
    shown: PathBuf,
    w: BufWriter<File>,
    hasher: xxhash_rust::xxh3::Xxh3,
    bytes: u64,
    /// The fault injection's failing file.
    fail: bool,
}

impl DirFile {
    /// Flushes and syncs the file; returns its size in bytes and its xxh3 checksum.
    pub fn finish(self) -> Result<(u64, u64)> {
        let DirFile {
            shown,
            w,
            hasher,
            bytes,
            ..
        } = self;
        let file = w
            .into_inner()
            .map_err(|e| Error::io(&shown, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&shown, e))?;
        Ok((bytes, hasher.digest()))
    }

    /// The path the file will have once its directory is committed (for messages).
    pub fn path(&self) -> &Path {
        &self.shown
    }
}

impl Write for DirFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.fail {
            return Err(no_space());
        }
        let n = self.w.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// The injected error: what a full disk gives.
fn no_space() -> io::Error {
    #[cfg(unix)]
    {
        // ENOSPC is 28 on Linux, the BSDs and macOS.
        io::Error::from_raw_os_error(28)
    }
    #[cfg(not(unix))]
    {
        io::Error::new(io::ErrorKind::StorageFull, "no space left on device")
    }
}

/// Puts `from` (a user's file or link in the old directory) at `to` in the new one: a hard link
/// (a link is linked itself, not followed), else a copy.
fn carry(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::hard_link(from, to) {
        Ok(()) => return Ok(()),
        Err(e) => log::debug!("{}: no hard link ({e}); copying", from.display()),
    }
    let meta = std::fs::symlink_metadata(from)?;
    #[cfg(unix)]
    if meta.file_type().is_symlink() {
        return std::os::unix::fs::symlink(std::fs::read_link(from)?, to);
    }
    let _ = meta;
    std::fs::copy(from, to).map(|_| ())
}

/// Step 6: moves `tmp` to `target`. Returns where the old directory now is (`None` when there
/// was none).
fn swap(tmp: &Path, target: &Path, exists: bool) -> io::Result<Option<PathBuf>> {
    #[cfg(target_os = "linux")]
    {
        let flags = if exists {
            libc::RENAME_EXCHANGE
        } else {
            libc::RENAME_NOREPLACE
        };
        match renameat2(tmp, target, flags) {
            Ok(()) => return Ok(exists.then(|| tmp.to_path_buf())),
            // No such flags here (an old kernel, a file system without them): two renames.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) => {
                log::debug!("renameat2 unsupported ({e}); renaming in two steps");
            }
            Err(e) => return Err(e),
        }
    }
    if !exists {
        std::fs::rename(tmp, target)?;
        return Ok(None);
    }
    let stem = temp_stem(target);
    let aside = parent_dir(target).join(format!(
        ".{stem}.{}.{:016x}{OLD_SUFFIX}",
        std::process::id(),
        random_u64()
    ));
    std::fs::rename(target, &aside)?;
    if let Err(e) = std::fs::rename(tmp, target) {
        // Put the old directory back; the new one stays at the temporary name.
        let _ = std::fs::rename(&aside, target);
        return Err(e);
    }
    Ok(Some(aside))
}

#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
    };
    let (a, b) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            flags,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether `a` and `b` are the same file (same device and inode; `false` if either is missing).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Step 7 (and step 2's cleanup): empties and removes `old`, a replaced or abandoned version of
/// `target`. Owned files and files also in `target` are removed; a file only in `old` is moved
/// into `target`; what cannot be moved is left, with a warning, and so is `old`. Housekeeping:
/// errors are logged, not returned.
fn dispose_old(old: &Path, target: &Path, owns: Owns) {
    let Ok(entries) = std::fs::read_dir(old) else {
        return;
    };
    let mut kept = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let path = entry.path();
        let dest = target.join(&name);
        let owned = owns(&name.to_string_lossy()) && entry.file_type().is_ok_and(|t| t.is_file());
        let result = if owned || same_file(&path, &dest) {
            std::fs::remove_file(&path)
        } else if std::fs::symlink_metadata(&dest).is_err() && target.is_dir() {
            log::info!("moved {} into {}", path.display(), target.display());
            std::fs::rename(&path, &dest)
        } else {
            Err(io::Error::other(
                "a different file of that name is in the new directory",
            ))
        };
        if let Err(e) = result {
            log::warn!("left {}: {e}", path.display());
            kept += 1;
        }
    }
    if kept == 0 {
        if let Err(e) = std::fs::remove_dir(old) {
            log::warn!("could not remove {}: {e}", old.display());
        }
    }
}

/// Step 2: the leftovers of killed writes to `target` (see the module docs).
fn remove_stale(target: &Path, owns: Owns) {
    let parent = parent_dir(target);
    let stem = temp_stem(target);
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return;
    };
    let mut stale: Vec<(PathBuf, bool)> = Vec::new();
    for entry in entries.flatten() {
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let (pid, is_old) = match (
            temp_owner_with(&name, &stem, TEMP_SUFFIX),
            temp_owner_with(&name, &stem, OLD_SUFFIX),
        ) {
            (Some(pid), _) => (pid, false),
            (None, Some(pid)) => (pid, true),
            _ => continue,
        };
        if pid != me && !pid_alive(pid) {
            stale.push((entry.path(), is_old));
        }
    }
    // An old directory first: it may have to become the target again.
    stale.sort_by_key(|(_, is_old)| !is_old);
    for (path, is_old) in stale {
        if is_old && std::fs::symlink_metadata(target).is_err() {
            match std::fs::rename(&path, target) {
                Ok(()) => {
                    log::warn!(
                        "restored {} from {} (a write was killed while replacing it)",
                        target.display(),
                        path.display()
                    );
                    continue;
                }
                Err(e) => log::warn!("could not restore {}: {e}", target.display()),
            }
        }
        log::info!("removing {} (left by a killed write)", path.display());
        dispose_old(&path, target, owns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owns(name: &str) -> bool {
        name.starts_with("part-") || name == "MANIFEST"
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn write_dir(dir: &Path, files: &[(&str, &str)], options: &WriteOptions) -> Result<()> {
        let d = SafeDir::create(dir, options, owns)?;
        for (name, text) in files {
            let mut f = d.create_file(name)?;
            f.write_all(text.as_bytes()).unwrap();
            let (bytes, sum) = f.finish()?;
            assert_eq!(bytes, text.len() as u64);
            assert_eq!(sum, xxhash_rust::xxh3::xxh3_64(text.as_bytes()));
        }
        d.commit(("MANIFEST", b"done"))
    }

    #[test]
    fn a_new_directory_then_a_replacement_keeping_the_users_files() {
        let root = tempfile::tempdir().unwrap();
        let nested = root.path().join("a/b/c");
        write_dir(&nested, &[("part-1", "a")], &WriteOptions::KEEP).unwrap();
        assert_eq!(names(&nested), ["MANIFEST", "part-1"]);
        std::fs::remove_dir_all(root.path().join("a")).unwrap();
        let dir = root.path().join("out");
        write_dir(
            &dir,
            &[("part-1", "a"), ("part-2", "b")],
            &WriteOptions::KEEP,
        )
        .unwrap();
        assert_eq!(names(&dir), ["MANIFEST", "part-1", "part-2"]);
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();

        let err = write_dir(&dir, &[("part-3", "c")], &WriteOptions::KEEP).unwrap_err();
        assert!(err.to_string().contains("pass --force"), "{err}");
        assert_eq!(names(&dir), ["MANIFEST", "notes.txt", "part-1", "part-2"]);

        write_dir(&dir, &[("part-3", "c")], &WriteOptions::REPLACE).unwrap();
        assert_eq!(names(&dir), ["MANIFEST", "notes.txt", "part-3"]);
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
            "mine"
        );
        assert_eq!(
            names(root.path()),
            ["out"],
            "no temporary directory is left"
        );
    }

    #[test]
    fn a_failed_write_leaves_the_old_directory_and_no_temporary_one() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        write_dir(&dir, &[("part-1", "a")], &WriteOptions::KEEP).unwrap();
        let d = SafeDir::create(&dir, &WriteOptions::REPLACE, owns).unwrap();
        d.create_file("part-2").unwrap().finish().unwrap();
        drop(d);
        assert_eq!(names(&dir), ["MANIFEST", "part-1"]);
        assert_eq!(names(root.path()), ["out"]);
    }

    #[test]
    fn subdirectories_and_files_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let err = write_dir(&dir, &[("part-1", "a")], &WriteOptions::REPLACE).unwrap_err();
        assert!(
            err.to_string().contains("sub: is not a regular file"),
            "{err}"
        );
        let file = root.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = write_dir(&file, &[], &WriteOptions::REPLACE).unwrap_err();
        assert!(err.to_string().contains("is not a directory"), "{err}");
        assert_eq!(names(root.path()), ["file", "out"]);
        let err = write_dir(&root.path().join("out/.."), &[], &WriteOptions::REPLACE).unwrap_err();
        assert!(err.to_string().contains("replaced as a whole"), "{err}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn leftovers_of_dead_processes_are_cleaned_and_a_lost_directory_restored() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        // A pid above the kernel's maximum (4194304) is never alive.
        let tmp = root.path().join(".out.99999999.0123456789abcdef.gemp-tmp");
        std::fs::create_dir(&tmp).unwrap();
        std::fs::write(tmp.join("part-9"), "half").unwrap();
        // Killed between the two renames of the fallback: the old directory is aside.
        let old = root.path().join(".out.99999998.0123456789abcdef.gemp-old");
        std::fs::create_dir(&old).unwrap();
        std::fs::write(old.join("part-1"), "old").unwrap();
        std::fs::write(old.join("MANIFEST"), "done").unwrap();
        let err = write_dir(&dir, &[("part-2", "new")], &WriteOptions::KEEP).unwrap_err();
        assert!(err.to_string().contains("pass --force"), "{err}");
        assert_eq!(names(&dir), ["MANIFEST", "part-1"], "the old one is back");
        assert_eq!(names(root.path()), ["out"]);
    }
}
