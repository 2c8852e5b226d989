/*
 * predicates.cl — graph helpers and the phase-1 predicate-program interpreter (OpenCL C 1.2);
 * placed between common.cl and topology.cl (Rust: gemp::matcher::device::PREDICATES_CL, programs
 * compiled by src/matcher/device/bytecode.rs).
 *
 * Inputs:  a program inside `plan` ([code_len, code..., data...], data offsets relative to the
 *          data start), the bindings of the current (partial) match (`nodes` by slot, `rels` by
 *          named index, GEMP_NONE = unbound), the graph, and the PRED_ARGS buffers:
 *            pred_lits[2i], pred_lits[2i+1]  literal i as (tag, bits);
 *            prop_tab    [groups, starts offset, node table offset, edge table offset, group
 *                        starts (groups + 1), node entries (property × group), edge entries
 *                        (property)], each entry (kind, values offset, validity offset or NONE);
 *            prop_vals   the uploaded columns as long bits (int, float bits, bool 0/1);
 *            prop_valid  validity bitmaps (bit row of word row/32).
 * Outputs: run_program returns whether the program's value is (bool) true; null and false both
 *          reject, as the host's Env::holds.
 * Invariants: values are (tag, long) pairs on a stack of GEMP_STACK entries (the compiler checks
 *          the depth; the interpreter rejects a program that would overflow); three-valued logic
 *          and comparisons exactly as src/pattern/eval.rs: null operands give null, integers
 *          compare with floats after rounding the integer to the nearest double (ties to even),
 *          NaN is unequal to everything (only <> holds, never null), -0.0 == 0.0; node/relationship values compare only for (in)equality;
 *          values of different kinds are unequal. No double arithmetic is needed (fp64 is optional
 *          in OpenCL 1.2): floats are compared through their bits. No helper writes memory.
 */

#define GEMP_STACK 16
#ifndef GEMP_NONE
#define GEMP_NONE 0xFFFFFFFFu
#endif

#define PRED_ARGS_DECL                                                                         \
    __global const long *pred_lits, __global const uint *prop_tab,                             \
        __global const long *prop_vals, __global const uint *prop_valid
#define PRED_ARGS pred_lits, prop_tab, prop_vals, prop_valid

#define T_NULL 0u
#define T_BOOL 1u
#define T_INT 2u
#define T_FLOAT 3u
#define T_NODE 4u
#define T_REL 5u

#define OP_LIT 1u
#define OP_NODE 2u
#define OP_REL 3u
#define OP_NODE_ID 4u
#define OP_REL_ID 5u
#define OP_NODE_PROP 6u
#define OP_REL_PROP 7u
#define OP_HAS_LABELS 8u
#define OP_CMP 9u
#define OP_IS_NULL 10u
#define OP_NOT 11u
#define OP_AND 12u
#define OP_OR 13u
#define OP_XOR 14u
#define OP_NEG 15u
#define OP_IN 16u
#define OP_EXISTS_EDGE 17u
#define OP_EXISTS_NEIGHBOR 18u

#define PT_ENTRY 3u
#define PK_ABSENT 0u
#define PK_INT 1u
#define PK_FLOAT 2u
#define PK_BOOL 3u

#define F64_SIGN 0x8000000000000000ul
#define F64_ABS 0x7FFFFFFFFFFFFFFFul
#define F64_INF 0x7FF0000000000000ul

/* Whether node v carries label l (per-node label lists are sorted). */
inline bool node_has_label(__global const uint* lab_off, __global const uint* labs, uint v,
                           uint l)
{
    uint lo = lab_off[v];
    uint hi = lab_off[v + 1u];
    uint p = lower_bound_u32(labs, lo, hi, l);
    return p < hi && labs[p] == l;
}

