//! Opening input files: plain or gzip-compressed (by the `.gz` extension or the gzip magic), and
//! the progress shown on stderr: one bar for a whole load (every file, then freezing and writing
//! the snapshot), a byte counter for other long reads and writes, and a spinner for long
//! searches. Progress appears only when stderr is a terminal and `-q` is not given.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::sync::RwLock;

use crate::error::{Error, Result};
use crate::util::human_bytes;

/// One bar or spinner drawn on stderr. The library decides what it shows; a [`ProgressDisplay`]
/// (the command line's draws with `indicatif`) decides how.
pub trait ProgressBar: Send + Sync {
    /// Sets the text after the bar.
    fn set_message(&self, message: String);
    /// Sets the text before the bar.
    fn set_prefix(&self, prefix: String);
    /// Moves the bar to `position` of its length.
    fn set_position(&self, position: u64);
    /// Redraws (a spinner turns).
    fn tick(&self);
    /// Removes the bar from the terminal.
    fn finish_and_clear(&self);
    /// Runs `f` (which prints to stderr) with the bar hidden.
    fn suspend(&self, f: &mut dyn FnMut());
}

/// Makes the bars the library draws: installed once by the front end ([`set_progress_display`]);
/// without one, nothing is drawn.
pub trait ProgressDisplay: Send + Sync {
    /// A bar of `length` units (a spinner when `None`) in `template` (indicatif's template
    /// syntax: `{bar:20}`, `{spinner}`, `{elapsed}`, `{prefix}`, `{msg}`, `{wide_msg}`), whose clock
    /// shows `elapsed` already passed.
    fn bar(&self, length: Option<u64>, template: &str, elapsed: Duration) -> Arc<dyn ProgressBar>;
}

/// The display progress is drawn with, if any (none for `-q`, tests and library users who
/// install none).
static PROGRESS_DISPLAY: RwLock<Option<Arc<dyn ProgressDisplay>>> = RwLock::new(None);

/// Installs (or with `None` removes) the display that draws progress process-wide.
pub fn set_progress_display(display: Option<Arc<dyn ProgressDisplay>>) {
    if let Ok(mut d) = PROGRESS_DISPLAY.write() {
        *d = display;
    }
}

/// The display to draw with now: one is installed and stderr is a terminal.
fn progress_display() -> Option<Arc<dyn ProgressDisplay>> {
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return None;
    }
    PROGRESS_DISPLAY.read().ok().and_then(|d| d.clone())
}

/// True when progress may be drawn now.
fn progress_shown() -> bool {
    progress_display().is_some()
}

/// A new bar from the installed display (`None` when none is installed any more).
fn new_bar(length: Option<u64>, template: &str, elapsed: Duration) -> Option<Arc<dyn ProgressBar>> {
    progress_display().map(|d| d.bar(length, template, elapsed))
}

/// How long before a rate is shown: a rate over a shorter time says little.
pub const RATE_AFTER: Duration = Duration::from_secs(1);

/// `done` bytes of `total` (0 = unknown) after `elapsed`: the amount, then the rate and the time
/// left once [`RATE_AFTER`] has passed (an average since the start, not an instant's guess).
pub fn rate_text(done: u64, total: u64, elapsed: Duration) -> String {
    let mut t = if total > 0 {
        format!("{}/{}", human_bytes(done), human_bytes(total))
    } else {
        human_bytes(done)
    };
    if elapsed >= RATE_AFTER && done > 0 {
        let rate = done as f64 / elapsed.as_secs_f64();
        t.push_str(&format!(", {}/s", human_bytes(rate as u64)));
        if total > done {
            let left = Duration::from_secs_f64((total - done) as f64 / rate);
            t.push_str(&format!(", {} left", short_duration(left)));
        }
    }
    t
}

/// A duration in whole seconds, rounded up: `7s`, `2m05s`, `1h02m`.
pub fn short_duration(d: Duration) -> String {
    let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}

/// A thread that draws a progress bar on stderr from shared counters, starting `delay` after it
/// is started (short tasks show nothing), redrawing ten times a second, and clearing the bar
/// when dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    bar: Arc<Mutex<Option<Arc<dyn ProgressBar>>>>,
}

