/*
 * topology.cl — GEMP phase 1: topological matching of an encoded plan (OpenCL C 1.2)
 * (Rust: gemp::matcher::device, plan layout in src/matcher/device/encode.rs; needs common.cl and
 * predicates.cl before it: graph helpers labels_match, type_range, edge_exists and the predicate
 * interpreter run_program).
 *
 * One compiled program serves every pattern of up to GEMP_MAX_NODES nodes: the pattern arrives as
 * data (`plan`, a flat uint array: header, steps, checks, levels, label CNFs, pivot degree needs,
 * type lists, predicate programs).
 *
 * Graph inputs (uploaded once per model): the flattened CSR in both directions (GEMP §5 Fig. 3):
 *   out_off[n+1], out_nbr[m], out_ty[m]        (edge id of out position p = p)
 *   in_off[n+1],  in_nbr[m],  in_ty[m], in_eid[m]
 *   lab_off[n+1], labs[]                       (node labels, sorted per node)
 * Query inputs:
 *   plan[]                    the encoded plan;
 *   cand_bits[k * bit_words]  per pattern node slot a bitset of the host filter's candidates
 *                             (labels, degrees and unary conjuncts already applied on the host);
 *   scan_nodes[]              candidate lists of the scan steps after the pivot;
 *   pivots[]                  the pivot candidates (compacted output of mark_pivot).
 *
 * mark_pivot
 *   Inputs:  the graph, plan, cand_bits (only when the header asks for it), n.
 *   Outputs: flags[v] = 1 when node v satisfies the pivot's label CNF, the pivot's degree needs
 *            (exactly the host filter's: typed degree >= distinct neighbouring pattern nodes, 1
 *            under homomorphism), and the pivot's unary predicate program (or its bitset).
 *   Invariants: one work-item per node; items >= n do nothing.
 *
 * topology
 *   Inputs:  tasks[2 * n_tasks]: per work-item (pivot index, resume index or GEMP_NONE);
 *            state_in: resume states of the previous round (state_words per task);
 *            mode 0 = count, 1 = bindings; step_budget (0 = unlimited) bounds the candidates one
 *            work-item examines per launch (checked inside every candidate loop, so a long
 *            adjacency scan is interrupted too).
 *   Outputs: counts[gid] = matches found by this launch (count mode; in bindings mode the matches
 *            written); status[gid] = 0 finished, 1 suspended (its state is in
 *            state_out[gid * state_words ..]); results: row_words uints per match (node ids by slot,
 *            then the edge ids of the named relationships by named index), slots
 *            reserved with atomic_inc on *result_counter; a slot index >= result_cap is not
 *            written: the work-item saves its state *with the unwritten match pending* and stops.
 *   Invariants:
 *     - iterative backtracking with an explicit stack in private memory, depth <= plan levels
 *       <= GEMP_MAX_LEVELS; no recursion, no dynamic allocation;
 *     - every distinct binding is produced exactly once: anonymous relationships bind distinct
 *       neighbours (the run of one type is sorted by neighbour, so equal neighbours are adjacent;
 *       a neighbour is skipped when an earlier run of the same expansion holds it), named
 *       relationships enumerate edge ids (an undirected named walk skips, in the incoming runs,
 *       the self loops the outgoing runs already produced);
 *     - under isomorphism a node is never bound twice (injectivity against earlier steps);
 *     - a suspended work-item resumes exactly where it stopped: at depth d == levels it first
 *       re-emits the pending match, otherwise it advances level d from its saved cursor (cursors
 *       always point at the next candidate to examine, and every loop iteration moves them); so
 *       no match is lost or reported twice across rounds, whatever the buffer size or budget;
 *     - all reads stay inside the arrays (positions come from the CSR offsets, slots < k).
 */

#ifndef GEMP_MAX_NODES
#define GEMP_MAX_NODES 16
#endif
#ifndef GEMP_MAX_NAMED_RELS
#define GEMP_MAX_NAMED_RELS 32
#endif
#ifndef GEMP_MAX_LEVELS
#define GEMP_MAX_LEVELS 32
#endif
#ifndef GEMP_NONE
#define GEMP_NONE 0xFFFFFFFFu
#endif

