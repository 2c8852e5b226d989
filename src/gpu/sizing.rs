//! Work sizing: global/local work sizes and GEMP's thread-count formulas (§7.2, formulas 1–3).
//!
//! Pure functions, no device needed. None of them panics: degenerate inputs (a local size of 0, a
//! non-finite growth factor…) are documented and mapped to safe values.
//!
//! # GEMP's next-round thread count
//!
//! When a graph cannot be processed in one kernel launch, GEMP runs several rounds, each with a
//! result buffer of fixed capacity (`maxBuf`). After a round used `currBuf` slots of it, the next
//! round's global thread count is
//!
//! ```text
//! (1)  new = init * (maxBuf / currBuf) * C     if maxBuf / currBuf > C      (3)
//! (2)  new = init * C                          otherwise
//! ```
//!
//! where `init` is the thread count of the measured round. See [`next_thread_count`].

use super::device::DeviceType;

/// Default growth factor `C` of GEMP's formulas 1 and 2 (see [`next_thread_count`]).
pub const DEFAULT_GROWTH: f64 = 2.0;

/// Default work-group size for a device type: 64 for CPUs (PoCL runs a work-group as one loop, so
/// small groups balance better across cores), 256 for GPUs (several warps/wavefronts per group
/// hide latency), 128 for accelerators and anything else.
pub fn default_local_size(device_type: DeviceType) -> usize {
    match device_type {
        DeviceType::Cpu => 64,
        DeviceType::Gpu => 256,
        DeviceType::Accelerator | DeviceType::Other => 128,
    }
}

/// Work-items of a launch whose work-items loop over a queue of tasks (each takes the next
/// untaken one): enough groups of `local` to keep every compute unit busy — 4 per compute unit
/// on a CPU (PoCL runs a group as one loop on one core; a few per core balance the tail), 16 on
/// a GPU (several resident groups per multiprocessor hide memory latency), 8 elsewhere. Always a
/// non-zero multiple of `local` (a `local` of 0 counts as 1).
pub fn persistent_work_items(device_type: DeviceType, compute_units: usize, local: usize) -> usize {
    let groups_per_unit = match device_type {
        DeviceType::Cpu => 4,
        DeviceType::Gpu => 16,
        DeviceType::Accelerator | DeviceType::Other => 8,
    };
    compute_units.max(1) * groups_per_unit * local.max(1)
}

/// Work-group size for a kernel: `preferred` (or [`default_local_size`] when `None`), capped by the
/// device's maximum work-group size and the kernel's own `CL_KERNEL_WORK_GROUP_SIZE` (when known).
/// Always ≥ 1; a limit of 0 (an odd driver answer) is ignored.
pub fn choose_local_size(
    device_type: DeviceType,
    device_max: usize,
    kernel_max: Option<usize>,
    preferred: Option<usize>,
) -> usize {
    let mut size = preferred.unwrap_or_else(|| default_local_size(device_type));
    for limit in [Some(device_max), kernel_max].into_iter().flatten() {
        if limit > 0 {
            size = size.min(limit);
        }
    }
    size.max(1)
}

/// Largest power of two ≤ `n` (1 for `n` ≤ 1). Tree-shaped kernels (the scan) need power-of-two
/// work-groups.
pub fn floor_power_of_two(n: usize) -> usize {
    if n <= 1 {
        1
    } else {
        1usize << (usize::BITS - 1 - n.leading_zeros())
    }
}

/// `n` rounded up to a multiple of `multiple` (OpenCL 1.2 requires the global size to be a
/// multiple of the local size; kernels then guard `get_global_id(0) < n`). A `multiple` of 0 is
/// treated as 1. Saturates at the largest multiple that fits in `usize`.
pub fn round_up(n: usize, multiple: usize) -> usize {
    let m = multiple.max(1);
    match n.checked_next_multiple_of(m) {
        Some(v) => v,
        None => (usize::MAX / m) * m,
    }
}

/// Number of work-groups of `local` items covering `n` items (`ceil(n / local)`; `local` 0 counts
/// as 1).
pub fn groups_for(n: usize, local: usize) -> usize {
    n.div_ceil(local.max(1))
}

