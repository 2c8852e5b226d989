//! The GpSense engine: one per model (and batch), holding the compressed graph when the model is
//! over the device-memory budget and the uploaded topology when a device is used; runs queries
//! through filter → join (→ expansion) and the default engine's result stage.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::compress::{self, CompressConfig, Compressed};
use super::expand::{expand_flags, UsedHyperNodes};
use super::filter::{self, FilterConfig, Topo};
use super::join::{self, Conjuncts, EdgeCandidates, Joiner, Repeat};
use super::plan::{self, GpsPlan};
use crate::error::Result;
use crate::exec::eval::ExistsOracle;
use crate::exec::exists::ModelOracle;
use crate::exec::{drive, Drive, Search};
use crate::exec::{Control, Sink};
use crate::exec::{MatchOptions, QueryOutput, Semantics, Timings};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// How the GpSense engine is set up.
#[derive(Debug, Clone, Default)]
pub struct EngineConfig {
    /// Filtering (refinement rounds).
    pub filter: FilterConfig,
    /// Device-memory budget in bytes: a data graph whose topology needs more (see
    /// [`compress::graph_bytes`]) is compressed until it fits. `None`: never compress.
    pub device_memory: Option<u64>,
    /// Compression thresholds per level.
    pub compress: CompressConfig,
    /// Where the compressed graph is saved and looked for (e.g. `model.gemp.gpsense`).
    pub cache: Option<PathBuf>,
}

/// Hyper-matches collected on a compressed graph before the expansion uses every refined hyper
/// candidate instead (heavily compressed graphs can have far more hyper-matches than the original
/// graph has matches).
pub const HYPER_MATCH_LIMIT: u64 = 100_000;

/// The GpSense engine for one model.
pub struct Engine<'m> {
    model: &'m Model,
    config: EngineConfig,
    compressed: Option<Compressed>,
    #[cfg(feature = "opencl")]
    device: Option<super::device::DeviceEngine>,
    /// Time spent compressing (or loading the saved compressed graph).
    pub compress_time: Duration,
}

impl std::fmt::Debug for Engine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field(
                "compressed",
                &self.compressed.as_ref().map(|c| c.levels.len()),
            )
            .field("device", &self.uses_device())
            .finish()
    }
}

/// What filtering produced for one query.
struct Prepared {
    plan: GpsPlan,
    /// Final candidates per pattern node (data nodes).
    cands: Vec<Vec<u32>>,
    /// Edge candidates per relationship.
    edges: Vec<EdgeCandidates>,
}

impl<'m> Engine<'m> {
    /// An engine on the host. Compresses the model (or loads its saved compressed graph) when it is
    /// over the device-memory budget.
    pub fn new(model: &'m Model, config: EngineConfig) -> Result<Self> {
        let start = Instant::now();
        let compressed = match config.device_memory {
            Some(budget) if compress::model_bytes(model) > budget => Some(compress::load_or_build(
                model,
                budget,
                &config.compress,
                config.cache.as_deref(),
            )?),
            _ => None,
        };
        Ok(Engine {
            model,
            config,
            compressed,
            #[cfg(feature = "opencl")]
            device: None,
            compress_time: start.elapsed(),
        })
    }

    /// An engine on the host over an already compressed graph of `model` (queries then always run
    /// on the compressed graph and are expanded).
    pub fn with_compressed(model: &'m Model, config: EngineConfig, compressed: Compressed) -> Self {
        Engine {
            model,
            config,
            compressed: Some(compressed),
            #[cfg(feature = "opencl")]
            device: None,
            compress_time: Duration::ZERO,
        }
    }

    /// An engine whose filtering and edge-candidate collection run on `gpu`: uploads the data graph
    /// (or its compressed graph when over the budget) once.
    #[cfg(feature = "opencl")]
    pub fn with_device(
        model: &'m Model,
        config: EngineConfig,
        gpu: std::sync::Arc<crate::gpu::Gpu>,
    ) -> Result<Self> {
        let mut engine = Engine::new(model, config)?;
        engine.device = Some(match &engine.compressed {
            Some(c) => super::device::DeviceEngine::new(gpu, c.topo(), c.label_csr())?,
            None => super::device::DeviceEngine::new(
                gpu,
                Topo::of_model(model),
                model.node_label_csr(),
            )?,
        });
        Ok(engine)
    }

    /// True when filtering runs on an OpenCL device.
    pub fn uses_device(&self) -> bool {
        #[cfg(feature = "opencl")]
        {
            self.device.is_some()
        }
        #[cfg(not(feature = "opencl"))]
        {
            false
        }
    }

    /// The compressed graph, when the model is over the budget.
    pub fn compressed(&self) -> Option<&Compressed> {
        self.compressed.as_ref()
    }