/* Label CNF at plan[cnf]: groups, then per group: len, labels. Every group needs one label. */
inline bool labels_match(__global const uint* plan, uint cnf, __global const uint* lab_off,
                         __global const uint* labs, uint v)
{
    uint groups = plan[cnf];
    uint p = cnf + 1u;
    for (uint g = 0u; g < groups; ++g) {
        uint len = plan[p];
        bool ok = false;
        for (uint i = 0u; i < len && !ok; ++i) {
            ok = node_has_label(lab_off, labs, v, plan[p + 1u + i]);
        }
        if (!ok) {
            return false;
        }
        p += 1u + len;
    }
    return true;
}

/* Positions [*lo, *hi) of node u's entries of type t (GEMP_ANY_TYPE: the whole list). */
inline void type_range(__global const uint* off, __global const uint* ty, uint u, uint t,
                       uint* lo, uint* hi)
{
    uint a = off[u];
    uint b = off[u + 1u];
    if (t == GEMP_ANY_TYPE) {
        *lo = a;
        *hi = b;
        return;
    }
    *lo = lower_bound_u32(ty, a, b, t);
    *hi = upper_bound_u32(ty, *lo, b, t);
}

/* An edge a -> b of one of the types (0 types = any), or b -> a too when undirected. */
inline bool edge_exists(__global const uint* out_off, __global const uint* out_nbr,
                        __global const uint* out_ty, __global const uint* plan, uint toff,
                        uint tcnt, uint undirected, uint a, uint b)
{
    uint n = tcnt == 0u ? 1u : tcnt;
    for (uint i = 0u; i < n; ++i) {
        uint t = tcnt == 0u ? GEMP_ANY_TYPE : plan[toff + i];
        if (has_edge(out_off, out_ty, out_nbr, a, b, t)) {
            return true;
        }
        if (undirected != 0u && has_edge(out_off, out_ty, out_nbr, b, a, t)) {
            return true;
        }
    }
    return false;
}

/* The bits of (double)x, rounded to nearest, ties to even (Rust's `x as f64`). */
inline ulong i64_to_f64_bits(long x)
{
    if (x == 0l) {
        return 0ul;
    }
    ulong sign = x < 0l ? F64_SIGN : 0ul;
    ulong m = x < 0l ? (ulong)(-(x + 1l)) + 1ul : (ulong)x;
    uint e = 63u - (uint)clz(m); /* position of the highest set bit */
    ulong mant;
    if (e <= 52u) {
        mant = m << (52u - e);
    } else {
        uint shift = e - 52u;
        mant = m >> shift;
        ulong rem = m & ((1ul << shift) - 1ul);
        ulong halfway = 1ul << (shift - 1u);
        if (rem > halfway || (rem == halfway && (mant & 1ul) != 0ul)) {
            mant += 1ul;
            if (mant == (1ul << 53)) {
                mant >>= 1;
                e += 1u;
            }
        }
    }
    return sign | ((ulong)(e + 1023u) << 52) | (mant & ((1ul << 52) - 1ul));
}

