//! Factorised counting on the device: the host's factorised plan ([`crate::engines::gemp::factorised`])
//! run by `cl/factorised.cl`, one work-item per pivot, so a grouped query's counted nodes are
//! never enumerated and only kept bindings with their weights come back (couples: the pairs
//! with three or more shared titles, not every embedding).
//!
//! - **plan**: the host decides exactly as [`crate::engines::gemp::execute`] does (candidate
//!   filtering, the symmetry reduction of a pure count, the factorised plan), so both count
//!   the same bindings with the same weights;
//! - **lists**: every relationship the plan walks becomes a *projected list* built on the host per
//!   query: for each candidate of the node at one end, its neighbours along the relationship's
//!   types and direction that are candidates of the node at the other end, sorted and distinct.
//!   The kernel then only intersects sorted lists and never reads types, labels or candidate
//!   sets;
//! - **rounds**: a round takes a range of pivots; a pivot whose rows did not fit in the row
//!   buffer is run again in a later round with a larger buffer (its partial rows dropped), a
//!   pivot whose sets exceed the per-work-item scratch is run by the host's factorised search;
//! - **results**: the weighted bindings go through the same result sinks as the host's
//!   ([`FactorPlan::sink`]); a pure `count(*)` sums weights on the device.
//!
//! Plans the kernel does not express (conjuncts over several kept nodes other than `id`
//! orders, kept candidates overlapping eliminated ones under node-injectivity, a pattern
//! component started by a scan, more than [`MAX_STEPS`] steps or eliminated nodes) are run by
//! the enumerating pipeline as before.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::run::DeviceMatcher;
use super::DeviceTimings;
use crate::engines::gemp::factorised::{reverse, FactorExec, FactorPlan, Link, Projected, Source};
use crate::error::{Error, Result};
use crate::exec::candidates::{CandidateSet, Semantics};
use crate::exec::plan::Dir;
use crate::exec::results::{self, Projector, RowSink};
use crate::exec::Control;
use crate::exec::{MatchOptions, QueryOutput, Timings};
use crate::gpu::args::FactorisedArgs;
use crate::gpu::{DeviceBuffer, Gpu};
use crate::model::{Model, ANY_TYPE};
use crate::pattern::ir::{BoundQuery, NodeSlot};

/// `cl/factorised.cl`.
pub const FACTORISED_CL: &str = include_str!("../../../../cl/factorised.cl");

/// Most kept steps and most eliminated nodes the kernel takes (`FX_MAX_STEPS`).
pub const MAX_STEPS: usize = 16;

/// Header words (`FH_*` in the kernel).
const FH_STEPS: usize = 0;
const FH_ELIM: usize = 1;
const FH_PARTS: usize = 2;
const FH_HOMOMORPHISM: usize = 3;
const FH_WEIGHT_COUNTED: usize = 4;
pub(crate) const FH_LISTS_OFF: usize = 5;
const FH_STEPS_OFF: usize = 6;
const FH_ELIM_OFF: usize = 7;
const FH_PARTS_OFF: usize = 8;
const HEADER_WORDS: usize = 9;

/// Step fields (`FS_*`).
const FX_STEP_WORDS: usize = 17;
const FS_KIND: usize = 0;
const FS_LIST: usize = 1;
const FS_FROM: usize = 2;
const FS_ELIM: usize = 3;
const FS_VIA_CNT: usize = 5;
const FS_VIA_OFF: usize = 6;
const FS_AFTER_CNT: usize = 7;
const FS_AFTER_OFF: usize = 8;
const FS_BEFORE_CNT: usize = 9;
const FS_BEFORE_OFF: usize = 10;
const FS_CHECK_CNT: usize = 11;
const FS_CHECK_OFF: usize = 12;
const FS_DONE_CNT: usize = 13;
const FS_DONE_OFF: usize = 14;
const FS_COUNTED: usize = 15;
const FS_TABLE: usize = 16;

const KIND_PIVOT: u32 = 0;
const KIND_EXPAND: u32 = 1;
const KIND_TWO_HOP: u32 = 2;
const FX_NONE: u32 = u32::MAX;

/// Most words of a set region, and slots of a table, in the first pass (later passes grow
/// them).
const FIRST_PASS_WORDS: usize = 4096;
/// Scratch memory of one round, in words (1 GiB, or the device's largest allocation). Pages a
/// work-item does not touch are never backed on a CPU device.
const SCRATCH_BUDGET_WORDS: usize = 256 << 20;
/// Largest row buffer rounds grow to, in words (1 GiB).
const MAX_ROW_WORDS: usize = 256 << 20;

/// A projected-list specification: neighbours of `from`'s candidates along `types` in `dir`
/// that are candidates of `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ListSpec {
    from: NodeSlot,
    to: NodeSlot,
    types: Vec<u32>,
    dir: Dir,
}

