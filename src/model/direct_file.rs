//! [`SequentialFile`]: a write-once, append-only file writer for large snapshots. It bypasses the
//! page cache (`O_DIRECT`) where the OS and file system allow it, falls back to ordinary buffered
//! writes where they do not (tmpfs, other systems), and overlaps the device writes with the caller's
//! work through a writer thread.
//!
//! Why: a snapshot is written once and then read by later runs; copying 1.5 GB into the
//! page cache first costs more CPU than the parse that produced it (measured in
//! `docs/benchmarks.md`, "Loading"), and the later `fsync` has to write it all back anyway. Direct
//! writes go from page-aligned staging buffers straight to the device while the caller fills the
//! next buffer.
//!
//! Invariants: every direct write starts at a file offset that is a multiple of [`BLOCK`] and has a
//! length that is a multiple of [`BLOCK`], from a buffer address aligned to [`BLOCK`]; the last,
//! partial block is written zero-padded and the file is then truncated to the exact length.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Alignment and granularity of direct writes (covers 512-byte and 4 KiB logical blocks).
pub const BLOCK: usize = 4096;
/// Size of one staging buffer (a multiple of [`BLOCK`]).
const STAGE: usize = 8 << 20;
/// Staging buffers in flight: one being filled, one being written.
const BUFFERS: usize = 2;

/// A heap buffer with a [`BLOCK`]-aligned window of `len` bytes.
struct AlignedBuf {
    storage: Vec<u8>,
    start: usize,
}

impl AlignedBuf {
    fn new(len: usize) -> Self {
        let storage = vec![0u8; len + BLOCK];
        let start = storage.as_ptr().align_offset(BLOCK);
        AlignedBuf { storage, start }
    }

    fn window(&mut self, len: usize) -> &mut [u8] {
        &mut self.storage[self.start..self.start + len]
    }
}

/// The file and how it is written; owned by the writer thread.
struct Sink {
    path: PathBuf,
    file: File,
    /// Whether the file is currently open with `O_DIRECT`.
    direct: bool,
    /// Bytes written to the file so far.
    written: u64,
}

impl Sink {
    /// Appends `chunk` (a multiple of [`BLOCK`] bytes while direct, except a buffered fallback). A
    /// file system that accepted `O_DIRECT` at open but rejects the write is reopened for buffered
    /// writes at the same position.
    fn append(&mut self, chunk: &[u8]) -> io::Result<()> {
        match self.file.write_all(chunk) {
            Ok(()) => {}
            Err(e) if self.direct && e.kind() == io::ErrorKind::InvalidInput => {
                log::debug!(
                    "{}: direct write refused ({e}); writing through the page cache",
                    self.path.display()
                );
                let mut file = OpenOptions::new().write(true).open(&self.path)?;
                file.seek(SeekFrom::Start(self.written))?;
                file.write_all(chunk)?;
                self.file = file;
                self.direct = false;
            }
            Err(e) => return Err(e),
        }
        self.written += chunk.len() as u64;
        Ok(())
    }
}

/// A full buffer on its way to the writer thread: the buffer and how many bytes of it to write.
type Filled = (AlignedBuf, usize);

/// An append-only writer; call [`SequentialFile::finish`] to flush, size and sync the file.
pub struct SequentialFile {
    /// The buffer being filled.
    current: AlignedBuf,
    /// Bytes staged in `current`.
    staged: usize,
    /// Bytes handed to the writer thread so far.
    handed: u64,
    direct: bool,
    to_writer: Option<SyncSender<Filled>>,
    empties: Receiver<AlignedBuf>,
    writer: Option<JoinHandle<io::Result<Sink>>>,
}

impl SequentialFile {
    /// Creates (truncates) `path`, with `O_DIRECT` when `direct` is requested and available.
    /// Snapshots pass the temporary file of a [`crate::util::safe_write::SafeFile`] here, never the
    /// user's target itself.
    pub fn create(path: &Path, direct: bool) -> io::Result<Self> {
        let (file, direct) = match direct.then(|| open_direct(path)).flatten() {
            Some(file) => (file, true),
            None => (File::create(path)?, false),
        };
        let mut sink = Sink {
            path: path.to_path_buf(),
            file,
            direct,
            written: 0,
        };
        let (to_writer, filled) = sync_channel::<Filled>(BUFFERS);
        let (give_back, empties) = sync_channel::<AlignedBuf>(BUFFERS);
        for _ in 1..BUFFERS {
            give_back
                .send(AlignedBuf::new(STAGE))
                .map_err(|_| io::Error::other("writer channel closed"))?;
        }
        let writer = std::thread::Builder::new()
            .name("gemp-writer".into())
            .spawn(move || -> io::Result<Sink> {
                for (mut buf, len) in filled {
                    sink.append(buf.window(len))?;
                    // The caller may have stopped; then the buffer is simply dropped.
                    let _ = give_back.send(buf);
                }
                Ok(sink)
            })?;
        Ok(SequentialFile {
            current: AlignedBuf::new(STAGE),
            staged: 0,
            handed: 0,
            direct,
            to_writer: Some(to_writer),
            empties,
            writer: Some(writer),
        })
    }

    /// Whether the file was opened to bypass the page cache.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// Bytes appended so far.
    pub fn position(&self) -> u64 {
        self.handed + self.staged as u64
    }

