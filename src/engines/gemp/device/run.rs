//! [`DeviceMatcher`]: runs bound queries through the device pipeline.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::attributes::{self, AttributeSplit, Phase2Inputs};
use super::bytecode::{self, DevicePredicates};
use super::encode::{self, EncodedPlan};
use super::topology::{self, DeviceModel, Phase1Mode, Phase1Result, PivotQueue};
use super::{DeviceConfig, DeviceTimings};
use crate::engines::gemp::enumerate::{Enumerator, State};
use crate::engines::gemp::prepare;
use crate::error::{Error, Result};
use crate::exec::candidates::CandidateSet;
use crate::exec::eval::Env;
use crate::exec::plan::Plan;
use crate::exec::results::{Projector, RowSink};
use crate::exec::{drive, Control, Drive, Search, Sink};
use crate::exec::{MatchOptions, QueryOutput, RowConsumer, Semantics, StreamSummary, Timings};
use crate::gpu::Gpu;
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// Matches per parallel chunk of the host-side stages.
const ROW_CHUNK: usize = 1024;

/// Complete matches: `k + named.len()` words each (node ids by slot, then the edge ids of the
/// named relationships, in [`named`](Matches::named) order).
#[derive(Debug, Clone, Default)]
pub struct Matches {
    /// Pattern nodes.
    pub k: usize,
    /// Pattern relationships (named and anonymous).
    pub r: usize,
    /// The relationship slots of the named relationships (the only ones bound to edges).
    pub named: Vec<usize>,
    /// The rows, concatenated.
    pub rows: Vec<u32>,
    /// True when a deadline stopped the search.
    pub partial: bool,
}

impl Matches {
    fn width(&self) -> usize {
        self.k + self.named.len()
    }

    /// Number of matches.
    pub fn len(&self) -> usize {
        self.rows.len().checked_div(self.width()).unwrap_or(0)
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// (node ids by slot, edge ids of the named relationships) of every match.
    pub fn iter(&self) -> impl Iterator<Item = (&[u32], &[u32])> + '_ {
        self.rows
            .chunks_exact(self.width().max(1))
            .map(|row| row.split_at(self.k))
    }

    /// The edge ids of every relationship slot of a match from [`iter`](Self::iter) (`u32::MAX`
    /// for anonymous relationships).
    pub fn rels_by_slot(&self, named_edges: &[u32]) -> Vec<u32> {
        let mut rels = vec![u32::MAX; self.r];
        for (&slot, &e) in self.named.iter().zip(named_edges) {
            rels[slot] = e;
        }
        rels
    }
}

/// Spreads a row's named edge ids over relationship slots (`scratch` has one word per slot).
fn spread_rels<'a>(named: &[usize], edges: &[u32], scratch: &'a mut [u32]) -> &'a [u32] {
    for (&slot, &e) in named.iter().zip(edges) {
        scratch[slot] = e;
    }
    scratch
}

/// Rows turned into values at a time (handed to a streaming consumer, or to the result stage).
const STREAM_ROWS: usize = 1 << 14;

/// The device pipeline over one model: the OpenCL device, the model's uploaded topology (reused
/// by every query) and the tuning. `Send + Sync`.
#[derive(Debug)]
pub struct DeviceMatcher<'m> {
    gpu: Arc<Gpu>,
    model: &'m Model,
    dm: OnceLock<DeviceModel>,
    /// Tuning of rounds and buffers.
    pub config: DeviceConfig,
}

/// What host threads contribute to phase 1.
#[derive(Debug, Default)]
struct HostPart {
    /// Matches (count mode) or rows (bindings mode).
    count: u64,
    /// Final rows in the device's row format.
    rows: Vec<u32>,
    /// Pivots processed.
    pivots: usize,
}

/// Phase 1 of the device and the host threads together.
#[derive(Debug, Default)]
struct Phase1Out {
    device: Phase1Result,
    /// Rows found by host threads: final (every conjunct already applied).
    host_rows: Vec<u32>,
    /// Matches (count mode) or rows (bindings mode) found by host threads.
    host_count: u64,
    /// Pivots processed by host threads.
    host_pivots: usize,
}

/// A host sink collecting rows in the device's format (node ids, then named edge ids).
struct RowCollector<'a> {
    named: &'a [usize],
    rows: Vec<u32>,
    count: u64,
    count_only: bool,
}