/// The encoded plan and its lists, ready to upload.
#[derive(Debug)]
pub(crate) struct Encoded {
    /// `plan[]` of the kernel.
    pub plan: Vec<u32>,
    /// Every list's offsets, one CSR after another.
    pub list_off: Vec<u32>,
    /// Every list's entries.
    pub list_nbr: Vec<u32>,
    /// Kept steps.
    pub steps: usize,
    /// Scratch regions per work-item.
    pub regions: usize,
    /// Words per set region in the first pass.
    pub region_words: usize,
    /// Most words per set region (the longest list a set is built from, up to the
    /// configured limit).
    pub region_limit: usize,
    /// Candidate tables per work-item (one per two-hop step).
    pub tables: usize,
    /// Slots per table (each slot a key and a count) in the first pass.
    pub table_slots: usize,
    /// Most slots per table (the configured limit).
    pub table_limit: usize,
}

impl Encoded {
    /// The rounds' shape: rows of the kept nodes and the weight, the plan's scratch.
    pub(crate) fn round_shape(&self, count_mode: bool) -> RoundShape {
        RoundShape {
            row_words: self.steps + 2,
            count_mode,
            regions: self.regions,
            region_words: (self.region_words, self.region_limit),
            tables: self.tables,
            table_slots: (self.table_slots, self.table_limit),
        }
    }
}

/// Why the kernel cannot run `fp`, or `None` when it can.
pub(crate) fn unsupported(fp: &FactorPlan, semantics: Semantics) -> Option<String> {
    if fp.steps.len() > MAX_STEPS || fp.eliminated.len() > MAX_STEPS {
        return Some(format!(
            "the factorised plan has more than {MAX_STEPS} kept steps or eliminated nodes"
        ));
    }
    if semantics == Semantics::Isomorphism && fp.has_collisions() {
        return Some("kept and eliminated candidates overlap".into());
    }
    for (i, st) in fp.steps.iter().enumerate() {
        if !st.filters.is_empty() {
            return Some("a conjunct over several kept nodes".into());
        }
        if i > 0 && st.source == Source::Scan {
            return Some("a kept node in a second pattern component".into());
        }
    }
    None
}

