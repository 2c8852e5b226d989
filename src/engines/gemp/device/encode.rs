//! Plan encoding: a [`Plan`] (and the candidate sets it was made from) as flat `uint` arrays, so
//! that ONE compiled `cl/topology.cl` program serves every pattern of up to
//! [`MAX_PATTERN_NODES`] nodes. Pure Rust, no device needed.
//!
//! # Layout of [`EncodedPlan::words`]
//!
//! All offsets are absolute indices into `words`.
//!
//! ```text
//! header   HEADER_WORDS words, indexed by the `H_*` constants
//! steps    n_steps × STEP_WORDS:   node slot, kind (scan/out/in/both), from slot, from step,
//!                                  rel slot, types offset, types count (0 = any), named,
//!                                  checks offset, checks count, filter program offset and length,
//!                                  scan list offset and length (into `scan_nodes`)
//! checks   n_checks × CHECK_WORDS: src slot, dst slot, src step, dst step, rel slot,
//!                                  types offset, types count (0 = any), undirected, named
//! levels   n_levels × LEVEL_WORDS: kind (node / named check), step, check index, last of step
//! cnf      per node slot one word: offset of its label CNF: groups, then per group len, labels…
//! needs    pivot degree needs × NEED_WORDS: direction (out/in/both), count, types offset/count
//! types    relationship type lists referenced above
//! programs predicate bytecode (see `bytecode.rs`), referenced by steps and the header
//! ```
//!
//! A *level* is one backtracking depth of the kernel: every step has a node level (bind the step's
//! node by scanning a candidate list or walking an edge run), followed by one level per *named*
//! check relationship (whose parallel edges are enumerated). Anonymous checks are existence tests
//! evaluated at the node level, step filters after the step's last level.

use crate::error::{Error, Result};
use crate::exec::candidates::{degree_needs, CandidateSet, Semantics};
use crate::exec::plan::{Dir, Plan};
use crate::pattern::ir::BoundQuery;

/// The largest pattern (in nodes) the device kernel takes.
pub const MAX_PATTERN_NODES: usize = 16;
/// The most *named* relationships a pattern may have on the device (anonymous ones are existence
/// checks and have no limit but [`MAX_PATTERN_RELS`]).
pub const MAX_NAMED_RELS: usize = 32;
/// The most relationships a pattern may have on the device.
pub const MAX_PATTERN_RELS: usize = 4096;
/// The most backtracking levels (nodes plus named check relationships).
pub const MAX_LEVELS: usize = 32;

/// Marker for "no id" (anonymous relationships in result rows, no resume state…).
pub const NONE: u32 = u32::MAX;
/// First word of every encoded plan (format check in the kernel's host code).
pub const MAGIC: u32 = 0x4745_4d50; // "GEMP"

/// Header size in words.
pub const HEADER_WORDS: usize = 20;
/// Header: magic.
pub const H_MAGIC: usize = 0;
/// Header: number of pattern nodes `k`.
pub const H_K: usize = 1;
/// Header: number of *named* pattern relationships `nr` (the kernel binds only those; rel fields
/// of steps and checks hold a relationship's named index, or [`NONE`] when it is anonymous).
pub const H_R: usize = 2;
/// Header: number of steps.
pub const H_STEPS: usize = 3;
/// Header: number of levels.
pub const H_LEVELS: usize = 4;
/// Header: 0 = isomorphism (node-injective), 1 = homomorphism.
pub const H_SEMANTICS: usize = 5;
/// Header: offset of the step table.
pub const H_STEPS_OFF: usize = 6;
/// Header: offset of the level table.
pub const H_LEVELS_OFF: usize = 7;
/// Header: offset of the check table.
pub const H_CHECKS_OFF: usize = 8;
/// Header: offset of the per-slot label CNF offsets.
pub const H_CNF_OFF: usize = 9;
/// Header: the pivot's node slot.
pub const H_PIVOT_SLOT: usize = 10;
/// Header: words of resume state per work-item.
pub const H_STATE_WORDS: usize = 11;
/// Header: offset of the pivot's degree needs.
pub const H_NEEDS_OFF: usize = 12;
/// Header: number of pivot degree needs.
pub const H_NEEDS: usize = 13;
/// Header: 1 when `mark_pivot` must also test the uploaded candidate bitset of the pivot (its
/// unary conjuncts were not compiled for the device).
pub const H_PIVOT_BITS: usize = 14;
/// Header: offset of the pivot's unary predicate program.
pub const H_PIVOT_PROG_OFF: usize = 15;
/// Header: length of the pivot's unary predicate program (0 = none).
pub const H_PIVOT_PROG_LEN: usize = 16;
/// Header: words per match in the result buffer (`k + nr`).
pub const H_ROW_WORDS: usize = 17;

