//! The OpenCL backend of GEMP's two-phase matching pipeline, beside the host matcher
//! ([`crate::engines::gemp::execute`]) and with results identical to it, under node-isomorphism and
//! homomorphism; Cypher semantics ([`crate::exec::Semantics::Cypher`]) is refused as an
//! [`crate::Error::DeviceLimit`], so `--backend auto` runs such a query on the host.
//!
//! - **filter and plan** on the host ([`crate::engines::gemp::prepare`]): candidate sets and the plan;
//! - **encode** ([`encode`]): the plan as flat `uint` arrays, so one compiled kernel serves every
//!   pattern of up to [`MAX_PATTERN_NODES`] nodes;
//! - **pivot step** (GEMP §7.1): `mark_pivot` flags the pivot's candidates on the device, device
//!   compaction lists them, and one work-item runs per pivot candidate;
//! - **phase 1** (`cl/topology.cl`): iterative backtracking per pivot with an explicit stack in
//!   private memory; count mode (per-work-item counters) or bindings mode (a global result buffer
//!   with overflow rounds, see `topology.rs`);
//! - **phase-1 predicates** ([`bytecode`]): step filters and the pivot's unary conjuncts compiled
//!   into a stack bytecode the kernels interpret; *residual* conjuncts the bytecode cannot express
//!   run on the host on complete matches (in parallel);
//! - **phase 2** ([`attributes`], `cl/attributes.cl`): simple string conjuncts on the device over
//!   a compact heap of the matched nodes' strings; regular expressions and mixed string logic on
//!   the host (rayon);
//! - **factorised counting** ([`factorised`], `cl/factorised.cl`, and `cl/triangles.cl` for
//!   co-occurrence triangles): a query the host counts without enumerating (couples, cliques
//!   with `count`, co-star cycles) runs the host's factorised plan on the device instead of
//!   phases 1 and 2, returning weighted kept bindings, not embeddings;
//! - **counting over the candidate space** ([`space`], `cl/space.cl`): a count the host's
//!   candidate-space core takes (and no factorised plan answers) runs the core's filter and
//!   order on the host and its enumeration on the device — work-group-cooperative
//!   intersections, the last node counted by intersection size, bounded stacks split on the
//!   host when they overflow;
//! - **result stage**: the surviving matches go through the host's
//!   [`RowSink`](super::results::RowSink) / [`Projector`](super::results::Projector), so
//!   projections, aggregates and ordering are the host's.
//!
//! Rows without `ORDER BY` come in pivot order (per pivot in the device's search order), which can
//! differ from the host's order within one pivot; the multiset of rows is the same.
//!
//! Requires the `opencl` cargo feature, except for [`encode`] and the configuration types.

pub mod attributes;
pub mod bytecode;
pub mod encode;
#[cfg(feature = "opencl")]
pub mod factorised;
#[cfg(feature = "opencl")]
pub mod space;
#[cfg(feature = "opencl")]
mod topology;
#[cfg(feature = "opencl")]
mod triangles;

use std::time::Duration;

use serde::Serialize;

pub use encode::{MAX_LEVELS, MAX_NAMED_RELS, MAX_PATTERN_NODES, MAX_PATTERN_RELS};
#[cfg(feature = "opencl")]
pub use topology::{DeviceModel, Phase1Mode, Phase1Stats, PivotQueue};

/// `cl/topology.cl`: `mark_pivot` and the phase-1 `topology` kernel.
pub const TOPOLOGY_CL: &str = include_str!("../../../../cl/topology.cl");
/// `cl/predicates.cl`: the predicate-program interpreter the phase-1 kernels call.
pub const PREDICATES_CL: &str = include_str!("../../../../cl/predicates.cl");
/// `cl/attributes.cl`: the phase-2 attribute kernel.
pub const ATTRIBUTES_CL: &str = include_str!("../../../../cl/attributes.cl");