/// Builds the kernel's plan and lists for `fp` over `cands` (the run's candidate sets).
pub(crate) fn encode(
    model: &Model,
    query: &BoundQuery,
    fp: &FactorPlan,
    cands: &[CandidateSet],
    semantics: Semantics,
    max_region_words: usize,
) -> Result<Encoded> {
    let p = &query.pattern;
    let step_of: HashMap<NodeSlot, u32> = fp
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.node, i as u32))
        .collect();
    let step = |slot: NodeSlot| -> Result<u32> {
        step_of.get(&slot).copied().ok_or_else(|| {
            Error::DeviceLimit(format!(
                "pattern node {slot} is neither kept nor eliminated"
            ))
        })
    };
    let mut specs: Vec<ListSpec> = Vec::new();
    let mut list_id = |spec: ListSpec| -> u32 {
        match specs.iter().position(|s| *s == spec) {
            Some(i) => i as u32,
            None => {
                specs.push(spec);
                (specs.len() - 1) as u32
            }
        }
    };
    let types_of = |types: &[u32]| -> Vec<u32> {
        if types.is_empty() {
            vec![ANY_TYPE]
        } else {
            types.to_vec()
        }
    };
    let link_spec = |l: &Link, to: NodeSlot| ListSpec {
        from: l.kept,
        to,
        types: l.types.clone(),
        dir: l.dir,
    };
    // Lists whose entries are kept in scratch regions (their longest list bounds a region).
    let mut set_lists: Vec<u32> = Vec::new();

    let mut aux: Vec<u32> = Vec::new();
    let mut steps: Vec<[u32; FX_STEP_WORDS]> = Vec::new();
    let mut tables = 0u32;
    for st in &fp.steps {
        let mut w = [0u32; FX_STEP_WORDS];
        w[FS_COUNTED] = FX_NONE;
        match st.source {
            Source::Scan => w[FS_KIND] = KIND_PIVOT,
            Source::Expand { rel, from, dir } => {
                w[FS_KIND] = KIND_EXPAND;
                w[FS_FROM] = step(from)?;
                w[FS_LIST] = list_id(ListSpec {
                    from,
                    to: st.node,
                    types: types_of(&p.rels[rel].types),
                    dir,
                });
            }
            Source::TwoHop { elim, link } => {
                let e = &fp.eliminated[elim];
                let l = &e.links[link];
                w[FS_KIND] = KIND_TWO_HOP;
                w[FS_ELIM] = elim as u32;
                w[FS_LIST] = list_id(ListSpec {
                    from: e.slot,
                    to: st.node,
                    types: l.types.clone(),
                    dir: reverse(l.dir),
                });
                w[FS_TABLE] = tables;
                tables += 1;
                w[FS_VIA_CNT] = st.via.len() as u32;
                w[FS_VIA_OFF] = aux.len() as u32;
                let mut pairs = Vec::new();
                for v in &st.via {
                    let id = list_id(link_spec(v, e.slot));
                    set_lists.push(id);
                    pairs.extend([id, step(v.kept)?]);
                }
                aux.extend(pairs);
                if st.counted == Some(elim) {
                    w[FS_COUNTED] = elim as u32;
                }
            }
        }
        w[FS_AFTER_CNT] = st.id_after.len() as u32;
        w[FS_AFTER_OFF] = aux.len() as u32;
        for &a in &st.id_after {
            aux.push(step(a)?);
        }
        w[FS_BEFORE_CNT] = st.id_before.len() as u32;
        w[FS_BEFORE_OFF] = aux.len() as u32;
        for &b in &st.id_before {
            aux.push(step(b)?);
        }
        w[FS_CHECK_CNT] = st.checks.len() as u32;
        let mut checks = Vec::new();
        for &rel in &st.checks {
            let r = &p.rels[rel];
            let id = list_id(ListSpec {
                from: r.src,
                to: r.dst,
                types: types_of(&r.types),
                dir: if r.undirected { Dir::Both } else { Dir::Out },
            });
            checks.extend([id, step(r.src)?, step(r.dst)?]);
        }
        w[FS_CHECK_OFF] = aux.len() as u32;
        aux.extend(checks);
        w[FS_DONE_CNT] = st.completes.len() as u32;
        w[FS_DONE_OFF] = aux.len() as u32;
        aux.extend(st.completes.iter().map(|&e| e as u32));
        steps.push(w);
    }
    let mut elims: Vec<[u32; 2]> = Vec::new();
    for e in &fp.eliminated {
        let mut pairs = Vec::new();
        for l in &e.links {
            let id = list_id(link_spec(l, e.slot));
            set_lists.push(id);
            pairs.extend([id, step(l.kept)?]);
        }
        elims.push([e.links.len() as u32, aux.len() as u32]);
        aux.extend(pairs);
    }
    let mut parts: Vec<u32> = Vec::new();
    for (coef, blocks) in &fp.partitions {
        let coef = i32::try_from(*coef)
            .map_err(|_| Error::DeviceLimit("an inclusion–exclusion coefficient".into()))?;
        parts.push(coef as u32);
        parts.push(blocks.len() as u32);
        for b in blocks {
            parts.push(b.len() as u32);
            parts.extend(b.iter().map(|&x| x as u32));
        }
    }

    Draft {
        lists: specs
            .iter()
            .map(|s| build_list(model, s, &cands[s.from], &cands[s.to]))
            .collect(),
        steps,
        elims,
        parts,
        n_parts: fp.partitions.len(),
        aux,
        set_lists,
        tables,
        homomorphism: semantics == Semantics::Homomorphism,
        weight_counted: fp.weight_counted,
    }
    .finish(max_region_words)
}

/// The pair plan of a co-occurrence graph: pivot `x` over `kept`, then every `y > x` in `kept`
/// sharing a node of `mids` with it along `link` (walked from `x`), counted (rows `(x, y, count,
/// 0)`).
pub(crate) fn encode_pairs(
    model: &Model,
    kept: &CandidateSet,
    mids: &CandidateSet,
    link: &Link,
    max_region_words: usize,
) -> Result<Encoded> {
    let spec = |dir: Dir| ListSpec {
        from: 0,
        to: 0,
        types: link.types.clone(),
        dir,
    };
    let lists = vec![
        build_list(model, &spec(link.dir), kept, mids),
        build_list(model, &spec(reverse(link.dir)), mids, kept),
    ];
    let mut pivot = [0u32; FX_STEP_WORDS];
    pivot[FS_KIND] = KIND_PIVOT;
    pivot[FS_COUNTED] = FX_NONE;
    let mut pair = [0u32; FX_STEP_WORDS];
    pair[FS_KIND] = KIND_TWO_HOP;
    pair[FS_LIST] = 1;
    pair[FS_ELIM] = 0;
    pair[FS_TABLE] = 0;
    pair[FS_COUNTED] = 0;
    // aux: via (list 0 at step 0), id(y) > id(x), completes node 0, its links.
    pair[FS_VIA_CNT] = 1;
    pair[FS_VIA_OFF] = 0;
    pair[FS_AFTER_CNT] = 1;
    pair[FS_AFTER_OFF] = 2;
    pair[FS_DONE_CNT] = 1;
    pair[FS_DONE_OFF] = 3;
    let aux = vec![0, 0, 0, 0, 0, 0, 0, 1];
    Draft {
        lists,
        steps: vec![pivot, pair],
        elims: vec![[2, 4]],
        parts: Vec::new(),
        n_parts: 0,
        aux,
        set_lists: vec![0],
        tables: 1,
        homomorphism: false,
        weight_counted: true,
    }
    .finish(max_region_words)
}