/* Header fields (encode.rs H_*). */
#define H_K 1
#define H_R 2
#define H_STEPS 3
#define H_LEVELS 4
#define H_SEMANTICS 5
#define H_STEPS_OFF 6
#define H_LEVELS_OFF 7
#define H_CHECKS_OFF 8
#define H_CNF_OFF 9
#define H_PIVOT_SLOT 10
#define H_STATE_WORDS 11
#define H_NEEDS_OFF 12
#define H_NEEDS 13
#define H_PIVOT_BITS 14
#define H_PIVOT_PROG_OFF 15
#define H_PIVOT_PROG_LEN 16
#define H_ROW_WORDS 17

/* Step fields (S_*), STEP_WORDS per step. */
#define STEP_WORDS 14
#define S_NODE 0
#define S_KIND 1
#define S_FROM 2
#define S_FROM_STEP 3
#define S_REL 4
#define S_TYPES_OFF 5
#define S_TYPES_CNT 6
#define S_NAMED 7
#define S_CHECKS_OFF 8
#define S_CHECKS_CNT 9
#define S_FILTER_OFF 10
#define S_FILTER_LEN 11
#define S_SCAN_OFF 12
#define S_SCAN_LEN 13

#define KIND_SCAN 0u
#define KIND_OUT 1u
#define KIND_IN 2u
#define KIND_BOTH 3u

/* Check fields (C_*), CHECK_WORDS per check. */
#define CHECK_WORDS 9
#define C_SRC 0
#define C_DST 1
#define C_SRC_STEP 2
#define C_DST_STEP 3
#define C_REL 4
#define C_TYPES_OFF 5
#define C_TYPES_CNT 6
#define C_UNDIRECTED 7
#define C_NAMED 8

/* Level fields (L_*), LEVEL_WORDS per level. */
#define LEVEL_WORDS 4
#define L_KIND 0
#define L_STEP 1
#define L_CHECK 2
#define L_LAST 3
#define LEVEL_NODE 0u
#define LEVEL_CHECK 1u

#define NEED_WORDS 4
#define NEED_OUT 0u
#define NEED_IN 1u
#define NEED_BOTH 2u

#define STATUS_DONE 0u
#define STATUS_SUSPENDED 1u

/* Bit v of pattern slot `slot`'s candidate bitset. */
inline bool cand_has(__global const uint* bits, uint bit_words, uint slot, uint v)
{
    return ((bits[(size_t)slot * bit_words + (v >> 5)] >> (v & 31u)) & 1u) != 0u;
}

/* Number of entries of node v's list of types plan[toff .. toff+tcnt) (tcnt 0 = any type),
 * counting a repeated type once per repetition, as the host's typed_degree does. */
inline uint typed_degree(__global const uint* off, __global const uint* ty,
                         __global const uint* plan, uint toff, uint tcnt, uint v)
{
    uint a = off[v];
    uint b = off[v + 1u];
    if (tcnt == 0u) {
        return b - a;
    }
    uint s = 0u;
    for (uint i = 0u; i < tcnt; ++i) {
        uint t = plan[toff + i];
        uint lo = lower_bound_u32(ty, a, b, t);
        s += upper_bound_u32(ty, lo, b, t) - lo;
    }
    return s;
}

