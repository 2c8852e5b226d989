/*
 * selftest.cl — kernels that prove the device path works (build, arguments, buffers, results);
 * compiled after common.cl (Rust: gemp::gpu::SELFTEST_CL). Used by tests/gpu_access.rs.
 *
 * selftest_lower_bound
 *   Inputs:  sorted[0..n) ascending; queries[0..q).
 *   Outputs: lower[i] = lower_bound_u32(sorted, 0, n, queries[i]) and
 *            upper[i] = upper_bound_u32(sorted, 0, n, queries[i]) for i < q.
 *   Invariants: one work-item per query; items with id >= q do nothing (the global size may be
 *   rounded up).
 *
 * selftest_has_edge
 *   Inputs:  a CSR (offsets[0..node_count], types, neighbors; each list sorted by (type, neighbour))
 *            and q queries (qu[i], qv[i], qt[i]); qt may be GEMP_ANY_TYPE.
 *   Outputs: found[i] = position of the first matching entry (binary_search_edge), or
 *            GEMP_NOT_FOUND; 0xFFFFFFFE when qu[i] >= node_count (rejected, never read).
 *   Invariants: as above; offsets[node_count] is the number of entries.
 */

__kernel void selftest_lower_bound(__global const uint* sorted, const uint n,
                                   __global const uint* queries, const uint q,
                                   __global uint* lower, __global uint* upper)
{
    uint i = get_global_id(0);
    if (i >= q) {
        return;
    }
    uint x = queries[i];
    lower[i] = lower_bound_u32(sorted, 0u, n, x);
    upper[i] = upper_bound_u32(sorted, 0u, n, x);
}

__kernel void selftest_has_edge(__global const uint* offsets, const uint node_count,
                                __global const uint* types, __global const uint* neighbors,
                                __global const uint* qu, __global const uint* qv,
                                __global const uint* qt, const uint q,
                                __global uint* found)
{
    uint i = get_global_id(0);
    if (i >= q) {
        return;
    }
    uint u = qu[i];
    if (u >= node_count) {
        found[i] = 0xFFFFFFFEu;
        return;
    }
    found[i] = binary_search_edge(types, neighbors, offsets[u], offsets[u + 1u], qt[i], qv[i]);
}