/// Formula 3: whether the result buffer was used so little that formula 1 (scale by the unused
/// ratio) applies: `max_buf / curr_buf > c`. An unused buffer (`curr_buf == 0`) has an infinite
/// ratio, so formula 1 applies whenever `max_buf > 0`.
///
/// `c` is sanitised as in [`next_thread_count`].
pub fn formula_3(max_buf: usize, curr_buf: usize, c: f64) -> bool {
    let c = sanitize_growth(c);
    if max_buf == 0 {
        return false;
    }
    if curr_buf == 0 {
        return true;
    }
    (max_buf as f64 / curr_buf as f64) > c
}

/// GEMP's formulas 1–3: the global thread count for the next round.
///
/// - `init_threads`: the global thread count of the round just measured (`initThreadNum`);
/// - `max_buf`: capacity of the result buffer, in results (`maxBuffSize`);
/// - `curr_buf`: results that round wrote to it (`currentBuffSize`; may exceed `max_buf` when
///   the round overflowed — then the ratio is < 1 and formula 2 applies);
/// - `c`: the growth factor `C` ([`DEFAULT_GROWTH`] = 2.0 is a good start);
/// - `remaining`: work items (e.g. pivot candidates) not processed yet.
///
/// Returns `init * (max_buf / curr_buf) * c` when [`formula_3`] holds (formula 1), else
/// `init * c` (formula 2), rounded to the nearest integer and clamped to `[1, remaining]`
/// (`remaining` 0 gives 1: a caller with no work left should not launch at all).
///
/// # The growth factor `C`
///
/// `C` sets how fast the thread count moves between rounds. A larger `C` (e.g. 4) reaches a
/// well-filled result buffer in fewer rounds — fewer kernel launches and host round trips, which
/// dominate when the buffer is barely used — but overshoots more often: an overflowing round must be
/// partly redone, which the paper notes is just as costly. A smaller `C` (e.g. 1.2) changes the
/// count cautiously: fewer overflows, more rounds. 2.0 doubles per round under formula 2 and is the
/// default. A `c` that is not finite or not positive is replaced by [`DEFAULT_GROWTH`].
///
/// The formulas as published do not single out a round that overflowed (`curr_buf >= max_buf`):
/// with `C` > 1 formula 2 still grows the count then. A caller that wants to back off after an
/// overflow passes a `C` below 1 for that round (formula 2 then shrinks the count).
pub fn next_thread_count(
    init_threads: usize,
    max_buf: usize,
    curr_buf: usize,
    c: f64,
    remaining: usize,
) -> usize {
    let c = sanitize_growth(c);
    let upper = remaining.max(1);
    let init = init_threads.max(1) as f64;
    let new = if formula_3(max_buf, curr_buf, c) {
        if curr_buf == 0 {
            // Infinite ratio: nothing was found, so the whole remaining work can run next.
            return upper;
        }
        init * (max_buf as f64 / curr_buf as f64) * c
    } else {
        init * c
    };
    // `as` saturates (and maps NaN to 0), so this cannot overflow.
    (new.round() as usize).clamp(1, upper)
}

