/*
 * scan.cl — exclusive prefix sum and stream compaction over uint arrays (OpenCL C 1.2)
 * (Rust: gemp::gpu::SCAN_CL, driven by src/gpu/scan.rs).
 *
 * Scheme (multi-level block scan): each work-group of L work-items (L a power of two) scans a
 * block of 2L elements in local memory with the work-efficient up-sweep/down-sweep (Blelloch)
 * tree and writes the block's total to block_sums; the host scans block_sums the same way
 * (recursively) and scan_add_block_offsets adds each block's offset to its elements.
 *
 * scan_blocks
 *   Inputs:  input[0..n); predicate != 0 scans (input[i] != 0 ? 1 : 0) instead of input[i];
 *            tmp = __local uint[2L].
 *   Outputs: output[i] = sum of the block's elements before i (exclusive, within the block),
 *            block_sums[g] = sum of block g's elements, for g < ceil(n / 2L).
 *   Invariants: launched with global = ceil(n / 2L) * L, local = L; positions >= n count as 0 and
 *   are never written; sums wrap modulo 2^32 (as the host's wrapping_add).
 *
 * scan_add_block_offsets
 *   Inputs:  data[0..n) scanned per block, offsets[g] = exclusive scan of block_sums.
 *   Outputs: data[i] += offsets[i / 2L], making data the exclusive scan of the whole array.
 *   Invariants: same launch shape as scan_blocks (each work-item updates two elements).
 *
 * compact_scatter
 *   Inputs:  flags[0..n), positions = exclusive scan of (flags != 0).
 *   Outputs: out[positions[i]] = i for every i with flags[i] != 0, so out[0..count) lists those
 *            indices in ascending order.
 *   Invariants: one work-item per element; out has room for count = positions[n-1] +
 *   (flags[n-1] != 0) entries; items with id >= n do nothing.
 */

__kernel void scan_blocks(__global const uint* input, __global uint* output,
                          __global uint* block_sums, const uint n, const uint predicate,
                          __local uint* tmp)
{
    const uint lid = get_local_id(0);
    const uint l = get_local_size(0);
    const uint block = get_group_id(0);
    /* size_t arithmetic: base + 2L may exceed uint range when n is close to 2^32. */
    const size_t base = (size_t)block * 2u * l;
    const size_t ia = base + lid;
    const size_t ib = base + lid + l;

    uint va = (ia < n) ? input[ia] : 0u;
    uint vb = (ib < n) ? input[ib] : 0u;
    if (predicate) {
        va = (va != 0u) ? 1u : 0u;
        vb = (vb != 0u) ? 1u : 0u;
    }
    tmp[lid] = va;
    tmp[lid + l] = vb;

    /* Up-sweep: build partial sums in place. */
    uint offset = 1u;
    for (uint d = l; d > 0u; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint a = offset * (2u * lid + 1u) - 1u;
            uint b = offset * (2u * lid + 2u) - 1u;
            tmp[b] += tmp[a];
        }
        offset <<= 1;
    }

    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) {
        block_sums[block] = tmp[2u * l - 1u];
        tmp[2u * l - 1u] = 0u;
    }

    /* Down-sweep: turn the partial sums into an exclusive scan. */
    for (uint d = 1u; d < 2u * l; d <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint a = offset * (2u * lid + 1u) - 1u;
            uint b = offset * (2u * lid + 2u) - 1u;
            uint t = tmp[a];
            tmp[a] = tmp[b];
            tmp[b] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (ia < n) {
        output[ia] = tmp[lid];
    }
    if (ib < n) {
        output[ib] = tmp[lid + l];
    }
}

__kernel void scan_add_block_offsets(__global uint* data, __global const uint* offsets,
                                     const uint n)
{
    const uint lid = get_local_id(0);
    const uint l = get_local_size(0);
    const uint block = get_group_id(0);
    const size_t base = (size_t)block * 2u * l;
    const uint add = offsets[block];
    if (base + lid < n) {
        data[base + lid] += add;
    }
    if (base + lid + l < n) {
        data[base + lid + l] += add;
    }
}

__kernel void compact_scatter(__global const uint* flags, __global const uint* positions,
                              __global uint* out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n && flags[i] != 0u) {
        out[positions[i]] = i;
    }
}