    /// Filtering and edge candidates for `query` on the data graph; on a compressed graph, first
    /// filtering and joining there, then the expansion of the hyper-matches' nodes.
    fn prepare(
        &self,
        query: &BoundQuery,
        semantics: Semantics,
        control: &Control,
    ) -> Result<Prepared> {
        if semantics.distinct_edges() {
            return Err(crate::Error::Query(
                "Cypher semantics (relationship-isomorphism, the default for Cypher text) is not in \
                 this engine (GpSense); use --engine gemp, or --semantics isomorphism"
                    .into(),
            ));
        }
        let model = self.model;
        let k = query.pattern.nodes.len();
        let unary = crate::exec::plan::unary_conjuncts(query);
        let mut flags: Vec<Vec<bool>> = Vec::with_capacity(k);
        for (slot, unary) in unary.iter().enumerate() {
            flags.push(match &self.compressed {
                Some(c) => c.init_flags(model, query, unary, slot, semantics),
                None => self.init_flags(query, unary, slot, semantics)?,
            });
        }
        let counts: Vec<usize> = flags
            .iter()
            .map(|f| f.iter().filter(|&&b| b).count())
            .collect();
        let plan = plan::plan(model, query, &counts);
        let Some(c) = &self.compressed else {
            let topo = Topo::of_model(model);
            let cands = self.refine(&topo, query, &plan, &mut flags)?;
            let edges = self.all_edge_candidates(&topo, query, &cands, &flags, false)?;
            return Ok(Prepared { plan, cands, edges });
        };
        // On the compressed graph (device or host): filter, edge candidates, join.
        let topo = c.topo();
        let hyper_cands = self.refine(&topo, query, &plan, &mut flags)?;
        let hyper_edges = self.all_edge_candidates(&topo, query, &hyper_cands, &flags, true)?;
        let capacity = c.capacities();
        let hyper_control = Control::new(control.deadline());
        let joiner = Joiner {
            query,
            plan: &plan,
            cands: &hyper_cands,
            edges: &hyper_edges,
            repeat: match semantics {
                Semantics::Isomorphism => Repeat::Capacity(&capacity),
                Semantics::Homomorphism | Semantics::Cypher => Repeat::Free,
            },
            all_anonymous: true,
            conjuncts: None,
            control: &hyper_control,
        };
        let hyper_nodes = c.node_count();
        let firsts: &[u32] = plan.order.first().map_or(&[], |&s| &hyper_cands[s]);
        let seen = AtomicU64::new(0);
        let mut used = firsts
            .par_chunks(64)
            .map(|chunk| {
                let mut used = UsedHyperNodes::new(k, hyper_nodes);
                joiner.run(chunk, &mut |hyper, _| {
                    used.record(hyper);
                    if seen.fetch_add(1, Ordering::Relaxed) + 1 >= HYPER_MATCH_LIMIT {
                        hyper_control.stop();
                        return false;
                    }
                    true
                });
                used
            })
            .reduce(
                || UsedHyperNodes::new(k, hyper_nodes),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            );
        if hyper_control.stopped() {
            if hyper_control.timed_out() {
                control.stop();
            }
            // Too many hyper-matches: every refined hyper candidate counts as used (a superset of
            // the used hyper-nodes, so the expansion stays exact).
            log::debug!("GpSense: over {HYPER_MATCH_LIMIT} hyper-matches: expanding candidates");
            for (slot, list) in hyper_cands.iter().enumerate() {
                for &x in list {
                    used.used[slot][x as usize] = true;
                }
            }
        }
        log::debug!("GpSense: {} hyper-matches", used.matches);
        // Expansion through the mapping lists, then the exact filter on the original graph (host:
        // the original graph is what does not fit the device).
        let mut flags = expand_flags(model, c, query, &plan, &used, semantics);
        let topo = Topo::of_model(model);
        let cands = filter::refine(&topo, query, &plan, &mut flags, self.config.filter);
        let edges = join::collect_all_edge_candidates(&topo, query, &cands, &flags);
        Ok(Prepared { plan, cands, edges })
    }

    fn all_edge_candidates(
        &self,
        topo: &Topo<'_>,
        query: &BoundQuery,
        cands: &[Vec<u32>],
        flags: &[Vec<bool>],
        all_anonymous: bool,
    ) -> Result<Vec<EdgeCandidates>> {
        query
            .pattern
            .rels
            .iter()
            .map(|r| self.edge_candidates(topo, r, &cands[r.src], &flags[r.dst], all_anonymous))
            .collect()
    }

    fn init_flags(
        &self,
        query: &BoundQuery,
        unary: &[usize],
        slot: usize,
        semantics: Semantics,
    ) -> Result<Vec<bool>> {
        #[cfg(feature = "opencl")]
        if let Some(d) = &self.device {
            let mut flags = d.init_flags(query, slot, semantics)?;
            if !unary.is_empty() {
                let mut buf = vec![u32::MAX; query.pattern.nodes.len()];
                for (v, f) in flags.iter_mut().enumerate() {
                    *f = *f && filter::unary_ok(self.model, query, unary, slot, v as u32, &mut buf);
                }
            }
            return Ok(flags);
        }
        Ok(filter::init_flags(
            self.model, query, unary, slot, semantics,
        ))
    }

