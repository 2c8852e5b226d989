/*
 * trust_search.cl — TruST phase 3, one level of the truncated search tree (Rust:
 * src/trust/device.rs; host twin src/trust/search.rs, whose module docs define the rules).
 * OpenCL C 1.2, no recursion, no device allocation.
 *
 * Inputs:
 *   - the current level: `states` (n_states x t_count data node ids, TRUST_NONE = unmatched),
 *     `scores` (ulong, sum of one-hop scores), `hashes` (ulong, Zobrist sum of trust_pair_hash);
 *   - the template CSR (`t_off`, `t_adj`) and data CSR (`d_off`, `d_adj`), undirected, each list
 *     sorted ascending without repeats; `oh`, the t_count x d_count one-hop table.
 * Kernels and outputs:
 *   - trust_count:  counts[s] = number of extensions of state s;
 *   - trust_expand: writes state s's extensions at offsets[s] .. (exclusive scan of counts), in
 *     the canonical order (u ascending, then x ascending): parent, u, x, score, hash;
 *   - trust_dedup_insert / trust_dedup_keep: open-addressing hash table of canonical forms
 *     (`table`, power-of-two size, zeroed; entry = candidate index + 1); every candidate finds the
 *     slot of its canonical form; `winner[slot]` = max of (n_cand - index), i.e. the smallest
 *     index; keep[c] = 1 for exactly the first candidate of every distinct canonical form;
 *   - trust_materialise: new state r = candidate sel[r]'s parent with u -> x.
 * Invariants: table size > n_cand; equality is decided on the full canonical arrays (the hash
 *   only picks the bucket); the candidate order and the winner are the host's, so the level the
 *   host selects from these outputs equals the host search's.
 */

#define TRUST_NONE 0xFFFFFFFFu

inline ulong trust_pair_hash(uint t, uint x)
{
    ulong z = (((ulong)t << 32) | (ulong)x) + 0x9E3779B97F4A7C15ul;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ul;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBul;
    return z ^ (z >> 31);
}

inline int trust_in_image(__global const uint* f, uint t_count, uint x)
{
    for (uint k = 0u; k < t_count; ++k) {
        if (f[k] == x) {
            return 1;
        }
    }
    return 0;
}

inline int trust_adjacent(__global const uint* off, __global const uint* adj, uint a, uint b)
{
    uint lo = off[a];
    uint hi = off[a + 1u];
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (adj[mid] < b) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo < off[a + 1u] && adj[lo] == b;
}

/* Enumerates the extensions of state s; writes them from `base` when `write`; returns the count. */
inline uint trust_enumerate(uint s, __global const uint* states, uint t_count,
                            __global const uint* t_off, __global const uint* t_adj,
                            __global const uint* d_off, __global const uint* d_adj, uint d_count,
                            int write, ulong score, ulong hash, __global const uint* oh, uint base,
                            __global uint* c_parent, __global uint* c_u, __global uint* c_x,
                            __global ulong* c_score, __global ulong* c_hash)
{
    __global const uint* f = states + (size_t)s * t_count;
    uint k = 0u;
    int any = 0;
    for (uint u = 0u; u < t_count; ++u) {
        if (f[u] != TRUST_NONE) {
            continue;
        }
        uint anchor = TRUST_NONE;
        for (uint e = t_off[u]; e < t_off[u + 1u]; ++e) {
            uint img = f[t_adj[e]];
            if (img != TRUST_NONE &&
                (anchor == TRUST_NONE ||
                 d_off[img + 1u] - d_off[img] < d_off[anchor + 1u] - d_off[anchor])) {
                anchor = img;
            }
        }
        if (anchor == TRUST_NONE) {
            continue;
        }
        any = 1;
        for (uint q = d_off[anchor]; q < d_off[anchor + 1u]; ++q) {
            uint x = d_adj[q];
            if (trust_in_image(f, t_count, x)) {
                continue;
            }
            int ok = 1;
            for (uint e = t_off[u]; e < t_off[u + 1u] && ok; ++e) {
                uint img = f[t_adj[e]];
                if (img != TRUST_NONE && img != anchor && !trust_adjacent(d_off, d_adj, img, x)) {
                    ok = 0;
                }
            }
            if (!ok) {
                continue;
            }
            if (write) {
                uint c = base + k;
                c_parent[c] = s;
                c_u[c] = u;
                c_x[c] = x;
                c_score[c] = score + oh[(size_t)u * d_count + x];
                c_hash[c] = hash + trust_pair_hash(u, x);
            }
            ++k;
        }
    }
    if (!any) {
        uint u = TRUST_NONE;
        for (uint q = 0u; q < t_count && u == TRUST_NONE; ++q) {
            if (f[q] == TRUST_NONE) {
                u = q;
            }
        }
        if (u != TRUST_NONE) {
            for (uint x = 0u; x < d_count; ++x) {
                if (trust_in_image(f, t_count, x)) {
                    continue;
                }
                if (write) {
                    uint c = base + k;
                    c_parent[c] = s;
                    c_u[c] = u;
                    c_x[c] = x;
                    c_score[c] = score + oh[(size_t)u * d_count + x];
                    c_hash[c] = hash + trust_pair_hash(u, x);
                }
                ++k;
            }
        }
    }
    return k;
}

