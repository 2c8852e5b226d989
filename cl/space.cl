/*
 * space.cl — counting over the candidate space (src/engines/gemp/space/) on the device: the
 * host core's filter → order → enumerate with the enumeration here (Rust:
 * gemp::engines::gemp::device::space; built after common.cl, in one program).
 *
 * A work-group extends one partial match at a time, cooperatively: the local candidates of the
 * next pattern node are the intersection of the candidate-edge rows of its bound neighbours; the
 * work-items split the shortest row and test each entry against the other rows (binary search)
 * and against the nodes bound already (node-isomorphism), then compact the survivors into the
 * work-group's stack with a prefix sum in local memory. The last pattern node is counted by the
 * size of that intersection, never visited. Counts go into a per-work-group sum (no global atomic
 * per embedding); the host adds the sums.
 *
 * Inputs (all uint unless said; "depth" = position in the matching order):
 *   plan        SP_* header, then per depth d: plan[SP_BACK + d] = where its backward list
 *               starts, [count, (table start, parent depth) × count]; plan[SP_OVL + d] = where
 *               its overlap list starts, [count, depth × count] (earlier depths whose candidate
 *               sets share a node with d's: the only ones an injectivity check reads);
 *   cand_off    k + 1 offsets: depth d's candidates are cand_nodes[cand_off[d] .. cand_off[d+1]),
 *               node ids sorted ascending; a "position" is an index into that range;
 *   tab_off     every table's row offsets, concatenated: table t (starting at s) has row i =
 *               tab_tgt[tab_off[s + i] .. tab_off[s + i + 1]) — absolute positions in tab_tgt
 *               (one array for all tables: its length must fit in uint);
 *   tab_tgt     positions in the far end's candidate list; every row sorted and distinct;
 *   roots       mode SPACE_EDGES: unused; the roots are the entries first .. first + n of the
 *               table from depth 0 to depth 1 (edge-parallel first level). Mode SPACE_PREFIXES:
 *               n prefixes of root_len positions each (host-checked partial matches);
 *   next_root   zero at launch; each work-group takes the next root with one atomic_inc;
 *   stack       stack_words uints per work-group (the positions of every open level).
 * Outputs:
 *   sums[g]     matches counted by work-group g in this launch (roots that overflowed excluded);
 *   overflow    indices (0 .. n) of the roots whose levels did not fit in the stack, count in
 *               *overflow_count (at most n, so the list never overflows); the host splits each
 *               into its extensions one node deeper and runs those as prefixes.
 * Invariants:
 *   - k <= SPACE_MAX_NODES; the local size is at most SPACE_WG_MAX;
 *   - every work-item reaches every barrier: the kernel is one loop with barriers at fixed
 *     places, one chunk of one intersection per iteration; work-item 0 alone decides (between
 *     barriers) what comes next. The loop is left only at its head, on a private copy
 *     (`running`) of the local exit flag taken right after the first barrier: no `break` out of
 *     the middle of a loop that holds barriers. The last iteration (exit flag set) still runs
 *     the chunk with no candidate (keep = 0) and so reaches every barrier. (The earlier kernel
 *     left the loop with a `break` between its barriers; PoCL 3.1's work-group functions ran
 *     parts of the body twice for groups of two or more work-items — counts too high, e.g. 132
 *     for K5's 120 ordered 4-cliques — crashed with POCL_WORK_GROUP_METHOD=loops and hung
 *     with four or more work-items);
 *   - s_exit is written by work-item 0 only before the first barrier of an iteration and read
 *     by every work-item only after it, with the scan's barriers and the second barrier between
 *     that read and the next write;
 *   - a prefix of length k - 1 never overflows (the last node is counted, not stored), so
 *     splitting terminates;
 *   - every read is inside its array: positions come from offsets, stack writes are checked
 *     against stack_words.
 */

#define SPACE_MAX_NODES 32u
#define SPACE_WG_MAX 256u
#define SPACE_EDGES 0u
#define SPACE_PREFIXES 1u

#define SP_K 0u
#define SP_INJECTIVE 1u
#define SP_BACK 2u
#define SP_OVL (SP_BACK + SPACE_MAX_NODES)
#define SP_EDGE_TABLE (SP_OVL + SPACE_MAX_NODES)
#define SP_EDGE_ROWS (SP_EDGE_TABLE + 1u)
#define SP_HEADER (SP_EDGE_ROWS + 1u)

