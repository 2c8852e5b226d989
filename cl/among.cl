/*
 * among.cl — AMonG: A*-based graph matching with n parallel search instances (Hoffmann et al.),
 * OpenCL C 1.2. Driven by src/similarity/among/run.rs.
 *
 * Problem (read-only, computed on the host): Q query elements (nodes 0..QN, edges QN..Q), C case
 * elements (nodes 0..CN, edges CN..C); q_kind[Q] type ids; q_ends[2(Q-QN)], c_ends[2(C-CN)]
 * the (left, right) node of each edge; the isolated similarities as candidate lists
 * cand_off[Q+1] / cand_case[] / cand_sim[] (same-type case elements, best first); q_max[Q] the best
 * isolated similarity (h_II); surplus[type] = max(0, query count - case count) of node types.
 *
 * State (S = Q + C ushorts): own[Q] query element -> case element, FREE (0xFFFF) or NUL (0xFFFE);
 * inv[C] case element -> query element or FREE. g = sum of the similarities of the applied
 * mappings A(s); the possible mappings P(s) are the candidates still legal under the state
 * (allows()), evaluated on the fly. next = the query element expanded next (-1: complete).
 *
 * Priority queues: instance t owns heap_f/heap_slot[t*cap .. t*cap+heap_size[t]) (binary max-heap
 * on f), pool slots t*cap+s holding states (pool, pool_g, pool_next) and a stack of free slots
 * free_stack[t*cap ..], free_top[t]. best_f[t] / best_state[t*S] is instance t's best complete
 * solution (incumbent), -1 when none.
 *
 * Phases (one launch each, per iteration):
 *   extract_expand  (n items)    pop the best state of queue i (skipped when f <= best_f[i]) and
 *                                write its children (every legal mapping of `next`, plus the null
 *                                mapping where the surplus / slot rule needs one) to
 *                                child[(i*K + j)*S], child_g, child_count[i] <= K.
 *   eval_instance   (n items)    Eval_1: instance i evaluates its children in sequence.
 *   eval_child      (n*K items)  Eval_2: one item per child.
 *   eval_element    (n*K*Q)      Eval_3: one item per (child, query element): its estimate
 *                                (and number of best mappings for selection S) -> contrib, cnt;
 *   eval_reduce     (n*K items)  then one item per child sums them into f and picks `next`.
 *   insert          (n items)    item t inserts the children routed to queue t: Ins_1 takes all
 *                                children of source perm_inv[t]; Ins_2 takes child j of source i
 *                                when (i + 1 + j) mod n == t. Complete children update the
 *                                incumbent; children with f <= best_f[t] are dropped; a full heap
 *                                sets status_u[2] (overflow) and drops nothing else.
 *   status          (1 item)     status_f[0] = best f over all heap tops (-1 when all empty),
 *                                status_f[1] = best incumbent f, status_u[0] = its queue,
 *                                status_u[1] = total states in the heaps.
 * Termination (host): an incumbent exists and its f >= every heap top: it is optimal (the
 * estimates are admissible upper bounds).
 * Invariants: each queue and each child slot is written by exactly one work-item per launch; no
 * atomics; all loops bounded by Q, C, K, cap.
 */

#define FREE 0xFFFFu
#define NUL 0xFFFEu

bool allows(__global const ushort *own, __global const ushort *inv, uint x, uint y, uint QN,
            uint CN, __global const uint *q_ends, __global const uint *c_ends) {
    if (inv[y] != FREE) return false;
    if (x < QN) return true;
    uint xl = q_ends[2 * (x - QN)], xr = q_ends[2 * (x - QN) + 1];
    uint yl = c_ends[2 * (y - CN)], yr = c_ends[2 * (y - CN) + 1];
    uint a = own[xl];
    if (a != FREE && a != yl) return false;
    a = own[xr];
    if (a != FREE && a != yr) return false;
    a = inv[yl];
    if (a != FREE && a != xl) return false;
    a = inv[yr];
    if (a != FREE && a != xr) return false;
    return true;
}

/* Best legal similarity of query element x under the state (h_III) or its isolated best (h_II);
 * *count = number of legal mappings reaching it (h_III only). */
float estimate(__global const ushort *st, uint x, uint Q, uint QN, uint CN, uint h3,
               __global const uint *q_ends, __global const uint *c_ends,
               __global const uint *cand_off, __global const uint *cand_case,
               __global const float *cand_sim, __global const float *q_max, int *count) {
    if (!h3) {
        *count = 1;
        return q_max[x];
    }
    __global const ushort *inv = st + Q;
    float best = -1.0f;
    int n = 0;
    for (uint k = cand_off[x]; k < cand_off[x + 1]; k++) {
        float s = cand_sim[k];
        if (best >= 0.0f && s < best) break;
        if (allows(st, inv, x, cand_case[k], QN, CN, q_ends, c_ends)) {
            if (best < 0.0f) best = s;
            n++;
        }
    }
    *count = n;
    return best < 0.0f ? 0.0f : best;
}

