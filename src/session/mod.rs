//! The session: the one spine every query runs through, from the CLI, the library API
//! ([`crate::api`]) and the benchmarks alike (as Kùzu's `ClientContext`):
//!
//! ```text
//! source ─► pattern (parse → bind) ─► BoundQuery ─► Session::run ─► Engine ─► QueryOutput
//!                                                      │  backend choice, fallback, report
//!        host ─ host stages ─ GEMP device ─ GpSense host ─ GpSense device   (one Engine interface)
//! ```
//!
//! A session owns the backend choice (`auto`, `opencl`, `host`), the engine (GEMP's pipeline or
//! GpSense's filter-and-join, see [`EngineKind`], or the host matcher with one algorithm per stage,
//! [`StagedEngine`]), the model's upload to a device (once per
//! session), the fallback to the host under `auto` when the device cannot take a query, and the
//! results tail: collected ([`Session::run`]) or streamed to a consumer while the search runs
//! ([`Session::run_streaming`]), each with a [`TaskReport`] saying where it ran and why.
//!
//! ```
//! use gemp::model::ModelBuilder;
//! use gemp::session::{Session, SessionOptions};
//! use gemp::session::Backend;
//!
//! let mut b = ModelBuilder::new();
//! let t = b.rel_type("T");
//! let (x, y) = (b.add_node("x", &["A"]), b.add_node("y", &["A"]));
//! b.add_edge(x, y, t)?;
//! let model = b.freeze()?;
//! let session = Session::new(&model, &SessionOptions { backend: Backend::Host, ..Default::default() })?;
//! let query = session.compile("MATCH (a:A)-[:T]->(b:A) RETURN count(*) AS n", &Default::default())?;
//! let (out, report) = session.run(&query, &Default::default())?;
//! assert_eq!((out.count, report.backend.as_str()), (1, "host"));
//! # Ok::<(), gemp::Error>(())
//! ```

pub mod engine;
#[cfg(feature = "opencl")]
pub mod gemp_device;
pub mod gpsense;
pub mod host;
pub mod prepare;
pub mod report;
pub mod staged;

use std::time::{Duration, Instant};

use serde::Serialize;

pub use engine::{Engine, EngineRun};
pub use host::HostEngine;
pub use staged::StagedEngine;

use crate::engines::gemp::device::DeviceConfig;
use crate::error::{Error, Result};
use crate::exec::eval::Val;
use crate::exec::{MatchOptions, QueryOutput, RowConsumer, StreamSummary};
use crate::gpu::DeviceSelector;
use crate::model::Model;
use crate::pattern::binder::Params;
use crate::pattern::ir::BoundQuery;
pub use prepare::{default_semantics, PrepareOptions, PreparedQuery, QueryLanguage, SemanticsFrom};
pub use report::{timings_line, Backend, TaskReport};

/// Which matching engine runs a session's queries (`--engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// GEMP's two-phase pipeline (the default): the host matcher, or the OpenCL kernels.
    #[default]
    Gemp,
    /// GpSense's filter-and-join engine with multi-level compression.
    Gpsense,
}

/// How a session runs a query ([`Session::explanation`]); shown as `gemp explain` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The engine (`host`, `opencl (<device>)`, `gpsense host`, …).
    pub engine: String,
    /// The semantics in force.
    pub semantics: crate::exec::Semantics,
    /// What that semantics means, in one line.
    pub semantics_description: String,
    /// Where `--backend auto` would run it elsewhere, and why.
    pub notes: Vec<String>,
    /// The engine's plan, as text (pivot, order, where each predicate runs).
    pub plan: String,
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "engine: {}", self.engine)?;
        writeln!(f, "semantics: {}", self.semantics_description)?;
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        f.write_str(&self.plan)
    }
}