/// A projected list: offsets over its first node's id range, entries, that first id, and the
/// longest list.
type BuiltList = (Vec<u32>, Vec<u32>, u32, usize);

/// An encoding before its arrays are laid out (offsets into `aux` still relative).
struct Draft {
    lists: Vec<BuiltList>,
    steps: Vec<[u32; FX_STEP_WORDS]>,
    /// Per eliminated node: link count and offset of its (list, step) pairs in `aux`.
    elims: Vec<[u32; 2]>,
    parts: Vec<u32>,
    n_parts: usize,
    aux: Vec<u32>,
    /// Lists whose entries are kept in scratch regions (their longest list bounds a region).
    set_lists: Vec<u32>,
    tables: u32,
    homomorphism: bool,
    weight_counted: bool,
}

impl Draft {
    /// Lays out `plan[]` and the lists; scratch limits from `max_region_words`.
    fn finish(self, max_region_words: usize) -> Result<Encoded> {
        let mut list_off = Vec::new();
        let mut list_nbr: Vec<u32> = Vec::new();
        let mut descriptors = Vec::new();
        let mut longest = vec![0usize; self.lists.len()];
        for (j, (offsets, entries, base, max_len)) in self.lists.into_iter().enumerate() {
            let start = u32::try_from(list_off.len())
                .map_err(|_| Error::DeviceLimit("projected lists over 2^32 words".into()))?;
            let shift = list_nbr.len() as u64;
            if shift + entries.len() as u64 > u32::MAX as u64 {
                return Err(Error::DeviceLimit(
                    "projected lists over 2^32 entries".into(),
                ));
            }
            descriptors.extend([start, base, (offsets.len() - 1) as u32]);
            list_off.extend(offsets.iter().map(|&o| o + shift as u32));
            list_nbr.extend_from_slice(&entries);
            longest[j] = max_len;
        }
        let needed = self
            .set_lists
            .iter()
            .map(|&j| longest[j as usize])
            .max()
            .unwrap_or(0);
        let limit = max_region_words.max(1);
        let region_limit = needed.clamp(1, limit);
        // The first pass gets 1/256 of the limit, at most FIRST_PASS_WORDS.
        let first = (limit / 256).clamp(1, FIRST_PASS_WORDS);
        let region_words = region_limit.min(first);

        let (n_steps, n_elim) = (self.steps.len(), self.elims.len());
        let mut plan = vec![0u32; HEADER_WORDS];
        plan[FH_STEPS] = n_steps as u32;
        plan[FH_ELIM] = n_elim as u32;
        plan[FH_PARTS] = self.n_parts as u32;
        plan[FH_HOMOMORPHISM] = u32::from(self.homomorphism);
        plan[FH_WEIGHT_COUNTED] = u32::from(self.weight_counted);
        let base = |plan: &Vec<u32>| plan.len() as u32;
        plan[FH_LISTS_OFF] = base(&plan);
        plan.extend(descriptors);
        plan[FH_STEPS_OFF] = base(&plan);
        let aux_at = plan.len() + n_steps * FX_STEP_WORDS + n_elim * 2 + self.parts.len();
        for mut w in self.steps {
            for f in [
                FS_VIA_OFF,
                FS_AFTER_OFF,
                FS_BEFORE_OFF,
                FS_CHECK_OFF,
                FS_DONE_OFF,
            ] {
                w[f] += aux_at as u32;
            }
            plan.extend(w);
        }
        plan[FH_ELIM_OFF] = base(&plan);
        for [n, off] in self.elims {
            plan.extend([n, off + aux_at as u32]);
        }
        plan[FH_PARTS_OFF] = base(&plan);
        plan.extend(self.parts);
        debug_assert_eq!(plan.len(), aux_at);
        plan.extend(self.aux);
        Ok(Encoded {
            plan,
            list_off,
            list_nbr,
            steps: n_steps,
            regions: n_steps + n_elim,
            region_words,
            region_limit,
            tables: self.tables as usize,
            table_slots: first,
            table_limit: limit,
        })
    }
}

/// One projected list ([`Projected::along`]) and its longest list.
fn build_list(model: &Model, spec: &ListSpec, from: &CandidateSet, to: &CandidateSet) -> BuiltList {
    let p = Projected::along(model, from, &spec.types, spec.dir, to);
    let longest = p.offsets.windows(2).map(|w| (w[1] - w[0]) as usize).max();
    (p.offsets, p.targets, p.base, longest.unwrap_or(0))
}

/// An encoded plan's lists on the device.
pub(crate) struct UploadedLists {
    /// Every list's offsets.
    pub list_off: DeviceBuffer<u32>,
    /// Every list's entries.
    pub list_nbr: DeviceBuffer<u32>,
}