/// Tuning of the device backend.
#[derive(Debug, Clone)]
pub struct DeviceConfig {
    /// Result buffer size in `uint` words (GEMP's `maxBuffSize` is this divided by the row width
    /// `k + r`). Default 16 Mi words = 64 MiB.
    pub result_buffer_words: usize,
    /// Work-items of the first round in bindings mode (GEMP's `initThreadNum`); `None` = 4 ×
    /// compute units × work-group size.
    pub initial_threads: Option<usize>,
    /// At most this many work-items per round (bounds the resume-state buffers:
    /// `max_threads × (1 + 4·levels + k + named relationships)` words each, two of them).
    /// Default 65 536.
    pub max_threads: usize,
    /// GEMP's `C` after a round that did not overflow (formulas 1–2). Default 2.0.
    pub growth: f64,
    /// GEMP's `C` after a round that overflowed: below 1, so the thread count backs off.
    /// Default 0.5.
    pub overflow_growth: f64,
    /// The most candidates one work-item examines per launch before suspending (0 = unlimited:
    /// one launch runs every pivot to its end). Bounds the time of one launch (display GPUs kill
    /// long kernels) and lets `--timeout` stop between rounds. Default 2²².
    pub step_budget: u64,
    /// The budget of the first launch; later launches scale it (up to `step_budget`) so that a
    /// launch takes about [`round_time`](Self::round_time). Default 2¹².
    pub initial_step_budget: u64,
    /// Target device time of one launch (shortened near a `--timeout` deadline). Default 50 ms.
    pub round_time: Duration,
    /// Work-group size of `topology` (`None` = the device type's default).
    pub local_size: Option<usize>,
    /// Host threads that process pivots from the end of the pivot list while the device takes
    /// rounds from its start (GEMP §7.1: "missing results are processed on the host side parallel
    /// to the GPU threads"). `None` = automatic: none when the OpenCL device is the CPU itself
    /// (they would compete for the same cores), else all cores but one.
    pub host_threads: Option<usize>,
    /// Pivots a host thread takes at a time.
    pub host_chunk: usize,
    /// Leave a query the host counts without enumerating (a factorised plan) to the host: the
    /// engine answers [`crate::Error::DeviceLimit`] for it. Set by `--backend auto`: the
    /// enumerating pipeline lost to the host's counting by 10–100× on an NVIDIA H200
    /// (docs/benchmarks.md, "On a GPU"), and the factorised kernels that replaced it for these
    /// queries have not been measured on a GPU yet.
    pub defer_factorised: bool,
    /// Most words of per-work-item scratch one set of the factorised kernel may take, and most
    /// slots of a two-hop step's candidate table (`cl/factorised.cl`): the first pass gives
    /// each 1/256 of this limit (at most 4,096), pivots that need more run again with sixteen
    /// times as much, up to this limit, and beyond it on the host. Default 2²².
    pub factorised_region_words: usize,
    /// Under `--backend auto`: a count over the candidate space runs on the device only when
    /// [`crate::gpu::cost`] predicts it faster than the host by its margin (the engine answers
    /// [`crate::Error::DeviceLimit`] otherwise). Default false.
    pub cost_model: bool,
    /// Count queries of the candidate-space core on the device (`cl/space.cl`). Default false
    /// until the kernel is measured on a GPU (its counts equal the host core's and brute force on
    /// PoCL with work-groups of 1, 2, 4 and 8 work-items: `tests/it/device_space.rs`).
    pub space: bool,
    /// Words of one work-group's stack in `cl/space.cl` (its open levels' candidates); a root
    /// whose levels need more is split on the host. Default 2¹⁵.
    pub space_stack_words: usize,
    /// Roots per launch of `cl/space.cl` (bounds one launch's time and the overflow list).
    /// Default 2²².
    pub space_batch: usize,
    /// Work-groups of `cl/space.cl` (`None`: [`crate::gpu::sizing::persistent_work_items`] of
    /// the device with one work-item per group, i.e. 4 per compute unit on a CPU, 16 on a GPU).
    pub space_groups: Option<usize>,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            result_buffer_words: 16 << 20,
            initial_threads: None,
            max_threads: 1 << 16,
            growth: crate::gpu::sizing::DEFAULT_GROWTH,
            overflow_growth: 0.5,
            step_budget: 1 << 22,
            initial_step_budget: 1 << 12,
            round_time: Duration::from_millis(50),
            local_size: None,
            host_threads: None,
            host_chunk: 16,
            defer_factorised: false,
            factorised_region_words: 1 << 22,
            cost_model: false,
            space: false,
            space_stack_words: 1 << 15,
            space_batch: 1 << 22,
            space_groups: None,
        }
    }
}