impl Sink for RowCollector<'_> {
    fn emit(&mut self, nodes: &[u32], rels: &[u32]) -> bool {
        self.count += 1;
        if !self.count_only {
            self.rows.extend_from_slice(nodes);
            self.rows.extend(self.named.iter().map(|&s| rels[s]));
        }
        true
    }

    fn add_count(&mut self, count: u64) -> bool {
        self.count = self.count.saturating_add(count);
        true
    }

    fn count_only(&self) -> bool {
        self.count_only
    }

    fn absorb(&mut self, other: Self) {
        self.count = self.count.saturating_add(other.count);
        self.rows.extend(other.rows);
    }
}

/// One query prepared for the device.
struct Prepared {
    plan: Plan,
    cands: Vec<CandidateSet>,
    enc: EncodedPlan,
    qb: topology::QueryBuffers,
    /// Phase-1 conjuncts the host evaluates on complete phase-1 matches.
    residual: Vec<usize>,
    /// The attribute (string) conjuncts: kernel predicates and host conjuncts.
    attributes: AttributeSplit,
}

impl Prepared {
    /// True when phase 1 alone decides the matches (no residual or attribute conjuncts), so
    /// counting needs no bindings.
    fn topology_decides(&self) -> bool {
        self.residual.is_empty() && self.plan.attribute_filters.is_empty()
    }
}

/// The device's search for [`drive`]: phase 1 (device and host threads), phase 2 on each
/// round's rows, the survivors into the driver's sinks round by round (merged at once, so a
/// grouping or top-k stage keeps only its state); counts by phase 1's count mode when the
/// topology alone decides the matches.
struct DeviceSearch<'a, 'm> {
    matcher: &'a DeviceMatcher<'m>,
    query: &'a BoundQuery,
    p: &'a Prepared,
    semantics: Semantics,
    control: &'a Control,
    /// Rows after which phase 1 may stop (a plain projection's SKIP + LIMIT).
    stop_after: Option<u64>,
    t: &'a mut DeviceTimings,
}

impl Search for DeviceSearch<'_, '_> {
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>> {
        let p = self.p;
        let (w, k, r) = (p.enc.row_words.max(1), p.enc.k, p.enc.r);
        let named = &p.enc.named;
        let mut merged = make_sink();
        let mut survivors = 0u64;
        let mut absorb = |rows: &[u32]| -> Result<()> {
            survivors += (rows.len() / w) as u64;
            // A slice at a time, so a round's rows never exist as values at once.
            for slice in rows.chunks(w * STREAM_ROWS) {
                let sinks: Vec<S> = slice
                    .par_chunks(w * ROW_CHUNK)
                    .map(|chunk| {
                        let mut sink = make_sink();
                        let mut scratch = vec![u32::MAX; r];
                        for row in chunk.chunks_exact(w) {
                            let rels = spread_rels(named, &row[k..], &mut scratch);
                            if !sink.emit(&row[..k], rels) {
                                break;
                            }
                        }
                        sink
                    })
                    .collect();
                for s in sinks {
                    merged.absorb(s);
                }
            }
            Ok(())
        };
        let absorbing = self.matcher.phase1_into(
            self.query,
            p,
            self.semantics,
            self.control,
            self.stop_after,
            &mut absorb,
            self.t,
        )?;
        self.t.phase2_matches = survivors;
        self.t.results = absorbing;
        Ok(vec![merged])
    }

    fn count(&mut self) -> Result<u64> {
        if self.p.topology_decides() {
            let r = self.matcher.phase1(
                self.query,
                self.p,
                self.semantics,
                Phase1Mode::Count,
                self.control,
                None,
                None,
                self.t,
            )?;
            return Ok(r.device.count + r.host_count);
        }
        let rows = self.matcher.matches_of(
            self.query,
            self.p,
            self.semantics,
            self.control,
            None,
            self.t,
        )?;
        self.t.phase2_matches = (rows.len() / self.p.enc.row_words.max(1)) as u64;
        Ok(self.t.phase2_matches)
    }

    fn plan(&mut self) -> Plan {
        self.p.plan.clone()
    }

    fn counts_count_star(&self) -> bool {
        self.p.topology_decides()
    }
}

