/*
 * gpsense_join.cl — GpSense's edge-candidate collection with the two-step output scheme
 * (OpenCL C 1.2), driven by src/gpsense/device.rs. Same CSR layout as gpsense_filter.cl.
 *
 * gpsense_edge_count — step 1, one work-item per candidate of the relationship's bound end.
 *   Inputs:  cands[0..ncands); one direction's CSR; rel_types[0..ntypes) (0 = any);
 *            far_flags[y] != 0 when y is a candidate of the other end; loop_only != 0 for a
 *            self-loop relationship (only y == v counts).
 *   Outputs: counts[i] = number of entries of cands[i]'s list that are edge candidates.
 *
 * (host: exclusive prefix sum of the per-candidate totals, scan.cl)
 *
 * gpsense_edge_write — step 2, same launch and inputs as the count.
 *   Inputs:  offsets[i] = where candidate i writes its first entry of this direction.
 *            edge_ids: the CSR's edge id per entry when has_ids != 0, else the position is the id.
 *   Outputs: far[offsets[i] + j], edges[offsets[i] + j] for the j-th edge candidate of cands[i],
 *            in list order (sorted by type then neighbour).
 *   Invariants: far/edges hold sum(counts) entries; each candidate writes only its own range.
 */

static uint allowed(__global const uint* rel_types, uint ntypes, uint t)
{
    uint ok = (ntypes == 0);
    for (uint i = 0; i < ntypes; ++i) ok |= (t == rel_types[i]);
    return ok;
}

__kernel void gpsense_edge_count(__global const uint* cands, const uint ncands,
                                 __global const uint* offsets, __global const uint* neighbours,
                                 __global const uint* types, __global const uint* rel_types,
                                 const uint ntypes, __global const uint* far_flags,
                                 const uint loop_only, __global uint* counts)
{
    const uint i = get_global_id(0);
    if (i >= ncands) return;
    const uint v = cands[i];
    uint c = 0;
    for (uint p = offsets[v]; p < offsets[v + 1]; ++p) {
        const uint y = neighbours[p];
        c += allowed(rel_types, ntypes, types[p]) && far_flags[y] && (!loop_only || y == v);
    }
    counts[i] = c;
}

__kernel void gpsense_edge_write(__global const uint* cands, const uint ncands,
                                 __global const uint* offsets, __global const uint* neighbours,
                                 __global const uint* types, __global const uint* rel_types,
                                 const uint ntypes, __global const uint* far_flags,
                                 const uint loop_only, __global const uint* edge_ids,
                                 const uint has_ids, __global const uint* out_offsets,
                                 __global uint* far, __global uint* edges)
{
    const uint i = get_global_id(0);
    if (i >= ncands) return;
    const uint v = cands[i];
    uint o = out_offsets[i];
    for (uint p = offsets[v]; p < offsets[v + 1]; ++p) {
        const uint y = neighbours[p];
        if (allowed(rel_types, ntypes, types[p]) && far_flags[y] && (!loop_only || y == v)) {
            far[o] = y;
            edges[o] = has_ids ? edge_ids[p] : p;
            ++o;
        }
    }
}
