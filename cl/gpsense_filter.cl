/*
 * gpsense_filter.cl — GpSense's filtering phase (OpenCL C 1.2), driven by src/gpsense/device.rs.
 *
 * The graph is a CSR per direction: offsets[0..n], neighbours and types per entry, each node's
 * list sorted by (type, neighbour). Node labels are a CSR (label_offsets, labels), each node's
 * labels sorted ascending.
 *
 * gpsense_init — candidate initialisation (GpSense Definition 3), one work-item per data node.
 *   Inputs:  spec = the pattern node's requirements as uints:
 *              [groups, (len, label...)*groups, needs, (dir, count, ntypes, type...)*needs]
 *            a label group holds when the node has one of its labels; dir 0 = out, 1 = in,
 *            2 = either; ntypes 0 = any type; a need holds when the node's edges of those types in
 *            that direction number at least count.
 *   Outputs: flags[v] = 1 when v passes every label group and every need, else 0.
 *   Invariants: items with id >= n do nothing.
 *
 * gpsense_mark — neighbour filtering, one work-group per candidate (the group strides over the
 *   candidate's list, so a very-high-degree node keeps a whole group busy and neighbouring reads
 *   coalesce).
 *   Inputs:  cands[0..ncands) candidate data nodes of the bound end; one direction's CSR;
 *            rel_types[0..ntypes) (ntypes 0 = any).
 *   Outputs: marks[y] = 1 for every neighbour y over an edge of an allowed type.
 *   Invariants: launched with global = ncands * local; marks only ever set to 1 (benign races).
 *
 * gpsense_and — flags[v] &= marks[v]; removed[0] counts the flags cleared (atomic).
 *   Invariants: one work-item per node, items with id >= n do nothing.
 */

static uint typed_count(__global const uint* offsets, __global const uint* types, uint v,
                        uint ty)
{
    uint lo = offsets[v], hi = offsets[v + 1];
    /* first position with type >= ty */
    uint a = lo, b = hi;
    while (a < b) {
        uint m = a + (b - a) / 2;
        if (types[m] < ty) a = m + 1; else b = m;
    }
    uint first = a;
    b = hi;
    while (a < b) {
        uint m = a + (b - a) / 2;
        if (types[m] <= ty) a = m + 1; else b = m;
    }
    return a - first;
}

static uint dir_degree(__global const uint* offsets, __global const uint* types, uint v,
                       __global const uint* tys, uint ntypes)
{
    if (ntypes == 0) return offsets[v + 1] - offsets[v];
    uint sum = 0;
    for (uint i = 0; i < ntypes; ++i) sum += typed_count(offsets, types, v, tys[i]);
    return sum;
}

__kernel void gpsense_init(__global const uint* label_offsets, __global const uint* labels,
                           __global const uint* out_offsets, __global const uint* out_types,
                           __global const uint* in_offsets, __global const uint* in_types,
                           __global const uint* spec, const uint n, __global uint* flags)
{
    const uint v = get_global_id(0);
    if (v >= n) return;
    uint p = 0;
    uint ok = 1;
    const uint groups = spec[p++];
    const uint lb = label_offsets[v], le = label_offsets[v + 1];
    for (uint g = 0; g < groups; ++g) {
        const uint len = spec[p++];
        uint any = 0;
        for (uint i = 0; i < len; ++i) {
            const uint want = spec[p + i];
            for (uint j = lb; j < le; ++j) any |= (labels[j] == want);
        }
        p += len;
        ok &= any;
    }
    const uint needs = spec[p++];
    for (uint k = 0; k < needs; ++k) {
        const uint dir = spec[p++];
        const uint count = spec[p++];
        const uint ntypes = spec[p++];
        __global const uint* tys = spec + p;
        p += ntypes;
        uint have = 0;
        if (dir == 0 || dir == 2) have += dir_degree(out_offsets, out_types, v, tys, ntypes);
        if (dir == 1 || dir == 2) have += dir_degree(in_offsets, in_types, v, tys, ntypes);
        ok &= (have >= count);
    }
    flags[v] = ok;
}

__kernel void gpsense_mark(__global const uint* cands, const uint ncands,
                           __global const uint* offsets, __global const uint* neighbours,
                           __global const uint* types, __global const uint* rel_types,
                           const uint ntypes, __global uint* marks)
{
    const uint c = get_group_id(0);
    if (c >= ncands) return;
    const uint v = cands[c];
    const uint lo = offsets[v], hi = offsets[v + 1];
    for (uint p = lo + get_local_id(0); p < hi; p += get_local_size(0)) {
        uint ok = (ntypes == 0);
        for (uint i = 0; i < ntypes; ++i) ok |= (types[p] == rel_types[i]);
        if (ok) marks[neighbours[p]] = 1;
    }
}

__kernel void gpsense_and(__global uint* flags, __global const uint* marks, const uint n,
                          __global uint* removed)
{
    const uint v = get_global_id(0);
    if (v >= n) return;
    if (flags[v] && !marks[v]) {
        flags[v] = 0;
        atomic_inc(removed);
    }
}
