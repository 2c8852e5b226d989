/*
 * factorised.cl — factorised counting on the device: the host's factorised plan
 * (src/matcher/factorised.rs) run per pivot, so a grouped query's counted nodes are never
 * enumerated and only kept bindings with their weights come back (OpenCL C 1.2).
 * (Rust: gemp::matcher::device::factorised, which encodes the plan and builds the lists; needs
 * common.cl before it: lower_bound_u32, sorted_contains_u32.)
 *
 * Inputs:
 *   plan[]       the encoded plan (layout below; every offset is an index into plan[]);
 *   lists:       `n_lists` *projected lists*, each a CSR over a node-id range: descriptor
 *                (offsets start, base id, span) in plan[]; list j of node v is
 *                list_nbr[list_off[o] .. list_off[o + 1]) with o = start + (v - base) when
 *                base <= v < base + span, else empty. A list holds the neighbours of v along one
 *                pattern relationship's types and direction that are candidates of the node at
 *                its other end, sorted ascending and distinct (built by the host per query);
 *   pivots[n]    the candidates of step 0 this launch takes; each work-item takes the next
 *                untaken one (atomic_inc on *next_pivot, zero at launch) until none is left, so
 *                any number of work-items serves any number of pivots;
 *   scratch[]    per work-item `regions` regions of `region_words` uints, then `tables`
 *                tables of 2 * `table_slots` uints: region i (< steps) holds the eliminated set
 *                a two-hop step expands from, region steps + e the set of eliminated node e
 *                once its kept neighbours are bound; table FS_TABLE of a two-hop step holds its
 *                candidates (open addressing: keys, then per key the number of middle nodes
 *                reaching it);
 *   mode         0 = count (weights summed into sums[p]), 1 = rows;
 *   min_weight   bindings with a smaller weight are dropped (and two-hop candidates reached by
 *                fewer middle nodes, whose count bounds the weight from above, are pruned).
 * Outputs:
 *   rows[]       rows of `steps + 2` uints: the kept nodes in step order, then the weight's low
 *                and high word; slots reserved with atomic_inc on *row_counter; a slot >=
 *                row_cap is not written;
 *   status[p]    per pivot: 0 = done; 1 = the row buffer was full (the pivot's rows are incomplete:
 *                the host drops them and runs the pivot again); 2 = a set exceeded region_words
 *                or a two-hop step's candidates exceeded its table (the host runs this pivot
 *                itself);
 *   sums[p]      mode 0: the sum of the weights of pivot p's bindings.
 * Invariants:
 *   - the same bindings and weights as FactorExec on the host: kept steps bound in plan order,
 *     a two-hop step's candidate v produced once, with reach = the number of middle nodes of
 *     the step's eliminated set whose list holds v (each list is distinct, so the table's count);
 *   - a table is sized to a power of two at least twice the entries it will hold, so probing
 *     always ends at the key or an empty slot;
 *   - iterative backtracking with cursors in private memory (depth <= FX_MAX_STEPS); no
 *     recursion, no dynamic allocation; every read inside its array (list positions come from
 *     list_off, scratch positions are < region_words);
 *   - under node-injectivity the kept nodes are distinct; kept and eliminated candidate sets
 *     are disjoint (the host runs plans where they may overlap itself).
 *
 * plan[] layout (factorised.rs FX_*): header, then list descriptors (3 words each), steps
 * (FX_STEP_WORDS each), eliminated nodes (2 words: link count, offset of (list, step) pairs),
 * partitions ([coefficient as int, block count, then per block: size, members]) and the
 * auxiliary arrays the offsets point at.
 */

#ifndef FX_MAX_STEPS
#define FX_MAX_STEPS 16
#endif

/* Header. */
#define FH_STEPS 0
#define FH_ELIM 1
#define FH_PARTS 2
#define FH_HOMOMORPHISM 3
#define FH_WEIGHT_COUNTED 4
#define FH_LISTS_OFF 5
#define FH_STEPS_OFF 6
#define FH_ELIM_OFF 7
#define FH_PARTS_OFF 8