/* select_II: first free edge whose nodes are decided, else the first free node; -1 if none. */
int select_ii(__global const ushort *st, uint Q, uint QN, __global const uint *q_ends) {
    for (uint x = QN; x < Q; x++) {
        if (st[x] == FREE && st[q_ends[2 * (x - QN)]] != FREE &&
            st[q_ends[2 * (x - QN) + 1]] != FREE)
            return (int)x;
    }
    for (uint x = 0; x < Q; x++)
        if (st[x] == FREE) return (int)x;
    return -1;
}

/* select_III's last step: an edge with an undecided node gives way to that node. */
int endpoint_first(__global const ushort *st, int x, uint QN, __global const uint *q_ends) {
    if (x < 0 || (uint)x < QN) return x;
    uint l = q_ends[2 * ((uint)x - QN)], r = q_ends[2 * ((uint)x - QN) + 1];
    if (st[l] == FREE) return (int)l;
    if (st[r] == FREE) return (int)r;
    return x;
}

/* f and next of one state (Eval_1 and Eval_2). */
void evaluate(__global const ushort *st, float g, float inv_denom, uint Q, uint QN, uint CN,
              uint h3, uint sel3, __global const uint *q_ends, __global const uint *c_ends,
              __global const uint *cand_off, __global const uint *cand_case,
              __global const float *cand_sim, __global const float *q_max, float *f, int *next) {
    float h = 0.0f;
    int chosen = -1;
    float cb = -1.0f;
    int cc = 0;
    for (uint x = 0; x < Q; x++) {
        if (st[x] != FREE) continue;
        int cnt;
        float b = estimate(st, x, Q, QN, CN, h3, q_ends, c_ends, cand_off, cand_case, cand_sim,
                           q_max, &cnt);
        h += b;
        if (chosen < 0 || b > cb || (b == cb && cnt < cc)) {
            chosen = (int)x;
            cb = b;
            cc = cnt;
        }
    }
    *f = (g + h) * inv_denom;
    *next = sel3 ? endpoint_first(st, chosen, QN, q_ends) : select_ii(st, Q, QN, q_ends);
}

__kernel void extract_expand(uint Q, uint QN, uint C, uint CN, uint K, uint cap,
                             __global const uint *q_kind, __global const uint *q_ends,
                             __global const uint *c_ends, __global const uint *cand_off,
                             __global const uint *cand_case, __global const float *cand_sim,
                             __global const uint *surplus, __global float *heap_f,
                             __global uint *heap_slot, __global uint *heap_size,
                             __global uint *free_stack, __global uint *free_top,
                             __global const ushort *pool, __global const float *pool_g,
                             __global const int *pool_next, __global const float *best_f,
                             __global ushort *child, __global float *child_g,
                             __global uint *child_count, __global uint *expansions) {
    uint i = get_global_id(0);
    uint S = Q + C;
    child_count[i] = 0;
    uint size = heap_size[i];
    if (size == 0) return;
    __global float *hf = heap_f + (size_t)i * cap;
    __global uint *hs = heap_slot + (size_t)i * cap;
    float top_f = hf[0];
    uint slot = hs[0];
    /* pop: move the last entry to the root and sift down */
    size--;
    heap_size[i] = size;
    if (size > 0) {
        float mf = hf[size];
        uint ms = hs[size];
        uint p = 0;
        for (;;) {
            uint c = 2 * p + 1;
            if (c >= size) break;
            if (c + 1 < size && hf[c + 1] > hf[c]) c++;
            if (hf[c] <= mf) break;
            hf[p] = hf[c];
            hs[p] = hs[c];
            p = c;
        }
        hf[p] = mf;
        hs[p] = ms;
    }
    size_t ps = (size_t)i * cap + slot;
    free_stack[(size_t)i * cap + free_top[i]] = slot;
    free_top[i] += 1;
    if (best_f[i] >= 0.0f && top_f <= best_f[i]) return; /* cannot beat the incumbent */
    expansions[i] += 1;
    __global const ushort *st = pool + ps * S;
    __global const ushort *inv = st + Q;
    float g = pool_g[ps];
    int nx = pool_next[ps];
    if (nx < 0) return;
    uint x = (uint)nx;
    uint n = 0;
    /* each child: copy the parent, apply (x -> y) */
    bool want_null = false;
    if (x < QN) {
        uint t = q_kind[x];
        uint nulls = 0;
        for (uint z = 0; z < QN; z++)
            if (st[z] == NUL && q_kind[z] == t) nulls++;
        want_null = nulls < surplus[t];
    } else {
        uint l = q_ends[2 * (x - QN)], r = q_ends[2 * (x - QN) + 1];
        uint ml = st[l], mr = st[r];
        if (ml == NUL || mr == NUL) {
            want_null = true;
        } else {
            uint free_c = 0;
            for (uint k = cand_off[x]; k < cand_off[x + 1]; k++)
                if (allows(st, inv, x, cand_case[k], QN, CN, q_ends, c_ends)) free_c++;
            uint pending = 0;
            uint t = q_kind[x];
            for (uint e = QN; e < Q; e++) {
                if (st[e] == FREE && q_kind[e] == t && st[q_ends[2 * (e - QN)]] == ml &&
                    st[q_ends[2 * (e - QN) + 1]] == mr)
                    pending++;
            }
            want_null = free_c < pending;
        }
    }
    /* allows() rejects every edge candidate when a node of x is NUL */
    for (uint k = cand_off[x]; k < cand_off[x + 1] && n < K; k++) {
        uint y = cand_case[k];
        if (!allows(st, inv, x, y, QN, CN, q_ends, c_ends)) continue;
        __global ushort *ch = child + ((size_t)i * K + n) * S;
        for (uint z = 0; z < S; z++) ch[z] = st[z];
        ch[x] = (ushort)y;
        ch[Q + y] = (ushort)x;
        child_g[(size_t)i * K + n] = g + cand_sim[k];
        n++;
    }
    if (want_null && n < K) {
        __global ushort *ch = child + ((size_t)i * K + n) * S;
        for (uint z = 0; z < S; z++) ch[z] = st[z];
        ch[x] = (ushort)NUL;
        child_g[(size_t)i * K + n] = g;
        n++;
    }
    child_count[i] = n;
}