    fn refine(
        &self,
        topo: &Topo<'_>,
        query: &BoundQuery,
        plan: &GpsPlan,
        flags: &mut [Vec<bool>],
    ) -> Result<Vec<Vec<u32>>> {
        #[cfg(feature = "opencl")]
        if let Some(d) = &self.device {
            filter::self_loops(topo, query, flags);
            return d.refine(query, plan, flags, self.config.filter);
        }
        Ok(filter::refine(topo, query, plan, flags, self.config.filter))
    }

    fn edge_candidates(
        &self,
        topo: &Topo<'_>,
        rel: &crate::pattern::ir::RelVar,
        src_cands: &[u32],
        dst_flags: &[bool],
        all_anonymous: bool,
    ) -> Result<EdgeCandidates> {
        #[cfg(feature = "opencl")]
        if let Some(d) = &self.device {
            return d.edge_candidates(rel, src_cands, dst_flags, all_anonymous);
        }
        Ok(join::collect_edge_candidates(
            topo,
            rel,
            src_cands,
            dst_flags,
            all_anonymous,
        ))
    }

    /// Runs the join (and, on a compressed graph, the expansion) over the first node's candidates
    /// in parallel chunks, one sink per chunk.
    fn search<S, F>(
        &self,
        query: &BoundQuery,
        prep: &Prepared,
        semantics: Semantics,
        control: &Control,
        oracle: &(dyn ExistsOracle + Sync),
        make_sink: F,
    ) -> Vec<S>
    where
        S: Sink + Send,
        F: Fn() -> S + Sync + Send,
    {
        let joiner = Joiner {
            query,
            plan: &prep.plan,
            cands: &prep.cands,
            edges: &prep.edges,
            repeat: Repeat::of(semantics),
            all_anonymous: false,
            conjuncts: Some(Conjuncts {
                model: self.model,
                oracle,
            }),
            control,
        };
        joiner.run_parallel(make_sink)
    }

    /// How this engine runs `query`: the candidate filter's sizes and the join order (as
    /// `gemp explain --engine gpsense` prints it).
    pub fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String> {
        let control = Control::new(None);
        let prep = self.prepare(query, options.semantics, &control)?;
        let counts: Vec<usize> = prep.cands.iter().map(|c| c.len()).collect();
        let plan = prep.plan.as_planner_plan(&counts);
        let mut text = crate::exec::explain::render(query, &plan, self.model);
        text.push_str(&format!(
            "\nGpSense execution: candidates filtered on {} ({} refinement round(s)), joined in \
             the order above (each step expands the relationship with the fewest edge candidates \
             and checks the others), string predicates on complete matches{}\n",
            if self.uses_device() {
                "the device"
            } else {
                "the host"
            },
            self.config.filter.refine_rounds,
            if self.compressed().is_some() {
                "; the data graph is compressed"
            } else {
                ""
            }
        ));
        Ok(text)
    }

    /// Runs a bound query; results equal [`crate::engines::gemp::execute`]'s (rows in another order when
    /// the query does not order them).
    pub fn execute(&self, query: &BoundQuery, options: &MatchOptions) -> Result<QueryOutput<'m>> {
        let model = self.model;
        let semantics = options.semantics;
        let mut timings = Timings::default();
        let control = Control::new(options.timeout.map(|d| Instant::now() + d));
        let start = Instant::now();
        let prep = self.prepare(query, semantics, &control)?;
        timings.filter = start.elapsed();
        let counts: Vec<usize> = prep.cands.iter().map(|c| c.len()).collect();
        let plan_out = prep.plan.as_planner_plan(&counts);
        let oracle = ModelOracle { model, semantics };
        let mut search = GpsenseSearch {
            engine: self,
            query,
            prep: &prep,
            semantics,
            control: &control,
            oracle: &oracle,
            plan: plan_out,
        };
        let run = Drive {
            model,
            query,
            options,
            control: &control,
            oracle: &oracle,
            timings,
        };
        drive(run, &mut search)
    }
}

/// GpSense's join for [`drive`].
struct GpsenseSearch<'s, 'm> {
    engine: &'s Engine<'m>,
    query: &'s BoundQuery,
    prep: &'s Prepared,
    semantics: Semantics,
    control: &'s Control,
    oracle: &'s (dyn ExistsOracle + Sync),
    plan: crate::exec::plan::Plan,
}

impl Search for GpsenseSearch<'_, '_> {
    fn search<S: Sink + Send>(
        &mut self,
        make_sink: &(dyn Fn() -> S + Sync + Send),
    ) -> Result<Vec<S>> {
        Ok(self.engine.search(
            self.query,
            self.prep,
            self.semantics,
            self.control,
            self.oracle,
            make_sink,
        ))
    }

    fn plan(&mut self) -> crate::exec::plan::Plan {
        self.plan.clone()
    }
}