/// Uploads `enc` and runs the factorised kernel of `program` over `pivots` ([`run_rounds`]);
/// returns what the rounds brought back and the uploaded lists.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_encoded(
    gpu: &Gpu,
    config: &super::DeviceConfig,
    program: &ocl::Program,
    enc: &Encoded,
    pivots: &[u32],
    count_mode: bool,
    min_weight: u64,
    control: &Control,
    t: &mut DeviceTimings,
) -> Result<(RoundsOutput, UploadedLists)> {
    let start = Instant::now();
    let plan = gpu.buffer_from("factorised plan", &enc.plan, true)?;
    let lists = UploadedLists {
        list_off: gpu.buffer_from("projected list offsets", &enc.list_off, true)?,
        list_nbr: gpu.buffer_from("projected lists", &enc.list_nbr, true)?,
    };
    t.upload_bytes += 4 * (enc.plan.len() + enc.list_off.len() + enc.list_nbr.len());
    t.upload += start.elapsed();
    let shape = enc.round_shape(count_mode);
    let local = gpu.local_size(program, "factorised", config.local_size)?;
    let out = run_rounds(
        gpu,
        config,
        local,
        &shape,
        pivots,
        control,
        t,
        &mut |l: &Launch<'_>| {
            gpu.kernel_from(
                program,
                FactorisedArgs {
                    plan: &plan,
                    list_off: &lists.list_off,
                    list_nbr: &lists.list_nbr,
                    pivots: l.pivots,
                    n: l.n,
                    next_pivot: l.next_pivot,
                    scratch: l.scratch,
                    region_words: l.region_words,
                    regions: shape.regions as u32,
                    table_slots: l.table_slots,
                    tables: shape.tables as u32,
                    mode: u32::from(!count_mode),
                    min_weight,
                    rows: l.rows,
                    row_cap: l.row_cap,
                    row_counter: l.row_counter,
                    status: l.status,
                    sums: l.sums,
                },
            )
        },
    )?;
    Ok((out, lists))
}

/// The built `cl/factorised.cl` and `cl/triangles.cl` (after `cl/common.cl`): one program, so a triangle query loads
/// one binary (a cached program still costs tens of milliseconds to load on PoCL).
pub(crate) fn program(gpu: &Gpu) -> Result<Arc<ocl::Program>> {
    let start = Instant::now();
    let program = gpu.program(
        "factorised",
        &[
            crate::gpu::COMMON_CL,
            FACTORISED_CL,
            super::triangles::TRIANGLES_CL,
        ],
        &format!("-D FX_MAX_STEPS={MAX_STEPS}"),
    )?;
    log::debug!("factorised program ready in {:.1?}", start.elapsed());
    Ok(program)
}

/// The factorised plan the device runs for a query, decided as the host decides it.
pub(crate) struct DevicePlan {
    plan: crate::exec::plan::Plan,
    cands: Vec<CandidateSet>,
    host_t: Timings,
    /// The symmetry-reduced query of a pure count, when it has one.
    reduced: Option<crate::engines::gemp::SymmetryReduced>,
    fp: FactorPlan,
}