fn sanitize_growth(c: f64) -> f64 {
    if c.is_finite() && c > 0.0 {
        c
    } else {
        DEFAULT_GROWTH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(round_up(0, 64), 0);
        assert_eq!(round_up(1, 64), 64);
        assert_eq!(round_up(64, 64), 64);
        assert_eq!(round_up(65, 64), 128);
        assert_eq!(round_up(100_003, 256), 100_096);
        assert_eq!(round_up(7, 0), 7);
        assert_eq!(round_up(usize::MAX, 64), usize::MAX / 64 * 64);
        assert_eq!(groups_for(0, 64), 0);
        assert_eq!(groups_for(65, 64), 2);
        assert_eq!(groups_for(5, 0), 5);
    }

    /// Persistent launches: a few groups per CPU core, more per GPU multiprocessor, always whole
    /// groups and never zero (a device reporting no compute units still gets one).
    #[test]
    fn persistent_work_item_counts() {
        assert_eq!(persistent_work_items(DeviceType::Cpu, 2, 64), 512);
        assert_eq!(
            persistent_work_items(DeviceType::Gpu, 132, 256),
            132 * 16 * 256
        );
        assert_eq!(persistent_work_items(DeviceType::Other, 4, 32), 4 * 8 * 32);
        assert_eq!(persistent_work_items(DeviceType::Cpu, 0, 0), 4);
        for (cu, local) in [(1, 1), (3, 48), (16, 64), (80, 128)] {
            for ty in [DeviceType::Cpu, DeviceType::Gpu, DeviceType::Accelerator] {
                let n = persistent_work_items(ty, cu, local);
                assert!(n >= local && n % local == 0, "{ty:?} {cu} {local}: {n}");
            }
        }
    }

    #[test]
    fn local_sizes() {
        assert_eq!(default_local_size(DeviceType::Cpu), 64);
        assert_eq!(default_local_size(DeviceType::Gpu), 256);
        assert_eq!(choose_local_size(DeviceType::Gpu, 1024, None, None), 256);
        assert_eq!(choose_local_size(DeviceType::Gpu, 128, None, None), 128);
        assert_eq!(choose_local_size(DeviceType::Gpu, 1024, Some(96), None), 96);
        assert_eq!(choose_local_size(DeviceType::Cpu, 4096, None, None), 64);
        assert_eq!(
            choose_local_size(DeviceType::Cpu, 4096, None, Some(512)),
            512
        );
        assert_eq!(choose_local_size(DeviceType::Cpu, 0, Some(0), None), 64);
        assert_eq!(choose_local_size(DeviceType::Cpu, 1, None, None), 1);
        assert_eq!(choose_local_size(DeviceType::Cpu, 8, None, Some(0)), 1);
        assert_eq!(floor_power_of_two(0), 1);
        assert_eq!(floor_power_of_two(1), 1);
        assert_eq!(floor_power_of_two(96), 64);
        assert_eq!(floor_power_of_two(256), 256);
        assert_eq!(floor_power_of_two(usize::MAX), 1 << (usize::BITS - 1));
    }

    #[test]
    fn gemp_formulas() {
        // Buffer 1/10 used, ratio 10 > C=2: formula 1 → 100 * 10 * 2.
        assert!(formula_3(1000, 100, 2.0));
        assert_eq!(next_thread_count(100, 1000, 100, 2.0, 1_000_000), 2000);
        // Half used, ratio 2 is not > 2: formula 2 → 100 * 2.
        assert!(!formula_3(1000, 500, 2.0));
        assert_eq!(next_thread_count(100, 1000, 500, 2.0, 1_000_000), 200);
        // Overflow (curr > max) with C = 0.5: ratio 1/3 is not > 0.5, formula 2 shrinks to 50;
        // ratio 2/3 is > 0.5, formula 1 gives 100 * 2/3 * 0.5 = 33.
        assert_eq!(next_thread_count(100, 1000, 3000, 0.5, 1_000_000), 50);
        assert_eq!(next_thread_count(100, 1000, 1500, 0.5, 1_000_000), 33);
        // Overflow with C = 2: formula 2 still doubles (the paper's formulas as written).
        assert_eq!(next_thread_count(100, 1000, 1500, 2.0, 1_000_000), 200);
        // Clamped to the remaining work and to at least one thread.
        assert_eq!(next_thread_count(100, 1000, 100, 2.0, 300), 300);
        assert_eq!(next_thread_count(1, 1000, 1000, 0.1, 10), 1);
        assert_eq!(next_thread_count(100, 1000, 100, 2.0, 0), 1);
        // Empty buffer: everything remaining.
        assert!(formula_3(1000, 0, 2.0));
        assert_eq!(next_thread_count(100, 1000, 0, 2.0, 12345), 12345);
        // Zero capacity never triggers formula 1.
        assert!(!formula_3(0, 0, 2.0));
        assert_eq!(next_thread_count(100, 0, 0, 2.0, 1000), 200);
        // Bad C falls back to the default.
        assert_eq!(next_thread_count(100, 1000, 500, f64::NAN, 1_000_000), 200);
        assert_eq!(next_thread_count(100, 1000, 500, -1.0, 1_000_000), 200);
        assert_eq!(
            next_thread_count(100, 1000, 500, f64::INFINITY, 1_000_000),
            200
        );
        // Huge values saturate instead of overflowing.
        assert_eq!(
            next_thread_count(usize::MAX, usize::MAX, 1, 1e300, usize::MAX),
            usize::MAX
        );
        // init 0 counts as 1.
        assert_eq!(next_thread_count(0, 1000, 500, 2.0, 1000), 2);
    }
}