__kernel void eval_instance(uint Q, uint QN, uint C, uint CN, uint K, uint h3, uint sel3,
                            float inv_denom, __global const uint *q_ends,
                            __global const uint *c_ends, __global const uint *cand_off,
                            __global const uint *cand_case, __global const float *cand_sim,
                            __global const float *q_max, __global const ushort *child,
                            __global const float *child_g, __global const uint *child_count,
                            __global float *child_f, __global int *child_next) {
    uint i = get_global_id(0);
    uint S = Q + C;
    for (uint j = 0; j < child_count[i]; j++) {
        size_t c = (size_t)i * K + j;
        float f;
        int next;
        evaluate(child + c * S, child_g[c], inv_denom, Q, QN, CN, h3, sel3, q_ends, c_ends,
                 cand_off, cand_case, cand_sim, q_max, &f, &next);
        child_f[c] = f;
        child_next[c] = next;
    }
}

__kernel void eval_child(uint Q, uint QN, uint C, uint CN, uint K, uint h3, uint sel3,
                         float inv_denom, __global const uint *q_ends, __global const uint *c_ends,
                         __global const uint *cand_off, __global const uint *cand_case,
                         __global const float *cand_sim, __global const float *q_max,
                         __global const ushort *child, __global const float *child_g,
                         __global const uint *child_count, __global float *child_f,
                         __global int *child_next) {
    size_t c = get_global_id(0);
    uint i = (uint)(c / K), j = (uint)(c % K);
    if (j >= child_count[i]) return;
    uint S = Q + C;
    float f;
    int next;
    evaluate(child + c * S, child_g[c], inv_denom, Q, QN, CN, h3, sel3, q_ends, c_ends, cand_off,
             cand_case, cand_sim, q_max, &f, &next);
    child_f[c] = f;
    child_next[c] = next;
}

__kernel void eval_element(uint Q, uint QN, uint C, uint CN, uint K, uint h3,
                           __global const uint *q_ends, __global const uint *c_ends,
                           __global const uint *cand_off, __global const uint *cand_case,
                           __global const float *cand_sim, __global const float *q_max,
                           __global const ushort *child, __global const uint *child_count,
                           __global float *contrib, __global int *cnt) {
    size_t id = get_global_id(0);
    size_t c = id / Q;
    uint x = (uint)(id % Q);
    uint i = (uint)(c / K), j = (uint)(c % K);
    if (j >= child_count[i]) return;
    __global const ushort *st = child + c * (Q + C);
    if (st[x] != FREE) {
        contrib[id] = 0.0f;
        cnt[id] = -1;
        return;
    }
    int n;
    contrib[id] = estimate(st, x, Q, QN, CN, h3, q_ends, c_ends, cand_off, cand_case, cand_sim,
                           q_max, &n);
    cnt[id] = n;
}

