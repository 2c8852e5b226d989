//! Device prefix sum and stream compaction (`cl/scan.cl`).
//!
//! GEMP's pivot step: "a kernel marks the pivot's candidates and a prefix-sum compaction collects
//! them" — [`compact_flags_device`] turns a flag per node into the dense list of flagged node ids,
//! on the device, ready for the next kernel. GpSense's filter uses the same.
//!
//! The scan is a multi-level block scan: each work-group of `L` items (a power of two) scans `2L`
//! elements in local memory with the work-efficient up-sweep/down-sweep tree, the per-block totals
//! are scanned recursively, and each block then adds its offset. Any length works, including 0 and
//! lengths that are not a multiple of the block; lengths above `u32::MAX` are rejected (indices are
//! `uint` on the device). Sums wrap modulo 2³² like `u32::wrapping_add`.

use super::args::{CompactScatterArgs, LocalMem, ScanAddBlockOffsetsArgs, ScanBlocksArgs};
use super::sizing::{floor_power_of_two, groups_for, round_up};
use super::{DeviceBuffer, Gpu, SCAN_CL};
use crate::error::{Error, Result};
use ocl::Program;

/// Name of the scan program in the [`Gpu`] program cache.
pub const SCAN_PROGRAM: &str = "scan";

/// Exclusive prefix sum of `input` on the device: `out[i] = input[0] + … + input[i-1]`
/// (wrapping), `out[0] = 0`; empty for an empty input.
pub fn exclusive_scan_u32(gpu: &Gpu, input: &[u32]) -> Result<Vec<u32>> {
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let buf = gpu.buffer_from("scan input", input, true)?;
    let (out, _) = exclusive_scan_device(gpu, &buf)?;
    gpu.read(&out)
}

/// Exclusive prefix sum of a device buffer into a new device buffer, and the total (wrapping sum
/// of all elements). The input is not modified.
pub fn exclusive_scan_device(
    gpu: &Gpu,
    input: &DeviceBuffer<u32>,
) -> Result<(DeviceBuffer<u32>, u32)> {
    scan(gpu, input, false)
}

/// Indices `i` (ascending) with `flags[i] != 0`, for flags on the host.
pub fn compact_host_flags(gpu: &Gpu, flags: &[u32]) -> Result<Vec<u32>> {
    if flags.is_empty() {
        return Ok(Vec::new());
    }
    let buf = gpu.buffer_from("compaction flags", flags, true)?;
    compact_flags(gpu, &buf)
}

/// Indices `i` (ascending) with `flags[i] != 0`, for flags already on the device (e.g. written by a
/// candidate-marking kernel).
pub fn compact_flags(gpu: &Gpu, flags: &DeviceBuffer<u32>) -> Result<Vec<u32>> {
    let (indices, _count) = compact_flags_device(gpu, flags)?;
    gpu.read(&indices)
}

/// Stream compaction kept on the device: a buffer whose first (and only) `count` elements are the
/// indices `i` with `flags[i] != 0` in ascending order, and `count`. `count` 0 gives an empty
/// [`DeviceBuffer`].
pub fn compact_flags_device(
    gpu: &Gpu,
    flags: &DeviceBuffer<u32>,
) -> Result<(DeviceBuffer<u32>, usize)> {
    let n = flags.len();
    if n == 0 {
        return Ok((gpu.uninit("compacted indices", 0)?, 0));
    }
    let (positions, count) = scan(gpu, flags, true)?;
    let count = count as usize;
    let out = gpu.uninit::<u32>("compacted indices", count)?;
    if count == 0 {
        return Ok((out, 0));
    }
    let program = program(gpu)?;
    let l = gpu.local_size(&program, CompactScatterArgs::KERNEL, None)?;
    let kernel = gpu.kernel_from(
        &program,
        CompactScatterArgs {
            flags,
            positions: &positions,
            out: &out,
            n: n as u32,
        },
    )?;
    gpu.run(&kernel, round_up(n, l), Some(l))?;
    Ok((out, count))
}

fn program(gpu: &Gpu) -> Result<std::sync::Arc<Program>> {
    gpu.program(SCAN_PROGRAM, &[SCAN_CL], "")
}

/// Scan entry: checks the length, picks the work-group size, runs the levels.
fn scan(gpu: &Gpu, input: &DeviceBuffer<u32>, predicate: bool) -> Result<(DeviceBuffer<u32>, u32)> {
    let n = input.len();
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "scan of buffer `{}`: {n} elements, at most {} supported",
            input.name(),
            u32::MAX
        )));
    }
    if n == 0 {
        return Ok((gpu.uninit("scan output", 0)?, 0));
    }
    let program = program(gpu)?;
    let l = block_local_size(gpu, &program)?;
    scan_level(gpu, &program, l, input, predicate)
}

/// Work-group size `L` of the block scan: a power of two within the device's and the kernels'
/// limits whose `2L` `uint`s fit in local memory.
fn block_local_size(gpu: &Gpu, program: &Program) -> Result<usize> {
    let a = gpu.local_size(program, ScanBlocksArgs::KERNEL, None)?;
    let b = gpu.kernel_max_work_group(program, ScanAddBlockOffsetsArgs::KERNEL)?;
    let mut l = floor_power_of_two(a.min(b.max(1)));
    let local_mem = gpu.info().local_mem_bytes;
    while l > 1 && local_mem > 0 && (2 * l * std::mem::size_of::<u32>()) as u64 > local_mem {
        l /= 2;
    }
    Ok(l)
}

/// One level: block scans into a new buffer, then (more than one block) the block sums are
/// scanned by the next level and added back. Returns the scanned buffer and the total.
fn scan_level(
    gpu: &Gpu,
    program: &Program,
    l: usize,
    input: &DeviceBuffer<u32>,
    predicate: bool,
) -> Result<(DeviceBuffer<u32>, u32)> {
    let n = input.len();
    let groups = groups_for(n, 2 * l);
    let out = gpu.uninit::<u32>("scan output", n)?;
    let sums = gpu.uninit::<u32>("scan block sums", groups)?;
    let blocks = gpu.kernel_from(
        program,
        ScanBlocksArgs {
            input,
            output: &out,
            block_sums: &sums,
            n: n as u32,
            predicate: predicate as u32,
            tmp: LocalMem::new(2 * l),
        },
    )?;
    gpu.run(&blocks, groups * l, Some(l))?;
    let total = if groups == 1 {
        gpu.read(&sums)?[0]
    } else {
        let (offsets, total) = scan_level(gpu, program, l, &sums, false)?;
        let add = gpu.kernel_from(
            program,
            ScanAddBlockOffsetsArgs {
                data: &out,
                offsets: &offsets,
                n: n as u32,
            },
        )?;
        gpu.run(&add, groups * l, Some(l))?;
        total
    };
    Ok((out, total))
}