impl Ticker {
    /// Starts drawing: `make` builds the bar once `delay` has passed, `update` refreshes it with
    /// the time since the start.
    fn start(
        delay: Duration,
        make: impl FnOnce(Duration) -> Option<Arc<dyn ProgressBar>> + Send + 'static,
        mut update: impl FnMut(&dyn ProgressBar, Duration) + Send + 'static,
    ) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let shown = Arc::new(Mutex::new(None));
        let shared = Arc::clone(&shown);
        let started = Instant::now();
        let handle = std::thread::Builder::new()
            .name("gemp-progress".into())
            .spawn(move || {
                let mut make = Some(make);
                let mut bar: Option<Arc<dyn ProgressBar>> = None;
                while !flag.load(Ordering::Relaxed) {
                    std::thread::park_timeout(Duration::from_millis(100));
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    let elapsed = started.elapsed();
                    if bar.is_none() && elapsed >= delay {
                        bar = make.take().and_then(|m| m(elapsed));
                        if let Ok(mut s) = shared.lock() {
                            s.clone_from(&bar);
                        }
                    }
                    if let Some(b) = &bar {
                        update(b.as_ref(), elapsed);
                        b.tick();
                    }
                }
                if let Ok(mut s) = shared.lock() {
                    *s = None;
                }
                if let Some(b) = bar {
                    b.finish_and_clear();
                }
            })
            .ok();
        Ticker {
            stop,
            handle,
            bar: shown,
        }
    }

    /// Runs `f` with the bar hidden (for printing to stderr while it is shown).
    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        let shown = self.bar.lock().ok().and_then(|b| b.clone());
        match shown {
            Some(b) => {
                let mut f = Some(f);
                let mut out = None;
                b.suspend(&mut || out = f.take().map(|f| f()));
                match (out, f) {
                    (Some(r), _) => r,
                    (None, Some(f)) => f(),
                    (None, None) => unreachable!("suspend ran the closure without a result"),
                }
            }
            None => f(),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

/// The steps of a load, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum LoadPhase {
    /// Reading and parsing the input files.
    Parse = 0,
    /// Freezing the parsed graph into a model.
    Freeze = 1,
    /// Writing the model as a snapshot.
    Write = 2,
}

/// What a load's bar is drawn from.
struct LoadState {
    total: u64,
    read: AtomicU64,
    phase: AtomicU8,
    started: Instant,
    /// How long parsing took, in microseconds, once it is over (`u64::MAX` until then).
    parse_us: AtomicU64,
}

impl LoadState {
    /// Moves to `phase`, noting when parsing ended.
    fn set_phase(&self, phase: LoadPhase) {
        if phase != LoadPhase::Parse {
            let us = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX - 1);
            let _ =
                self.parse_us
                    .compare_exchange(u64::MAX, us, Ordering::Relaxed, Ordering::Relaxed);
        }
        self.phase.store(phase as u8, Ordering::Relaxed);
    }
}

/// The load in progress, if any: input files opened during it count their bytes to its bar.
static ACTIVE_LOAD: Mutex<Option<Arc<LoadState>>> = Mutex::new(None);

/// Bar units of a load: parsing fills the first part in proportion to the bytes read, freezing
/// and writing the snapshot the rest, each when it ends.
const LOAD_UNITS: u64 = 1000;

/// One progress bar for a whole load: all its input files, then freezing, then (when `gemp load`
/// writes one) the snapshot. It appears after half a second; while parsing it shows the bytes
/// read of the total, and once a second has passed the average rate and the time left; while
/// freezing or writing it names the step. Dropping it ends the load and clears the bar.
pub struct LoadProgress {
    state: Option<Arc<LoadState>>,
    ticker: Option<Ticker>,
}

impl LoadProgress {
    /// Starts the progress of a load of `total` input bytes (0 = unknown); `writes` when a snapshot
    /// is written at the end. Draws nothing when progress is off or stderr is not a terminal, and
    /// nothing more when a load is already in progress (its bar covers this one).
    pub fn start(total: u64, writes: bool) -> LoadProgress {
        let idle = LoadProgress {
            state: None,
            ticker: None,
        };
        let Ok(mut active) = ACTIVE_LOAD.lock() else {
            return idle;
        };
        if active.is_some() || !progress_shown() {
            return idle;
        }
        let state = Arc::new(LoadState {
            total,
            read: AtomicU64::new(0),
            phase: AtomicU8::new(LoadPhase::Parse as u8),
            started: Instant::now(),
            parse_us: AtomicU64::new(u64::MAX),
        });
        *active = Some(Arc::clone(&state));
        let shared = Arc::clone(&state);
        let parse_units = if writes { 800 } else { 900 };
        let freeze_end = if writes { 900 } else { LOAD_UNITS };
        let ticker = Ticker::start(
            Duration::from_millis(500),
            |elapsed| {
                new_bar(
                    Some(LOAD_UNITS),
                    "{spinner} loading [{bar:20}] {elapsed:>3} {wide_msg}",
                    elapsed,
                )
            },
            move |bar, elapsed| {
                let read = shared.read.load(Ordering::Relaxed);
                let (position, message) = match shared.phase.load(Ordering::Relaxed) {
                    0 => {
                        let position = (parse_units * read.min(shared.total))
                            .checked_div(shared.total)
                            .unwrap_or(0);
                        (
                            position,
                            format!("parsing {}", rate_text(read, shared.total, elapsed)),
                        )
                    }
                    1 => {
                        let parse = Duration::from_micros(shared.parse_us.load(Ordering::Relaxed));
                        (
                            parse_units,
                            format!(
                                "freezing the model ({} parsed in {:.1}s)",
                                human_bytes(read),
                                parse.as_secs_f64()
                            ),
                        )
                    }
                    _ => (freeze_end, "writing the snapshot".to_owned()),
                };
                bar.set_message(message);
                bar.set_position(position);
            },
        );
        LoadProgress {
            state: Some(state),
            ticker: Some(ticker),
        }
    }