/* The job of a work-group: computing one depth's local candidates, a chunk at a time. */
#define J_ACTIVE 0u
#define J_DEPTH 1u
#define J_X 2u
#define J_HI 3u
#define J_TOTAL 4u
#define J_AT 5u
#define J_SKIP 6u
#define J_WORDS 7u

/* Whether position x at depth d survives: in every backward row but `skip` and, under
 * node-isomorphism, not the node of an overlapping bound depth. */
inline bool space_keep(__global const uint* plan, __global const uint* cand_off,
                       __global const uint* cand_nodes, __global const uint* tab_off,
                       __global const uint* tab_tgt, __local const uint* idx,
                       __local const uint* ids, uint d, uint x, uint skip)
{
    uint b = plan[SP_BACK + d];
    uint nb = plan[b];
    for (uint i = 0u; i < nb; i++) {
        if (i == skip) {
            continue;
        }
        uint s = plan[b + 1u + 2u * i];
        uint p = plan[b + 2u + 2u * i];
        uint lo = tab_off[s + idx[p]];
        uint hi = tab_off[s + idx[p] + 1u];
        if (!sorted_contains_u32(tab_tgt, lo, hi, x)) {
            return false;
        }
    }
    if (plan[SP_INJECTIVE] != 0u) {
        uint node = cand_nodes[cand_off[d] + x];
        uint o = plan[SP_OVL + d];
        uint no = plan[o];
        for (uint i = 0u; i < no; i++) {
            if (ids[plan[o + 1u + i]] == node) {
                return false;
            }
        }
    }
    return true;
}

/* The shortest backward row of depth d: its index in the backward list, and its range. */
inline uint space_shortest(__global const uint* plan, __global const uint* tab_off,
                           __local const uint* idx, uint d, uint* lo, uint* hi)
{
    uint b = plan[SP_BACK + d];
    uint nb = plan[b];
    uint best = 0u;
    *lo = 0u;
    *hi = 0u;
    uint best_len = 0xFFFFFFFFu;
    for (uint i = 0u; i < nb; i++) {
        uint s = plan[b + 1u + 2u * i];
        uint p = plan[b + 2u + 2u * i];
        uint l = tab_off[s + idx[p]];
        uint h = tab_off[s + idx[p] + 1u];
        if (h - l < best_len) {
            best_len = h - l;
            best = i;
            *lo = l;
            *hi = h;
        }
    }
    return best;
}

/* Exclusive prefix sum of scan[0 .. ls) in place (Hillis–Steele); returns the total. Every
 * work-item of the group must call it. */