impl DevicePlan {
    /// The plan for `query`, or `None` when the device enumerates it (no factorised plan, or
    /// one the kernels do not express).
    pub(crate) fn choose(
        model: &Model,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Option<DevicePlan> {
        // Decided from the query's shape first: the candidate filtering below is not repeated
        // for a query the device enumerates anyway.
        if query.clauses.is_some()
            || !crate::engines::gemp::factorised::may_factorise(query, options.semantics)
        {
            return None;
        }
        let (plan, cands, host_t) =
            crate::engines::gemp::prepare_host(model, query, options.semantics);
        let reduced = crate::engines::gemp::count_symmetry(model, query, &plan, &cands, options);
        let (q, plan) = match &reduced {
            Some(r) => (&r.query, r.plan.clone()),
            None => (query, plan),
        };
        let fp = crate::engines::gemp::choose_factorised(model, q, &plan, &cands, options)?;
        if let Some(why) = unsupported(&fp, options.semantics) {
            log::debug!("OpenCL factorised counting declined ({why}): enumerating instead");
            return None;
        }
        Some(DevicePlan {
            plan,
            cands,
            host_t,
            reduced,
            fp,
        })
    }
}

/// How the device counts `query` without enumerating, for `gemp explain`, or `None` when it
/// enumerates it.
pub fn describe(model: &Model, query: &BoundQuery, options: &MatchOptions) -> Option<String> {
    let dp = DevicePlan::choose(model, query, options)?;
    let how = if dp.fp.triangle.is_some() {
        "weighted triangle listing: the factorised kernel's pair plan (cl/factorised.cl) builds \
         the co-occurrence graph of the kept nodes (pairs sharing a middle node, with how many), \
         the host sorts it into lists oriented by id, and cl/triangles.cl lists each triangle once \
         at its lowest node, weighed by inclusion–exclusion"
    } else {
        "cl/factorised.cl runs the kept steps below from each pivot candidate (work-items take \
         pivots from a queue) over sorted lists projected for this query; eliminated nodes are \
         counted by intersecting lists, two-hop candidates in per-work-item tables"
    };
    let sym = match &dp.reduced {
        Some(r) => format!(
            "; the count is multiplied by {} (symmetry breaking, as on the host)",
            r.factor
        ),
        None => String::new(),
    };
    let q = dp.reduced.as_ref().map_or(query, |r| &r.query);
    Some(format!(
        "device execution (the matching order above is replaced): factorised counting on the \
         device — {how}; the weighted kept bindings (for a lone count(*), their weight sum) go to the host's result stage{sym}\n{}",
        dp.fp.describe(q)
    ))
}

/// Runs `query` with a factorised plan on the device when the host would count it without
/// enumerating and the kernel expresses the plan; `None` when the enumerating pipeline should run
/// it instead.
pub(crate) fn try_execute<'m>(
    dm: &DeviceMatcher<'m>,
    query: &BoundQuery,
    options: &MatchOptions,
) -> Result<Option<(QueryOutput<'m>, DeviceTimings)>> {
    let model = dm.model();
    let deadline = options.timeout.map(|d| Instant::now() + d);
    let mut t = DeviceTimings {
        factorised: true,
        ..Default::default()
    };
    let start = Instant::now();
    let Some(chosen) = DevicePlan::choose(model, query, options) else {
        return Ok(None);
    };
    let DevicePlan {
        plan,
        cands,
        host_t,
        reduced,
        fp,
    } = chosen;
    let (query, factor) = match &reduced {
        Some(r) => (&r.query, r.factor),
        None => (query, 1),
    };
    t.prepare = start.elapsed();
    let control = Control::new(deadline);
    let exec = FactorExec::without_lists(model, query, &fp, &cands, &control);
    let projector = Projector::new(&fp.first);
    let next = query.stages.get(1).map(Projector::new);
    // A lone `count(*)` sums the weights on the device; a unit-weight count (bindings, see
    // `FactorPlan::binding_counts`) needs the rows.
    let count_mode =
        query.stages.len() == 1 && projector.is_count_star() && fp.binding_counts.is_empty();
    let pivots = exec.candidates()[fp.steps[0].node].nodes.clone();
    t.pivots = pivots.len();
    let start = Instant::now();
    // Kept slots in row order, and the words of a row before the weight.
    let (kept, width) = match &fp.triangle {
        Some(shape) => (shape.order.to_vec(), 3),
        None => (fp.steps.iter().map(|s| s.node).collect(), fp.steps.len()),
    };
    let run = if fp.triangle.is_some() {
        super::triangles::run(
            dm.gpu(),
            &dm.config,
            model,
            &fp,
            exec.candidates(),
            count_mode,
            &control,
            &mut t,
        )?
    } else {
        let convert = Instant::now();
        let enc = encode(
            model,
            query,
            &fp,
            exec.candidates(),
            options.semantics,
            dm.config.factorised_region_words,
        )?;
        t.convert += convert.elapsed();
        let gpu = dm.gpu();
        let program = program(gpu)?;
        let min_weight = fp.min_weight.max(1);
        let (run, _) = run_encoded(
            gpu, &dm.config, &program, &enc, &pivots, count_mode, min_weight, &control, &mut t,
        )?;
        run
    };
    // Phase 1: the rounds, not the lists' encoding (convert) or their upload.
    t.phase1 = start.elapsed().saturating_sub(t.convert + t.upload);

    let start = Instant::now();
    let k = query.pattern.nodes.len();
    let w = width + 2;
    let oracle: &(dyn crate::exec::eval::ExistsOracle + Sync) = &exec;
    let mut sinks: Vec<RowSink<'_, 'm>> = run
        .rows
        .par_chunks(w * 4096)
        .map(|chunk| {
            let mut sink = fp.sink(model, &projector, next.as_ref(), oracle);
            let mut nodes = vec![u32::MAX; k];
            let mut ids = [0u32; MAX_STEPS];
            for row in chunk.chunks_exact(w) {
                let ids = &mut ids[..width];
                ids.copy_from_slice(&row[..width]);
                if fp.triangle.is_some() {
                    // A triangle's nodes bind the kept slots in increasing id order.
                    ids.sort_unstable();
                }
                for (&slot, &v) in kept.iter().zip(ids.iter()) {
                    nodes[slot] = v;
                }
                let weight = row[width] as u64 | (row[width + 1] as u64) << 32;
                if !sink.push_weighted(&nodes, weight) {
                    break;
                }
            }
            sink
        })
        .collect();
    if count_mode && run.sum > 0 {
        let mut sink = fp.sink(model, &projector, next.as_ref(), oracle);
        sink.push_weighted(&vec![u32::MAX; k], run.sum);
        sinks.push(sink);
    }
    t.phase1_matches = run.bindings;
    t.host_pivots = run.host_pivots.len();
    if !run.host_pivots.is_empty() {
        let mut host = FactorExec::without_lists(model, query, &fp, &cands, &control);
        host.build_lists();
        sinks.extend(host.run_pivots(&run.host_pivots, &projector, next.as_ref(), oracle));
    }
    let (mut rows, columns) = results::finish_stages(
        model,
        &query.stages,
        &projector,
        sinks,
        Some(oracle),
        control.timed_out(),
    );
    crate::engines::gemp::SymmetryReduced::scale(&mut rows, factor);
    t.results = start.elapsed();
    let timings = Timings {
        filter: host_t.filter,
        plan: host_t.plan,
        enumerate: t.phase1,
        results: t.results,
    };
    Ok(Some((
        QueryOutput::finished(
            columns,
            rows,
            options.count_only,
            control.timed_out(),
            plan,
            timings,
        ),
        t,
    )))
}

