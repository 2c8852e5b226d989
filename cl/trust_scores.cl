/*
 * trust_scores.cl — TruST phases 1 and 2 (Rust: src/trust/device.rs; host twins in
 * src/trust/levenshtein.rs, src/trust/one_hop.rs). OpenCL C 1.2, no recursion, no fp.
 *
 * Inputs:
 *   - node values as Unicode code points: `*_off` (node_count + 1 offsets) into `*_chars`;
 *   - undirected, sorted, duplicate-free CSR adjacency: `*_adj_off` (node_count + 1), `*_adj`;
 *   - `first`, `count`: this launch handles pairs first .. first + count - 1 of the
 *     t_count x d_count table (row-major by template node); work-item g handles pair first + g;
 *   - `scratch` / `lscratch` / `uscratch`: per-work-item scratch, `stride` elements (times 3 for
 *     the one-hop kernel) per work-item of this launch.
 * Outputs:
 *   - trust_similarity: sim[pair] = round-half-up(SCALE * (m - d) / m), d the Levenshtein
 *     distance, m the longer length; SCALE when both values are empty;
 *   - trust_one_hop: oh[pair] = (sim[pair] + W) / 2 with W = best / deg_T(i) (SCALE when
 *     deg_T(i) = 0), best the maximum-weight matching between the neighbourhoods weighted by sim.
 * Invariants: similarity stride >= longest template value + 1; one-hop stride >= the largest
 *   degree of either graph + 1; t_count * d_count < 2^32; all arithmetic is integer, so the
 *   results equal the host's bit for bit.
 */

#define TRUST_SCALE 65536u
#define TRUST_INF (LONG_MAX / 4)

__kernel void trust_similarity(__global const uint* t_off, __global const uint* t_chars,
                               __global const uint* d_off, __global const uint* d_chars,
                               uint d_count, __global uint* scratch, uint stride, uint first,
                               uint count, __global uint* sim)
{
    uint g = get_global_id(0);
    if (g >= count) {
        return;
    }
    uint pair = first + g;
    uint i = pair / d_count;
    uint j = pair % d_count;
    uint a0 = t_off[i];
    uint la = t_off[i + 1u] - a0;
    uint b0 = d_off[j];
    uint lb = d_off[j + 1u] - b0;
    uint m = max(la, lb);
    if (m == 0u) {
        sim[pair] = TRUST_SCALE;
        return;
    }
    uint dist;
    if (la == 0u) {
        dist = lb;
    } else if (lb == 0u) {
        dist = la;
    } else {
        __global uint* row = scratch + (size_t)g * stride;
        for (uint k = 0u; k <= la; ++k) {
            row[k] = k;
        }
        for (uint jj = 0u; jj < lb; ++jj) {
            uint cb = d_chars[b0 + jj];
            uint diag = row[0];
            row[0] = jj + 1u;
            for (uint ii = 0u; ii < la; ++ii) {
                uint up = row[ii + 1u];
                uint sub = diag + (t_chars[a0 + ii] != cb ? 1u : 0u);
                uint best = min(sub, min(up + 1u, row[ii] + 1u));
                diag = up;
                row[ii + 1u] = best;
            }
        }
        dist = row[la];
    }
    ulong same = (ulong)(m - min(dist, m));
    sim[pair] = (uint)((2ul * TRUST_SCALE * same + (ulong)m) / (2ul * (ulong)m));
}

/* Weight of (row r, column c) of the assignment: rows are the smaller side. */
inline uint trust_weight(__global const uint* sim, uint d_count, __global const uint* tn,
                         __global const uint* dn, int t_rows, uint r, uint c)
{
    return t_rows ? sim[(size_t)tn[r] * d_count + dn[c]] : sim[(size_t)tn[c] * d_count + dn[r]];
}