/// GEMP's measurement points (§7) for one query on the device.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DeviceTimings {
    /// Candidate filtering and planning on the host.
    pub prepare: Duration,
    /// (2) Converting the plan to the OpenCL input format (encoding, bitsets, predicate programs).
    pub convert: Duration,
    /// (3) Query upload, pivot marking and compaction.
    pub upload: Duration,
    /// (3) Phase 1: the rounds of the topology kernel (wall time, reads included).
    pub phase1: Duration,
    /// Device time of the topology launches.
    pub phase1_kernel: Duration,
    /// (4) Reading the results back.
    pub read_results: Duration,
    /// (5) Building and uploading the phase-2 buffers.
    pub phase2_buffers: Duration,
    /// (6) Phase 2 (attribute kernel and host-side conjuncts).
    pub phase2: Duration,
    /// (7) The result stage (projection, grouping, ordering).
    pub results: Duration,
    /// Bytes uploaded for the query (plan, candidate bitsets, scan lists, predicate columns).
    pub upload_bytes: usize,
    /// Pivot candidates.
    pub pivots: usize,
    /// Pivots processed by host threads (the rest by the device).
    pub host_pivots: usize,
    /// Rounds of the topology kernel.
    pub rounds: usize,
    /// Rounds that overflowed the result buffer.
    pub overflows: usize,
    /// Phase-1 matches.
    pub phase1_matches: u64,
    /// Matches surviving phase 2.
    pub phase2_matches: u64,
    /// True when the query ran as factorised counting (`cl/factorised.cl`): phase 1 then
    /// returns kept bindings with weights (`phase1_matches` counts them) and there is no
    /// phase 2.
    pub factorised: bool,
    /// True when the query ran as a count over the candidate space (`cl/space.cl`): `rounds`
    /// counts its launches, `overflows` the roots split on the host, `phase1_matches` the count.
    pub space: bool,
}

#[cfg(feature = "opencl")]
mod run;
#[cfg(feature = "opencl")]
pub use run::{DeviceMatcher, Matches};

#[cfg(test)]
mod tests {
    use super::encode::*;
    use super::TOPOLOGY_CL;

    /// The `#define`s of `cl/topology.cl` mirror the encoder's layout constants.
    #[test]
    fn kernel_layout_constants_match_the_encoder() {
        let defines: std::collections::HashMap<&str, u64> = TOPOLOGY_CL
            .lines()
            .filter_map(|l| {
                let mut it = l.trim().strip_prefix("#define ")?.split_whitespace();
                let name = it.next()?;
                let value = it.next()?.trim_end_matches('u');
                Some((name, value.parse().ok()?))
            })
            .collect();
        let expect: &[(&str, u64)] = &[
            ("GEMP_MAX_NODES", MAX_PATTERN_NODES as u64),
            ("GEMP_MAX_NAMED_RELS", MAX_NAMED_RELS as u64),
            ("GEMP_MAX_LEVELS", MAX_LEVELS as u64),
            ("H_K", H_K as u64),
            ("H_R", H_R as u64),
            ("H_STEPS", H_STEPS as u64),
            ("H_LEVELS", H_LEVELS as u64),
            ("H_SEMANTICS", H_SEMANTICS as u64),
            ("H_STEPS_OFF", H_STEPS_OFF as u64),
            ("H_LEVELS_OFF", H_LEVELS_OFF as u64),
            ("H_CHECKS_OFF", H_CHECKS_OFF as u64),
            ("H_CNF_OFF", H_CNF_OFF as u64),
            ("H_PIVOT_SLOT", H_PIVOT_SLOT as u64),
            ("H_STATE_WORDS", H_STATE_WORDS as u64),
            ("H_NEEDS_OFF", H_NEEDS_OFF as u64),
            ("H_NEEDS", H_NEEDS as u64),
            ("H_PIVOT_BITS", H_PIVOT_BITS as u64),
            ("H_PIVOT_PROG_OFF", H_PIVOT_PROG_OFF as u64),
            ("H_PIVOT_PROG_LEN", H_PIVOT_PROG_LEN as u64),
            ("H_ROW_WORDS", H_ROW_WORDS as u64),
            ("STEP_WORDS", STEP_WORDS as u64),
            ("S_NODE", S_NODE as u64),
            ("S_KIND", S_KIND as u64),
            ("S_FROM", S_FROM as u64),
            ("S_FROM_STEP", S_FROM_STEP as u64),
            ("S_REL", S_REL as u64),
            ("S_TYPES_OFF", S_TYPES_OFF as u64),
            ("S_TYPES_CNT", S_TYPES_CNT as u64),
            ("S_NAMED", S_NAMED as u64),
            ("S_CHECKS_OFF", S_CHECKS_OFF as u64),
            ("S_CHECKS_CNT", S_CHECKS_CNT as u64),
            ("S_FILTER_OFF", S_FILTER_OFF as u64),
            ("S_FILTER_LEN", S_FILTER_LEN as u64),
            ("S_SCAN_OFF", S_SCAN_OFF as u64),
            ("S_SCAN_LEN", S_SCAN_LEN as u64),
            ("KIND_SCAN", KIND_SCAN as u64),
            ("KIND_OUT", KIND_OUT as u64),
            ("KIND_IN", KIND_IN as u64),
            ("KIND_BOTH", KIND_BOTH as u64),
            ("CHECK_WORDS", CHECK_WORDS as u64),
            ("C_SRC", C_SRC as u64),
            ("C_DST", C_DST as u64),
            ("C_SRC_STEP", C_SRC_STEP as u64),
            ("C_DST_STEP", C_DST_STEP as u64),
            ("C_REL", C_REL as u64),
            ("C_TYPES_OFF", C_TYPES_OFF as u64),
            ("C_TYPES_CNT", C_TYPES_CNT as u64),
            ("C_UNDIRECTED", C_UNDIRECTED as u64),
            ("C_NAMED", C_NAMED as u64),
            ("LEVEL_WORDS", LEVEL_WORDS as u64),
            ("L_KIND", L_KIND as u64),
            ("L_STEP", L_STEP as u64),
            ("L_CHECK", L_CHECK as u64),
            ("L_LAST", L_LAST as u64),
            ("LEVEL_NODE", LEVEL_NODE as u64),
            ("LEVEL_CHECK", LEVEL_CHECK as u64),
            ("NEED_WORDS", NEED_WORDS as u64),
            ("NEED_OUT", NEED_OUT as u64),
            ("NEED_IN", NEED_IN as u64),
            ("NEED_BOTH", NEED_BOTH as u64),
        ];
        for &(name, value) in expect {
            assert_eq!(defines.get(name), Some(&value), "{name}");
        }
    }