__kernel void trust_count(__global const uint* states, uint n_states, uint t_count,
                          __global const uint* t_off, __global const uint* t_adj,
                          __global const uint* d_off, __global const uint* d_adj, uint d_count,
                          __global uint* counts)
{
    uint s = get_global_id(0);
    if (s >= n_states) {
        return;
    }
    counts[s] = trust_enumerate(s, states, t_count, t_off, t_adj, d_off, d_adj, d_count, 0, 0ul,
                                0ul, 0, 0u, 0, 0, 0, 0, 0);
}

__kernel void trust_expand(__global const uint* states, __global const ulong* scores,
                           __global const ulong* hashes, uint n_states, uint t_count,
                           __global const uint* t_off, __global const uint* t_adj,
                           __global const uint* d_off, __global const uint* d_adj, uint d_count,
                           __global const uint* oh, __global const uint* offsets,
                           __global uint* c_parent, __global uint* c_u, __global uint* c_x,
                           __global ulong* c_score, __global ulong* c_hash)
{
    uint s = get_global_id(0);
    if (s >= n_states) {
        return;
    }
    trust_enumerate(s, states, t_count, t_off, t_adj, d_off, d_adj, d_count, 1, scores[s],
                    hashes[s], oh, offsets[s], c_parent, c_u, c_x, c_score, c_hash);
}

/* Whether candidates a and b have the same canonical array. */
inline int trust_same(__global const uint* states, uint t_count, __global const uint* c_parent,
                      __global const uint* c_u, __global const uint* c_x, uint a, uint b)
{
    __global const uint* fa = states + (size_t)c_parent[a] * t_count;
    __global const uint* fb = states + (size_t)c_parent[b] * t_count;
    uint ua = c_u[a];
    uint ub = c_u[b];
    for (uint k = 0u; k < t_count; ++k) {
        uint va = k == ua ? c_x[a] : fa[k];
        uint vb = k == ub ? c_x[b] : fb[k];
        if (va != vb) {
            return 0;
        }
    }
    return 1;
}

__kernel void trust_dedup_insert(__global const uint* states, uint t_count,
                                 __global const uint* c_parent, __global const uint* c_u,
                                 __global const uint* c_x, __global const ulong* c_hash,
                                 uint n_cand, __global uint* table, uint mask,
                                 __global uint* winner, __global uint* slot_of)
{
    uint c = get_global_id(0);
    if (c >= n_cand) {
        return;
    }
    ulong h = c_hash[c];
    uint slot = (uint)(h ^ (h >> 32)) & mask;
    for (;;) {
        uint old = atomic_cmpxchg(&table[slot], 0u, c + 1u);
        if (old == 0u || trust_same(states, t_count, c_parent, c_u, c_x, old - 1u, c)) {
            break;
        }
        slot = (slot + 1u) & mask;
    }
    slot_of[c] = slot;
    atomic_max(&winner[slot], n_cand - c);
}

__kernel void trust_dedup_keep(__global const uint* slot_of, __global const uint* winner,
                               uint n_cand, __global uint* keep)
{
    uint c = get_global_id(0);
    if (c >= n_cand) {
        return;
    }
    keep[c] = winner[slot_of[c]] == n_cand - c ? 1u : 0u;
}

__kernel void trust_materialise(__global const uint* sel, uint n_sel, __global const uint* c_parent,
                                __global const uint* c_u, __global const uint* c_x,
                                __global const ulong* c_score, __global const ulong* c_hash,
                                __global const uint* states, uint t_count, __global uint* new_states,
                                __global ulong* new_scores, __global ulong* new_hashes)
{
    uint r = get_global_id(0);
    if (r >= n_sel) {
        return;
    }
    uint c = sel[r];
    __global const uint* f = states + (size_t)c_parent[c] * t_count;
    __global uint* g = new_states + (size_t)r * t_count;
    for (uint k = 0u; k < t_count; ++k) {
        g[k] = f[k];
    }
    g[c_u[c]] = c_x[c];
    new_scores[r] = c_score[c];
    new_hashes[r] = c_hash[c];
}