/// How a session is set up.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// Where queries run.
    pub backend: Backend,
    /// Which OpenCL device (`Auto` honours `GEMP_DEVICE`).
    pub device: DeviceSelector,
    /// The engine.
    pub engine: EngineKind,
    /// Tuning of GEMP's device pipeline (rounds, result buffers, host help).
    pub device_config: DeviceConfig,
    /// GpSense's setup (refinement, device-memory budget, compression cache).
    pub gpsense: crate::engines::gpsense::EngineConfig,
    /// One algorithm per matching stage (filter, order, join: GEMP's or GpSense's), run by the
    /// [`StagedEngine`] on the host. `None`: the engine's own pipeline. Only with the GEMP engine
    /// and the `host` or `auto` backend (`auto` then stays on the host).
    pub stages: Option<crate::engines::staged::StageChoice>,
}

impl SessionOptions {
    /// Defaults, on the host.
    pub fn host() -> Self {
        SessionOptions {
            backend: Backend::Host,
            ..Default::default()
        }
    }
}

/// Runs queries on one model through one engine.
#[derive(Debug)]
pub struct Session<'m> {
    model: &'m Model,
    backend: Backend,
    engine: Box<dyn Engine<'m> + 'm>,
    host: HostEngine<'m>,
    setup: Duration,
}

impl<'m> Session<'m> {
    /// Opens a session: picks the backend (`auto`: OpenCL on a GPU or accelerator, or the device
    /// named by `device` / `GEMP_DEVICE`, else the host, with a log line saying why), opens the
    /// device and uploads the model once.
    ///
    /// Errors: `opencl` without a usable device (or a build without OpenCL support), a device
    /// selection that names no device, a failing upload, a GpSense budget compression cannot
    /// reach.
    pub fn new(model: &'m Model, options: &SessionOptions) -> Result<Self> {
        let start = Instant::now();
        if let Some(choice) = options.stages {
            return Ok(Session {
                model,
                backend: options.backend,
                engine: Box::new(staged_engine(model, options, choice)?),
                host: HostEngine::new(model),
                setup: start.elapsed(),
            });
        }
        let device = crate::gpu::device_for(options.backend, options.device, "query")?;
        let engine: Box<dyn Engine<'m> + 'm> = match (options.engine, device) {
            (EngineKind::Gemp, None) => Box::new(HostEngine::new(model)),
            (EngineKind::Gpsense, None) => Box::new(gpsense::GpsenseEngine::host(
                model,
                options.gpsense.clone(),
            )?),
            (kind, Some(selector)) => open_device(model, options, kind, selector)?,
        };
        Ok(Session {
            model,
            backend: options.backend,
            engine,
            host: HostEngine::new(model),
            setup: start.elapsed(),
        })
    }

    /// A session on the host matcher (nothing to open; cannot fail).
    pub fn host(model: &'m Model) -> Self {
        Session {
            model,
            backend: Backend::Host,
            engine: Box::new(HostEngine::new(model)),
            host: HostEngine::new(model),
            setup: Duration::ZERO,
        }
    }

    /// The model queries run on.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The backend asked for.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Where queries run: `host`, `opencl (<device>)`, `gpsense host`, `gpsense opencl (<device>)`.
    pub fn engine_name(&self) -> String {
        self.engine.name()
    }

    /// True when queries run on an OpenCL device.
    pub fn uses_device(&self) -> bool {
        self.engine.uses_device()
    }

    /// Time opening the session took (device choice, model upload, GpSense compression).
    pub fn setup_time(&self) -> Duration {
        self.setup.max(self.engine.setup_time())
    }

    /// Parses and binds a query against the session's model. A syntax or binding error renders
    /// with the offending source line. (The bound query alone: [`Session::prepare`] also reads the
    /// query's directives and keeps the parsed form for new parameters.)
    pub fn compile(&self, source: &str, params: &Params) -> Result<BoundQuery> {
        Ok(self
            .prepare(
                source,
                &PrepareOptions {
                    params: params.clone(),
                    ..Default::default()
                },
            )?
            .into_bound())
    }

    /// Prepares Cypher `source` against the session's model (see [`prepare`]): its `// gemp:`
    /// directives, parsed and bound with `options.params`, the semantics in force decided.
    pub fn prepare(&self, source: &str, options: &PrepareOptions) -> Result<PreparedQuery> {
        prepare::prepare(self.model, source, None, options)
    }