/// Step kind: scan a candidate list (the pivot, or the first node of another component).
pub const KIND_SCAN: u32 = 0;
/// Step kind: walk outgoing edges of the `from` node.
pub const KIND_OUT: u32 = 1;
/// Step kind: walk incoming edges.
pub const KIND_IN: u32 = 2;
/// Step kind: walk both (undirected relationship).
pub const KIND_BOTH: u32 = 3;

/// Words per step.
pub const STEP_WORDS: usize = 14;
/// Step field: node slot.
pub const S_NODE: usize = 0;
/// Step field: kind.
pub const S_KIND: usize = 1;
/// Step field: bound node slot walked from.
pub const S_FROM: usize = 2;
/// Step field: step index binding `from`.
pub const S_FROM_STEP: usize = 3;
/// Step field: named index of the relationship walked ([`NONE`] when anonymous).
pub const S_REL: usize = 4;
/// Step field: types offset.
pub const S_TYPES_OFF: usize = 5;
/// Step field: types count (0 = any type).
pub const S_TYPES_CNT: usize = 6;
/// Step field: 1 when the walked relationship is named (edges enumerated).
pub const S_NAMED: usize = 7;
/// Step field: checks offset (index of the first check in the check table).
pub const S_CHECKS_OFF: usize = 8;
/// Step field: number of checks.
pub const S_CHECKS_CNT: usize = 9;
/// Step field: filter program offset.
pub const S_FILTER_OFF: usize = 10;
/// Step field: filter program length (0 = none).
pub const S_FILTER_LEN: usize = 11;
/// Step field: scan list offset into `scan_nodes`.
pub const S_SCAN_OFF: usize = 12;
/// Step field: scan list length.
pub const S_SCAN_LEN: usize = 13;

/// Words per check.
pub const CHECK_WORDS: usize = 9;
/// Check field: source slot.
pub const C_SRC: usize = 0;
/// Check field: target slot.
pub const C_DST: usize = 1;
/// Check field: step binding the source.
pub const C_SRC_STEP: usize = 2;
/// Check field: step binding the target.
pub const C_DST_STEP: usize = 3;
/// Check field: named index of the relationship ([`NONE`] when anonymous).
pub const C_REL: usize = 4;
/// Check field: types offset (sorted, distinct).
pub const C_TYPES_OFF: usize = 5;
/// Check field: types count (0 = any).
pub const C_TYPES_CNT: usize = 6;
/// Check field: 1 when undirected.
pub const C_UNDIRECTED: usize = 7;
/// Check field: 1 when named.
pub const C_NAMED: usize = 8;

/// Words per level.
pub const LEVEL_WORDS: usize = 4;
/// Level field: kind ([`LEVEL_NODE`] or [`LEVEL_CHECK`]).
pub const L_KIND: usize = 0;
/// Level field: step.
pub const L_STEP: usize = 1;
/// Level field: check index (named check levels).
pub const L_CHECK: usize = 2;
/// Level field: 1 when this is the step's last level (its filters run here).
pub const L_LAST: usize = 3;
/// Level kind: bind a step's node.
pub const LEVEL_NODE: u32 = 0;
/// Level kind: enumerate the edges of a named check relationship.
pub const LEVEL_CHECK: u32 = 1;

/// Words per degree need.
pub const NEED_WORDS: usize = 4;
/// Degree need direction: out.
pub const NEED_OUT: u32 = 0;
/// Degree need direction: in.
pub const NEED_IN: u32 = 1;
/// Degree need direction: either (sum of both).
pub const NEED_BOTH: u32 = 2;

/// Resume state layout per work-item: `[depth, 4 × levels cursors, k nodes, nr named rels]`.
pub fn state_words(levels: usize, k: usize, nr: usize) -> usize {
    1 + 4 * levels + k + nr
}