__kernel void mark_pivot(__global const uint* out_off, __global const uint* out_nbr,
                         __global const uint* out_ty, __global const uint* in_off,
                         __global const uint* in_nbr, __global const uint* in_ty,
                         __global const uint* in_eid, __global const uint* lab_off,
                         __global const uint* labs, __global const uint* plan,
                         __global const uint* cand_bits, const uint bit_words,
                         PRED_ARGS_DECL,
                         __global uint* flags, const uint n)
{
    const uint v = (uint)get_global_id(0);
    if (v >= n) {
        return;
    }
    const uint slot = plan[H_PIVOT_SLOT];
    bool ok = labels_match(plan, plan[plan[H_CNF_OFF] + slot], lab_off, labs, v);
    const uint needs = plan[H_NEEDS];
    for (uint j = 0u; j < needs && ok; ++j) {
        uint b = plan[H_NEEDS_OFF] + j * NEED_WORDS;
        uint dir = plan[b];
        uint have = 0u;
        if (dir != NEED_IN) {
            have += typed_degree(out_off, out_ty, plan, plan[b + 2u], plan[b + 3u], v);
        }
        if (dir != NEED_OUT) {
            have += typed_degree(in_off, in_ty, plan, plan[b + 2u], plan[b + 3u], v);
        }
        ok = have >= plan[b + 1u];
    }
    if (ok && plan[H_PIVOT_BITS] != 0u) {
        ok = cand_has(cand_bits, bit_words, slot, v);
    }
    if (ok && plan[H_PIVOT_PROG_LEN] != 0u) {
        uint nodes[GEMP_MAX_NODES];
        uint rels[GEMP_MAX_NAMED_RELS];
        for (uint i = 0u; i < GEMP_MAX_NODES; ++i) {
            nodes[i] = GEMP_NONE;
        }
        for (uint i = 0u; i < GEMP_MAX_NAMED_RELS; ++i) {
            rels[i] = GEMP_NONE;
        }
        nodes[slot] = v;
        ok = run_program(plan, plan[H_PIVOT_PROG_OFF], plan[H_PIVOT_PROG_LEN],
                         plan[H_SEMANTICS] == 0u, nodes, rels, out_off, out_nbr, out_ty, in_off,
                         in_nbr, in_ty, lab_off, labs, PRED_ARGS);
    }
    flags[v] = ok ? 1u : 0u;
}

/* Setup of segment `seg` of an expansion level: positions [*pos, *end), *aux = segment start. */
inline void expand_setup(__global const uint* plan, uint sb, uint seg, uint from,
                         __global const uint* out_off, __global const uint* out_ty,
                         __global const uint* in_off, __global const uint* in_ty, uint* pos,
                         uint* end, uint* aux)
{
    uint tcnt = plan[sb + S_TYPES_CNT];
    uint nt = tcnt == 0u ? 1u : tcnt;
    uint kind = plan[sb + S_KIND];
    bool in_dir = kind == KIND_IN || (kind == KIND_BOTH && seg >= nt);
    uint t = tcnt == 0u ? GEMP_ANY_TYPE : plan[plan[sb + S_TYPES_OFF] + seg % nt];
    if (in_dir) {
        type_range(in_off, in_ty, from, t, pos, end);
    } else {
        type_range(out_off, out_ty, from, t, pos, end);
    }
    *aux = *pos;
}

/* Setup of segment `seg` of a named check level (edges x -> y of one type in x's out list):
 * *pos = first candidate position, *end = end of x's list, *aux = end of the current type run
 * (for any-type checks; *aux == *pos means "no run searched yet"). */
inline void check_setup(__global const uint* plan, uint cb, uint seg, uint a, uint b,
                        __global const uint* out_off, __global const uint* out_nbr,
                        __global const uint* out_ty, uint* pos, uint* end, uint* aux)
{
    uint tcnt = plan[cb + C_TYPES_CNT];
    uint nt = tcnt == 0u ? 1u : tcnt;
    uint dir = seg / nt;
    bool swap = plan[cb + C_UNDIRECTED] != 0u && b < a;
    uint first = swap ? b : a;
    uint second = swap ? a : b;
    uint x = dir == 0u ? first : second;
    uint y = dir == 0u ? second : first;
    uint lo = out_off[x];
    uint hi = out_off[x + 1u];
    *end = hi;
    if (tcnt == 0u) {
        *pos = lo;
        *aux = lo;
    } else {
        uint t = plan[plan[cb + C_TYPES_OFF] + seg % nt];
        *pos = lower_bound_edge(out_ty, out_nbr, lo, hi, t, y);
        *aux = *pos;
    }
}