    /// Prepares the query file at `path` (Cypher, or a `.graph` query graph); errors name the file.
    pub fn prepare_file(
        &self,
        path: &std::path::Path,
        options: &PrepareOptions,
    ) -> Result<PreparedQuery> {
        prepare::prepare_file(self.model, path, options)
    }

    /// [`PreparedQuery::bind`] on this session's model: the query again with new parameters.
    pub fn rebind(&self, prepared: &PreparedQuery, params: &Params) -> Result<PreparedQuery> {
        prepared.bind(self.model, params)
    }

    /// How the session's engine runs `query`: the engine, the semantics in force, then its plan
    /// (as `gemp explain` prints it).
    pub fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String> {
        Ok(self.explanation(query, options)?.to_string())
    }

    /// [`Session::explain`] in parts (`gemp explain --json`).
    pub fn explanation(&self, query: &BoundQuery, options: &MatchOptions) -> Result<Explanation> {
        let asked = options.semantics;
        let options = &engine_options(query, options);
        let plan = self.engine.explain(query, options)?;
        let mut notes = Vec::new();
        if let (Some(what), true) = (query.host_only_clause(), self.engine.uses_device()) {
            notes.push(format!(
                "the OpenCL matcher does not run {what}; --backend auto runs the query on the host"
            ));
        } else if let Some(why) = self.engine.defers(query, options) {
            notes.push(format!("--backend auto runs this query on the host: {why}"));
        } else if let Some(note) = self.engine.auto_note(query, options) {
            notes.push(note);
        }
        if options.semantics.distinct_edges() && self.engine.uses_device() {
            notes.push(
                "the OpenCL matcher does not implement this semantics; --backend auto runs the \
                 query on the host"
                    .into(),
            );
        }
        Ok(Explanation {
            engine: self.engine.name(),
            semantics: asked,
            semantics_description: asked.describe().into(),
            notes,
            plan,
        })
    }

