/*
 * attributes.cl — GEMP phase 2: string attribute conjuncts on the phase-1 matches (OpenCL C 1.2)
 * (Rust: gemp::matcher::device::attributes; needs common.cl before it).
 *
 * Only the string attributes of the nodes occurring in phase-1 matches are on the device (GEMP §5,
 * Fig. 4): per property key, the sorted distinct nodes that some predicate reads the key of, each
 * with an entry (byte offset, length, kind) into one byte heap.
 *
 * attributes
 *   Inputs:  rows[n_rows * row_words]   phase-1 matches (node ids by slot first);
 *            preds[n_preds * PRED_WORDS] per predicate: node slot, distinct-node list offset and
 *                                        length (into dnodes/entries), operator, first literal,
 *                                        literal count;
 *            dnodes[]                    sorted distinct node ids, one list per property key;
 *            entries[3 * |dnodes|]       per distinct node: heap offset, byte length, kind
 *                                        (0 null, 1 string, 2 a non-string value);
 *            heap[]                      the strings' UTF-8 bytes;
 *            lits[2 * literals]          literal (offset, length) into lit_bytes;
 *            first                       index of the first (match, predicate) pair of this launch.
 *   Outputs: flags[i] = 1 when predicate (i % n_preds) holds (is true) on match (i / n_preds), else
 *            0, for i in [first, first + global size) and i < n_rows * n_preds.
 *   Invariants: one work-item per (match, predicate); every node a predicate reads is in its list;
 *            semantics exactly as src/pattern/eval.rs: a null value gives null (0); a non-string
 *            value is unequal to every string (`<>` holds, `=`, IN fail) and incomparable (`<`…
 *            CONTAINS… give null); strings compare bytewise (Rust's str order), CONTAINS / STARTS
 *            WITH / ENDS WITH on bytes (equivalent on valid UTF-8). Reads only inside the arrays.
 */

#define PRED_WORDS 6
#define P_SLOT 0
#define P_DNODES_OFF 1
#define P_DNODES_LEN 2
#define P_OP 3
#define P_LIT_FIRST 4
#define P_LIT_COUNT 5

#define SOP_EQ 0u
#define SOP_NE 1u
#define SOP_LT 2u
#define SOP_LE 3u
#define SOP_GT 4u
#define SOP_GE 5u
#define SOP_CONTAINS 6u
#define SOP_STARTS 7u
#define SOP_ENDS 8u
#define SOP_IN 9u

#define KIND_NULL 0u
#define KIND_STR 1u
#define KIND_OTHER 2u

/* Lexicographic byte comparison of a[0..la) and b[0..lb): -1, 0, 1. */
inline int bytes_cmp(__global const uchar* a, uint la, __global const uchar* b, uint lb)
{
    uint n = la < lb ? la : lb;
    for (uint i = 0u; i < n; ++i) {
        if (a[i] != b[i]) {
            return a[i] < b[i] ? -1 : 1;
        }
    }
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

/* Whether b[0..lb) occurs in a[0..la) at position p. */
inline bool bytes_at(__global const uchar* a, uint p, __global const uchar* b, uint lb)
{
    for (uint i = 0u; i < lb; ++i) {
        if (a[p + i] != b[i]) {
            return false;
        }
    }
    return true;
}

__kernel void attributes(__global const uint* rows, const uint row_words, const uint n_rows,
                         __global const uint* preds, const uint n_preds,
                         __global const uint* dnodes, __global const uint* entries,
                         __global const uchar* heap, __global const uint* lits,
                         __global const uchar* lit_bytes, const ulong first,
                         __global uchar* flags)
{
    const ulong i = first + (ulong)get_global_id(0);
    if (n_preds == 0u || i >= (ulong)n_rows * (ulong)n_preds) {
        return;
    }
    const ulong m = i / n_preds;
    const uint p = (uint)(i % n_preds);
    __global const uint* pr = preds + (size_t)p * PRED_WORDS;
    const uint node = rows[(size_t)m * row_words + pr[P_SLOT]];
    const uint lo = pr[P_DNODES_OFF];
    const uint hi = lo + pr[P_DNODES_LEN];
    const uint d = lower_bound_u32(dnodes, lo, hi, node);
    const uint op = pr[P_OP];
    uchar pass = 0;
    if (d < hi && dnodes[d] == node) {
        const uint kind = entries[3u * d + 2u];
        if (kind == KIND_OTHER) {
            pass = op == SOP_NE ? 1 : 0;
        } else if (kind == KIND_STR) {
            __global const uchar* s = heap + entries[3u * d];
            const uint ls = entries[3u * d + 1u];
            const uint lf = pr[P_LIT_FIRST];
            const uint lc = pr[P_LIT_COUNT];
            if (op == SOP_IN) {
                for (uint j = 0u; j < lc && pass == 0; ++j) {
                    __global const uchar* t = lit_bytes + lits[2u * (lf + j)];
                    const uint lt = lits[2u * (lf + j) + 1u];
                    pass = bytes_cmp(s, ls, t, lt) == 0 ? 1 : 0;
                }
            } else if (lc == 1u) {
                __global const uchar* t = lit_bytes + lits[2u * lf];
                const uint lt = lits[2u * lf + 1u];
                bool r = false;
                if (op <= SOP_GE) {
                    int c = bytes_cmp(s, ls, t, lt);
                    r = op == SOP_EQ   ? c == 0
                        : op == SOP_NE ? c != 0
                        : op == SOP_LT ? c < 0
                        : op == SOP_LE ? c <= 0
                        : op == SOP_GT ? c > 0
                                       : c >= 0;
                } else if (op == SOP_STARTS) {
                    r = lt <= ls && bytes_at(s, 0u, t, lt);
                } else if (op == SOP_ENDS) {
                    r = lt <= ls && bytes_at(s, ls - lt, t, lt);
                } else if (op == SOP_CONTAINS) {
                    for (uint q = 0u; q + lt <= ls && !r; ++q) {
                        r = bytes_at(s, q, t, lt);
                    }
                }
                pass = r ? 1 : 0;
            }
        }
    }
    flags[i] = pass;
}