/// A plan encoded for the device.
#[derive(Debug, Clone)]
pub struct EncodedPlan {
    /// The flat plan (layout in the module docs).
    pub words: Vec<u32>,
    /// Concatenated candidate lists of the scan steps after the pivot (sorted node ids).
    pub scan_nodes: Vec<u32>,
    /// Pattern nodes.
    pub k: usize,
    /// Pattern relationships.
    pub r: usize,
    /// The relationship slots of the named relationships, in named-index order.
    pub named: Vec<usize>,
    /// Backtracking levels.
    pub levels: usize,
    /// The pivot's node slot.
    pub pivot_slot: usize,
    /// Words per result row (`k + nr`: node ids by slot, then the edge ids of the named
    /// relationships in [`named`](Self::named) order).
    pub row_words: usize,
    /// Words of resume state per work-item.
    pub state_words: usize,
}

/// Predicate programs for the device (filled in by the bytecode compiler); empty = none.
#[derive(Debug, Clone, Default)]
pub struct Programs {
    /// Per step, the program of its device-evaluated filters (conjunction), in `uint` words.
    pub steps: Vec<Vec<u32>>,
    /// The pivot's unary program (conjunction), `None` = test the uploaded bitset instead.
    pub pivot: Option<Vec<u32>>,
}

/// Checks that a pattern fits the kernel's fixed limits.
pub fn check_limits(query: &BoundQuery, plan: &Plan) -> Result<()> {
    let k = query.pattern.nodes.len();
    let r = query.pattern.rels.len();
    if k > MAX_PATTERN_NODES {
        return Err(Error::DeviceLimit(format!(
            "the pattern has {k} nodes; the OpenCL matcher takes at most {MAX_PATTERN_NODES}"
        )));
    }
    if r > MAX_PATTERN_RELS {
        return Err(Error::DeviceLimit(format!(
            "the pattern has {r} relationships; the OpenCL matcher takes at most {MAX_PATTERN_RELS}"
        )));
    }
    let nr = query.pattern.rels.iter().filter(|r| r.named).count();
    if nr > MAX_NAMED_RELS {
        return Err(Error::DeviceLimit(format!(
            "the pattern has {nr} named relationships; the OpenCL matcher takes at most \
             {MAX_NAMED_RELS}"
        )));
    }
    let levels = levels_of(query, plan);
    if levels > MAX_LEVELS {
        return Err(Error::DeviceLimit(format!(
            "the pattern needs {levels} search levels (nodes plus named relationships closing \
             cycles); the OpenCL matcher takes at most {MAX_LEVELS}"
        )));
    }
    if plan.steps.len() != k || plan.steps.is_empty() {
        return Err(Error::DeviceLimit(
            "the OpenCL matcher needs a non-empty pattern whose plan binds every node".into(),
        ));
    }
    Ok(())
}

fn levels_of(query: &BoundQuery, plan: &Plan) -> usize {
    plan.steps
        .iter()
        .map(|s| {
            1 + s
                .checks
                .iter()
                .filter(|&&c| query.pattern.rels.get(c).is_some_and(|r| r.named))
                .count()
        })
        .sum()
}