    /// Runs a query and collects its rows (or only its count). A run the memory limit stopped
    /// is [`Error::MemoryLimit`], whatever the engine returned.
    pub fn run(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Result<(QueryOutput<'m>, TaskReport)> {
        crate::util::memory::reset();
        crate::util::memory::enter_stage(&SEARCH_STAGE);
        unless_memory_limit(self.run_once(query, options))
    }

    /// [`Session::run`] before the memory limit is looked at.
    fn run_once(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Result<(QueryOutput<'m>, TaskReport)> {
        let start = Instant::now();
        let options = &engine_options(query, options);
        match self.engine.run(query, options) {
            Ok(run) => Ok((run.output, self.report(start, None, run.device))),
            Err(e) => {
                let why = self.fallback_reason(e)?;
                let run = self.host.run(query, options)?;
                Ok((run.output, self.report(start, Some(why), None)))
            }
        }
    }

    /// [`Session::run`] restricted to the matches that bind pattern node `slot` to one of `seeds`
    /// (sorted, distinct node ids), one output per slot of `slots`: what incremental re-checking
    /// ([`crate::api::LiveQuery`]) runs. On the host matcher, whatever the session's engine.
    pub fn run_seeded(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        slots: &[usize],
        seeds: &[u32],
    ) -> Result<Vec<QueryOutput<'m>>> {
        crate::util::memory::reset();
        unless_memory_limit(crate::engines::gemp::execute_seeded(
            self.model, query, options, slots, seeds,
        ))
    }

    /// Runs a query and hands its rows to `consume`: while the search runs where the engine can
    /// (the host matcher, for plain projections), else once at the end. Returns the summary
    /// (columns, rows handed over, partial) and the report.
    ///
    /// Once the memory limit stopped the run nothing more is handed over and the run is
    /// [`Error::MemoryLimit`]: rows computed from what the run had then — an aggregate, a
    /// grouping — never reach `consume`. Plain rows streamed before the limit was reached
    /// (true matches) stay handed over.
    pub fn run_streaming(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        consume: RowConsumer<'_, 'm>,
    ) -> Result<(StreamSummary, TaskReport)> {
        crate::util::memory::reset();
        crate::util::memory::enter_stage(&SEARCH_STAGE);
        let mut guarded = |columns: &[String], rows: &[Vec<Val<'m>>]| {
            if crate::util::memory::tripped() {
                return Err(std::io::Error::other(
                    "the run reached the memory limit: its rows are not handed out",
                ));
            }
            consume(columns, rows)
        };
        unless_memory_limit(self.run_streaming_once(query, options, &mut guarded))
    }

    /// [`Session::run_streaming`] before the memory limit is looked at.
    fn run_streaming_once(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        consume: RowConsumer<'_, 'm>,
    ) -> Result<(StreamSummary, TaskReport)> {
        let start = Instant::now();
        let options = &engine_options(query, options);
        let mut handed_out = false;
        let mut counted = |columns: &[String], rows: &[Vec<Val<'m>>]| {
            handed_out |= !rows.is_empty();
            consume(columns, rows)
        };
        match self.engine.run_streaming(query, options, &mut counted) {
            Ok((summary, device)) => Ok((summary, self.report(start, None, device))),
            // Rows are out already: running the query again on the host would repeat them.
            Err(e) if handed_out => Err(e),
            Err(e) => {
                let why = self.fallback_reason(e)?;
                let (summary, _) = self.host.run_streaming(query, options, consume)?;
                Ok((summary, self.report(start, Some(why), None)))
            }
        }
    }

    /// Under `auto`, a query beyond the device's limits or an OpenCL failure sends the query to
    /// the host (the reason is logged and reported); anything else — a query error included — is
    /// returned.
    fn fallback_reason(&self, e: Error) -> Result<String> {
        if !(self.backend == Backend::Auto && self.engine.uses_device()) {
            return Err(e);
        }
        let why = e.to_string();
        match e {
            Error::OpenCl(_) => log::warn!("OpenCL failed ({why}): running the query on the host"),
            Error::DeviceLimit(_) => log::info!("{why}: running the query on the host"),
            other => return Err(other),
        }
        Ok(why)
    }

    fn report(
        &self,
        start: Instant,
        fallback: Option<String>,
        device: Option<crate::engines::gemp::device::DeviceTimings>,
    ) -> TaskReport {
        TaskReport {
            backend: if fallback.is_some() {
                self.host.name()
            } else {
                self.engine.name()
            },
            fallback,
            device,
            total: start.elapsed(),
        }
    }
}

/// The staged engine `options` ask for, or why it cannot run there (it is the GEMP engine's
/// host matcher: not GpSense's engine, not an OpenCL device).
fn staged_engine<'m>(
    model: &'m Model,
    options: &SessionOptions,
    choice: crate::engines::staged::StageChoice,
) -> Result<StagedEngine<'m>> {
    if options.engine != EngineKind::Gemp {
        return Err(Error::InvalidArgument(format!(
            "stage algorithms ({choice}; --filter/--order/--join) run in the default engine              only: drop --engine gpsense (GpSense's algorithms are --filter gpsense --order              gpsense --join gpsense)"
        )));
    }
    if options.backend == Backend::Opencl {
        return Err(Error::InvalidArgument(format!(
            "stage algorithms ({choice}; --filter/--order/--join) run on the host only: use              --backend host (or auto), or drop them"
        )));
    }
    Ok(StagedEngine::new(model, choice))
}

/// The stage a refused allocation names while a query runs
/// ([`crate::util::memory::enter_stage`]).
const SEARCH_STAGE: &str = "the search and its result stages";

/// A run stopped by the memory limit is an error, never a short answer (whatever else it
/// returned, an error included).
fn unless_memory_limit<T>(result: Result<T>) -> Result<T> {
    match crate::util::memory::take_error() {
        Some(e) => Err(e),
        None => result,
    }
}

/// Opens engine `kind` on the OpenCL device `selector` names.
#[cfg(feature = "opencl")]
fn open_device<'m>(
    model: &'m Model,
    options: &SessionOptions,
    kind: EngineKind,
    selector: DeviceSelector,
) -> Result<Box<dyn Engine<'m> + 'm>> {
    Ok(match kind {
        EngineKind::Gemp => {
            let mut config = options.device_config.clone();
            // Under `auto`, queries the host counts without enumerating stay on the host.
            config.defer_factorised |= options.backend == Backend::Auto;
            // Under `auto`, counts over the candidate space go by the cost model.
            config.cost_model |= options.backend == Backend::Auto;
            Box::new(gemp_device::GempDeviceEngine::open(
                model, selector, config,
            )?)
        }
        EngineKind::Gpsense => Box::new(gpsense::GpsenseEngine::open(
            model,
            options.gpsense.clone(),
            selector,
        )?),
    })
}