__kernel void eval_reduce(uint Q, uint QN, uint C, uint K, uint sel3, float inv_denom,
                          __global const uint *q_ends, __global const ushort *child,
                          __global const float *child_g, __global const uint *child_count,
                          __global const float *contrib, __global const int *cnt,
                          __global float *child_f, __global int *child_next) {
    size_t c = get_global_id(0);
    uint i = (uint)(c / K), j = (uint)(c % K);
    if (j >= child_count[i]) return;
    __global const ushort *st = child + c * (Q + C);
    float h = 0.0f;
    int chosen = -1;
    float cb = -1.0f;
    int cc = 0;
    for (uint x = 0; x < Q; x++) {
        int n = cnt[c * Q + x];
        if (n < 0) continue;
        float b = contrib[c * Q + x];
        h += b;
        if (chosen < 0 || b > cb || (b == cb && n < cc)) {
            chosen = (int)x;
            cb = b;
            cc = n;
        }
    }
    child_f[c] = (child_g[c] + h) * inv_denom;
    child_next[c] = sel3 ? endpoint_first(st, chosen, QN, q_ends) : select_ii(st, Q, QN, q_ends);
}

__kernel void insert(uint Q, uint C, uint K, uint cap, uint n_inst, uint strategy,
                     __global const uint *perm_inv, __global const ushort *child,
                     __global const float *child_g, __global const float *child_f,
                     __global const int *child_next, __global const uint *child_count,
                     __global float *heap_f, __global uint *heap_slot, __global uint *heap_size,
                     __global uint *free_stack, __global uint *free_top, __global ushort *pool,
                     __global float *pool_g, __global int *pool_next, __global float *best_f,
                     __global ushort *best_state, __global uint *status_u) {
    uint t = get_global_id(0);
    uint S = Q + C;
    __global float *hf = heap_f + (size_t)t * cap;
    __global uint *hs = heap_slot + (size_t)t * cap;
    uint first_src = strategy == 1 ? perm_inv[t] : 0;
    uint last_src = strategy == 1 ? perm_inv[t] + 1 : n_inst;
    for (uint i = first_src; i < last_src; i++) {
        uint count = child_count[i];
        uint j0 = strategy == 1 ? 0 : (t + 2 * n_inst - i - 1) % n_inst;
        uint step = strategy == 1 ? 1 : n_inst;
        for (uint j = j0; j < count; j += step) {
            size_t c = (size_t)i * K + j;
            float f = child_f[c];
            __global const ushort *st = child + c * S;
            if (child_next[c] < 0) {
                if (f > best_f[t]) {
                    best_f[t] = f;
                    for (uint z = 0; z < S; z++) best_state[(size_t)t * S + z] = st[z];
                }
                continue;
            }
            if (best_f[t] >= 0.0f && f <= best_f[t]) continue;
            uint size = heap_size[t];
            if (size >= cap || free_top[t] == 0) {
                status_u[2] = 1;
                continue;
            }
            free_top[t] -= 1;
            uint slot = free_stack[(size_t)t * cap + free_top[t]];
            size_t ps = (size_t)t * cap + slot;
            for (uint z = 0; z < S; z++) pool[ps * S + z] = st[z];
            pool_g[ps] = child_g[c];
            pool_next[ps] = child_next[c];
            uint p = size;
            while (p > 0) {
                uint parent = (p - 1) / 2;
                if (hf[parent] >= f) break;
                hf[p] = hf[parent];
                hs[p] = hs[parent];
                p = parent;
            }
            hf[p] = f;
            hs[p] = slot;
            heap_size[t] = size + 1;
        }
    }
}

__kernel void status(uint n_inst, uint cap, __global const float *heap_f,
                     __global const uint *heap_size, __global const float *best_f,
                     __global float *status_f, __global uint *status_u) {
    if (get_global_id(0) != 0) return;
    float top = -1.0f, inc = -1.0f;
    uint inc_q = 0, total = 0;
    for (uint t = 0; t < n_inst; t++) {
        uint size = heap_size[t];
        total += size;
        if (size > 0 && heap_f[(size_t)t * cap] > top) top = heap_f[(size_t)t * cap];
        if (best_f[t] > inc) {
            inc = best_f[t];
            inc_q = t;
        }
    }
    status_f[0] = top;
    status_f[1] = inc;
    status_u[0] = inc_q;
    status_u[1] = total;
}