    /// Appends `bytes`.
    pub fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let n = (STAGE - self.staged).min(bytes.len());
            let at = self.staged;
            self.current.window(STAGE)[at..at + n].copy_from_slice(&bytes[..n]);
            self.staged += n;
            bytes = &bytes[n..];
            if self.staged == STAGE {
                self.hand_over(STAGE)?;
            }
        }
        Ok(())
    }

    /// Appends `n` zero bytes.
    pub fn write_zeros(&mut self, n: usize) -> io::Result<()> {
        const ZEROS: [u8; 4096] = [0; 4096];
        let mut left = n;
        while left > 0 {
            let k = left.min(ZEROS.len());
            self.write_all(&ZEROS[..k])?;
            left -= k;
        }
        Ok(())
    }

    /// Writes what is staged, then overwrites the file's first `head.len()` bytes with `head` (for
    /// headers whose checksums are known only at the end; with direct writes `head.len()` must be a
    /// multiple of [`BLOCK`]; bytes past the end are cut off), sets the exact length, syncs data and
    /// metadata, and returns the file.
    pub fn finish(mut self, head: Option<&[u8]>) -> io::Result<File> {
        let exact = self.position();
        if self.staged > 0 {
            let padded = if self.direct {
                self.staged.next_multiple_of(BLOCK)
            } else {
                self.staged
            };
            let from = self.staged;
            self.current.window(padded)[from..].fill(0);
            self.hand_over(padded)?;
        }
        let mut sink = self.join_writer()?;
        if let Some(head) = head {
            if sink.direct && head.len() % BLOCK != 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "head of a direct-written file must be whole blocks",
                ));
            }
            let mut buf = AlignedBuf::new(head.len());
            buf.window(head.len()).copy_from_slice(head);
            sink.file.seek(SeekFrom::Start(0))?;
            sink.file.write_all(buf.window(head.len()))?;
        }
        // Drops the padding of the last direct block (and anything of `head` past the end).
        sink.file.set_len(exact)?;
        sink.file.sync_all()?;
        Ok(sink.file)
    }

    /// Sends the first `len` bytes of the current buffer to the writer thread and takes an empty
    /// buffer back (waiting while both are in flight).
    fn hand_over(&mut self, len: usize) -> io::Result<()> {
        let next = match self.empties.recv() {
            Ok(buf) => buf,
            Err(_) => return Err(self.writer_error()),
        };
        let full = std::mem::replace(&mut self.current, next);
        let sent = self
            .to_writer
            .as_ref()
            .is_some_and(|tx| tx.send((full, len)).is_ok());
        if !sent {
            return Err(self.writer_error());
        }
        self.handed += len as u64;
        self.staged = 0;
        Ok(())
    }

    /// Closes the channel and waits for the writer thread.
    fn join_writer(&mut self) -> io::Result<Sink> {
        self.to_writer = None;
        match self.writer.take() {
            Some(handle) => handle
                .join()
                .map_err(|_| io::Error::other("snapshot writer thread panicked"))?,
            None => Err(io::Error::other("snapshot writer already stopped")),
        }
    }

    /// The error that stopped the writer thread.
    fn writer_error(&mut self) -> io::Error {
        match self.join_writer() {
            Err(e) => e,
            Ok(_) => io::Error::other("snapshot writer stopped"),
        }
    }
}

impl Drop for SequentialFile {
    fn drop(&mut self) {
        // Unfinished (an error on the caller's side): stop the thread, ignore what it reports.
        if self.writer.is_some() {
            let _ = self.join_writer();
        }
    }
}

/// Opens `path` for direct writes, or `None` where the platform or file system has no `O_DIRECT`.
#[cfg(target_os = "linux")]
fn open_direct(path: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .ok()
}

/// Opens `path` for direct writes, or `None` where the platform or file system has no `O_DIRECT`.
#[cfg(not(target_os = "linux"))]
fn open_direct(_path: &Path) -> Option<File> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(direct: bool, pieces: &[usize], head: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        let mut w = SequentialFile::create(&path, direct).unwrap();
        let mut expected = Vec::new();
        for (i, &n) in pieces.iter().enumerate() {
            let piece: Vec<u8> = (0..n).map(|k| (k * 31 + i * 7) as u8).collect();
            w.write_all(&piece).unwrap();
            expected.extend_from_slice(&piece);
            w.write_zeros(i % 70).unwrap();
            expected.resize(expected.len() + i % 70, 0);
        }
        assert_eq!(w.position(), expected.len() as u64);
        let patch = vec![0xabu8; BLOCK];
        if head {
            w.finish(Some(&patch)).unwrap();
            let k = expected.len().min(BLOCK);
            expected[..k].copy_from_slice(&patch[..k]);
        } else {
            w.finish(None).unwrap();
        }
        assert_eq!(std::fs::read(&path).unwrap(), expected);
    }

    #[test]
    fn writes_exact_bytes_direct_and_buffered() {
        for direct in [true, false] {
            for head in [false, true] {
                roundtrip(direct, &[], head);
                roundtrip(direct, &[1], head);
                roundtrip(direct, &[BLOCK], head);
                roundtrip(direct, &[STAGE - 3, 5, BLOCK + 1], head);
                roundtrip(direct, &[STAGE * 2 + 17, 100, 3], head);
                roundtrip(direct, &[STAGE * 3], head);
            }
        }
    }

    #[test]
    fn creating_in_a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing/f.bin");
        assert!(SequentialFile::create(&path, true).is_err());
    }

    #[test]
    fn a_partial_head_block_is_refused_for_direct_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        let mut w = SequentialFile::create(&path, true).unwrap();
        w.write_all(&[1; 100]).unwrap();
        if w.is_direct() {
            assert!(w.finish(Some(&[2; 10])).is_err());
        }
    }
}
