//! Memory accounting behind `--memory-limit`: a counting global allocator (installed by the
//! `gemp` binary; a library user may install it too), a limit, and a trip flag that the search
//! and the result stage raise when the heap in use passes the limit. The session then returns
//! [`crate::Error::MemoryLimit`] naming the stage, instead of the process aborting on a failed
//! allocation.
//!
//! Without the allocator installed nothing is counted and no limit ever trips.
//!
//! The limit is a heap count, polled: a stage can still ask the system for more than the process
//! may have (one large vector doubling, a stage that does not poll, under `ulimit -v`). With
//! [`exit_on_failed_allocation`] (the binary turns it on) a refused allocation ends the process
//! with the memory-limit message naming the stage last entered ([`enter_stage`]) and exit status
//! 1, instead of an abort (SIGABRT, status 134).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Heap bytes in use (allocated through [`CountingAllocator`] and not freed).
static IN_USE: AtomicUsize = AtomicUsize::new(0);
/// The limit in bytes (`usize::MAX`: none).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set once a stage found the limit passed during the current run (read without a lock).
static TRIPPED: AtomicBool = AtomicBool::new(false);
/// The stage that first found the limit passed during the current run.
static TRIPPED_STAGE: Mutex<Option<String>> = Mutex::new(None);

/// The stage the process is in, for the message of a refused allocation (see [`enter_stage`]).
static STAGE: AtomicPtr<&'static str> = AtomicPtr::new(std::ptr::null_mut());
/// Set by [`exit_on_failed_allocation`].
static EXIT_ON_FAILURE: AtomicBool = AtomicBool::new(false);

/// Records the stage the process enters ("loading the model", "the search"), which a refused
/// allocation names (see [`exit_on_failed_allocation`]). Pass a promoted constant:
/// `enter_stage(&"the search")`.
pub fn enter_stage(stage: &'static &'static str) {
    STAGE.store(std::ptr::from_ref(stage).cast_mut(), Ordering::Relaxed);
}

/// The stage last entered ([`enter_stage`]), if any.
pub fn current_stage() -> Option<&'static str> {
    let p = STAGE.load(Ordering::Relaxed);
    // SAFETY: only `enter_stage` stores here, from a `&'static &'static str`.
    (!p.is_null()).then(|| unsafe { *p })
}

/// From now on an allocation the system refuses ends the process: the memory-limit error naming
/// the current stage on stderr, exit status 1 (meant for binaries; a library caller keeps Rust's
/// default, an abort). Only with [`CountingAllocator`] installed.
pub fn exit_on_failed_allocation() {
    EXIT_ON_FAILURE.store(true, Ordering::Relaxed);
}

/// A refused allocation of `size` bytes: returns when the process is not to exit (the caller
/// then returns null), else writes the error and exits with status 1. Allocates nothing.
#[cold]
fn refused(size: usize) {
    if !EXIT_ON_FAILURE.load(Ordering::Relaxed) {
        return;
    }
    let mut msg = Message::default();
    msg.push("error: memory limit reached in ");
    msg.push(current_stage().unwrap_or("the run"));
    msg.push(": the system refused ");
    msg.number(size as u64 >> 20);
    msg.push(" MiB more with ");
    msg.number(in_use() as u64 >> 20);
    msg.push(" MiB in use (ulimit -v or -d, or physical memory); give the run more memory, ");
    msg.push("narrow it, or lower --memory-limit so that it stops first\n");
    crate::util::safe_write::remove_live_temps_at_exit();
    #[cfg(unix)]
    // SAFETY: write(2) of a buffer we own, then _exit: no allocation, no destructors, no locks.
    unsafe {
        libc::write(2, msg.buf.as_ptr().cast(), msg.len);
        libc::_exit(1);
    }
}

/// A message built without allocating.
struct Message {
    buf: [u8; 512],
    len: usize,
}

impl Default for Message {
    fn default() -> Self {
        Message {
            buf: [0; 512],
            len: 0,
        }
    }
}