inline uint space_scan(__local uint* scan, uint lid, uint ls)
{
    uint mine = scan[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1u; off < ls; off <<= 1u) {
        uint add = lid >= off ? scan[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        scan[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint total = scan[ls - 1u];
    uint excl = scan[lid] - mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    scan[lid] = excl;
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Sets up the job of computing depth d's local candidates (lid 0 only). */
inline void space_job(__global const uint* plan, __global const uint* tab_off,
                      __local const uint* idx, uint d, uint used, __local uint* job)
{
    uint lo, hi;
    job[J_SKIP] = space_shortest(plan, tab_off, idx, d, &lo, &hi);
    job[J_DEPTH] = d;
    job[J_X] = lo;
    job[J_HI] = hi;
    job[J_TOTAL] = 0u;
    job[J_AT] = used;
    job[J_ACTIVE] = 1u;
}

__kernel void space_count(__global const uint* plan, __global const uint* cand_off,
                          __global const uint* cand_nodes, __global const uint* tab_off,
                          __global const uint* tab_tgt, uint mode,
                          __global const uint* roots, uint root_len, uint first, uint n,
                          __global uint* next_root, __global uint* stack, uint stack_words,
                          __global uint* overflow, __global uint* overflow_count,
                          __global ulong* sums)
{
    __local uint idx[SPACE_MAX_NODES];
    __local uint ids[SPACE_MAX_NODES];
    __local uint base[SPACE_MAX_NODES];
    __local uint len[SPACE_MAX_NODES];
    __local uint cur[SPACE_MAX_NODES];
    __local uint scan[SPACE_WG_MAX];
    /* The current job (J_*) and the current root's state. */
    __local uint job[J_WORDS];
    __local uint s_root, s_root_depth, s_top, s_used, s_over, s_exit;
    __local ulong s_count, s_group;

    uint lid = get_local_id(0);
    uint ls = get_local_size(0);
    uint g = get_group_id(0);
    uint k = plan[SP_K];
    __global uint* my_stack = stack + (ulong)g * (ulong)stack_words;

    if (lid == 0u) {
        s_group = 0ul;
        s_exit = 0u;
        s_over = 0u;
        job[J_ACTIVE] = 0u;
    }
    /* One chunk of one intersection per iteration; work-item 0 alone decides what comes next
     * (finish a level, advance, take a root), so every barrier is reached by every work-item. */
    uint running = 1u;
    while (running != 0u) {
        if (lid == 0u) {
            for (;;) {
                if (job[J_ACTIVE] != 0u && job[J_X] < job[J_HI] && s_over == 0u) {
                    break; /* the job goes on */
                }
                if (job[J_ACTIVE] != 0u) {
                    /* The job is complete: count the last node, or open a level. */
                    job[J_ACTIVE] = 0u;
                    uint d = job[J_DEPTH];
                    bool root_done = false;
                    if (s_over != 0u) {
                        overflow[atomic_inc(overflow_count)] = s_root;
                        root_done = true;
                    } else {
                        if (d + 1u == k) {
                            s_count += (ulong)job[J_TOTAL];
                        } else {
                            base[d] = job[J_AT];
                            len[d] = job[J_TOTAL];
                            cur[d] = 0u;
                            s_used = job[J_AT] + job[J_TOTAL];
                            s_top = d;
                        }
                        /* Advance: the deepest level with a candidate left binds it. */
                        uint top = s_top;
                        while (top >= s_root_depth && cur[top] == len[top]) {
                            s_used = base[top];
                            top = top - 1u;
                        }
                        s_top = top;
                        if (top < s_root_depth) {
                            s_group += s_count;
                            root_done = true;
                        } else {
                            uint x = my_stack[base[top] + cur[top]];
                            cur[top] += 1u;
                            idx[top] = x;
                            ids[top] = cand_nodes[cand_off[top] + x];
                            space_job(plan, tab_off, idx, top + 1u, s_used, job);
                        }
                    }
                    if (!root_done) {
                        continue;
                    }
                }
                /* Take a root and bind its prefix. */
                s_root = atomic_inc(next_root);
                if (s_root >= n) {
                    s_exit = 1u;
                    break;
                }
                uint depth;
                if (mode == SPACE_EDGES) {
                    uint s = plan[SP_EDGE_TABLE];
                    uint rows = plan[SP_EDGE_ROWS];
                    uint a = tab_off[s] + first + s_root;
                    /* The row holding entry a: the last i with tab_off[s + i] <= a. */
                    uint i = upper_bound_u32(tab_off, s, s + rows + 1u, a) - s - 1u;
                    idx[0] = i;
                    idx[1] = tab_tgt[a];
                    depth = 2u;
                } else {
                    for (uint d = 0u; d < root_len; d++) {
                        idx[d] = roots[(ulong)s_root * root_len + d];
                    }
                    depth = root_len;
                }
                for (uint d = 0u; d < depth; d++) {
                    ids[d] = cand_nodes[cand_off[d] + idx[d]];
                }
                /* An edge root still has to pass depth 1's other rows and injectivity. */
                if (mode == SPACE_EDGES &&
                    !space_keep(plan, cand_off, cand_nodes, tab_off, tab_tgt, idx, ids, 1u,
                                idx[1], 0u)) {
                    continue;
                }
                if (depth >= k) {
                    /* A whole match (a pattern of two nodes, from an edge root). */
                    s_group += 1ul;
                    continue;
                }
                s_root_depth = depth;
                s_top = depth - 1u;
                s_used = 0u;
                s_over = 0u;
                s_count = 0ul;
                space_job(plan, tab_off, idx, depth, 0u, job);
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        running = s_exit == 0u ? 1u : 0u;
        /* One chunk of the job: test, compact, store (or only count, at the last node). */
        uint d = job[J_DEPTH];
        uint x = job[J_X] + lid;
        uint keep = running != 0u && x < job[J_HI] &&
                    space_keep(plan, cand_off, cand_nodes, tab_off, tab_tgt, idx, ids, d,
                               tab_tgt[x], job[J_SKIP]);
        scan[lid] = keep;
        uint t = space_scan(scan, lid, ls);
        if (keep && d + 1u < k) {
            uint pos = job[J_AT] + job[J_TOTAL] + scan[lid];
            if (pos < stack_words) {
                my_stack[pos] = tab_tgt[x];
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (lid == 0u && running != 0u) {
            job[J_TOTAL] += t;
            job[J_X] += ls;
            if (d + 1u < k && job[J_AT] + job[J_TOTAL] > stack_words) {
                s_over = 1u;
            }
        }
    }
    if (lid == 0u) {
        sums[g] = s_group;
    }
}