__kernel void trust_one_hop(__global const uint* sim, uint d_count, __global const uint* t_adj_off,
                            __global const uint* t_adj, __global const uint* d_adj_off,
                            __global const uint* d_adj, __global long* lscratch,
                            __global uint* uscratch, uint stride, uint first, uint count,
                            __global uint* oh)
{
    uint g = get_global_id(0);
    if (g >= count) {
        return;
    }
    uint pair = first + g;
    uint i = pair / d_count;
    uint j = pair % d_count;
    __global const uint* tn = t_adj + t_adj_off[i];
    uint nt = t_adj_off[i + 1u] - t_adj_off[i];
    __global const uint* dn = d_adj + d_adj_off[j];
    uint nd = d_adj_off[j + 1u] - d_adj_off[j];
    uint w;
    if (nt == 0u) {
        w = TRUST_SCALE;
    } else if (nd == 0u) {
        w = 0u;
    } else {
        __global long* u = lscratch + (size_t)g * 3u * stride;
        __global long* v = u + stride;
        __global long* minv = v + stride;
        __global uint* p = uscratch + (size_t)g * 3u * stride;
        __global uint* way = p + stride;
        __global uint* used = way + stride;
        ulong best = 0ul;
        /* Row maxima in distinct columns are optimal. */
        int distinct = nt <= nd;
        if (distinct) {
            for (uint r = 0u; r < nt && distinct; ++r) {
                uint bc = 0u;
                uint bw = sim[(size_t)tn[r] * d_count + dn[0]];
                for (uint c = 1u; c < nd; ++c) {
                    uint x = sim[(size_t)tn[r] * d_count + dn[c]];
                    if (x > bw) {
                        bw = x;
                        bc = c;
                    }
                }
                for (uint q = 0u; q < r; ++q) {
                    if (p[q] == bc) {
                        distinct = 0;
                    }
                }
                p[r] = bc;
                best += bw;
            }
        }
        if (!distinct) {
            /* Hungarian algorithm (potentials, iterative), n rows <= m columns, 1-based. */
            int t_rows = nt <= nd;
            uint n = t_rows ? nt : nd;
            uint m = t_rows ? nd : nt;
            for (uint k = 0u; k <= m; ++k) {
                v[k] = 0;
                p[k] = 0u;
                way[k] = 0u;
            }
            for (uint k = 0u; k <= n; ++k) {
                u[k] = 0;
            }
            for (uint row = 1u; row <= n; ++row) {
                p[0] = row;
                uint j0 = 0u;
                for (uint k = 0u; k <= m; ++k) {
                    minv[k] = TRUST_INF;
                    used[k] = 0u;
                }
                for (;;) {
                    used[j0] = 1u;
                    uint i0 = p[j0];
                    long delta = TRUST_INF;
                    uint j1 = 0u;
                    for (uint c = 1u; c <= m; ++c) {
                        if (!used[c]) {
                            long cost = -(long)trust_weight(sim, d_count, tn, dn, t_rows, i0 - 1u, c - 1u);
                            long cur = cost - u[i0] - v[c];
                            if (cur < minv[c]) {
                                minv[c] = cur;
                                way[c] = j0;
                            }
                            if (minv[c] < delta) {
                                delta = minv[c];
                                j1 = c;
                            }
                        }
                    }
                    for (uint c = 0u; c <= m; ++c) {
                        if (used[c]) {
                            u[p[c]] += delta;
                            v[c] -= delta;
                        } else {
                            minv[c] -= delta;
                        }
                    }
                    j0 = j1;
                    if (p[j0] == 0u) {
                        break;
                    }
                }
                for (;;) {
                    uint j1 = way[j0];
                    p[j0] = p[j1];
                    j0 = j1;
                    if (j0 == 0u) {
                        break;
                    }
                }
            }
            best = 0ul;
            for (uint c = 1u; c <= m; ++c) {
                if (p[c] != 0u) {
                    best += trust_weight(sim, d_count, tn, dn, t_rows, p[c] - 1u, c - 1u);
                }
            }
        }
        w = (uint)(best / (ulong)nt);
    }
    oh[pair] = (uint)(((ulong)sim[pair] + (ulong)w) / 2ul);
}