impl<'m> DeviceMatcher<'m> {
    /// A matcher for `model` on `gpu`. The model's topology is uploaded by the first query
    /// that enumerates on the device (factorised counting reads per-query lists instead), or by
    /// [`device_model`](Self::device_model).
    pub fn new(gpu: Arc<Gpu>, model: &'m Model, config: DeviceConfig) -> Result<Self> {
        Ok(DeviceMatcher {
            gpu,
            model,
            dm: OnceLock::new(),
            config,
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The device, shared.
    pub fn gpu_arc(&self) -> Arc<Gpu> {
        Arc::clone(&self.gpu)
    }

    /// The model.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The uploaded topology (uploaded now if no query has needed it yet).
    ///
    /// Errors: a failing upload.
    pub fn device_model(&self) -> Result<&DeviceModel> {
        if let Some(dm) = self.dm.get() {
            return Ok(dm);
        }
        let dm = DeviceModel::upload(&self.gpu, self.model)?;
        log::debug!(
            "model uploaded to {}: {} in {:.3?}",
            self.gpu.info().name,
            crate::util::human_bytes(dm.bytes as u64),
            dm.upload_time
        );
        // Two threads may upload at once; the first stored copy wins, the other is dropped.
        let _ = self.dm.set(dm);
        Ok(self.dm.get().expect("the device model was just stored"))
    }

    /// `--backend auto`'s prediction ([`crate::gpu::cost`]) for `query`: device against host,
    /// or `None` when the device would not count it over the candidate space (other device
    /// paths are not predicted).
    pub fn space_prediction(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Option<crate::gpu::cost::Prediction> {
        super::space::predict(self, query, options)
    }

    /// How long the model's upload took (zero while it has not been uploaded).
    pub fn upload_time(&self) -> Duration {
        self.dm.get().map_or(Duration::ZERO, |dm| dm.upload_time)
    }

    fn prepare(
        &self,
        query: &BoundQuery,
        plan: Plan,
        cands: Vec<CandidateSet>,
        semantics: Semantics,
        t: &mut DeviceTimings,
    ) -> Result<Prepared> {
        let start = Instant::now();
        let compiled = bytecode::compile(self.model, query, &plan);
        if !compiled.residual.is_empty() {
            log::debug!(
                "OpenCL matcher: conjuncts {:?} are evaluated on the host after phase 1",
                compiled.residual
            );
        }
        let enc = encode::encode(query, &plan, &cands, semantics, &compiled.programs)?;
        let attributes = attributes::split(query, &plan);
        t.convert += start.elapsed();
        let start = Instant::now();
        let pred = DevicePredicates::upload(&self.gpu, self.model, &compiled)?;
        let qb = topology::prepare_query(&self.gpu, self.device_model()?, &enc, &cands, pred)?;
        t.upload += start.elapsed();
        t.pivots = qb.pivot_nodes.len();
        t.upload_bytes += qb.bytes;
        Ok(Prepared {
            plan,
            cands,
            enc,
            qb,
            residual: compiled.residual,
            attributes,
        })
    }

    fn plan_for(
        &self,
        query: &BoundQuery,
        semantics: Semantics,
        t: &mut DeviceTimings,
    ) -> Result<Prepared> {
        if !self.device_model()?.fits(self.model) {
            return Err(Error::InvalidArgument(
                "the uploaded model does not match the model".into(),
            ));
        }
        let start = Instant::now();
        let (plan, cands, _) = prepare(self.model, query, semantics);
        t.prepare += start.elapsed();
        if plan.steps.is_empty() {
            return Err(Error::DeviceLimit(
                "the OpenCL matcher needs a pattern with at least one node".into(),
            ));
        }
        self.prepare(query, plan, cands, semantics, t)
    }

    /// The pivot candidates as the device's pivot step computes them (they equal the host
    /// filter's candidates of the plan's pivot).
    pub fn pivots(&self, query: &BoundQuery, semantics: Semantics) -> Result<Vec<u32>> {
        let p = self.plan_for(query, semantics, &mut DeviceTimings::default())?;
        Ok(p.qb.pivot_nodes)
    }

    /// Host threads helping the device (see [`DeviceConfig::host_threads`]).
    fn host_threads(&self) -> usize {
        self.config.host_threads.unwrap_or_else(|| {
            if self.gpu.info().device_type == crate::gpu::DeviceType::Cpu {
                0
            } else {
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .saturating_sub(1)
            }
        })
    }

    /// Phase 1: the device takes rounds of pivots from the front of the pivot list while host
    /// threads take chunks from its back, until they meet; every pivot is processed exactly once.
    /// Host threads run the host enumerator, which applies every conjunct itself, so their rows
    /// are final; the device's rows still go through the residual and attribute conjuncts.
    #[allow(clippy::too_many_arguments)]
    fn phase1(
        &self,
        query: &BoundQuery,
        p: &Prepared,
        semantics: Semantics,
        mode: Phase1Mode,
        control: &Control,
        stop_after: Option<u64>,
        filter: Option<&mut topology::RowFilter<'_>>,
        t: &mut DeviceTimings,
    ) -> Result<Phase1Out> {
        let start = Instant::now();
        let device_model = self.device_model()?;
        let queue = PivotQueue::new(p.qb.pivot_nodes.len());
        let produced = AtomicU64::new(0);
        let limit = stop_after.map(|s| (&produced, s));
        let helpers = if p.qb.pivot_nodes.len() > self.config.host_chunk {
            self.host_threads()
        } else {
            0
        };
        let (device, host) = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..helpers)
                .map(|_| {
                    scope.spawn(|| {
                        self.host_worker(query, p, semantics, mode, control, &queue, limit)
                    })
                })
                .collect();
            let device = topology::run_rounds(
                &self.gpu,
                device_model,
                &p.enc,
                &p.qb,
                mode,
                &self.config,
                &queue,
                control,
                limit,
                filter,
            );
            if device.is_err() {
                control.stop();
            }
            let host: Vec<HostPart> = workers
                .into_iter()
                .map(|w| w.join().unwrap_or_default())
                .collect();
            (device, host)
        });
        let device = device?;
        let mut out = Phase1Out {
            device,
            ..Default::default()
        };
        for h in host {
            out.host_count += h.count;
            out.host_pivots += h.pivots;
            out.host_rows.extend_from_slice(&h.rows);
        }
        t.phase1 += start.elapsed();
        let r = &out.device;
        t.phase1_kernel += r.stats.kernel;
        t.read_results += r.stats.read;
        t.rounds += r.stats.rounds;
        t.overflows += r.stats.overflows;
        t.phase1_matches += r.count + out.host_count;
        t.host_pivots += out.host_pivots;
        Ok(out)
    }

    /// One host thread: takes pivot chunks from the back of `queue` and enumerates them.
    #[allow(clippy::too_many_arguments)]
    fn host_worker(
        &self,
        query: &BoundQuery,
        p: &Prepared,
        semantics: Semantics,
        mode: Phase1Mode,
        control: &Control,
        queue: &PivotQueue,
        limit: Option<(&AtomicU64, u64)>,
    ) -> HostPart {
        let count_only = mode == Phase1Mode::Count;
        let e = Enumerator::new(
            self.model, query, &p.plan, &p.cands, semantics, control, count_only,
        );
        let mut state = State::new(p.enc.k, p.enc.r);
        let mut part = HostPart::default();
        let mut sink = RowCollector {
            named: &p.enc.named,
            rows: Vec::new(),
            count: 0,
            count_only,
        };
        loop {
            if limit.is_some_and(|(produced, bound)| produced.load(Ordering::Relaxed) >= bound) {
                break;
            }
            let range = queue.take_back(self.config.host_chunk.max(1));
            if range.is_empty() {
                break;
            }
            part.pivots += range.len();
            let before = sink.count;
            let go_on = e.run(&p.qb.pivot_nodes[range], &mut state, &mut sink);
            if let Some((produced, _)) = limit {
                produced.fetch_add(sink.count - before, Ordering::Relaxed);
            }
            if !go_on {
                break;
            }
        }
        part.count = sink.count;
        part.rows = sink.rows;
        part
    }

    /// The host evaluator of `EXISTS` sub-patterns for rows of `p`.
    fn exists_oracle<'a>(
        &'a self,
        query: &'a BoundQuery,
        p: &'a Prepared,
        semantics: Semantics,
        control: &'a Control,
    ) -> Enumerator<'a> {
        Enumerator::new(
            self.model, query, &p.plan, &p.cands, semantics, control, false,
        )
    }

    /// A result-stage sink for `projector` holding the device rows `rows` (row format of `p`).
    fn sink_of<'q>(
        &self,
        p: &Prepared,
        projector: &'q Projector<'q>,
        oracle: &'q (dyn crate::exec::eval::ExistsOracle + Sync),
        rows: &[u32],
    ) -> RowSink<'q, 'm> {
        let (w, k, r) = (p.enc.row_words.max(1), p.enc.k, p.enc.r);
        let mut sink = RowSink::new(self.model, projector, Some(oracle));
        let mut scratch = vec![u32::MAX; r];
        for row in rows.chunks_exact(w) {
            let rels = spread_rels(&p.enc.named, &row[k..], &mut scratch);
            sink.push(&row[..k], rels, &[]);
        }
        sink
    }

    /// Phase 1 in bindings mode, then the device rows' filters; with the host threads' rows, in
    /// pivot order.
    fn matches_of(
        &self,
        query: &BoundQuery,
        p: &Prepared,
        semantics: Semantics,
        control: &Control,
        stop_after: Option<u64>,
        t: &mut DeviceTimings,
    ) -> Result<Vec<u32>> {
        // The device's rows are filtered round by round (phase 2 per round), so only survivors
        // accumulate; the host threads' rows come last.
        let mut rows = Vec::new();
        let mut last_start = 0;
        self.phase1_into(
            query,
            p,
            semantics,
            control,
            stop_after,
            &mut |survivors| {
                last_start = rows.len();
                rows.extend_from_slice(survivors);
                Ok(())
            },
            t,
        )?;
        if rows.len() > last_start {
            topology::sort_by_pivot(&mut rows, p.enc.row_words.max(1), p.enc.pivot_slot);
        }
        Ok(rows)
    }

    /// Phase 1 in bindings mode with each round's survivors (after the residual and attribute
    /// conjuncts) handed to `absorb` at once instead of accumulating, then the host threads'
    /// rows. Returns the time `absorb` took, which is left out of the phase timings.
    #[allow(clippy::too_many_arguments)]
    fn phase1_into(
        &self,
        query: &BoundQuery,
        p: &Prepared,
        semantics: Semantics,
        control: &Control,
        stop_after: Option<u64>,
        absorb: &mut dyn FnMut(&[u32]) -> Result<()>,
        t: &mut DeviceTimings,
    ) -> Result<std::time::Duration> {
        let mut ft = DeviceTimings::default();
        let mut absorbing = std::time::Duration::ZERO;
        let mut filter = |rows: Vec<u32>| -> Result<Vec<u32>> {
            let survivors = self.filter_rows(query, p, semantics, control, rows, &mut ft)?;
            let start = Instant::now();
            absorb(&survivors)?;
            absorbing += start.elapsed();
            Ok(Vec::new())
        };
        let r = self.phase1(
            query,
            p,
            semantics,
            Phase1Mode::Bindings,
            control,
            stop_after,
            Some(&mut filter),
            t,
        )?;
        let start = Instant::now();
        absorb(&r.host_rows)?;
        absorbing += start.elapsed();
        t.phase1 = t.phase1.saturating_sub(ft.phase2 + absorbing);
        t.phase2 += ft.phase2;
        t.phase2_buffers += ft.phase2_buffers;
        t.upload_bytes += ft.upload_bytes;
        Ok(absorbing)
    }

    /// Keeps the phase-1 rows satisfying the residual conjuncts (host), then the attribute
    /// conjuncts (phase 2: the attribute kernel, then the host's share).
    fn filter_rows(
        &self,
        query: &BoundQuery,
        p: &Prepared,
        semantics: Semantics,
        control: &Control,
        rows: Vec<u32>,
        t: &mut DeviceTimings,
    ) -> Result<Vec<u32>> {
        let rows = self.host_filter(query, p, semantics, control, rows, &p.residual);
        let start = Instant::now();
        let w = p.enc.row_words.max(1);
        let mut host_conjuncts = p.attributes.host.clone();
        let rows = if p.attributes.device.is_empty() || rows.is_empty() {
            rows
        } else {
            let buffers_start = Instant::now();
            match Phase2Inputs::build(self.model, &p.attributes.device, &rows, w) {
                Some(inputs) => {
                    t.phase2_buffers += buffers_start.elapsed();
                    t.upload_bytes += inputs.bytes();
                    let flags = attributes::run_kernel(&self.gpu, &inputs, &rows, w)?;
                    let n_preds = p.attributes.device.len();
                    let mut keep = Vec::with_capacity(rows.len());
                    for (row, f) in rows.chunks_exact(w).zip(flags.chunks_exact(n_preds)) {
                        if f.iter().all(|&x| x != 0) {
                            keep.extend_from_slice(row);
                        }
                    }
                    keep
                }
                None => {
                    host_conjuncts.extend_from_slice(&p.attributes.device_conjuncts);
                    rows
                }
            }
        };
        let rows = self.host_filter(query, p, semantics, control, rows, &host_conjuncts);
        t.phase2 += start.elapsed();
        Ok(rows)
    }

    /// Keeps the rows satisfying every conjunct of `conjuncts` on the host (in parallel, order
    /// kept).
    fn host_filter(
        &self,
        query: &BoundQuery,
        p: &Prepared,
        semantics: Semantics,
        control: &Control,
        rows: Vec<u32>,
        conjuncts: &[usize],
    ) -> Vec<u32> {
        if conjuncts.is_empty() || rows.is_empty() {
            return rows;
        }
        let (k, w, r) = (p.enc.k, p.enc.row_words, p.enc.r);
        let oracle = self.exists_oracle(query, p, semantics, control);
        let parts: Vec<Vec<u32>> = rows
            .par_chunks(w * ROW_CHUNK)
            .map(|chunk| {
                let mut keep = Vec::new();
                let mut scratch = vec![u32::MAX; r];
                for row in chunk.chunks_exact(w) {
                    let rels = spread_rels(&p.enc.named, &row[k..], &mut scratch);
                    let env = Env {
                        locals: &[],
                        model: self.model,
                        nodes: &row[..k],
                        rels,
                        row: &[],
                        exists: Some(&oracle),
                    };
                    if conjuncts.iter().all(|&f| env.holds(&query.filter[f])) {
                        keep.extend_from_slice(row);
                    }
                }
                keep
            })
            .collect();
        parts.concat()
    }

    /// Every match of the pattern and `WHERE` of `query` (ignoring its projections).
    pub fn matches(&self, query: &BoundQuery, semantics: Semantics) -> Result<Matches> {
        let mut t = DeviceTimings::default();
        let p = self.plan_for(query, semantics, &mut t)?;
        let control = Control::new(None);
        let rows = self.matches_of(query, &p, semantics, &control, None, &mut t)?;
        Ok(Matches {
            k: p.enc.k,
            r: p.enc.r,
            named: p.enc.named.clone(),
            rows,
            partial: control.timed_out(),
        })
    }

    /// Number of matches of the pattern and `WHERE` of `query` (ignoring its projections).
    pub fn count(&self, query: &BoundQuery, semantics: Semantics) -> Result<u64> {
        let mut t = DeviceTimings::default();
        let p = self.plan_for(query, semantics, &mut t)?;
        let control = Control::new(None);
        if p.topology_decides() {
            let r = self.phase1(
                query,
                &p,
                semantics,
                Phase1Mode::Count,
                &control,
                None,
                None,
                &mut t,
            )?;
            return Ok(r.device.count + r.host_count);
        }
        let rows = self.matches_of(query, &p, semantics, &control, None, &mut t)?;
        Ok((rows.len() / p.enc.row_words.max(1)) as u64)
    }

    /// Runs `query` like [`crate::engines::gemp::execute`] (same rows, columns and counts).
    pub fn execute(&self, query: &BoundQuery, options: &MatchOptions) -> Result<QueryOutput<'m>> {
        Ok(self.execute_timed(query, options)?.0)
    }

    /// [`execute`](Self::execute), also returning GEMP's measurement points.
    pub fn execute_timed(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Result<(QueryOutput<'m>, DeviceTimings)> {
        if let Some(done) = super::factorised::try_execute(self, query, options)? {
            return Ok(done);
        }
        if let Some(done) = super::space::try_execute(self, query, options)? {
            return Ok(done);
        }
        let mut t = DeviceTimings::default();
        let start = Instant::now();
        let (plan, cands, host_t) = prepare(self.model, query, options.semantics);
        t.prepare = start.elapsed();
        if plan.steps.is_empty() {
            // Nothing to match on a device: the empty pattern has one empty match.
            let out = crate::engines::gemp::execute(self.model, query, options)?;
            return Ok((out, t));
        }
        let control = Control::new(options.timeout.map(|d| Instant::now() + d));
        let p = self.prepare(query, plan, cands, options.semantics, &mut t)?;
        // When phase 1 alone decides the matches, a plain projection's LIMIT stops the device
        // early (the row budget of the result stage stops the host's share).
        let stop_after = match query.stages.first().map(Projector::new) {
            Some(f) if p.topology_decides() && f.is_streaming() && query.stages.len() == 1 => {
                let proj = &query.stages[0];
                proj.limit.map(|l| l.saturating_add(proj.skip.unwrap_or(0)))
            }
            _ => None,
        };
        let oracle = self.exists_oracle(query, &p, options.semantics, &control);
        let mut search = DeviceSearch {
            matcher: self,
            query,
            p: &p,
            semantics: options.semantics,
            control: &control,
            stop_after,
            t: &mut t,
        };
        let run = Drive {
            model: self.model,
            query,
            options,
            control: &control,
            oracle: &oracle,
            timings: Timings {
                filter: host_t.filter,
                plan: host_t.plan,
                ..Timings::default()
            },
        };
        let mut out = drive(run, &mut search)?;
        // The device's own phase times (the search's wall time also holds the rows' absorption
        // into the result stage, which counts as results).
        out.timings.enumerate = t.phase1 + t.phase2;
        out.timings.results += t.results;
        Ok((out, t))
    }

    /// Runs `query` and hands its rows to `consume` round by round: each round's phase-2
    /// survivors become rows at once, so memory holds one round's rows, not the result (the host
    /// helper threads' share is handed over when phase 1 ends). Queries that group, deduplicate
    /// or order, and count-only runs, are collected by [`execute_timed`](Self::execute_timed) and
    /// handed over once. Without `ORDER BY` the order of rows is unspecified.
    pub fn execute_streaming(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        consume: RowConsumer<'_, 'm>,
    ) -> Result<(StreamSummary, DeviceTimings)> {
        let collected = |consume: RowConsumer<'_, 'm>| -> Result<(StreamSummary, DeviceTimings)> {
            let (out, t) = self.execute_timed(query, options)?;
            Ok((crate::exec::hand_over(out, consume)?, t))
        };
        if !crate::exec::is_streamable(query) || options.count_only {
            return collected(consume);
        }
        let mut t = DeviceTimings::default();
        let start = Instant::now();
        let (plan, cands, host_t) = prepare(self.model, query, options.semantics);
        t.prepare = start.elapsed();
        if plan.steps.is_empty() {
            return collected(consume);
        }
        let control = Control::new(options.timeout.map(|d| Instant::now() + d));
        let stage = &query.stages[0];
        let projector = Projector::new(stage);
        let columns = projector.columns();
        let p = self.prepare(query, plan, cands, options.semantics, &mut t)?;
        let skip = stage.skip.unwrap_or(0);
        let limit = stage.limit.unwrap_or(u64::MAX);
        let stop_after = stage
            .limit
            .filter(|_| p.topology_decides())
            .map(|l| l.saturating_add(skip));
        let oracle = self.exists_oracle(query, &p, options.semantics, &control);
        let oracle_ref: &(dyn crate::exec::eval::ExistsOracle + Sync) = &oracle;
        let w = p.enc.row_words.max(1);
        let (mut seen, mut written) = (0u64, 0u64);
        // Rows become values a slice at a time, so a round of millions of matches never
        // exists as values all at once.
        let mut hand_out = |rows: &[u32]| -> Result<()> {
            for slice in rows.chunks(w * STREAM_ROWS) {
                if written >= limit {
                    break;
                }
                let mut sink = self.sink_of(&p, &projector, oracle_ref, slice);
                let batch = std::mem::take(&mut sink.rows);
                let from = skip.saturating_sub(seen).min(batch.len() as u64) as usize;
                seen += batch.len() as u64;
                let room = (limit - written).min((batch.len() - from) as u64) as usize;
                if room > 0 {
                    consume(&columns, &batch[from..from + room]).map_err(|e| {
                        control.stop();
                        Error::io("<output>", e)
                    })?;
                    written += room as u64;
                }
                if written >= limit {
                    control.stop();
                }
            }
            Ok(())
        };
        let absorbing = self.phase1_into(
            query,
            &p,
            options.semantics,
            &control,
            stop_after,
            &mut hand_out,
            &mut t,
        )?;
        t.phase2_matches = seen;
        t.results = absorbing;
        let timings = Timings {
            filter: host_t.filter,
            plan: host_t.plan,
            enumerate: t.phase1 + t.phase2,
            results: t.results,
        };
        let summary = StreamSummary {
            columns,
            count: written,
            partial: control.timed_out(),
            timings,
        };
        Ok((summary, t))
    }
}