/* Anonymous checks of step sb (named ones are levels of their own). */
inline bool anon_checks_hold(__global const uint* plan, uint sb, const uint* nodes,
                             __global const uint* out_off, __global const uint* out_nbr,
                             __global const uint* out_ty)
{
    uint cnt = plan[sb + S_CHECKS_CNT];
    uint base = plan[H_CHECKS_OFF] + plan[sb + S_CHECKS_OFF] * CHECK_WORDS;
    for (uint c = 0u; c < cnt; ++c) {
        uint cb = base + c * CHECK_WORDS;
        if (plan[cb + C_NAMED] != 0u) {
            continue;
        }
        if (!edge_exists(out_off, out_nbr, out_ty, plan, plan[cb + C_TYPES_OFF],
                         plan[cb + C_TYPES_CNT], plan[cb + C_UNDIRECTED],
                         nodes[plan[cb + C_SRC]], nodes[plan[cb + C_DST]])) {
            return false;
        }
    }
    return true;
}

/* Whether node y is bound by a step before `step` (injectivity). */
inline bool node_used(__global const uint* plan, uint step, const uint* nodes, uint y)
{
    uint steps_off = plan[H_STEPS_OFF];
    for (uint i = 0u; i < step; ++i) {
        if (nodes[plan[steps_off + i * STEP_WORDS + S_NODE]] == y) {
            return true;
        }
    }
    return false;
}

/* Whether an anonymous expansion already produced neighbour y: at an earlier position p' in
 * [seg_start, p) of the current segment, or in an earlier segment. */
inline bool anon_duplicate(__global const uint* plan, uint sb, uint seg, uint from, uint p,
                           uint seg_start, uint y, __global const uint* out_off,
                           __global const uint* out_nbr, __global const uint* out_ty,
                           __global const uint* in_off, __global const uint* in_nbr,
                           __global const uint* in_ty)
{
    uint tcnt = plan[sb + S_TYPES_CNT];
    uint nt = tcnt == 0u ? 1u : tcnt;
    uint kind = plan[sb + S_KIND];
    bool in_dir = kind == KIND_IN || (kind == KIND_BOTH && seg >= nt);
    __global const uint* nbr = in_dir ? in_nbr : out_nbr;
    __global const uint* ty = in_dir ? in_ty : out_ty;
    if (p > seg_start) {
        uint q = p - 1u;
        if (nbr[q] == y && ty[q] == ty[p]) {
            return true;
        }
        /* Any-type segments hold several type runs: search the earlier ones. */
        if (tcnt == 0u &&
            binary_search_edge(ty, nbr, seg_start, p, GEMP_ANY_TYPE, y) != GEMP_NOT_FOUND) {
            return true;
        }
    }
    for (uint j = 0u; j < seg; ++j) {
        bool jin = kind == KIND_IN || (kind == KIND_BOTH && j >= nt);
        uint t = tcnt == 0u ? GEMP_ANY_TYPE : plan[plan[sb + S_TYPES_OFF] + j % nt];
        __global const uint* joff = jin ? in_off : out_off;
        __global const uint* jnbr = jin ? in_nbr : out_nbr;
        __global const uint* jty = jin ? in_ty : out_ty;
        if (binary_search_edge(jty, jnbr, joff[from], joff[from + 1u], t, y) != GEMP_NOT_FOUND) {
            return true;
        }
    }
    return false;
}

/* The step's device-evaluated filters (a conjunction compiled into one predicate program). */
inline bool step_filters_hold(__global const uint* plan, uint sb, const uint* nodes,
                              const uint* rels, __global const uint* out_off,
                              __global const uint* out_nbr, __global const uint* out_ty,
                              __global const uint* in_off, __global const uint* in_nbr,
                              __global const uint* in_ty, __global const uint* in_eid,
                              __global const uint* lab_off, __global const uint* labs,
                              PRED_ARGS_DECL)
{
    uint len = plan[sb + S_FILTER_LEN];
    if (len == 0u) {
        return true;
    }
    return run_program(plan, plan[sb + S_FILTER_OFF], len, plan[H_SEMANTICS] == 0u, nodes, rels,
                       out_off, out_nbr, out_ty, in_off, in_nbr, in_ty, lab_off, labs, PRED_ARGS);
}

