/*
 * predicates.cl — phase-1 predicate programs (OpenCL C 1.2); prepended to topology.cl
 * (Rust: gemp::matcher::device, compiled by src/matcher/device/bytecode.rs).
 *
 * Inputs:  a program (uint words inside `plan`) and the bindings of the current partial match.
 * Outputs: whether the program's value is `true` (null and false both reject).
 * Invariants: no helper writes memory.
 */

/* Extra kernel parameters the predicate programs read, and the matching argument list. */
#define PRED_ARGS_DECL __global const long* pred_lits
#define PRED_ARGS pred_lits

/* Programs are not compiled yet: every program holds. */
inline bool run_program(__global const uint* plan, uint off, uint len, const uint* nodes,
                        const uint* rels, __global const uint* out_off,
                        __global const uint* out_nbr, __global const uint* out_ty,
                        __global const uint* in_off, __global const uint* in_nbr,
                        __global const uint* in_ty, __global const uint* in_eid,
                        __global const uint* lab_off, __global const uint* labs, PRED_ARGS_DECL)
{
    return true;
}