/// What the rounds brought back.
pub(crate) struct RoundsOutput {
    /// Rows of every pivot that finished on the device.
    pub rows: Vec<u32>,
    /// Count mode: the sum of the weights.
    pub sum: u64,
    /// Bindings returned (rows).
    pub bindings: u64,
    /// Pivots the host must run (their sets exceed the scratch regions), sorted.
    pub host_pivots: Vec<u32>,
}

/// The buffers and sizes of one launch of a round kernel (see [`run_rounds`]).
pub(crate) struct Launch<'b> {
    /// The round's pivots.
    pub pivots: &'b DeviceBuffer<u32>,
    /// How many.
    pub n: u32,
    /// The next untaken pivot (zero at launch).
    pub next_pivot: &'b DeviceBuffer<u32>,
    /// Per-work-item scratch.
    pub scratch: &'b DeviceBuffer<u32>,
    /// Words of a set region.
    pub region_words: u32,
    /// Slots of a table.
    pub table_slots: u32,
    /// The row buffer.
    pub rows: &'b DeviceBuffer<u32>,
    /// Rows it holds.
    pub row_cap: u32,
    /// Rows reserved.
    pub row_counter: &'b DeviceBuffer<u32>,
    /// Per pivot: 0 done, 1 rows did not fit, 2 scratch did not fit.
    pub status: &'b DeviceBuffer<u32>,
    /// Per pivot weight sums (count mode).
    pub sums: &'b DeviceBuffer<u64>,
}

/// What a round kernel returns and how much scratch it needs.
pub(crate) struct RoundShape {
    /// Words per row (the first is the pivot).
    pub row_words: usize,
    /// True when the kernel sums weights instead of writing rows.
    pub count_mode: bool,
    /// Set regions per work-item.
    pub regions: usize,
    /// Words per region in the first pass, and at most.
    pub region_words: (usize, usize),
    /// Tables per work-item.
    pub tables: usize,
    /// Slots per table in the first pass, and at most.
    pub table_slots: (usize, usize),
}

impl RoundShape {
    fn scratch_words(&self, region_words: usize, table_slots: usize) -> usize {
        (self.regions * region_words + self.tables * 2 * table_slots).max(1)
    }
}