    /// The `#define`s of `cl/predicates.cl` mirror the bytecode compiler's constants.
    #[test]
    fn predicate_constants_match_the_compiler() {
        use super::bytecode::*;
        let defines: std::collections::HashMap<&str, u64> = super::PREDICATES_CL
            .lines()
            .filter_map(|l| {
                let mut it = l.trim().strip_prefix("#define ")?.split_whitespace();
                let name = it.next()?;
                let value = it.next()?.trim_end_matches('u');
                Some((name, value.parse().ok()?))
            })
            .collect();
        let expect: &[(&str, u64)] = &[
            ("GEMP_STACK", MAX_STACK as u64),
            ("T_NULL", T_NULL as u64),
            ("T_BOOL", T_BOOL as u64),
            ("T_INT", T_INT as u64),
            ("T_FLOAT", T_FLOAT as u64),
            ("T_NODE", T_NODE as u64),
            ("T_REL", T_REL as u64),
            ("OP_LIT", OP_LIT as u64),
            ("OP_NODE", OP_NODE as u64),
            ("OP_REL", OP_REL as u64),
            ("OP_NODE_ID", OP_NODE_ID as u64),
            ("OP_REL_ID", OP_REL_ID as u64),
            ("OP_NODE_PROP", OP_NODE_PROP as u64),
            ("OP_REL_PROP", OP_REL_PROP as u64),
            ("OP_HAS_LABELS", OP_HAS_LABELS as u64),
            ("OP_CMP", OP_CMP as u64),
            ("OP_IS_NULL", OP_IS_NULL as u64),
            ("OP_NOT", OP_NOT as u64),
            ("OP_AND", OP_AND as u64),
            ("OP_OR", OP_OR as u64),
            ("OP_XOR", OP_XOR as u64),
            ("OP_NEG", OP_NEG as u64),
            ("OP_IN", OP_IN as u64),
            ("OP_EXISTS_EDGE", OP_EXISTS_EDGE as u64),
            ("OP_EXISTS_NEIGHBOR", OP_EXISTS_NEIGHBOR as u64),
            ("PT_ENTRY", PT_ENTRY as u64),
            ("PK_ABSENT", PK_ABSENT as u64),
            ("PK_INT", PK_INT as u64),
            ("PK_FLOAT", PK_FLOAT as u64),
            ("PK_BOOL", PK_BOOL as u64),
        ];
        for &(name, value) in expect {
            assert_eq!(defines.get(name), Some(&value), "{name}");
        }
        // Pushing opcodes come first (the interpreter's overflow check relies on it).
        assert!([
            OP_LIT,
            OP_NODE,
            OP_REL,
            OP_NODE_ID,
            OP_REL_ID,
            OP_NODE_PROP,
            OP_REL_PROP
        ]
        .iter()
        .all(|&op| op <= OP_HAS_LABELS));
    }
}
