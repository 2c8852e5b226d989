/*
 * triangles.cl — weighted triangle listing over a co-occurrence graph: the device form of the
 * host's co-star triangles (src/matcher/triangles.rs; Rust: gemp::matcher::device::triangles;
 * built after common.cl and factorised.cl, in one program).
 *
 * A factorised plan whose three kept nodes are joined pairwise through three eliminated middle
 * nodes (the co-star cycle p1-t1-p2-t2-p3-t3-p1) counts, for each kept triple a < b < c whose
 * pairs share middle nodes, the distinct middle triples around it:
 *   w = c_ab * c_bc * c_ca - T * (c_ab + c_bc + c_ca) + 2 * T,
 * with c_xy the middle nodes x and y share and T those all three share.
 *
 * Inputs:
 *   co_off, co_nbr, co_cnt   the co-occurrence graph oriented by rank (built by the factorised
 *                            kernel, oriented and sorted on the host): for a kept node x with
 *                            co_base <= x < co_base + co_span, its list is
 *                            co_nbr[co_off[x - co_base] .. co_off[x - co_base + 1]), every y of
 *                            higher rank sharing a middle node with x, ascending by id, with
 *                            co_cnt = c_xy;
 *   mid_off, mid_nbr         each kept node's middle nodes, sorted and distinct: list of v is
 *                            mid_nbr[mid_off[mid_start + v - mid_base] ..
 *                            mid_off[mid_start + v - mid_base + 1]) when
 *                            mid_base <= v < mid_base + mid_span;
 *   pivots[n]                the nodes a this launch takes; each work-item takes the next
 *                            untaken one (atomic_inc on *next_pivot, zero at launch);
 *   mode                     0 = count (weights summed into sums[p]), 1 = rows;
 *   min_weight               triangles of smaller weight are dropped.
 * Outputs:
 *   rows[]     rows of 5 uints (a, b, c in rank order, weight low word, weight high word),
 *              slots reserved with
 *              atomic_inc on *row_counter; a slot >= row_cap is not written;
 *   status[p]  per pivot: 0 = done, 1 = the row buffer was full (the host drops the pivot's rows and runs
 *              it again);
 *   sums[p]    mode 0: the sum of the weights of the triangles at pivot p.
 * Invariants:
 *   - every triangle of the co-occurrence graph is found once, at its lowest-ranked node a:
 *     b in N+(a), c in N+(a) ∩ N+(b) by a merge of the two sorted lists (only b, the middle
 *     rank, has the highest-ranked node c in its list);
 *   - reads stay inside the arrays (positions come from the offsets); no scratch memory.
 */

inline void tri_range(__global const uint* off, uint start, uint base, uint span, uint v,
                      uint* lo, uint* hi)
{
    if (v < base || v - base >= span) {
        *lo = 0u;
        *hi = 0u;
        return;
    }
    *lo = off[start + v - base];
    *hi = off[start + v - base + 1u];
}

/* The triangles at node a; rows written (mode 1) or weights summed into *sum_out. Returns
 * the status (0 or 1, see the header). */
inline uint tri_at(__global const uint* co_off, __global const uint* co_nbr,
                   __global const uint* co_cnt, uint co_base, uint co_span,
                   __global const uint* mid_off, __global const uint* mid_nbr, uint mid_start,
                   uint mid_base, uint mid_span, uint a, uint mode, ulong min_weight,
                   __global uint* rows, uint row_cap, __global uint* row_counter,
                   ulong* sum_out)
{
    uint st = 0u;
    ulong sum = 0ul;
    uint a0, a1;
    tri_range(co_off, 0u, co_base, co_span, a, &a0, &a1);
    uint ma0, ma1;
    tri_range(mid_off, mid_start, mid_base, mid_span, a, &ma0, &ma1);
    for (uint i = a0; i < a1 && st == 0u; i++) {
        uint b = co_nbr[i];
        ulong ab = (ulong)co_cnt[i];
        uint b0, b1;
        tri_range(co_off, 0u, co_base, co_span, b, &b0, &b1);
        uint j = a0, k = b0;
        while (j < a1 && k < b1) {
            uint x = co_nbr[j], y = co_nbr[k];
            if (x < y) {
                j++;
                continue;
            }
            if (y < x) {
                k++;
                continue;
            }
            uint c = x;
            ulong ac = (ulong)co_cnt[j];
            ulong bc = (ulong)co_cnt[k];
            j++;
            k++;
            /* T: middle nodes of a that b and c share too. */
            uint mb0, mb1, mc0, mc1;
            tri_range(mid_off, mid_start, mid_base, mid_span, b, &mb0, &mb1);
            tri_range(mid_off, mid_start, mid_base, mid_span, c, &mc0, &mc1);
            ulong t = 0ul;
            for (uint p = ma0; p < ma1; p++) {
                uint m = mid_nbr[p];
                if (sorted_contains_u32(mid_nbr, mb0, mb1, m) && sorted_contains_u32(mid_nbr, mc0, mc1, m)) {
                    t++;
                }
            }
            long w = (long)(ab * bc * ac) - (long)(t * (ab + bc + ac)) + 2l * (long)t;
            if (w <= 0 || (ulong)w < min_weight) {
                continue;
            }
            if (mode == 0u) {
                sum += (ulong)w;
                continue;
            }
            uint slot = atomic_inc(row_counter);
            if (slot >= row_cap) {
                st = 1u;
                break;
            }
            __global uint* row = rows + (ulong)slot * 5u;
            row[0] = a;
            row[1] = b;
            row[2] = c;
            row[3] = (uint)((ulong)w);
            row[4] = (uint)((ulong)w >> 32);
        }
    }
    *sum_out = sum;
    return st;
}

__kernel void triangles(__global const uint* co_off, __global const uint* co_nbr,
                        __global const uint* co_cnt, uint co_base, uint co_span,
                        __global const uint* mid_off, __global const uint* mid_nbr,
                        uint mid_start, uint mid_base, uint mid_span,
                        __global const uint* pivots, uint n, __global uint* next_pivot,
                        uint mode, ulong min_weight, __global uint* rows, uint row_cap,
                        __global uint* row_counter, __global uint* status,
                        __global ulong* sums)
{
    for (;;) {
        uint p = atomic_inc(next_pivot);
        if (p >= n) {
            return;
        }
        ulong sum = 0ul;
        status[p] = tri_at(co_off, co_nbr, co_cnt, co_base, co_span, mid_off, mid_nbr,
                           mid_start, mid_base, mid_span, pivots[p], mode, min_weight, rows,
                           row_cap, row_counter, &sum);
        sums[p] = sum;
    }
}