__kernel void topology(__global const uint* out_off, __global const uint* out_nbr,
                       __global const uint* out_ty, __global const uint* in_off,
                       __global const uint* in_nbr, __global const uint* in_ty,
                       __global const uint* in_eid, __global const uint* lab_off,
                       __global const uint* labs, __global const uint* plan,
                       __global const uint* cand_bits, const uint bit_words,
                       __global const uint* scan_nodes, __global const uint* pivots,
                       __global const uint* tasks, const uint n_tasks,
                       __global const uint* state_in, __global uint* state_out,
                       __global uint* status, __global ulong* counts,
                       __global uint* results, const uint result_cap,
                       __global uint* result_counter, const uint mode, const ulong step_budget,
                       PRED_ARGS_DECL)
{
    const uint gid = (uint)get_global_id(0);
    if (gid >= n_tasks) {
        return;
    }
    const uint k = plan[H_K];
    const uint r = plan[H_R]; /* named relationships */
    const uint n_levels = plan[H_LEVELS];
    const uint steps_off = plan[H_STEPS_OFF];
    const uint levels_off = plan[H_LEVELS_OFF];
    const uint checks_off = plan[H_CHECKS_OFF];
    const uint state_words = plan[H_STATE_WORDS];
    const uint row_words = plan[H_ROW_WORDS];
    const bool iso = plan[H_SEMANTICS] == 0u;
    const uint pivot = pivots[tasks[2u * gid]];
    const uint resume = tasks[2u * gid + 1u];

    uint nodes[GEMP_MAX_NODES];
    uint rels[GEMP_MAX_NAMED_RELS];
    uint lv_seg[GEMP_MAX_LEVELS];
    uint lv_pos[GEMP_MAX_LEVELS];
    uint lv_end[GEMP_MAX_LEVELS];
    uint lv_aux[GEMP_MAX_LEVELS];
    for (uint i = 0u; i < GEMP_MAX_NODES; ++i) {
        nodes[i] = GEMP_NONE;
    }
    for (uint i = 0u; i < GEMP_MAX_NAMED_RELS; ++i) {
        rels[i] = GEMP_NONE;
    }

    int d;
    if (resume != GEMP_NONE) {
        __global const uint* s = state_in + (size_t)resume * state_words;
        d = (int)s[0];
        for (uint l = 0u; l < n_levels; ++l) {
            lv_seg[l] = s[1u + 4u * l];
            lv_pos[l] = s[2u + 4u * l];
            lv_end[l] = s[3u + 4u * l];
            lv_aux[l] = s[4u + 4u * l];
        }
        for (uint i = 0u; i < k; ++i) {
            nodes[i] = s[1u + 4u * n_levels + i];
        }
        for (uint i = 0u; i < r; ++i) {
            rels[i] = s[1u + 4u * n_levels + k + i];
        }
    } else {
        /* Level 0 binds the pivot: one candidate. */
        d = 0;
        lv_seg[0] = 0u;
        lv_pos[0] = 0u;
        lv_end[0] = 1u;
        lv_aux[0] = 0u;
    }

    ulong found = 0ul;
    ulong iterations = 0ul;
    bool suspend = false;
    for (;;) {
        if (d == (int)n_levels) {
            /* A complete match. */
            if (mode != 0u) {
                uint slot = atomic_inc(result_counter);
                if (slot >= result_cap) {
                    suspend = true;
                    break;
                }
                __global uint* row = results + (size_t)slot * row_words;
                for (uint i = 0u; i < k; ++i) {
                    row[i] = nodes[i];
                }
                for (uint i = 0u; i < r; ++i) {
                    row[k + i] = rels[i];
                }
            }
            found += 1ul;
            d -= 1;
        }
        if (step_budget != 0ul && iterations >= step_budget) {
            suspend = true;
            break;
        }

        /* Advance level d to its next accepted candidate. */
        const uint lb = levels_off + (uint)d * LEVEL_WORDS;
        const uint step = plan[lb + L_STEP];
        const uint sb = steps_off + step * STEP_WORDS;
        const bool last = plan[lb + L_LAST] != 0u;
        uint seg = lv_seg[d];
        uint pos = lv_pos[d];
        uint end = lv_end[d];
        uint aux = lv_aux[d];
        bool accepted = false;
        bool out_of_budget = false;
        if (plan[lb + L_KIND] == LEVEL_NODE) {
            const uint slot = plan[sb + S_NODE];
            const uint kind = plan[sb + S_KIND];
            if (kind == KIND_SCAN) {
                const uint scan_off = plan[sb + S_SCAN_OFF];
                while (pos < end) {
                    if (step_budget != 0ul && iterations >= step_budget) {
                        out_of_budget = true;
                        break;
                    }
                    iterations += 1ul;
                    uint y = step == 0u ? pivot : scan_nodes[scan_off + pos];
                    pos += 1u;
                    if (iso && node_used(plan, step, nodes, y)) {
                        continue;
                    }
                    nodes[slot] = y;
                    if (!anon_checks_hold(plan, sb, nodes, out_off, out_nbr, out_ty)) {
                        continue;
                    }
                    if (last && !step_filters_hold(plan, sb, nodes, rels, out_off, out_nbr,
                                                   out_ty, in_off, in_nbr, in_ty, in_eid,
                                                   lab_off, labs, PRED_ARGS)) {
                        continue;
                    }
                    accepted = true;
                    break;
                }
            } else {
                const uint from = nodes[plan[sb + S_FROM]];
                const uint rel = plan[sb + S_REL];
                const bool named = plan[sb + S_NAMED] != 0u;
                const uint tcnt = plan[sb + S_TYPES_CNT];
                const uint nt = tcnt == 0u ? 1u : tcnt;
                const uint nsegs = kind == KIND_BOTH ? 2u * nt : nt;
                for (;;) {
                    if (step_budget != 0ul && iterations >= step_budget) {
                        out_of_budget = true;
                        break;
                    }
                    iterations += 1ul;
                    if (pos >= end) {
                        seg += 1u;
                        if (seg >= nsegs) {
                            break;
                        }
                        expand_setup(plan, sb, seg, from, out_off, out_ty, in_off, in_ty, &pos,
                                     &end, &aux);
                        continue;
                    }
                    const uint p = pos;
                    pos += 1u;
                    const bool in_dir = kind == KIND_IN || (kind == KIND_BOTH && seg >= nt);
                    const uint y = in_dir ? in_nbr[p] : out_nbr[p];
                    if (!cand_has(cand_bits, bit_words, slot, y)) {
                        continue;
                    }
                    if (!named) {
                        if (anon_duplicate(plan, sb, seg, from, p, aux, y, out_off, out_nbr,
                                           out_ty, in_off, in_nbr, in_ty)) {
                            continue;
                        }
                    } else if (kind == KIND_BOTH && in_dir && y == from) {
                        continue; /* a self loop, already produced by the outgoing runs */
                    }
                    if (iso && node_used(plan, step, nodes, y)) {
                        continue;
                    }
                    nodes[slot] = y;
                    if (named) {
                        rels[rel] = in_dir ? in_eid[p] : p;
                    }
                    if (!anon_checks_hold(plan, sb, nodes, out_off, out_nbr, out_ty)) {
                        continue;
                    }
                    if (last && !step_filters_hold(plan, sb, nodes, rels, out_off, out_nbr,
                                                   out_ty, in_off, in_nbr, in_ty, in_eid,
                                                   lab_off, labs, PRED_ARGS)) {
                        continue;
                    }
                    accepted = true;
                    break;
                }
            }
        } else {
            /* A named check: enumerate the edge ids between two bound nodes. */
            const uint cb = checks_off + plan[lb + L_CHECK] * CHECK_WORDS;
            const uint a = nodes[plan[cb + C_SRC]];
            const uint b = nodes[plan[cb + C_DST]];
            const uint rel = plan[cb + C_REL];
            const uint tcnt = plan[cb + C_TYPES_CNT];
            const uint nt = tcnt == 0u ? 1u : tcnt;
            const bool undirected = plan[cb + C_UNDIRECTED] != 0u;
            const uint nsegs = (undirected && a != b) ? 2u * nt : nt;
            const bool swap = undirected && b < a;
            for (;;) {
                if (step_budget != 0ul && iterations >= step_budget) {
                    out_of_budget = true;
                    break;
                }
                iterations += 1ul;
                const uint dir = seg / nt;
                const uint y = (dir == 0u) != swap ? b : a;
                const uint t =
                    tcnt == 0u ? GEMP_ANY_TYPE : plan[plan[cb + C_TYPES_OFF] + seg % nt];
                bool hit = pos < end && out_nbr[pos] == y &&
                           (t == GEMP_ANY_TYPE ? pos < aux : out_ty[pos] == t);
                if (hit) {
                    rels[rel] = pos;
                    pos += 1u;
                    if (last && !step_filters_hold(plan, sb, nodes, rels, out_off, out_nbr,
                                                   out_ty, in_off, in_nbr, in_ty, in_eid,
                                                   lab_off, labs, PRED_ARGS)) {
                        continue;
                    }
                    accepted = true;
                    break;
                }
                if (t == GEMP_ANY_TYPE && aux < end) {
                    /* Next type run of x's list: search y in it. */
                    uint run_start = aux;
                    uint run_end = upper_bound_u32(out_ty, run_start, end, out_ty[run_start]);
                    pos = lower_bound_u32(out_nbr, run_start, run_end, y);
                    aux = run_end;
                    continue;
                }
                seg += 1u;
                if (seg >= nsegs) {
                    break;
                }
                check_setup(plan, cb, seg, a, b, out_off, out_nbr, out_ty, &pos, &end, &aux);
            }
        }
        lv_seg[d] = seg;
        lv_pos[d] = pos;
        lv_end[d] = end;
        lv_aux[d] = aux;

        if (out_of_budget) {
            /* The cursor is saved: resuming advances level d from where the scan stopped. */
            suspend = true;
            break;
        }
        if (accepted) {
            d += 1;
            if (d < (int)n_levels) {
                /* Initialise the next level's cursor. */
                const uint nlb = levels_off + (uint)d * LEVEL_WORDS;
                const uint nsb = steps_off + plan[nlb + L_STEP] * STEP_WORDS;
                uint s0 = 0u;
                uint p0 = 0u;
                uint e0 = 0u;
                uint a0 = 0u;
                if (plan[nlb + L_KIND] == LEVEL_NODE) {
                    if (plan[nsb + S_KIND] == KIND_SCAN) {
                        e0 = plan[nsb + S_SCAN_LEN];
                    } else {
                        expand_setup(plan, nsb, 0u, nodes[plan[nsb + S_FROM]], out_off, out_ty,
                                     in_off, in_ty, &p0, &e0, &a0);
                    }
                } else {
                    const uint ncb = checks_off + plan[nlb + L_CHECK] * CHECK_WORDS;
                    check_setup(plan, ncb, 0u, nodes[plan[ncb + C_SRC]], nodes[plan[ncb + C_DST]],
                                out_off, out_nbr, out_ty, &p0, &e0, &a0);
                }
                lv_seg[d] = s0;
                lv_pos[d] = p0;
                lv_end[d] = e0;
                lv_aux[d] = a0;
            }
        } else {
            if (d == 0) {
                break;
            }
            d -= 1;
        }
    }

    counts[gid] = found;
    if (suspend) {
        __global uint* s = state_out + (size_t)gid * state_words;
        s[0] = (uint)d;
        for (uint l = 0u; l < n_levels; ++l) {
            s[1u + 4u * l] = lv_seg[l];
            s[2u + 4u * l] = lv_pos[l];
            s[3u + 4u * l] = lv_end[l];
            s[4u + 4u * l] = lv_aux[l];
        }
        for (uint i = 0u; i < k; ++i) {
            s[1u + 4u * n_levels + i] = nodes[i];
        }
        for (uint i = 0u; i < r; ++i) {
            s[1u + 4u * n_levels + k + i] = rels[i];
        }
        status[gid] = STATUS_SUSPENDED;
    } else {
        status[gid] = STATUS_DONE;
    }
}