/// Distinct types in first-occurrence order (expansions keep the written order).
fn dedup_keep_order(types: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(types.len());
    for &t in types {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Encodes `plan` for the device. `cands` are the host candidate sets the plan was made from
/// (scan steps after the pivot scan them); `programs` the compiled predicate programs.
pub fn encode(
    query: &BoundQuery,
    plan: &Plan,
    cands: &[CandidateSet],
    semantics: Semantics,
    programs: &Programs,
) -> Result<EncodedPlan> {
    if semantics.distinct_edges() {
        return Err(Error::DeviceLimit(
            "the OpenCL matcher does not implement Cypher semantics (--semantics cypher, the \
             default for Cypher text: distinct edges per MATCH); --semantics isomorphism runs \
             node-isomorphism on it"
                .into(),
        ));
    }
    check_limits(query, plan)?;
    let pattern = &query.pattern;
    let k = pattern.nodes.len();
    let r = pattern.rels.len();
    let n_steps = plan.steps.len();
    let levels = levels_of(query, plan);
    let named: Vec<usize> = (0..r).filter(|&i| pattern.rels[i].named).collect();
    let mut named_index = vec![NONE; r];
    for (j, &slot) in named.iter().enumerate() {
        named_index[slot] = j as u32;
    }
    let nr = named.len();
    let n_checks: usize = plan.steps.iter().map(|s| s.checks.len()).sum();
    let pivot_slot = plan.steps[0].node;
    if cands.len() != k {
        return Err(Error::InvalidArgument(format!(
            "{} candidate sets for a pattern of {k} nodes",
            cands.len()
        )));
    }
    let mut step_of = vec![usize::MAX; k];
    for (i, s) in plan.steps.iter().enumerate() {
        match step_of.get_mut(s.node) {
            Some(slot) if *slot == usize::MAX => *slot = i,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "plan step {i} binds node slot {} twice or out of range",
                    s.node
                )))
            }
        }
    }

    let steps_off = HEADER_WORDS;
    let checks_off = steps_off + n_steps * STEP_WORDS;
    let levels_off = checks_off + n_checks * CHECK_WORDS;
    let cnf_off = levels_off + levels * LEVEL_WORDS;
    let mut w = vec![0u32; cnf_off + k];
    let push_list = |w: &mut Vec<u32>, list: &[u32]| -> (u32, u32) {
        let off = w.len() as u32;
        w.extend_from_slice(list);
        (off, list.len() as u32)
    };

    // Label CNFs.
    for (slot, node) in pattern.nodes.iter().enumerate() {
        let off = w.len() as u32;
        w[cnf_off + slot] = off;
        w.push(node.labels.len() as u32);
        for group in &node.labels {
            w.push(group.len() as u32);
            w.extend_from_slice(group);
        }
    }

    // Steps, checks and levels.
    let mut scan_nodes = Vec::new();
    let mut check_index = 0usize;
    let mut level = 0usize;
    for (i, step) in plan.steps.iter().enumerate() {
        let base = steps_off + i * STEP_WORDS;
        let mut f = [0u32; STEP_WORDS];
        f[S_NODE] = step.node as u32;
        f[S_FROM] = NONE;
        f[S_FROM_STEP] = NONE;
        f[S_REL] = NONE;
        match step.expand {
            None => {
                f[S_KIND] = KIND_SCAN;
                if i > 0 {
                    let list = &cands[step.node].nodes;
                    f[S_SCAN_OFF] = scan_nodes.len() as u32;
                    f[S_SCAN_LEN] = list.len() as u32;
                    scan_nodes.extend_from_slice(list);
                }
            }
            Some(x) => {
                let rel = pattern.rels.get(x.rel).ok_or_else(|| {
                    Error::InvalidArgument(format!("plan expands relationship {}", x.rel))
                })?;
                f[S_KIND] = match x.dir {
                    Dir::Out => KIND_OUT,
                    Dir::In => KIND_IN,
                    Dir::Both => KIND_BOTH,
                };
                f[S_FROM] = x.from as u32;
                f[S_FROM_STEP] = step_of.get(x.from).copied().unwrap_or(usize::MAX) as u32;
                if f[S_FROM_STEP] as usize >= i {
                    return Err(Error::InvalidArgument(format!(
                        "plan step {i} expands from a node bound later"
                    )));
                }
                f[S_REL] = named_index[x.rel];
                let (off, cnt) = push_list(&mut w, &dedup_keep_order(&rel.types));
                f[S_TYPES_OFF] = off;
                f[S_TYPES_CNT] = cnt;
                f[S_NAMED] = rel.named as u32;
            }
        }
        f[S_CHECKS_OFF] = check_index as u32;
        f[S_CHECKS_CNT] = step.checks.len() as u32;
        if let Some(prog) = programs.steps.get(i).filter(|p| !p.is_empty()) {
            let (off, len) = push_list(&mut w, prog);
            f[S_FILTER_OFF] = off;
            f[S_FILTER_LEN] = len;
        }
        w[base..base + STEP_WORDS].copy_from_slice(&f);

        // The node level, then one level per named check.
        let named_checks: Vec<usize> = step
            .checks
            .iter()
            .enumerate()
            .filter(|(_, &c)| pattern.rels[c].named)
            .map(|(j, _)| check_index + j)
            .collect();
        let mut put_level = |kind: u32, check: usize, last: bool| {
            let b = levels_off + level * LEVEL_WORDS;
            w[b + L_KIND] = kind;
            w[b + L_STEP] = i as u32;
            w[b + L_CHECK] = check as u32;
            w[b + L_LAST] = last as u32;
            level += 1;
        };
        put_level(LEVEL_NODE, NONE as usize, named_checks.is_empty());
        for (j, &c) in named_checks.iter().enumerate() {
            put_level(LEVEL_CHECK, c, j + 1 == named_checks.len());
        }

        for &c in &step.checks {
            let rel = pattern
                .rels
                .get(c)
                .ok_or_else(|| Error::InvalidArgument(format!("plan checks relationship {c}")))?;
            let mut types = rel.types.clone();
            types.sort_unstable();
            types.dedup();
            let (off, cnt) = push_list(&mut w, &types);
            let b = checks_off + check_index * CHECK_WORDS;
            let src_step = step_of.get(rel.src).copied().unwrap_or(usize::MAX);
            let dst_step = step_of.get(rel.dst).copied().unwrap_or(usize::MAX);
            if src_step > i || dst_step > i {
                return Err(Error::InvalidArgument(format!(
                    "plan step {i} checks relationship {c} before both ends are bound"
                )));
            }
            w[b + C_SRC] = rel.src as u32;
            w[b + C_DST] = rel.dst as u32;
            w[b + C_SRC_STEP] = src_step as u32;
            w[b + C_DST_STEP] = dst_step as u32;
            w[b + C_REL] = named_index[c];
            w[b + C_TYPES_OFF] = off;
            w[b + C_TYPES_CNT] = cnt;
            w[b + C_UNDIRECTED] = rel.undirected as u32;
            w[b + C_NAMED] = rel.named as u32;
            check_index += 1;
        }
    }

    // The pivot's degree needs (exactly the host filter's, see `candidates::degree_needs`).
    let needs = degree_needs(pattern, pivot_slot);
    let needs_off = w.len();
    w.resize(needs_off + needs.len() * NEED_WORDS, 0);
    for (j, (types, dir, count)) in needs.iter().enumerate() {
        let need = if semantics == Semantics::Isomorphism {
            *count
        } else {
            1
        };
        let (off, cnt) = push_list(&mut w, types);
        let b = needs_off + j * NEED_WORDS;
        w[b] = match dir {
            Some(true) => NEED_OUT,
            Some(false) => NEED_IN,
            None => NEED_BOTH,
        };
        w[b + 1] = need.min(u32::MAX as usize) as u32;
        w[b + 2] = off;
        w[b + 3] = cnt;
    }

    let (pivot_bits, prog_off, prog_len) = match &programs.pivot {
        Some(p) => {
            let (off, len) = push_list(&mut w, p);
            (0, off, len)
        }
        None => (
            u32::from(plan.unary.get(pivot_slot).is_some_and(|u| !u.is_empty())),
            0,
            0,
        ),
    };

    let state = state_words(levels, k, nr);
    let header = &mut w[..HEADER_WORDS];
    header[H_MAGIC] = MAGIC;
    header[H_K] = k as u32;
    header[H_R] = nr as u32;
    header[H_STEPS] = n_steps as u32;
    header[H_LEVELS] = levels as u32;
    header[H_SEMANTICS] = u32::from(semantics == Semantics::Homomorphism);
    header[H_STEPS_OFF] = steps_off as u32;
    header[H_LEVELS_OFF] = levels_off as u32;
    header[H_CHECKS_OFF] = checks_off as u32;
    header[H_CNF_OFF] = cnf_off as u32;
    header[H_PIVOT_SLOT] = pivot_slot as u32;
    header[H_STATE_WORDS] = state as u32;
    header[H_NEEDS_OFF] = needs_off as u32;
    header[H_NEEDS] = needs.len() as u32;
    header[H_PIVOT_BITS] = pivot_bits;
    header[H_PIVOT_PROG_OFF] = prog_off;
    header[H_PIVOT_PROG_LEN] = prog_len;
    header[H_ROW_WORDS] = (k + nr) as u32;
    Ok(EncodedPlan {
        words: w,
        scan_nodes,
        k,
        r,
        named,
        levels,
        pivot_slot,
        row_words: k + nr,
        state_words: state,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::plan::{Expansion, Step};
    use crate::pattern::ir::{NodeVar, Pattern, RelVar};

    fn node(labels: Vec<Vec<u32>>) -> NodeVar {
        NodeVar {
            name: "n".into(),
            named: true,
            labels,
        }
    }

    fn rel(src: usize, dst: usize, types: Vec<u32>, named: bool, undirected: bool) -> RelVar {
        RelVar {
            name: "r".into(),
            named,
            src,
            dst,
            types,
            undirected,
            clause: 0,
        }
    }

    fn step(node: usize, expand: Option<Expansion>, checks: Vec<usize>) -> Step {
        Step {
            node,
            expand,
            checks,
            filters: vec![],
            candidates: 0,
            estimate: 0.0,
        }
    }

    fn cands(k: usize) -> Vec<CandidateSet> {
        (0..k).map(|_| CandidateSet::default()).collect()
    }

    /// A triangle a-b-c: a→b expanded (named, types [3, 1, 3]), b–c undirected anonymous, c→a
    /// named check with types [2, 1, 2].
    fn triangle() -> (BoundQuery, Plan) {
        let q = BoundQuery {
            pattern: Pattern {
                nodes: vec![
                    node(vec![vec![7, 8], vec![9]]),
                    node(vec![]),
                    node(vec![vec![]]),
                ],
                rels: vec![
                    rel(0, 1, vec![3, 1, 3], true, false),
                    rel(1, 2, vec![], false, true),
                    rel(2, 0, vec![2, 1, 2], true, false),
                ],
            },
            filter: vec![],
            stages: vec![],
            clauses: None,
        };
        let plan = Plan {
            steps: vec![
                step(0, None, vec![]),
                step(
                    1,
                    Some(Expansion {
                        rel: 0,
                        from: 0,
                        dir: Dir::Out,
                    }),
                    vec![],
                ),
                step(
                    2,
                    Some(Expansion {
                        rel: 1,
                        from: 1,
                        dir: Dir::Both,
                    }),
                    vec![2],
                ),
            ],
            unary: vec![vec![]; 3],
            attribute_filters: vec![],
        };
        (q, plan)
    }

    #[test]
    fn triangle_layout() {
        let (q, plan) = triangle();
        let e = encode(
            &q,
            &plan,
            &cands(3),
            Semantics::Isomorphism,
            &Programs::default(),
        )
        .unwrap();
        let w = &e.words;
        assert_eq!(w[H_MAGIC], MAGIC);
        assert_eq!((w[H_K], w[H_R], w[H_STEPS], w[H_LEVELS]), (3, 2, 3, 4));
        assert_eq!(e.levels, 4);
        assert_eq!(e.named, vec![0, 2]);
        assert_eq!(e.row_words, 5);
        assert_eq!(e.state_words, 1 + 16 + 3 + 2);
        assert_eq!(w[H_SEMANTICS], 0);
        let step = |i: usize, f: usize| w[w[H_STEPS_OFF] as usize + i * STEP_WORDS + f];
        assert_eq!(step(0, S_KIND), KIND_SCAN);
        assert_eq!(step(1, S_KIND), KIND_OUT);
        assert_eq!(step(1, S_FROM), 0);
        assert_eq!(step(1, S_FROM_STEP), 0);
        assert_eq!(step(1, S_NAMED), 1);
        // Expansion types keep their order, without repeats.
        let t = step(1, S_TYPES_OFF) as usize;
        assert_eq!(&w[t..t + step(1, S_TYPES_CNT) as usize], &[3, 1]);
        assert_eq!(step(2, S_KIND), KIND_BOTH);
        assert_eq!(step(2, S_TYPES_CNT), 0);
        assert_eq!(step(2, S_CHECKS_CNT), 1);
        let c = w[H_CHECKS_OFF] as usize + step(2, S_CHECKS_OFF) as usize * CHECK_WORDS;
        assert_eq!((w[c + C_SRC], w[c + C_DST], w[c + C_REL]), (2, 0, 1));
        assert_eq!((w[c + C_SRC_STEP], w[c + C_DST_STEP]), (2, 0));
        assert_eq!((w[c + C_UNDIRECTED], w[c + C_NAMED]), (0, 1));
        // Check types are sorted and distinct.
        let t = w[c + C_TYPES_OFF] as usize;
        assert_eq!(&w[t..t + w[c + C_TYPES_CNT] as usize], &[1, 2]);
        // Levels: node 0, node 1, node 2, named check of step 2 (last).
        let lv = |i: usize, f: usize| w[w[H_LEVELS_OFF] as usize + i * LEVEL_WORDS + f];
        let kinds: Vec<u32> = (0..4).map(|i| lv(i, L_KIND)).collect();
        assert_eq!(kinds, vec![LEVEL_NODE, LEVEL_NODE, LEVEL_NODE, LEVEL_CHECK]);
        let last: Vec<u32> = (0..4).map(|i| lv(i, L_LAST)).collect();
        assert_eq!(last, vec![1, 1, 0, 1]);
        assert_eq!(lv(3, L_STEP), 2);
        assert_eq!(lv(3, L_CHECK), 0);
        // CNFs.
        let cnf = |s: usize| w[w[H_CNF_OFF] as usize + s] as usize;
        assert_eq!(&w[cnf(0)..cnf(0) + 6], &[2, 2, 7, 8, 1, 9]);
        assert_eq!(w[cnf(1)], 0);
        assert_eq!(&w[cnf(2)..cnf(2) + 2], &[1, 0]);
        // Pivot degree needs: one out-edge of types [1, 3, 3] (host order: sorted, not deduplicated)
        // and one in-edge of types [1, 2, 2].
        assert_eq!(w[H_NEEDS], 2);
        let needs = w[H_NEEDS_OFF] as usize;
        let mut got = Vec::new();
        for j in 0..2 {
            let b = needs + j * NEED_WORDS;
            let t = w[b + 2] as usize;
            got.push((w[b], w[b + 1], w[t..t + w[b + 3] as usize].to_vec()));
        }
        got.sort();
        assert_eq!(
            got,
            vec![(NEED_OUT, 1, vec![1, 3, 3]), (NEED_IN, 1, vec![1, 2, 2])]
        );
        assert_eq!(w[H_PIVOT_BITS], 0);
    }

    #[test]
    fn scan_steps_and_pivot_bits() {
        // Two disconnected nodes: the second is scanned from its candidate list.
        let q = BoundQuery {
            pattern: Pattern {
                nodes: vec![node(vec![]), node(vec![])],
                rels: vec![],
            },
            filter: vec![],
            stages: vec![],
            clauses: None,
        };
        let plan = Plan {
            steps: vec![step(1, None, vec![]), step(0, None, vec![])],
            unary: vec![vec![], vec![0]],
            attribute_filters: vec![],
        };
        let mut c = cands(2);
        c[0].nodes = vec![4, 9];
        let e = encode(&q, &plan, &c, Semantics::Homomorphism, &Programs::default()).unwrap();
        assert_eq!(e.scan_nodes, vec![4, 9]);
        assert_eq!(e.pivot_slot, 1);
        assert_eq!(e.words[H_PIVOT_BITS], 1);
        assert_eq!(e.words[H_SEMANTICS], 1);
        let s1 = e.words[H_STEPS_OFF] as usize + STEP_WORDS;
        assert_eq!((e.words[s1 + S_SCAN_OFF], e.words[s1 + S_SCAN_LEN]), (0, 2));
    }

    #[test]
    fn limits_are_errors() {
        let k = MAX_PATTERN_NODES + 1;
        let q = BoundQuery {
            pattern: Pattern {
                nodes: (0..k).map(|_| node(vec![])).collect(),
                rels: vec![],
            },
            filter: vec![],
            stages: vec![],
            clauses: None,
        };
        let plan = Plan {
            steps: (0..k).map(|i| step(i, None, vec![])).collect(),
            unary: vec![vec![]; k],
            attribute_filters: vec![],
        };
        let err = encode(
            &q,
            &plan,
            &cands(k),
            Semantics::Isomorphism,
            &Programs::default(),
        )
        .unwrap_err();
        assert!(matches!(err, Error::DeviceLimit(m) if m.contains("at most 16")));
        let empty = BoundQuery {
            pattern: Pattern::default(),
            filter: vec![],
            stages: vec![],
            clauses: None,
        };
        let plan = Plan {
            steps: vec![],
            unary: vec![],
            attribute_filters: vec![],
        };
        assert!(encode(
            &empty,
            &plan,
            &[],
            Semantics::Isomorphism,
            &Programs::default()
        )
        .is_err());
    }
}