/// Runs a round kernel (built by `kernel` for each launch, in work-groups of `local`) over
/// `pivots`.
///
/// A *pass* runs rounds over a queue of pivots with one scratch size. Pivots whose rows did not
/// fit go back to the queue (with a larger row buffer, or fewer pivots per round at its largest);
/// pivots whose sets or tables did not fit are run again in a next pass with sixteen times the
/// scratch, up to the shape's limits, and beyond them are returned for the host.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_rounds(
    gpu: &Gpu,
    config: &super::DeviceConfig,
    local: usize,
    shape: &RoundShape,
    pivots: &[u32],
    control: &Control,
    t: &mut DeviceTimings,
    kernel: &mut dyn FnMut(&Launch<'_>) -> Result<ocl::Kernel>,
) -> Result<RoundsOutput> {
    let counter = gpu.zeroed::<u32>("row counter", 1)?;
    let w = shape.row_words;
    let mut row_words = if shape.count_mode {
        w
    } else {
        config.result_buffer_words.max(w)
    };
    let mut rows_buf = gpu.uninit::<u32>("rows", row_words)?;
    let max_alloc_words = match gpu.info().max_alloc_bytes {
        0 => usize::MAX,
        b => (b / 4).min(usize::MAX as u64) as usize,
    };
    let budget = SCRATCH_BUDGET_WORDS.min(max_alloc_words);

    let mut out = RoundsOutput {
        rows: Vec::new(),
        sum: 0,
        bindings: 0,
        host_pivots: Vec::new(),
    };
    let (mut region_words, mut table_slots) = (shape.region_words.0, shape.table_slots.0);
    let next_pivot = gpu.zeroed::<u32>("next pivot", 1)?;
    let info = gpu.info();
    let mut queue: std::collections::VecDeque<u32> = pivots.iter().copied().collect();
    // Pivots per launch (status and sums are per pivot): bounded so that a launch stays short.
    let launch_pivots = config.max_threads.saturating_mul(16).max(1);
    while !queue.is_empty() {
        let per_item = shape.scratch_words(region_words, table_slots);
        // Work-items loop over the launch's pivots (each takes the next untaken one), so only
        // as many as keep the device busy need scratch.
        let items = crate::gpu::sizing::persistent_work_items(
            info.device_type,
            info.compute_units as usize,
            local,
        );
        let items = items.min((budget / per_item) / local * local).max(local);
        let round = launch_pivots.min(queue.len());
        let pass_start = Instant::now();
        log::debug!(
            "device rounds: a pass over {} pivots, {items} work-items of {per_item} scratch words",
            queue.len()
        );
        let scratch = gpu.uninit::<u32>("scratch", items * per_item)?;
        let status = gpu.uninit::<u32>("status", round)?;
        let sums = gpu.uninit::<u64>("sums", round)?;
        let pivot_buf = gpu.uninit::<u32>("pivots", round)?;
        // Pivots per round: halved while rounds overflow the largest row buffer.
        let mut batch_cap = round;
        let mut larger: Vec<u32> = Vec::new();
        while !queue.is_empty() {
            if !control.check_deadline() {
                return Ok(out);
            }
            let n = queue.len().min(batch_cap);
            let batch: Vec<u32> = queue.drain(..n).collect();
            gpu.write(&pivot_buf, 0, &batch)?;
            gpu.zero(&counter)?;
            gpu.zero(&next_pivot)?;
            let row_cap = (row_words / w) as u32;
            let kernel = kernel(&Launch {
                pivots: &pivot_buf,
                n: n as u32,
                next_pivot: &next_pivot,
                scratch: &scratch,
                region_words: region_words as u32,
                table_slots: table_slots as u32,
                rows: &rows_buf,
                row_cap,
                row_counter: &counter,
                status: &status,
                sums: &sums,
            })?;
            t.phase1_kernel += gpu.run_timed(&kernel, items, Some(local))?;
            t.rounds += 1;
            let start = Instant::now();
            let st = gpu.read_prefix(&status, n)?;
            let mut retry: Vec<u32> = Vec::new();
            let mut dropped: Vec<u32> = Vec::new();
            for (i, &s) in st.iter().enumerate() {
                match s {
                    0 => {}
                    1 => retry.push(batch[i]),
                    _ => larger.push(batch[i]),
                }
                if s != 0 {
                    dropped.push(batch[i]);
                }
            }
            if shape.count_mode {
                let sums = gpu.read_prefix(&sums, n)?;
                for (x, &s) in sums.iter().zip(&st) {
                    if s == 0 {
                        out.sum = out.sum.saturating_add(*x);
                    }
                }
            } else {
                let reserved = gpu.read(&counter)?[0] as usize;
                let written = reserved.min(row_cap as usize);
                let rows = gpu.read_prefix(&rows_buf, written * w)?;
                // Rows of pivots that run again are dropped: they are incomplete.
                let dropped: hashbrown::HashSet<u32> = dropped.into_iter().collect();
                for row in rows.chunks_exact(w) {
                    if dropped.is_empty() || !dropped.contains(&row[0]) {
                        out.rows.extend_from_slice(row);
                        out.bindings += 1;
                    }
                }
            }
            t.read_results += start.elapsed();
            if retry.is_empty() {
                continue;
            }
            t.overflows += 1;
            if n == 1 && row_words >= MAX_ROW_WORDS {
                // One pivot's rows do not fit in the largest buffer: the host runs it.
                out.host_pivots.extend(retry);
                continue;
            }
            if row_words < MAX_ROW_WORDS {
                row_words = (row_words * 2).min(MAX_ROW_WORDS);
                rows_buf = gpu.uninit::<u32>("rows", row_words)?;
            } else {
                batch_cap = (n / 2).max(1);
            }
            for p in retry.into_iter().rev() {
                queue.push_front(p);
            }
        }
        log::debug!("device rounds: pass done in {:.1?}", pass_start.elapsed());
        if larger.is_empty() {
            break;
        }
        let grow = |x: usize, limit: usize| (x.saturating_mul(16)).min(limit.max(x));
        let (r, s) = (
            grow(region_words, shape.region_words.1),
            grow(table_slots, shape.table_slots.1),
        );
        if (r, s) == (region_words, table_slots) || shape.scratch_words(r, s) > budget {
            out.host_pivots.extend(larger);
            break;
        }
        (region_words, table_slots) = (r, s);
        t.overflows += 1;
        queue.extend(larger);
    }
    out.host_pivots.sort_unstable();
    out.host_pivots.dedup();
    Ok(out)
}