/* Step fields. */
#define FX_STEP_WORDS 17
#define FS_KIND 0
#define FS_LIST 1      /* expand: from -> node; two-hop: eliminated -> node (projected) */
#define FS_FROM 2      /* expand: step of the bound end */
#define FS_ELIM 3      /* two-hop: eliminated node */
#define FS_BACK 4      /* two-hop: node -> eliminated list (the link at this node) */
#define FS_VIA_CNT 5   /* two-hop: (list, step) pairs of the links to bound kept nodes */
#define FS_VIA_OFF 6
#define FS_AFTER_CNT 7 /* id(node) > id(step) for these steps */
#define FS_AFTER_OFF 8
#define FS_BEFORE_CNT 9 /* id(node) < id(step) */
#define FS_BEFORE_OFF 10
#define FS_CHECK_CNT 11 /* (list, src step, dst step): dst's node in list(src's node) */
#define FS_CHECK_OFF 12
#define FS_DONE_CNT 13  /* eliminated nodes completed at this step */
#define FS_DONE_OFF 14
#define FS_COUNTED 15   /* eliminated node whose set size is this step's reach, or FX_NONE */
#define FS_TABLE 16     /* two-hop: index of its candidate table */

#define KIND_PIVOT 0u
#define KIND_EXPAND 1u
#define KIND_TWO_HOP 2u
#define FX_NONE 0xFFFFFFFFu

/* The list `j` of node v as [*lo, *hi) in list_nbr. */
inline void fx_list(__global const uint* plan, __global const uint* list_off, uint j, uint v,
                    uint* lo, uint* hi)
{
    uint d = plan[FH_LISTS_OFF] + 3u * j;
    uint start = plan[d], base = plan[d + 1u], span = plan[d + 2u];
    if (v < base || v - base >= span) {
        *lo = 0u;
        *hi = 0u;
        return;
    }
    uint o = start + (v - base);
    *lo = list_off[o];
    *hi = list_off[o + 1u];
}

/*
 * Intersects the lists of `cnt` (list, step) pairs at plan[off..] for the bound nodes into
 * out[0..), returning its length, or FX_NONE when it would exceed cap.
 */
inline uint fx_intersect(__global const uint* plan, __global const uint* list_off,
                         __global const uint* list_nbr, uint cnt, uint off, const uint* nodes,
                         __global uint* out, uint cap)
{
    /* Every list's range once (cnt <= FX_MAX_STEPS: one link per kept node). */
    uint lo[FX_MAX_STEPS], hi[FX_MAX_STEPS];
    uint best = 0u;
    for (uint i = 0u; i < cnt; i++) {
        fx_list(plan, list_off, plan[off + 2u * i], nodes[plan[off + 2u * i + 1u]], &lo[i],
                &hi[i]);
        if (hi[i] - lo[i] < hi[best] - lo[best]) {
            best = i;
        }
    }
    if (cnt == 0u || hi[best] - lo[best] > cap) {
        return cnt == 0u ? 0u : FX_NONE;
    }
    uint n = 0u;
    for (uint p = lo[best]; p < hi[best]; p++) {
        uint x = list_nbr[p];
        bool all = true;
        for (uint i = 0u; i < cnt && all; i++) {
            all = i == best || sorted_contains_u32(list_nbr, lo[i], hi[i], x);
        }
        if (all) {
            out[n++] = x;
        }
    }
    return n;
}

/* Size of the intersection of the eliminated sets in a partition block. */
inline uint fx_block(__global const uint* plan, uint off, uint size,
                     __global const uint* region, uint region_words, uint steps,
                     const uint* set_len)
{
    uint small = plan[off];
    for (uint i = 1u; i < size; i++) {
        if (set_len[plan[off + i]] < set_len[small]) {
            small = plan[off + i];
        }
    }
    __global const uint* s = region + (steps + small) * region_words;
    uint n = 0u;
    for (uint p = 0u; p < set_len[small]; p++) {
        bool all = true;
        for (uint i = 0u; i < size && all; i++) {
            uint e = plan[off + i];
            if (e != small) {
                all = sorted_contains_u32(region + (steps + e) * region_words, 0u, set_len[e], s[p]);
            }
        }
        if (all) {
            n++;
        }
    }
    return n;
}

/*
 * One pivot: every kept binding it starts, weighed; rows written (mode 1) or the weights summed
 * into *sum_out. Returns the pivot's status (0, 1 or 2, see the header).
 */
