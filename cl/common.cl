/*
 * common.cl — shared OpenCL C 1.2 helpers; prepended to every program that uses them
 * (Rust: gemp::gpu::COMMON_CL).
 *
 * Inputs:  __global arrays of the flattened CSR adjacency (src/model/csr.rs, GEMP §5 Fig. 3):
 *          `offsets` (node_count + 1 entries), and per entry `types` (relationship type id) and
 *          `neighbors` (neighbour node id), parallel arrays.
 * Outputs: none of their own — inline functions returning positions, counts or flags.
 * Invariants the helpers rely on:
 *   - every search range [lo, hi) satisfies lo <= hi and lies inside the array;
 *   - lower_bound_u32 / upper_bound_u32 need a[lo..hi) sorted ascending;
 *   - each node's list offsets[u]..offsets[u+1] is sorted by (type, neighbour), so the entries of
 *     one type are contiguous and sorted by neighbour id;
 *   - positions and ids fit in uint; GEMP_NOT_FOUND (0xFFFFFFFF) is never a valid position.
 * No helper writes memory; all are safe to call from any work-item.
 */
#ifndef GEMP_COMMON_CL
#define GEMP_COMMON_CL

/* "Any relationship type" (same value as gemp::model::csr::ANY_TYPE). */
#define GEMP_ANY_TYPE 0xFFFFFFFFu
/* Returned by searches that find nothing. */
#define GEMP_NOT_FOUND 0xFFFFFFFFu

/* First position p in [lo, hi) with a[p] >= x; hi when there is none. */
inline uint lower_bound_u32(__global const uint* a, uint lo, uint hi, uint x)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (a[mid] < x) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* First position p in [lo, hi) with a[p] > x; hi when there is none. */
inline uint upper_bound_u32(__global const uint* a, uint lo, uint hi, uint x)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (a[mid] <= x) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Whether the sorted run a[lo, hi) holds x. */
inline bool sorted_contains_u32(__global const uint* a, uint lo, uint hi, uint x)
{
    uint p = lower_bound_u32(a, lo, hi, x);
    return p < hi && a[p] == x;
}

/*
 * First position p in the CSR segment [lo, hi) whose entry (types[p], neighbors[p]) is
 * >= (ty, v) in lexicographic order; hi when there is none. The segment must be sorted by
 * (type, neighbour). `ty` must be a concrete type (not GEMP_ANY_TYPE).
 */
inline uint lower_bound_edge(__global const uint* types, __global const uint* neighbors,
                             uint lo, uint hi, uint ty, uint v)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        uint t = types[mid];
        if (t < ty || (t == ty && neighbors[mid] < v)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/*
 * Position of an entry (ty, v) in the CSR segment [lo, hi) sorted by (type, neighbour), or
 * GEMP_NOT_FOUND. With parallel edges, the first such entry. ty == GEMP_ANY_TYPE searches every
 * type run of the segment (one binary search per run) and returns the first match found.
 */
inline uint binary_search_edge(__global const uint* types, __global const uint* neighbors,
                               uint lo, uint hi, uint ty, uint v)
{
    if (ty != GEMP_ANY_TYPE) {
        uint p = lower_bound_edge(types, neighbors, lo, hi, ty, v);
        return (p < hi && types[p] == ty && neighbors[p] == v) ? p : GEMP_NOT_FOUND;
    }
    while (lo < hi) {
        uint t = types[lo];
        uint run_end = upper_bound_u32(types, lo, hi, t);
        uint p = lower_bound_u32(neighbors, lo, run_end, v);
        if (p < run_end && neighbors[p] == v) {
            return p;
        }
        lo = run_end;
    }
    return GEMP_NOT_FOUND;
}

/*
 * Whether node u has an edge of type ty (or any type, GEMP_ANY_TYPE) to node v in the CSR
 * (offsets, types, neighbors). u must be < node_count.
 */
inline bool has_edge(__global const uint* offsets, __global const uint* types,
                     __global const uint* neighbors, uint u, uint v, uint ty)
{
    return binary_search_edge(types, neighbors, offsets[u], offsets[u + 1u], ty, v)
        != GEMP_NOT_FOUND;
}

#endif /* GEMP_COMMON_CL */
