//! Opening input files: plain or gzip-compressed (by the `.gz` extension or the gzip magic), with a
//! progress bar that appears only on a terminal and only for reads that take more than a second.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::error::{Error, Result};

/// Whether progress bars may be shown (off for `-q`, tests and non-terminals).
static PROGRESS_ENABLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Enables or disables progress bars process-wide (the CLI enables them unless `-q`).
pub fn set_progress_enabled(on: bool) {
    PROGRESS_ENABLED.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// A byte counter that turns into a progress bar on stderr after one second.
pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    started: Instant,
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    /// A progress tracker for `total` bytes (0 = unknown).
    pub fn new(label: impl Into<String>, total: u64) -> Self {
        let enabled = PROGRESS_ENABLED.load(std::sync::atomic::Ordering::Relaxed)
            && std::io::IsTerminal::is_terminal(&std::io::stderr());
        Progress {
            label: label.into(),
            total,
            done: 0,
            started: Instant::now(),
            bar: None,
            enabled,
        }
    }

    /// Records `n` more bytes.
    pub fn inc(&mut self, n: u64) {
        self.done += n;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
        } else if self.enabled && self.started.elapsed() > Duration::from_secs(1) {
            let bar = if self.total > 0 {
                ProgressBar::new(self.total)
            } else {
                ProgressBar::new_spinner()
            };
            let style = ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_message(self.label.clone());
            bar.set_position(self.done);
            self.bar = Some(bar);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A reader that reports the bytes it reads (of the file on disk, i.e. compressed bytes for .gz).
struct CountingReader<R> {
    inner: R,
    progress: Progress,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.inc(n as u64);
        Ok(n)
    }
}

/// An opened input: a buffered reader over the decompressed bytes, plus the path for messages.
pub struct Input {
    /// The file's path.
    pub path: PathBuf,
    /// The decompressed content.
    pub reader: Box<dyn BufRead + Send>,
    /// Size of the file on disk.
    pub size: u64,
}

/// True when the file starts with the gzip magic bytes.
fn looks_gzipped(path: &Path) -> bool {
    let mut magic = [0u8; 2];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| magic == [0x1f, 0x8b])
        .unwrap_or(false)
}

/// Opens `path` for reading, decompressing gzip transparently.
pub fn open(path: &Path) -> Result<Input> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let label = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let counting = CountingReader {
        inner: file,
        progress: Progress::new(label, size),
    };
    let gz = path.extension().is_some_and(|e| e == "gz") || looks_gzipped(path);
    let reader: Box<dyn BufRead + Send> = if gz {
        Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 20, counting)),
        ))
    } else {
        Box::new(BufReader::with_capacity(1 << 20, counting))
    };
    Ok(Input {
        path: path.to_path_buf(),
        reader,
        size,
    })
}

/// Maps a read error to a message that names the file (a truncated .gz reads as "unexpected end").
pub fn read_error(path: &Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        return Error::BadFile {
            path: path.to_path_buf(),
            message: "unexpected end of compressed data (truncated .gz?)".into(),
        };
    }
    if e.kind() == std::io::ErrorKind::InvalidInput || e.kind() == std::io::ErrorKind::InvalidData {
        return Error::BadFile {
            path: path.to_path_buf(),
            message: format!("corrupt compressed data: {e}"),
        };
    }
    Error::io(path, e)
}