impl Message {
    fn push(&mut self, s: &str) {
        s.bytes().for_each(|b| self.byte(b));
    }

    fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    fn number(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        digits[i..].iter().for_each(|&d| self.byte(d));
    }
}

/// Bytes the C allocator behind [`System`] takes for a block of `layout`, which the account
/// counts (not the bytes asked for), so that it follows resident memory: glibc's malloc keeps an
/// 8-byte header before each block and rounds blocks up to 16 bytes, 32 at least, and meets an
/// alignment beyond 16 by taking up to that much more. A row of two values (48 bytes asked)
/// takes 64; the millions of small rows a result stage holds made resident memory 1.3–3× the
/// bytes asked for, and `--memory-limit 1G` let a sort reach 3.1 GB resident.
#[inline]
pub fn footprint(layout: Layout) -> usize {
    let extra = if layout.align() > 16 {
        layout.align()
    } else {
        0
    };
    (layout.size().saturating_add(8 + 15) & !15).max(32) + extra
}

/// The system allocator, counting the bytes it takes for the blocks in use ([`footprint`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingAllocator;

// SAFETY: every call is forwarded to `System` unchanged; only a counter is updated beside it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        } else {
            IN_USE.fetch_add(footprint(layout), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        } else {
            IN_USE.fetch_add(footprint(layout), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (through this allocator).
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(footprint(layout), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`; forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            refused(new_size);
        } else {
            let old = footprint(layout);
            // SAFETY (of the layout): `realloc`'s contract makes `new_size` valid with the
            // old alignment.
            let new =
                footprint(unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) });
            if new >= old {
                IN_USE.fetch_add(new - old, Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(old - new, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Heap bytes in use, as the allocator takes them ([`footprint`]; 0 unless
/// [`CountingAllocator`] is the global allocator).
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// Sets the limit (`None`: no limit).
///
/// After [`keep_freed_memory`], the freed memory the C allocator keeps is also bounded by an
/// eighth of the limit (it counts in resident memory, not in the account).
pub fn set_limit(bytes: Option<u64>) {
    let b = bytes.map_or(usize::MAX, |b| usize::try_from(b).unwrap_or(usize::MAX));
    LIMIT.store(b, Ordering::Relaxed);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if KEEPING_FREED.load(Ordering::Relaxed) {
        let keep = (b / 8).min(KEEP_FREED as usize);
        // SAFETY: mallopt only changes an allocator parameter.
        unsafe {
            libc::mallopt(libc::M_TRIM_THRESHOLD, keep as libc::c_int);
        }
    }
}

/// Freed memory the C allocator keeps for reuse after [`keep_freed_memory`].
const KEEP_FREED: i32 = 256 << 20;

/// Set by [`keep_freed_memory`].
static KEEPING_FREED: AtomicBool = AtomicBool::new(false);

/// The limit, if one is set.
pub fn limit() -> Option<u64> {
    match LIMIT.load(Ordering::Relaxed) {
        usize::MAX => None,
        b => Some(b as u64),
    }
}

/// True when the heap in use has passed the limit.
pub fn over_limit() -> bool {
    in_use() > LIMIT.load(Ordering::Relaxed)
}

/// Records that `stage` found the limit passed (the first stage of a run is kept); returns true
/// when the limit is passed or was found passed earlier in this run.
pub fn check(stage: &str) -> bool {
    if over_limit() {
        trip(stage);
        return true;
    }
    tripped()
}

/// Records that `stage` found the limit passed (the first stage of a run is kept).
fn trip(stage: &str) {
    let mut t = TRIPPED_STAGE.lock().unwrap_or_else(|e| e.into_inner());
    if t.is_none() {
        *t = Some(stage.to_owned());
    }
    TRIPPED.store(true, Ordering::Relaxed);
}

/// For a state about to grow by `extra` bytes at once (a hash table's rehash): true, recording
/// `stage`, when the heap in use plus `extra` passes the limit (so the stage that is about to
/// hold the memory names itself before a polling search sees the heap past it); else whether
/// the limit was found passed earlier in this run.
pub fn check_growth(stage: &str, extra: usize) -> bool {
    let limit = LIMIT.load(Ordering::Relaxed);
    if limit != usize::MAX && in_use().saturating_add(extra) > limit {
        trip(stage);
        return true;
    }
    tripped()
}

/// For places polled often that hold little themselves (the search loop): true once a stage
/// found the limit passed, or when the heap is an eighth beyond it (then `stage` is recorded).
/// The stages that hold memory check first with [`check`], so the error names them.
pub fn check_beyond(stage: &str) -> bool {
    let limit = LIMIT.load(Ordering::Relaxed);
    if in_use() > limit.saturating_add(limit / 8) {
        return check(stage);
    }
    tripped()
}

/// True once a stage of the current run found the limit passed.
pub fn tripped() -> bool {
    TRIPPED.load(Ordering::Relaxed)
}

/// Clears the trip flag before a run.
pub fn reset() {
    *TRIPPED_STAGE.lock().unwrap_or_else(|e| e.into_inner()) = None;
    TRIPPED.store(false, Ordering::Relaxed);
}

/// The error for a run that passed the limit, if it did, leaving it recorded (for
/// [`take_error`]).
pub fn error() -> Option<crate::Error> {
    if !tripped() {
        return None;
    }
    let stage = TRIPPED_STAGE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()?;
    Some(crate::Error::MemoryLimit {
        stage,
        limit: limit().unwrap_or(u64::MAX),
    })
}

/// The error for a run that passed the limit, if it did (and clears the flag).
pub fn take_error() -> Option<crate::Error> {
    TRIPPED.store(false, Ordering::Relaxed);
    let stage = TRIPPED_STAGE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()?;
    Some(crate::Error::MemoryLimit {
        stage,
        limit: limit().unwrap_or(u64::MAX),
    })
}

/// The default limit: half of physical memory, or a third of the data-segment limit
/// (`ulimit -d`) or of the address-space limit (`ulimit -v`) when lower (Linux; `None`
/// elsewhere). The limit counts the heap blocks as the allocator takes them ([`footprint`]); the
/// process's address space also holds thread stacks, freed memory the allocator keeps for reuse
/// and its reserved arenas, hence the margins.
pub fn default_limit() -> Option<u64> {
    [
        physical_memory().map(|b| b / 2),
        rlimit(Resource::Data).map(|b| b / 3),
        rlimit(Resource::AddressSpace).map(|b| b / 3),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// Physical memory in bytes (Linux: `MemTotal` of `/proc/meminfo`).
fn physical_memory() -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    m.lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
}

/// A process limit the default memory limit respects.
#[derive(Debug, Clone, Copy)]
enum Resource {
    /// `RLIMIT_DATA` (`ulimit -d`).
    Data,
    /// `RLIMIT_AS` (`ulimit -v`).
    AddressSpace,
}

/// The soft limit `resource` in bytes, when finite.
#[cfg(unix)]
fn rlimit(resource: Resource) -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let which = match resource {
        Resource::Data => libc::RLIMIT_DATA,
        Resource::AddressSpace => libc::RLIMIT_AS,
    };
    // SAFETY: getrlimit writes into the struct we pass.
    let ok = unsafe { libc::getrlimit(which, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
}

#[cfg(not(unix))]
fn rlimit(_: Resource) -> Option<u64> {
    None
}

/// Parses a limit as the CLI takes it: bytes with an optional K/M/G/T suffix (powers of 1024),
/// a percentage of physical memory (`50%`), or `none`.
pub fn parse_limit(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    if let Some(p) = t.strip_suffix('%') {
        let pct: f64 = p
            .trim()
            .parse()
            .map_err(|_| format!("`{text}`: not a percentage"))?;
        if !(pct > 0.0 && pct <= 100.0) {
            return Err(format!("`{text}`: a percentage must be in (0, 100]"));
        }
        let physical = physical_memory()
            .ok_or_else(|| format!("`{text}`: physical memory is unknown here"))?;
        return Ok(Some((physical as f64 * pct / 100.0) as u64));
    }
    let (digits, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let n: f64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: expected a size such as 512M, 4G or 80%"))?;
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        other => return Err(format!("`{text}`: unknown unit `{other}`")),
    };
    if n.is_nan() || n <= 0.0 {
        return Err(format!("`{text}`: the limit must be positive"));
    }
    Ok(Some((n * scale as f64) as u64))
}

/// This process's peak resident memory in bytes: on Linux the high-water mark of its own address
/// space (`VmHWM` in `/proc/self/status`); `None` elsewhere or when it cannot be read.
///
/// Unlike the `ru_maxrss` a parent gets from `wait4`, it is this program's alone: Linux carries
/// the resident high-water mark of the address space a process replaced at `exec` into its
/// `ru_maxrss`, so a child spawned by a large process (a test harness) reports at least the
/// parent's resident memory at the time of the spawn.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// Tells the C allocator behind [`System`] (glibc's malloc) to keep freed memory for reuse
/// within the process instead of handing it back to the kernel at once: no trimming of arenas
/// below 256 MiB and no fresh `mmap` for blocks under 32 MiB. A query allocates and frees
/// per-chunk buffers on every worker thread; with glibc's defaults each round gives pages back
/// (`madvise`) and faults them in again zero-filled, which showed as a fifth of a co-star
/// cycle query's CPU time in `perf`. For a short-lived process (the `gemp` binary calls this
/// first) the cost is only that freed memory stays counted in its RSS until it exits; a memory
/// limit ([`set_limit`]) keeps at most an eighth of itself so. No-op on other C libraries.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; called before other threads exist.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_FREED);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
    }
    KEEPING_FREED.store(true, Ordering::Relaxed);
}

/// Hands the memory freed inside the C allocator's arenas back to the kernel (glibc's
/// `malloc_trim`). A stage that frees large inputs while it builds their replacement (the model
/// builder's freeze frees each builder column once its frozen column exists) calls it so that the
/// resident memory falls with the heap count: freed chunks below the top of a heap stay resident
/// otherwise, and [`keep_freed_memory`] keeps up to 256 MiB at the top. No-op on other C
/// libraries.
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's arenas to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn the_peak_resident_memory_covers_memory_just_touched() {
        let mut block = vec![0u8; 64 << 20];
        for i in (0..block.len()).step_by(4096) {
            block[i] = 1;
        }
        std::hint::black_box(&block);
        let peak = super::peak_resident_bytes().expect("VmHWM on Linux");
        assert!(peak >= 64 << 20, "peak {peak} bytes with 64 MiB touched");
    }

    use super::*;

    #[test]
    fn blocks_are_counted_as_the_allocator_takes_them() {
        let l = |size, align| footprint(Layout::from_size_align(size, align).unwrap());
        // Header and 16-byte granules, 32 bytes at least.
        assert_eq!(l(1, 1), 32);
        assert_eq!(l(24, 8), 32);
        assert_eq!(l(25, 8), 48);
        assert_eq!(l(48, 8), 64);
        assert_eq!(l(1000, 8), 1008);
        // Alignment beyond 16 is paid for.
        assert_eq!(l(64, 64), 80 + 64);
    }

    #[test]
    fn limits_parse_as_sizes_percentages_or_none() {
        assert_eq!(parse_limit("512M"), Ok(Some(512 << 20)));
        assert_eq!(parse_limit("2g"), Ok(Some(2 << 30)));
        assert_eq!(parse_limit("1.5K"), Ok(Some(1536)));
        assert_eq!(parse_limit("4096"), Ok(Some(4096)));
        assert_eq!(parse_limit("none"), Ok(None));
        assert!(parse_limit("0").is_err());
        assert!(parse_limit("12Q").is_err());
        assert!(parse_limit("abc").is_err());
        assert!(parse_limit("150%").is_err());
        if default_limit().is_some() {
            let half = parse_limit("50%").unwrap().unwrap();
            let all = parse_limit("100%").unwrap().unwrap();
            assert!(half > 0 && half < all);
        }
    }
}