    /// Runs `f` (which prints to stderr) with the bar hidden.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.ticker {
            Some(t) => t.suspend(f),
            None => f(),
        }
    }

    /// Moves this load to `phase`.
    pub fn phase(&self, phase: LoadPhase) {
        if let Some(s) = &self.state {
            s.set_phase(phase);
        }
    }
}

impl Drop for LoadProgress {
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            if let Ok(mut active) = ACTIVE_LOAD.lock() {
                if active.as_ref().is_some_and(|a| Arc::ptr_eq(a, &state)) {
                    *active = None;
                }
            }
        }
    }
}

/// Moves the load in progress (if any) to `phase`: for code that has no [`LoadProgress`] at hand.
pub fn load_phase(phase: LoadPhase) {
    if let Ok(active) = ACTIVE_LOAD.lock() {
        if let Some(s) = active.as_ref() {
            s.set_phase(phase);
        }
    }
}

/// The total size of the files `paths` name or hold (directories one level deep), for a
/// [`LoadProgress`]; 0 when it cannot be told.
pub fn total_size(paths: &[PathBuf]) -> u64 {
    super::expand::expand_paths(paths)
        .map(|files| {
            files
                .iter()
                .filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// A spinner on stderr for a search that runs over a second: the rows found so far (when the
/// rows are counted as they come) and the elapsed time. Nothing when progress is off or stderr is
/// not a terminal; cleared when dropped.
pub struct SearchSpinner {
    found: Arc<AtomicU64>,
    /// Draws until dropped.
    _ticker: Option<Ticker>,
}

impl SearchSpinner {
    /// Starts the spinner (drawn only when `show` and progress may be shown); `counts` when
    /// [`SearchSpinner::add`] will report the rows as they come.
    pub fn start(counts: bool, show: bool) -> SearchSpinner {
        let found = Arc::new(AtomicU64::new(0));
        let ticker = (show && progress_shown()).then(|| {
            let shared = Arc::clone(&found);
            Ticker::start(
                Duration::from_secs(1),
                |elapsed| new_bar(None, "{spinner} searching {elapsed:>3} {wide_msg}", elapsed),
                move |bar, _| {
                    if counts {
                        bar.set_message(format!(
                            "{} matches so far",
                            shared.load(Ordering::Relaxed)
                        ));
                    }
                },
            )
        });
        SearchSpinner {
            found,
            _ticker: ticker,
        }
    }

    /// Counts `n` more matches.
    pub fn add(&self, n: u64) {
        self.found.fetch_add(n, Ordering::Relaxed);
    }
}

/// A byte counter that turns into a progress bar on stderr after one second; during a load
/// ([`LoadProgress`]) it counts to the load's bar instead.
pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    started: Instant,
    bar: Option<Arc<dyn ProgressBar>>,
    enabled: bool,
    load: Option<Arc<LoadState>>,
}

impl Progress {
    /// A progress tracker for `total` bytes (0 = unknown).
    pub fn new(label: impl Into<String>, total: u64) -> Self {
        let load = ACTIVE_LOAD.lock().ok().and_then(|a| a.clone());
        Progress {
            label: label.into(),
            total,
            done: 0,
            started: Instant::now(),
            bar: None,
            enabled: load.is_none() && progress_shown(),
            load,
        }
    }

    /// Records `n` more bytes.
    pub fn inc(&mut self, n: u64) {
        self.done += n;
        if let Some(load) = &self.load {
            load.read.fetch_add(n, Ordering::Relaxed);
            return;
        }
        if !self.enabled {
            return;
        }
        let elapsed = self.started.elapsed();
        if self.bar.is_none() && elapsed > Duration::from_secs(1) {
            let bar = if self.total > 0 {
                new_bar(
                    Some(self.total),
                    "{prefix} [{bar:20}] {elapsed:>3} {wide_msg}",
                    elapsed,
                )
            } else {
                new_bar(None, "{spinner} {prefix} {elapsed:>4} {msg}", elapsed)
            };
            let Some(bar) = bar else {
                self.enabled = false;
                return;
            };
            bar.set_prefix(self.label.clone());
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            bar.set_message(rate_text(self.done, self.total, elapsed));
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

/// The stage the memory-limit error names while input files are read.
pub const LOADING_STAGE: &str = "loading the model";

/// A reader that stops with an error once the heap passed the memory limit
/// ([`crate::util::memory`]): what a loader holds grows with what it reads (a gzip bomb
/// decompresses to gigabytes from a few megabytes), so reading is where the loaders poll.
struct MemoryGuard<R>(R);

impl<R: Read> Read for MemoryGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if crate::util::memory::check(LOADING_STAGE) {
            let limit = crate::util::memory::limit().unwrap_or(u64::MAX);
            return Err(std::io::Error::other(Error::MemoryLimit {
                stage: LOADING_STAGE.into(),
                limit,
            }));
        }
        self.0.read(buf)
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
    // 1 MiB buffers for large inputs; a small file (a query, a query graph) gets one just large
    // enough: a fresh 1 MiB buffer costs page faults and zeroing that outweigh reading it.
    let buffer = |bytes: u64| (bytes.clamp(8 << 10, 1 << 20)) as usize;
    let reader: Box<dyn BufRead + Send> = if gz {
        Box::new(BufReader::with_capacity(
            1 << 20,
            MemoryGuard(flate2::read::MultiGzDecoder::new(BufReader::with_capacity(
                buffer(size),
                counting,
            ))),
        ))
    } else {
        Box::new(BufReader::with_capacity(
            buffer(size.saturating_add(1)),
            MemoryGuard(counting),
        ))
    };
    Ok(Input {
        path: path.to_path_buf(),
        reader,
        size,
    })
}

/// Reads a text file (a query, a rule file) that must be UTF-8: bytes that are not are an error
/// naming the file, line and column and the first bad byte (`read_to_string` said only "stream did
/// not contain valid UTF-8").
pub fn read_utf8(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u64
            + 1;
        Error::parse(
            Some(path.to_path_buf()),
            line,
            column,
            format!(
                "not UTF-8 (byte 0x{:02X}); save the file as UTF-8",
                bytes[at]
            ),
        )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rate_before_there_is_time_to_measure_one() {
        let t = rate_text(100 << 20, 400 << 20, Duration::from_millis(300));
        assert_eq!(t, "100.0 MiB/400.0 MiB");
        // After two seconds: 50 MiB/s on average, 300 MiB left at that rate.
        let t = rate_text(100 << 20, 400 << 20, Duration::from_secs(2));
        assert_eq!(t, "100.0 MiB/400.0 MiB, 50.0 MiB/s, 6s left");
        // Unknown total: no time left.
        let t = rate_text(100 << 20, 0, Duration::from_secs(2));
        assert_eq!(t, "100.0 MiB, 50.0 MiB/s");
    }

    #[test]
    fn durations_round_up_to_whole_seconds() {
        assert_eq!(short_duration(Duration::from_millis(200)), "1s");
        assert_eq!(short_duration(Duration::ZERO), "0s");
        assert_eq!(short_duration(Duration::from_secs(125)), "2m05s");
        assert_eq!(short_duration(Duration::from_secs(3720)), "1h02m");
    }

    #[test]
    fn a_load_phase_notes_when_parsing_ended() {
        let s = LoadState {
            total: 0,
            read: AtomicU64::new(0),
            phase: AtomicU8::new(0),
            started: Instant::now(),
            parse_us: AtomicU64::new(u64::MAX),
        };
        std::thread::sleep(Duration::from_millis(5));
        s.set_phase(LoadPhase::Freeze);
        let parse = s.parse_us.load(Ordering::Relaxed);
        assert!((5_000..u64::MAX).contains(&parse), "{parse}");
        s.set_phase(LoadPhase::Write);
        assert_eq!(s.parse_us.load(Ordering::Relaxed), parse, "set once");
        assert_eq!(s.phase.load(Ordering::Relaxed), LoadPhase::Write as u8);
    }
}