/* Orders two doubles given as bits: -1, 0, 1, or 2 when unordered (NaN). */
inline int f64_cmp(ulong a, ulong b)
{
    if ((a & F64_ABS) > F64_INF || (b & F64_ABS) > F64_INF) {
        return 2;
    }
    if (((a | b) & F64_ABS) == 0ul) {
        return 0; /* -0.0 == 0.0 */
    }
    ulong ka = (a & F64_SIGN) != 0ul ? ~a : (a | F64_SIGN);
    ulong kb = (b & F64_SIGN) != 0ul ? ~b : (b | F64_SIGN);
    return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

/* Cypher comparison (eval.rs `compare`): result tag (T_NULL or T_BOOL) and value. */
inline uint compare_values(uint op, uint ta, long va, uint tb, long vb, long* out)
{
    if (ta == T_NULL || tb == T_NULL) {
        return T_NULL;
    }
    int ord;
    bool na = ta == T_INT || ta == T_FLOAT;
    bool nb = tb == T_INT || tb == T_FLOAT;
    if (ta == T_INT && tb == T_INT) {
        ord = va < vb ? -1 : (va > vb ? 1 : 0);
    } else if (na && nb) {
        ulong fa = ta == T_INT ? i64_to_f64_bits(va) : (ulong)va;
        ulong fb = tb == T_INT ? i64_to_f64_bits(vb) : (ulong)vb;
        ord = f64_cmp(fa, fb);
        if (ord == 2) {
            /* NaN is unequal to everything, itself included: only <> holds. */
            *out = op == 1u ? 1l : 0l;
            return T_BOOL;
        }
    } else if (ta == T_BOOL && tb == T_BOOL) {
        ord = va < vb ? -1 : (va > vb ? 1 : 0);
    } else if ((ta == T_NODE && tb == T_NODE) || (ta == T_REL && tb == T_REL)) {
        if (op > 1u) {
            return T_NULL;
        }
        *out = (op == 0u) == (va == vb) ? 1l : 0l;
        return T_BOOL;
    } else {
        if (op > 1u) {
            return T_NULL;
        }
        *out = op == 1u ? 1l : 0l;
        return T_BOOL;
    }
    bool r;
    switch (op) {
    case 0u: r = ord == 0; break;
    case 1u: r = ord != 0; break;
    case 2u: r = ord < 0; break;
    case 3u: r = ord <= 0; break;
    case 4u: r = ord > 0; break;
    default: r = ord >= 0; break;
    }
    *out = r ? 1l : 0l;
    return T_BOOL;
}

/* Value of property entry `e` of prop_tab at row `row`: tag, *out = bits. */
inline uint property_value(__global const uint* prop_tab, __global const long* prop_vals,
                           __global const uint* prop_valid, uint e, uint row, long* out)
{
    uint kind = prop_tab[e];
    if (kind == PK_ABSENT) {
        return T_NULL;
    }
    uint voff = prop_tab[e + 2u];
    if (voff != GEMP_NONE &&
        ((prop_valid[(size_t)voff + (row >> 5)] >> (row & 31u)) & 1u) == 0u) {
        return T_NULL;
    }
    *out = prop_vals[(size_t)prop_tab[e + 1u] + row];
    return kind == PK_INT ? T_INT : (kind == PK_FLOAT ? T_FLOAT : T_BOOL);
}

/* Truth of a value: 1 true, 0 false, -1 null (non-booleans are null, as eval.rs `truth`). */
inline int truth_of(uint t, long v)
{
    return t == T_BOOL ? (v != 0l ? 1 : 0) : -1;
}

/* Runs the program at plan[off .. off + len); true when its value is true. `iso`: node-injective
 * semantics (NAC neighbours must differ from the anchored nodes). */
inline bool run_program(__global const uint* plan, uint off, uint len, bool iso, const uint* nodes,
                        const uint* rels, __global const uint* out_off,
                        __global const uint* out_nbr, __global const uint* out_ty,
                        __global const uint* in_off, __global const uint* in_nbr,
                        __global const uint* in_ty, __global const uint* lab_off,
                        __global const uint* labs, PRED_ARGS_DECL)
{
    uint tg[GEMP_STACK];
    long vl[GEMP_STACK];
    int sp = 0;
    uint pc = off + 1u;
    const uint code_end = off + 1u + plan[off];
    const uint data = code_end;
    if (code_end > off + len) {
        return false;
    }
    while (pc < code_end) {
        const uint op = plan[pc++];
        if (sp >= GEMP_STACK && op <= OP_HAS_LABELS) {
            return false;
        }
        switch (op) {
        case OP_LIT: {
            uint i = plan[pc++];
            tg[sp] = (uint)pred_lits[2u * i];
            vl[sp] = pred_lits[2u * i + 1u];
            sp++;
            break;
        }
        case OP_NODE:
        case OP_NODE_ID: {
            uint v = nodes[plan[pc++]];
            tg[sp] = v == GEMP_NONE ? T_NULL : (op == OP_NODE ? T_NODE : T_INT);
            vl[sp] = (long)v;
            sp++;
            break;
        }
        case OP_REL:
        case OP_REL_ID: {
            uint e = rels[plan[pc++]];
            tg[sp] = e == GEMP_NONE ? T_NULL : (op == OP_REL ? T_REL : T_INT);
            vl[sp] = (long)e;
            sp++;
            break;
        }
        case OP_NODE_PROP: {
            uint v = nodes[plan[pc]];
            uint p = plan[pc + 1u];
            pc += 2u;
            tg[sp] = T_NULL;
            vl[sp] = 0l;
            uint ng = prop_tab[0];
            if (v != GEMP_NONE && ng > 0u) {
                uint so = prop_tab[1];
                uint g = upper_bound_u32(prop_tab, so, so + ng, v) - so - 1u;
                uint e = prop_tab[2] + (p * ng + g) * PT_ENTRY;
                long x = 0l;
                tg[sp] = property_value(prop_tab, prop_vals, prop_valid, e, v - prop_tab[so + g],
                                        &x);
                vl[sp] = x;
            }
            sp++;
            break;
        }
        case OP_REL_PROP: {
            uint r = rels[plan[pc]];
            uint p = plan[pc + 1u];
            pc += 2u;
            tg[sp] = T_NULL;
            vl[sp] = 0l;
            if (r != GEMP_NONE) {
                long x = 0l;
                tg[sp] = property_value(prop_tab, prop_vals, prop_valid,
                                        prop_tab[3] + p * PT_ENTRY, r, &x);
                vl[sp] = x;
            }
            sp++;
            break;
        }
        case OP_HAS_LABELS: {
            uint v = nodes[plan[pc]];
            uint cnf = data + plan[pc + 1u];
            pc += 2u;
            tg[sp] = v == GEMP_NONE ? T_NULL : T_BOOL;
            vl[sp] = (v != GEMP_NONE && labels_match(plan, cnf, lab_off, labs, v)) ? 1l : 0l;
            sp++;
            break;
        }
        case OP_CMP: {
            if (sp < 2) {
                return false;
            }
            uint cop = plan[pc++];
            long r = 0l;
            uint t = compare_values(cop, tg[sp - 2], vl[sp - 2], tg[sp - 1], vl[sp - 1], &r);
            sp -= 1;
            tg[sp - 1] = t;
            vl[sp - 1] = r;
            break;
        }
        case OP_IS_NULL: {
            if (sp < 1) {
                return false;
            }
            uint negated = plan[pc++];
            bool is_null = tg[sp - 1] == T_NULL;
            tg[sp - 1] = T_BOOL;
            vl[sp - 1] = (is_null != (negated != 0u)) ? 1l : 0l;
            break;
        }
        case OP_NOT: {
            if (sp < 1) {
                return false;
            }
            int a = truth_of(tg[sp - 1], vl[sp - 1]);
            tg[sp - 1] = a < 0 ? T_NULL : T_BOOL;
            vl[sp - 1] = a == 0 ? 1l : 0l;
            break;
        }
        case OP_AND:
        case OP_OR:
        case OP_XOR: {
            if (sp < 2) {
                return false;
            }
            int a = truth_of(tg[sp - 2], vl[sp - 2]);
            int b = truth_of(tg[sp - 1], vl[sp - 1]);
            int r;
            if (op == OP_AND) {
                r = (a == 0 || b == 0) ? 0 : ((a < 0 || b < 0) ? -1 : 1);
            } else if (op == OP_OR) {
                r = (a == 1 || b == 1) ? 1 : ((a < 0 || b < 0) ? -1 : 0);
            } else {
                r = (a < 0 || b < 0) ? -1 : (a != b ? 1 : 0);
            }
            sp -= 1;
            tg[sp - 1] = r < 0 ? T_NULL : T_BOOL;
            vl[sp - 1] = r == 1 ? 1l : 0l;
            break;
        }
        case OP_NEG: {
            if (sp < 1) {
                return false;
            }
            if (tg[sp - 1] == T_INT) {
                if (vl[sp - 1] == LONG_MIN) {
                    tg[sp - 1] = T_NULL;
                } else {
                    vl[sp - 1] = -vl[sp - 1];
                }
            } else if (tg[sp - 1] == T_FLOAT) {
                vl[sp - 1] = (long)((ulong)vl[sp - 1] ^ F64_SIGN);
            } else {
                tg[sp - 1] = T_NULL;
            }
            break;
        }
        case OP_IN: {
            uint n = plan[pc++];
            if ((uint)sp < n + 1u) {
                return false;
            }
            int base = sp - (int)n - 1;
            uint tx = tg[base];
            long vx = vl[base];
            uint rt = T_BOOL;
            long rv = 0l;
            if (tx == T_NULL && n > 0u) {
                /* null IN a non-empty list is null; nothing is in an empty list, not even null. */
                rt = T_NULL;
            } else {
                bool saw_null = false;
                for (uint i = 0u; i < n; ++i) {
                    long eq = 0l;
                    uint t = compare_values(0u, tx, vx, tg[base + 1 + (int)i],
                                            vl[base + 1 + (int)i], &eq);
                    if (t == T_NULL) {
                        saw_null = true;
                    } else if (eq != 0l) {
                        rv = 1l;
                        break;
                    }
                }
                if (rv == 0l && saw_null) {
                    rt = T_NULL;
                }
            }
            sp = base + 1;
            tg[base] = rt;
            vl[base] = rv;
            break;
        }
        case OP_EXISTS_EDGE: {
            if (sp >= GEMP_STACK) {
                return false;
            }
            uint a = nodes[plan[pc]];
            uint b = nodes[plan[pc + 1u]];
            uint toff = data + plan[pc + 2u];
            uint tcnt = plan[pc + 3u];
            uint und = plan[pc + 4u];
            pc += 5u;
            bool found = a != GEMP_NONE && b != GEMP_NONE &&
                         edge_exists(out_off, out_nbr, out_ty, plan, toff, tcnt, und, a, b);
            tg[sp] = T_BOOL;
            vl[sp] = found ? 1l : 0l;
            sp++;
            break;
        }
        case OP_EXISTS_NEIGHBOR: {
            if (sp >= GEMP_STACK) {
                return false;
            }
            uint u = nodes[plan[pc]];
            uint dir = plan[pc + 1u];
            uint toff = data + plan[pc + 2u];
            uint tcnt = plan[pc + 3u];
            uint cnf = data + plan[pc + 4u];
            uint xoff = data + plan[pc + 5u];
            uint xcnt = plan[pc + 6u];
            pc += 7u;
            bool found = false;
            uint nt = tcnt == 0u ? 1u : tcnt;
            for (uint d2 = 0u; d2 < 2u && !found && u != GEMP_NONE; ++d2) {
                if ((dir == 0u && d2 == 1u) || (dir == 1u && d2 == 0u)) {
                    continue;
                }
                __global const uint* off2 = d2 == 0u ? out_off : in_off;
                __global const uint* nbr2 = d2 == 0u ? out_nbr : in_nbr;
                __global const uint* ty2 = d2 == 0u ? out_ty : in_ty;
                for (uint ti = 0u; ti < nt && !found; ++ti) {
                    uint t = tcnt == 0u ? GEMP_ANY_TYPE : plan[toff + ti];
                    uint lo;
                    uint hi;
                    type_range(off2, ty2, u, t, &lo, &hi);
                    for (uint p = lo; p < hi && !found; ++p) {
                        uint y = nbr2[p];
                        if (!labels_match(plan, cnf, lab_off, labs, y)) {
                            continue;
                        }
                        bool excluded = false;
                        for (uint i = 0u; iso && i < xcnt && !excluded; ++i) {
                            excluded = nodes[plan[xoff + i]] == y;
                        }
                        found = !excluded;
                    }
                }
            }
            tg[sp] = T_BOOL;
            vl[sp] = found ? 1l : 0l;
            sp++;
            break;
        }
        default:
            return false;
        }
    }
    return sp == 1 && tg[0] == T_BOOL && vl[0] != 0l;
}