#[cfg(not(feature = "opencl"))]
fn open_device<'m>(
    _model: &'m Model,
    _options: &SessionOptions,
    _kind: EngineKind,
    _selector: DeviceSelector,
) -> Result<Box<dyn Engine<'m> + 'm>> {
    Err(Error::OpenCl(
        "gemp was built without OpenCL support (rebuild with the default cargo feature `opencl`)"
            .into(),
    ))
}

/// The options an engine runs `query` under. Cypher's relationship-isomorphism constrains
/// relationships only, so a query without any — none in its pattern, no reading clauses beyond
/// `MATCH`, no sub-pattern — has the same answer under homomorphism, which every engine (the
/// OpenCL matcher and GpSense included) implements.
fn engine_options<'o>(
    query: &BoundQuery,
    options: &'o MatchOptions,
) -> std::borrow::Cow<'o, MatchOptions> {
    let relationship_free =
        query.pattern.rels.is_empty() && query.clauses.is_none() && !query.mentions_sub_pattern();
    if options.semantics == crate::exec::Semantics::Cypher && relationship_free {
        std::borrow::Cow::Owned(MatchOptions {
            semantics: crate::exec::Semantics::Homomorphism,
            ..options.clone()
        })
    } else {
        std::borrow::Cow::Borrowed(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    fn model() -> Model {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let a = b.add_node("a", &["A"]);
        let c = b.add_node("c", &["A"]);
        let d = b.add_node("d", &["A"]);
        b.add_edge(a, c, t).unwrap();
        b.add_edge(c, d, t).unwrap();
        b.freeze().unwrap()
    }

    #[test]
    fn every_host_engine_gives_the_same_answer_through_one_spine() {
        let m = model();
        for engine in [EngineKind::Gemp, EngineKind::Gpsense] {
            let s = Session::new(
                &m,
                &SessionOptions {
                    engine,
                    ..SessionOptions::host()
                },
            )
            .unwrap();
            assert!(!s.uses_device());
            let q = s
                .compile("MATCH (x:A)-[:T]->(y:A) RETURN x, y", &Params::new())
                .unwrap();
            let (out, report) = s.run(&q, &MatchOptions::default()).unwrap();
            assert_eq!(out.count, 2, "{engine:?}");
            assert_eq!(report.backend, s.engine_name());
            assert!(report.fallback.is_none());
            let mut streamed = 0;
            let (summary, _) = s
                .run_streaming(&q, &MatchOptions::default(), &mut |cols, rows| {
                    assert_eq!(cols, ["x", "y"]);
                    streamed += rows.len();
                    Ok(())
                })
                .unwrap();
            assert_eq!((summary.count, streamed), (2, 2), "{engine:?}");
        }
    }

    #[test]
    fn stage_algorithms_run_on_the_host_and_refuse_other_engines_and_opencl() {
        use crate::engines::staged::StageChoice;
        let m = model();
        for choice in StageChoice::all() {
            for backend in [Backend::Host, Backend::Auto] {
                let s = Session::new(
                    &m,
                    &SessionOptions {
                        backend,
                        stages: Some(choice),
                        ..Default::default()
                    },
                )
                .unwrap();
                assert!(!s.uses_device());
                assert_eq!(s.engine_name(), format!("host stages {choice}"));
                let q = s
                    .compile("MATCH (x:A)-[:T]->(y:A) RETURN x, y", &Params::new())
                    .unwrap();
                let (out, report) = s.run(&q, &MatchOptions::default()).unwrap();
                assert_eq!(out.count, 2, "{choice}");
                assert_eq!(report.backend, s.engine_name());
                let text = s.explain(&q, &MatchOptions::default()).unwrap();
                assert!(text.contains(&format!("stages: {choice}")), "{text}");
            }
        }
        let stages = Some(StageChoice::parse("join=gpsense").unwrap());
        let err = Session::new(
            &m,
            &SessionOptions {
                backend: Backend::Opencl,
                stages,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("host only"), "{err}");
        let err = Session::new(
            &m,
            &SessionOptions {
                engine: EngineKind::Gpsense,
                stages,
                ..SessionOptions::host()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("--engine gpsense"), "{err}");
    }

    /// A device engine that fails every query with the error `fail` makes.
    #[derive(Debug)]
    struct FailingDevice(fn() -> Error);

    impl<'m> Engine<'m> for FailingDevice {
        fn name(&self) -> String {
            "opencl (mock)".into()
        }
        fn uses_device(&self) -> bool {
            true
        }
        fn setup_time(&self) -> Duration {
            Duration::ZERO
        }
        fn explain(&self, _: &BoundQuery, _: &MatchOptions) -> Result<String> {
            Ok(String::new())
        }
        fn run(&self, _: &BoundQuery, _: &MatchOptions) -> Result<EngineRun<'m>> {
            Err((self.0)())
        }
    }

    fn failing_session(m: &Model, backend: Backend, fail: fn() -> Error) -> Session<'_> {
        Session {
            model: m,
            backend,
            engine: Box::new(FailingDevice(fail)),
            host: HostEngine::new(m),
            setup: Duration::ZERO,
        }
    }

    #[test]
    fn auto_falls_back_to_the_host_on_device_limits_and_opencl_failures_only() {
        let m = model();
        let limit = || Error::DeviceLimit("the pattern has 17 nodes; at most 16".into());
        let opencl = || Error::OpenCl("out of resources".into());
        let query = || Error::Query("a real query error".into());
        let q = Session::host(&m)
            .compile("MATCH (x:A)-[:T]->(y:A) RETURN x, y", &Params::new())
            .unwrap();
        let opts = MatchOptions::default();
        for fail in [limit, opencl] {
            let s = failing_session(&m, Backend::Auto, fail);
            let (out, report) = s.run(&q, &opts).unwrap();
            assert_eq!((out.count, report.backend.as_str()), (2, "host"));
            assert_eq!(report.fallback, Some(fail().to_string()));
            let mut rows = 0;
            let (summary, report) = s
                .run_streaming(&q, &opts, &mut |_, r| {
                    rows += r.len();
                    Ok(())
                })
                .unwrap();
            assert_eq!((summary.count, rows), (2, 2));
            assert!(report.fallback.is_some());
            // Asked for OpenCL explicitly: the failure is the answer.
            let s = failing_session(&m, Backend::Opencl, fail);
            assert_eq!(
                s.run(&q, &opts).unwrap_err().to_string(),
                fail().to_string()
            );
        }
        // A query error is never hidden behind a fallback.
        let s = failing_session(&m, Backend::Auto, query);
        assert!(matches!(s.run(&q, &opts).unwrap_err(), Error::Query(_)));
    }

    #[test]
    fn compile_errors_render_the_source_line() {
        let m = model();
        let s = Session::host(&m);
        let err = s
            .compile("MATCH (x:A RETURN x", &Params::new())
            .unwrap_err();
        assert!(matches!(err, Error::Query(_)));
        assert!(err.to_string().contains("MATCH (x:A RETURN x"), "{err}");
    }

    #[test]
    fn a_consumer_error_is_returned_not_retried() {
        let m = model();
        let s = Session::host(&m);
        let q = s.compile("MATCH (x:A) RETURN x", &Params::new()).unwrap();
        let err = s
            .run_streaming(&q, &MatchOptions::default(), &mut |_, _| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "closed",
                ))
            })
            .unwrap_err();
        assert!(err.to_string().contains("closed"), "{err}");
    }

    #[cfg(not(feature = "opencl"))]
    #[test]
    fn opencl_backend_without_opencl_support_is_an_error() {
        let m = model();
        let err = Session::new(
            &m,
            &SessionOptions {
                backend: Backend::Opencl,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("without OpenCL"));
        let auto = Session::new(&m, &SessionOptions::default()).unwrap();
        assert!(!auto.uses_device());
    }
}