inline uint fx_pivot(__global const uint* plan, __global const uint* list_off,
                     __global const uint* list_nbr, uint pivot, __global uint* region,
                     uint region_words, uint regions, uint table_slots, uint mode,
                     ulong min_weight, __global uint* rows, uint row_cap,
                     __global uint* row_counter, ulong* sum_out)
{
    uint steps = plan[FH_STEPS];
    uint n_elim = plan[FH_ELIM];
    bool homomorphism = plan[FH_HOMOMORPHISM] != 0u;
    bool weight_counted = plan[FH_WEIGHT_COUNTED] != 0u;
    __global uint* table_base = region + regions * region_words;

    uint nodes[FX_MAX_STEPS];
    uint cur[FX_MAX_STEPS];   /* expand: next list position; two-hop: next table slot */
    uint end[FX_MAX_STEPS];   /* end of that list; two-hop: the table's size */
    uint lo_id[FX_MAX_STEPS]; /* id bounds of the level's node */
    uint hi_id[FX_MAX_STEPS];
    uint set_len[FX_MAX_STEPS];
    ulong counted = 0ul;
    ulong sum = 0ul;
    uint st = 0u;

    int level = 0;
    bool descend = true; /* true: bind the pivot first */
    uint v = pivot;
    uint reach = 0u;
    for (;;) {
        if (!descend) {
            /* Next candidate of `level` (or backtrack). */
            uint s = plan[FH_STEPS_OFF] + (uint)level * FX_STEP_WORDS;
            bool found = false;
            if (plan[s + FS_KIND] == KIND_EXPAND) {
                while (cur[level] < end[level]) {
                    uint x = list_nbr[cur[level]++];
                    if (x >= hi_id[level]) {
                        cur[level] = end[level];
                        break;
                    }
                    v = x;
                    reach = 0u;
                    found = true;
                    break;
                }
            } else {
                /* The candidate table: keys, then counts (middle nodes reaching the key). */
                __global const uint* keys = table_base + plan[s + FS_TABLE] * 2u * table_slots;
                while (cur[level] < end[level]) {
                    uint j = cur[level]++;
                    uint x = keys[j];
                    if (x == FX_NONE || (ulong)keys[end[level] + j] < min_weight) {
                        continue;
                    }
                    v = x;
                    reach = keys[end[level] + j];
                    found = true;
                    break;
                }
            }
            if (!found) {
                level--;
                if (level <= 0) {
                    break;
                }
                continue;
            }
        }
        descend = false;
        /* Try to bind step `level` to v. */
        uint s = plan[FH_STEPS_OFF] + (uint)level * FX_STEP_WORDS;
        bool ok = true;
        if (!homomorphism) {
            for (int j = 0; j < level && ok; j++) {
                ok = nodes[j] != v;
            }
        }
        if (!ok) {
            if (level == 0) {
                break;
            }
            continue;
        }
        nodes[level] = v;
        for (uint i = 0u; i < plan[s + FS_CHECK_CNT] && ok; i++) {
            uint c = plan[s + FS_CHECK_OFF] + 3u * i;
            uint a, b;
            fx_list(plan, list_off, plan[c], nodes[plan[c + 1u]], &a, &b);
            ok = sorted_contains_u32(list_nbr, a, b, nodes[plan[c + 2u]]);
        }
        for (uint i = 0u; i < plan[s + FS_DONE_CNT] && ok; i++) {
            uint e = plan[plan[s + FS_DONE_OFF] + i];
            if (weight_counted && plan[s + FS_COUNTED] == e) {
                counted = reach;
                continue;
            }
            uint eo = plan[FH_ELIM_OFF] + 2u * e;
            uint got = fx_intersect(plan, list_off, list_nbr, plan[eo], plan[eo + 1u], nodes,
                                    region + (steps + e) * region_words, region_words);
            if (got == FX_NONE) {
                st = 2u;
                break;
            }
            set_len[e] = got;
            ok = got > 0u;
        }
        if (st != 0u) {
            break;
        }
        if (!ok) {
            if (level == 0) {
                break;
            }
            continue;
        }
        if ((uint)level + 1u == steps) {
            /* A complete kept binding: its weight. */
            ulong w;
            if (weight_counted) {
                w = counted;
            } else if (homomorphism) {
                w = 1ul;
                for (uint e = 0u; e < n_elim; e++) {
                    w *= (ulong)set_len[e];
                }
            } else if (n_elim == 1u) {
                w = (ulong)set_len[0];
            } else {
                long total = 0;
                uint po = plan[FH_PARTS_OFF];
                for (uint pi = 0u; pi < plan[FH_PARTS]; pi++) {
                    long term = (long)(int)plan[po];
                    uint blocks = plan[po + 1u];
                    po += 2u;
                    for (uint bi = 0u; bi < blocks; bi++) {
                        uint size = plan[po];
                        if (term != 0) {
                            uint c = size == 1u ? set_len[plan[po + 1u]]
                                                : fx_block(plan, po + 1u, size, region,
                                                           region_words, steps, set_len);
                            term *= (long)c;
                        }
                        po += 1u + size;
                    }
                    total += term;
                }
                w = total > 0 ? (ulong)total : 0ul;
            }
            if (w > 0ul && w >= min_weight) {
                if (mode == 0u) {
                    sum += w;
                } else {
                    uint slot = atomic_inc(row_counter);
                    if (slot >= row_cap) {
                        st = 1u;
                        break;
                    }
                    __global uint* row = rows + (ulong)slot * (steps + 2u);
                    for (uint j = 0u; j < steps; j++) {
                        row[j] = nodes[j];
                    }
                    row[steps] = (uint)w;
                    row[steps + 1u] = (uint)(w >> 32);
                }
            }
            if (level == 0) {
                break;
            }
            continue;
        }
        /* Descend: prepare level + 1. */
        level++;
        s = plan[FH_STEPS_OFF] + (uint)level * FX_STEP_WORDS;
        uint lo = 0u, hi = 0xFFFFFFFFu;
        for (uint i = 0u; i < plan[s + FS_AFTER_CNT]; i++) {
            uint x = nodes[plan[plan[s + FS_AFTER_OFF] + i]];
            lo = max(lo, x == 0xFFFFFFFFu ? x : x + 1u);
        }
        for (uint i = 0u; i < plan[s + FS_BEFORE_CNT]; i++) {
            hi = min(hi, nodes[plan[plan[s + FS_BEFORE_OFF] + i]]);
        }
        lo_id[level] = lo;
        hi_id[level] = hi;
        if (plan[s + FS_KIND] == KIND_EXPAND) {
            uint a, b;
            fx_list(plan, list_off, plan[s + FS_LIST], nodes[plan[s + FS_FROM]], &a, &b);
            cur[level] = lower_bound_u32(list_nbr, a, b, lo);
            end[level] = b;
        } else {
            __global uint* set = region + (uint)level * region_words;
            uint got = fx_intersect(plan, list_off, list_nbr, plan[s + FS_VIA_CNT],
                                    plan[s + FS_VIA_OFF], nodes, set, region_words);
            if (got == FX_NONE) {
                st = 2u;
                break;
            }
            /* Count the neighbours of the middle nodes in an open-addressing table sized for
             * all of them (a power of two at least twice their number). */
            uint list = plan[s + FS_LIST];
            ulong total = 0ul;
            for (uint i = 0u; i < got; i++) {
                uint a, b;
                fx_list(plan, list_off, list, set[i], &a, &b);
                total += (ulong)(b - a);
            }
            uint size = 2u, bits = 1u;
            while ((ulong)size < 2ul * total) {
                size <<= 1;
                bits++;
            }
            if (size > table_slots) {
                st = 2u;
                break;
            }
            __global uint* keys = table_base + plan[s + FS_TABLE] * 2u * table_slots;
            __global uint* counts = keys + size;
            for (uint j = 0u; j < size; j++) {
                keys[j] = FX_NONE;
            }
            for (uint i = 0u; i < got; i++) {
                uint a, b;
                fx_list(plan, list_off, list, set[i], &a, &b);
                for (uint p = lower_bound_u32(list_nbr, a, b, lo); p < b; p++) {
                    uint x = list_nbr[p];
                    if (x >= hi) {
                        break;
                    }
                    uint h = (x * 0x9E3779B1u) >> (32u - bits);
                    for (;;) {
                        if (keys[h] == x) {
                            counts[h]++;
                            break;
                        }
                        if (keys[h] == FX_NONE) {
                            keys[h] = x;
                            counts[h] = 1u;
                            break;
                        }
                        h = (h + 1u) & (size - 1u);
                    }
                }
            }
            cur[level] = 0u;
            end[level] = size;
        }
    }
    *sum_out = sum;
    return st;
}

__kernel void factorised(__global const uint* plan, __global const uint* list_off,
                         __global const uint* list_nbr, __global const uint* pivots, uint n,
                         __global uint* next_pivot, __global uint* scratch, uint region_words,
                         uint regions, uint table_slots, uint tables, uint mode,
                         ulong min_weight, __global uint* rows, uint row_cap,
                         __global uint* row_counter, __global uint* status,
                         __global ulong* sums)
{
    __global uint* region = scratch + (ulong)get_global_id(0)
                                          * (regions * region_words + tables * 2u * table_slots);
    for (;;) {
        uint p = atomic_inc(next_pivot);
        if (p >= n) {
            return;
        }
        ulong sum = 0ul;
        status[p] = fx_pivot(plan, list_off, list_nbr, pivots[p], region, region_words, regions,
                             table_slots, mode, min_weight, rows, row_cap, row_counter, &sum);
        sums[p] = sum;
    }
}
