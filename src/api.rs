//! The library API: load or open a model, compile a query, run it with options, and read the
//! matches (node ids, keys, labels, properties), their count and timings — without the CLI.
//!
//! ```
//! use gemp::api::{Graph, RunOptions};
//!
//! let graph = Graph::from_json_str(r#"{
//!   "nodes": [ {"id": "a", "labels": ["Task"], "properties": {"name": "cut"}},
//!              {"id": "b", "labels": ["Task"], "properties": {"name": "fry"}} ],
//!   "edges": [ {"source": "a", "target": "b", "type": "NEXT"} ] }"#)?;
//! // `graph.run(source)` runs with the defaults (OpenCL on a GPU or accelerator when one exists); here: the host.
//! let host = RunOptions::host();
//! let query = graph.query("MATCH (x:Task)-[:NEXT]->(y:Task) RETURN x, y.name AS next")?;
//! let matches = graph.execute(&query, &host)?;
//! assert_eq!(matches.count(), 1);
//! for row in matches.rows() {
//!     let x = row.node("x").unwrap();
//!     assert_eq!(x.key(), "a");
//!     assert_eq!(x.labels(), vec!["Task"]);
//!     assert_eq!(x.property("name").to_string(), "cut");
//!     assert_eq!(row.value("next").unwrap().to_string(), "fry");
//! }
//! // Count only, on the host, with a parameter.
//! let options = RunOptions::host().count_only().param_text("n", "cut");
//! let query = graph.query_with("MATCH (x:Task {name: $n}) RETURN x", &options)?;
//! assert_eq!(graph.execute(&query, &options)?.count(), 1);
//! # Ok::<(), gemp::Error>(())
//! ```
//!
//! The pieces it wraps stay available for finer control: [`crate::io`] (loaders),
//! [`crate::pattern::compile`], [`crate::engines::gemp::execute`] and [`crate::session::Session`] (the
//! spine every run goes through, the CLI's included).

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::engines::staged::StageChoice;
use crate::error::{Error, Result};
use crate::exec::eval::Val;
use crate::exec::{MatchOptions, QueryOutput, Semantics};
use crate::io::{Format, LoadOptions, LoadReport};
use crate::model::{Model, Value, ValueRef};
use crate::pattern::binder::Params;
use crate::pattern::ir::BoundQuery;
pub use crate::pattern::ParamValue;
use crate::session::{Backend, TaskReport};
use crate::session::{EngineKind, PrepareOptions, PreparedQuery, Session, SessionOptions};
use crate::transform::{ApplyOptions, ChangeReport, Rules};

pub mod embedding;
mod kept_session;
mod live;
pub mod stream;
mod transaction;

pub use crate::exec::control::CancelFlag;
pub use embedding::QueryError;
use kept_session::{SessionKey, SessionSlot};
pub use live::{LiveQuery, MatchDiff};
pub use stream::StreamEnd;
pub use transaction::Transaction;

/// A loaded model, ready for queries.
#[derive(Debug)]
pub struct Graph {
    /// The session queries run on, kept between them (device opened, model uploaded once). It
    /// borrows `model`, so it is declared first (dropped first) and cleared before the model
    /// changes (see `api/kept_session.rs`).
    sessions: SessionSlot,
    model: Box<Model>,
    report: Option<LoadReport>,
    /// What each change touched, for [`LiveQuery::refresh`].
    log: live::ChangeLog,
}

/// How [`Graph::load_with`] reads its inputs.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// The input format ([`Format::Auto`] detects it).
    pub format: Format,
    /// An `.ecore` / `.xcore` metamodel for XMI, CSV and JSON inputs.
    pub metamodel: Option<PathBuf>,
    /// Fail on the first malformed row instead of skipping it.
    pub strict: bool,
}

impl Default for LoadSpec {
    fn default() -> Self {
        LoadSpec {
            format: Format::Auto,
            metamodel: None,
            strict: false,
        }
    }
}

impl Graph {
    /// Loads files or directories in any supported format (detected), or opens one `.gemp`
    /// snapshot. `.ecore` / `.xcore` files among `paths` are used as the metamodel.
    pub fn load<P: AsRef<Path>>(paths: &[P]) -> Result<Graph> {
        Self::load_with(paths, &LoadSpec::default())
    }

    /// [`Graph::load`] with an explicit format, metamodel and strictness.
    pub fn load_with<P: AsRef<Path>>(paths: &[P], spec: &LoadSpec) -> Result<Graph> {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        let snapshot = match spec.format {
            Format::Snapshot => true,
            Format::Auto => {
                paths.len() == 1
                    && paths[0].is_file()
                    && crate::model::snapshot::is_snapshot(&paths[0])
            }
            _ => false,
        };
        if snapshot {
            let [path] = &paths[..] else {
                return Err(Error::InvalidArgument(
                    "a snapshot is opened on its own: give exactly one .gemp file".into(),
                ));
            };
            return Self::open(path);
        }
        let options = LoadOptions {
            strict: spec.strict,
            ..Default::default()
        };
        let (model, report) = crate::io::load_with_metamodel(
            &paths,
            spec.format,
            spec.metamodel.as_deref(),
            &options,
        )?;
        Ok(Graph {
            sessions: SessionSlot::default(),
            model: Box::new(model),
            report: Some(report),
            log: live::ChangeLog::new(),
        })
    }

    /// Opens a `.gemp` snapshot (read into private memory, so that another program changing the
    /// file afterwards does not affect the graph).
    pub fn open(path: impl AsRef<Path>) -> Result<Graph> {
        Ok(Graph {
            sessions: SessionSlot::default(),
            model: Box::new(crate::model::snapshot::open(path.as_ref())?),
            report: None,
            log: live::ChangeLog::new(),
        })
    }

    /// A graph from a JSON graph document (see [`crate::io::json_graph`]).
    pub fn from_json_str(text: &str) -> Result<Graph> {
        let (model, report) = crate::io::json_graph::read_str(text, None)?;
        Ok(Graph {
            sessions: SessionSlot::default(),
            model: Box::new(model),
            report: Some(report),
            log: live::ChangeLog::new(),
        })
    }

    /// A graph from an XMI document, with an optional metamodel (unresolved references are
    /// errors).
    pub fn from_xmi_str(
        text: &str,
        metamodel: Option<&crate::io::metamodel::Metamodel>,
    ) -> Result<Graph> {
        let options = LoadOptions {
            strict: true,
            ..Default::default()
        };
        let (model, report) = crate::io::xmi::read_str(text, metamodel, &options)?;
        Ok(Graph {
            sessions: SessionSlot::default(),
            model: Box::new(model),
            report: Some(report),
            log: live::ChangeLog::new(),
        })
    }

    /// Wraps a model built otherwise (e.g. with [`crate::model::ModelBuilder`]).
    pub fn from_model(model: Model) -> Graph {
        Graph {
            sessions: SessionSlot::default(),
            model: Box::new(model),
            report: None,
            log: live::ChangeLog::new(),
        }
    }

    /// The underlying model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Replaces the model (a committed change): the kept session, which ran on the old one, is
    /// dropped first.
    fn replace_model(&mut self, model: Model) {
        self.sessions.clear();
        *self.model = model;
    }

    /// What loading did (rows per file, malformed rows); `None` for snapshots and wrapped models.
    pub fn load_report(&self) -> Option<&LoadReport> {
        self.report.as_ref()
    }

    /// Applies a rule file (statements of Cypher updating clauses separated by `;`, see
    /// `docs/query-language.md`, "Transformation"): each statement finds all its matches on the
    /// graph as it stands, then applies them as one change. Later queries see the result. On an
    /// error the graph is left as it was (no statement of the call is kept).
    ///
    /// ```
    /// use gemp::api::Graph;
    ///
    /// let mut graph = Graph::from_json_str(r#"{
    ///   "nodes": [ {"id": "s", "labels": ["Segment"], "properties": {"length": -3}} ],
    ///   "edges": [] }"#)?;
    /// let report = graph.apply("MATCH (s:Segment) WHERE s.length <= 0 SET s.length = -s.length + 1")?;
    /// assert_eq!(report.totals().properties_set, 1);
    /// assert_eq!(graph.count("MATCH (s:Segment) WHERE s.length = 4 RETURN s")?, 1);
    /// # Ok::<(), gemp::Error>(())
    /// ```
    pub fn apply(&mut self, rules: &str) -> Result<ChangeReport> {
        self.apply_with(rules, &ApplyOptions::default())
    }

    /// [`Graph::apply`] with options: repeat until a fixpoint, parameters.
    pub fn apply_with(&mut self, rules: &str, options: &ApplyOptions) -> Result<ChangeReport> {
        let rules = Rules::parse(rules, None)?;
        let (model, report, touched) =
            crate::transform::apply_tracked(&self.model, &rules, options)?;
        if let Some(m) = model {
            self.replace_model(m);
            self.log.record(touched);
        }
        Ok(report)
    }

    /// The rows a rule file's last `RETURN` gave ([`ChangeReport::returned`]) as items of this
    /// graph's model: right when that statement was the last one applied to the graph (as with
    /// one Cypher updating query, `CREATE (n:A) RETURN n`).
    pub fn returned<'g>(
        &'g self,
        report: &ChangeReport,
    ) -> Option<(Vec<String>, Vec<Vec<Item<'g>>>)> {
        let r = report.returned.as_ref()?;
        let model: &Model = &self.model;
        let rows = r
            .rows
            .iter()
            .map(|row| row.iter().map(|v| Item::from_val(model, v)).collect())
            .collect();
        Some((r.columns.clone(), rows))
    }

    /// A transaction: rule files applied one after another, queried, then committed or rolled
    /// back as one change.
    pub fn transaction(&mut self) -> Transaction<'_> {
        Transaction::new(self)
    }

    /// Saves the model as a `.gemp` snapshot.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        crate::model::snapshot::write(&self.model, path.as_ref())
    }

    /// Prepares a query (no parameters) against this graph.
    pub fn query(&self, source: &str) -> Result<Query> {
        self.query_with(source, &RunOptions::default())
    }

    /// Prepares a query with the parameters of `options` (see [`Session::prepare`]): its
    /// `// gemp: semantics=…` line is read as the command line reads it. A syntax or binding error
    /// is an [`Error::Query`] whose message shows the query source with the error marked.
    pub fn query_with(&self, source: &str, options: &RunOptions) -> Result<Query> {
        let prepared = crate::session::prepare::prepare(
            &self.model,
            source,
            None,
            &options.prepare_options(),
        )?;
        Ok(Query {
            prepared,
            params: options.params.clone(),
        })
    }

    /// Prepares the query file at `path` (Cypher, or a `.graph` query graph), with its
    /// `// gemp: semantics=…` line, exactly as `gemp match` reads it.
    pub fn query_file(&self, path: impl AsRef<Path>, options: &RunOptions) -> Result<Query> {
        let prepared = crate::session::prepare::prepare_file(
            &self.model,
            path.as_ref(),
            &options.prepare_options(),
        )?;
        Ok(Query {
            prepared,
            params: options.params.clone(),
        })
    }

    /// Prepares and runs a query with default options (auto backend, injective matching).
    pub fn run(&self, source: &str) -> Result<Matches<'_>> {
        let options = RunOptions::default();
        let q = self.query_with(source, &options)?;
        self.execute(&q, &options)
    }

    /// The number of results of a query.
    pub fn count(&self, source: &str) -> Result<u64> {
        let options = RunOptions::default().count_only();
        let q = self.query_with(source, &options)?;
        Ok(self.execute(&q, &options)?.count())
    }

    /// Runs a prepared query on the session the graph keeps for `options.backend`,
    /// `options.engine` and `options.stages` (opened on first use: the device is opened and the
    /// model uploaded once, not per query). Parameters in `options` other than those the query
    /// was prepared with bind it again (no parsing).
    pub fn execute(&self, query: &Query, options: &RunOptions) -> Result<Matches<'_>> {
        let key = options.session_key();
        let model: &Model = &self.model;
        // SAFETY: `model` is the graph's boxed model; `replace_model` (the only way it changes)
        // clears the slot first, and the slot is declared (dropped) before the model.
        unsafe {
            self.sessions.with(model, key, |session| {
                let (output, report) = run_prepared(session, query, options)?;
                Ok(Matches {
                    model,
                    output,
                    report,
                })
            })
        }
    }

    /// How a prepared query runs with `options` (engine, semantics, plan: what `gemp explain`
    /// prints), on the session the graph keeps for them, as [`Graph::execute`] would run it.
    pub fn explain(&self, query: &Query, options: &RunOptions) -> Result<String> {
        let model: &Model = &self.model;
        // SAFETY: as in `execute`.
        unsafe {
            self.sessions.with(model, options.session_key(), |session| {
                session.explain(query.bound(), &options.match_options_for(&query.prepared))
            })
        }
    }

    /// A runner with its own session for `options.backend` and `options.engine` (the model is
    /// uploaded to a device once for the runner's queries).
    pub fn runner(&self, options: &RunOptions) -> Result<Runner<'_>> {
        let session = Session::new(
            &self.model,
            &SessionOptions {
                backend: options.backend,
                engine: options.engine,
                stages: options.stages,
                ..Default::default()
            },
        )?;
        Ok(Runner {
            model: &self.model,
            session,
        })
    }
}

/// `query` bound again when `options` brings other parameters than it was prepared with; `None`
/// when its own binding holds.
fn rebound_for(
    session: &Session<'_>,
    query: &Query,
    options: &RunOptions,
) -> Result<Option<PreparedQuery>> {
    if !options.params.is_empty() && options.params != query.params {
        session.rebind(&query.prepared, &options.params).map(Some)
    } else {
        Ok(None)
    }
}

/// Runs `query` on `session` with `options`: bound again when `options` brings other parameters,
/// under `options.semantics` or else the query's own.
fn run_prepared<'g>(
    session: &Session<'g>,
    query: &Query,
    options: &RunOptions,
) -> Result<(QueryOutput<'g>, TaskReport)> {
    let rebound = rebound_for(session, query, options)?;
    let prepared = rebound.as_ref().unwrap_or(&query.prepared);
    let run = options.match_options_for(prepared);
    let out = session.run(prepared.bound(), &run)?;
    // A value that could not be computed (a list function given a string, an index that is
    // not an integer…) fails the query rather than reading as null.
    if let Some((message, class)) = prepared.bound().take_error_classed() {
        return Err(Error::Query(crate::error::QueryMessage::classed(
            format!("a value cannot be computed: {message}"),
            class,
        )));
    }
    Ok(out)
}

/// A prepared query, bound to the graph it was prepared for (see [`Session::prepare`]).
#[derive(Debug)]
pub struct Query {
    prepared: PreparedQuery,
    params: Params,
}

impl Query {
    /// The query's source text.
    pub fn source(&self) -> &str {
        self.prepared.source()
    }

    /// The bound query (pattern, predicates, projection).
    pub fn bound(&self) -> &BoundQuery {
        self.prepared.bound()
    }

    /// The semantics it runs under unless [`RunOptions::semantics`] says otherwise: its
    /// `// gemp: semantics=…` line, else node-isomorphism.
    pub fn semantics(&self) -> Semantics {
        self.prepared.semantics()
    }
}

/// How to run a query.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Where it runs ([`Backend::Auto`]: OpenCL on a GPU or accelerator, else the host).
    pub backend: Backend,
    /// Which engine runs it: GEMP's pipeline (default) or GpSense's filter-and-join.
    pub engine: EngineKind,
    /// One algorithm per matching stage — filter, order, join, each GEMP's or GpSense's — run
    /// on the host matcher (see [`crate::engines::staged`]); `None` (default): the engine's own
    /// pipeline. Only with [`EngineKind::Gemp`] and a host or auto backend.
    pub stages: Option<StageChoice>,
    /// Node-injective, homomorphic or Cypher (relationship-isomorphic) matching; `None`
    /// (default): the query's `// gemp: semantics=…` line, else node-injective.
    pub semantics: Option<Semantics>,
    /// Stop after this long; the result is then partial.
    pub timeout: Option<Duration>,
    /// Only count the results.
    pub count_only: bool,
    /// Query parameters (`$name`).
    pub params: Params,
    /// Stop after this many pattern matches (`gemp match --limit`); `None`: every match.
    pub limit: Option<u64>,
    /// Names the model does not have are not errors but read as Cypher reads them: a property
    /// key as null, a label or relationship type in a pattern as matching nothing (`false`:
    /// unknown names are errors that name the nearest known ones).
    pub lenient: bool,
}

impl RunOptions {
    /// Defaults, on the host.
    pub fn host() -> Self {
        RunOptions {
            backend: Backend::Host,
            ..Default::default()
        }
    }

    /// Defaults, on the OpenCL pipeline (an error without a device).
    pub fn opencl() -> Self {
        RunOptions {
            backend: Backend::Opencl,
            ..Default::default()
        }
    }

    /// Runs on GpSense's filter-and-join engine instead of GEMP's pipeline.
    pub fn gpsense(mut self) -> Self {
        self.engine = EngineKind::Gpsense;
        self
    }

    /// Runs on the host with these stage algorithms, e.g.
    /// `StageChoice::parse("filter=gpsense,join=gpsense")?` (see [`crate::engines::staged`]).
    pub fn stages(mut self, choice: StageChoice) -> Self {
        self.stages = Some(choice);
        self
    }

    /// Only count results.
    pub fn count_only(mut self) -> Self {
        self.count_only = true;
        self
    }

    /// Homomorphic matching (pattern nodes may share a data node, relationships may share an
    /// edge).
    pub fn homomorphic(mut self) -> Self {
        self.semantics = Some(Semantics::Homomorphism);
        self
    }

    /// Cypher's relationship isomorphism, as Neo4j matches: the relationships of one `MATCH` bind
    /// distinct edges, every relationship edge by edge, nodes may repeat (host matcher only).
    pub fn cypher(mut self) -> Self {
        self.semantics = Some(Semantics::Cypher);
        self
    }

    /// Names the model does not have read as Cypher reads them (see [`RunOptions::lenient`]).
    pub fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// A time limit.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Stops after `n` pattern matches (`gemp match --limit`).
    pub fn limit(mut self, n: u64) -> Self {
        self.limit = Some(n);
        self
    }

    /// Sets parameter `$name`: a [`Value`], a Rust scalar (`42i64`, `"Ann"`), a list
    /// (`vec!["Ann", "Bob"]`, used as `x IN $name` or `UNWIND $name AS x`) or a map
    /// ([`ParamValue::map`], read as `$name.key`).
    pub fn param(mut self, name: &str, value: impl Into<ParamValue>) -> Self {
        self.params.insert(name.to_owned(), value.into());
        self
    }

    /// Sets parameter `$name` from text as `gemp match --param` reads it (JSON is typed: `42`,
    /// `1.5`, `true`, `"x"`, `["a", "b"]`, `{"k": 1}`; anything else is a string).
    pub fn param_text(self, name: &str, text: &str) -> Self {
        let value = crate::pattern::binder::parse_param_value(text);
        self.param(name, value)
    }

    /// How a query is prepared under these options: their parameters and semantics.
    fn prepare_options(&self) -> PrepareOptions {
        PrepareOptions {
            params: self.params.clone(),
            semantics: self.semantics,
            lenient: self.lenient,
            ..Default::default()
        }
    }

    /// The kept session these options run on.
    fn session_key(&self) -> SessionKey {
        SessionKey {
            backend: self.backend,
            engine: self.engine,
            stages: self.stages,
        }
    }

    fn match_options(&self) -> MatchOptions {
        MatchOptions {
            semantics: self.semantics.unwrap_or_default(),
            timeout: self.timeout,
            count_only: self.count_only,
            limit: self.limit,
        }
    }

    /// The engine options for running `prepared`: [`Self::match_options`] under
    /// `self.semantics` or else the query's own.
    fn match_options_for(&self, prepared: &PreparedQuery) -> MatchOptions {
        let mut run = self.match_options();
        run.semantics = self.semantics.unwrap_or(prepared.semantics());
        run
    }
}

/// Runs queries on one graph and backend (the model is uploaded to a device once).
#[derive(Debug)]
pub struct Runner<'g> {
    model: &'g Model,
    session: Session<'g>,
}

impl<'g> Runner<'g> {
    /// Runs a compiled query.
    pub fn execute(&self, query: &Query, options: &RunOptions) -> Result<Matches<'g>> {
        let (output, report) = run_prepared(&self.session, query, options)?;
        Ok(Matches {
            model: self.model,
            output,
            report,
        })
    }

    /// Where queries run: `host`, `opencl (<device>)`, `gpsense host`, …
    pub fn backend_name(&self) -> String {
        self.session.engine_name()
    }

    /// The session underneath (streaming runs, setup time).
    pub fn session(&self) -> &Session<'g> {
        &self.session
    }
}

/// Timings of one run.
#[derive(Debug, Clone)]
pub struct RunTimings {
    /// Where it ran (`host`, or `opencl` with the device).
    pub backend: String,
    /// Wall time of the run.
    pub total: Duration,
    /// The host pipeline's stages (filter, plan, enumerate, results).
    pub host: crate::exec::Timings,
    /// The device pipeline's measurement points, when it ran on a device.
    pub device: Option<crate::engines::gemp::device::DeviceTimings>,
}

/// The result of a run.
#[derive(Debug)]
pub struct Matches<'g> {
    model: &'g Model,
    output: QueryOutput<'g>,
    report: TaskReport,
}

impl<'g> Matches<'g> {
    /// Number of result rows (also when only counting).
    pub fn count(&self) -> u64 {
        self.output.count
    }

    /// True when a timeout stopped the search (rows and count are then a lower bound).
    pub fn is_partial(&self) -> bool {
        self.output.partial
    }

    /// Column names of the rows.
    pub fn columns(&self) -> &[String] {
        &self.output.columns
    }

    /// The rows (none when only counting).
    pub fn rows(&self) -> impl Iterator<Item = Row<'_, 'g>> + '_ {
        self.output.rows.iter().map(move |values| Row {
            model: self.model,
            columns: &self.output.columns,
            values,
        })
    }

    /// Row `i`, if there is one.
    pub fn row(&self, i: usize) -> Option<Row<'_, 'g>> {
        self.output.rows.get(i).map(|values| Row {
            model: self.model,
            columns: &self.output.columns,
            values,
        })
    }

    /// Timings of the run.
    pub fn timings(&self) -> RunTimings {
        RunTimings {
            backend: self.report.backend.clone(),
            total: self.report.total,
            host: self.output.timings.clone(),
            device: self.report.device.clone(),
        }
    }

    /// The raw output (rows of [`Val`]s, plan, timings).
    pub fn output(&self) -> &QueryOutput<'g> {
        &self.output
    }
}

/// One result row.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a, 'g> {
    model: &'g Model,
    columns: &'a [String],
    values: &'a [Val<'g>],
}

/// A value of a row: a node, a relationship, a list or a scalar.
#[derive(Debug, Clone)]
pub enum Item<'g> {
    /// A node.
    Node(NodeRef<'g>),
    /// A relationship.
    Rel(RelRef<'g>),
    /// A list.
    List(Vec<Item<'g>>),
    /// A map: its keys and values, in the order written.
    Map(Vec<(String, Item<'g>)>),
    /// A path: its nodes and the relationships between them (`rels[i]` joins `nodes[i]` and
    /// `nodes[i + 1]`, pointing either way).
    Path {
        /// The nodes, from the path's start.
        nodes: Vec<NodeRef<'g>>,
        /// The relationships between them.
        rels: Vec<RelRef<'g>>,
    },
    /// A scalar (null, bool, int, float, string).
    Value(Value),
    /// A date, time, datetime or duration (its `Display` is Cypher's text, `1984-10-11`).
    Temporal(crate::exec::temporal::Temporal),
}

impl<'g> Item<'g> {
    fn from_val(model: &'g Model, v: &Val<'g>) -> Item<'g> {
        match v {
            Val::Node(n) => Item::Node(NodeRef { model, id: *n }),
            Val::Rel(r) => Item::Rel(RelRef { model, id: *r }),
            Val::List(items) => {
                Item::List(items.iter().map(|i| Item::from_val(model, i)).collect())
            }
            Val::Map(entries) => Item::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), Item::from_val(model, v)))
                    .collect(),
            ),
            Val::Path(p) => Item::Path {
                nodes: p.nodes.iter().map(|&id| NodeRef { model, id }).collect(),
                rels: p.rels.iter().map(|&id| RelRef { model, id }).collect(),
            },
            Val::Null => Item::Value(Value::Null),
            Val::Bool(b) => Item::Value(Value::Bool(*b)),
            Val::Int(i) => Item::Value(Value::Int(*i)),
            Val::Float(f) => Item::Value(Value::Float(*f)),
            Val::Str(s) => Item::Value(Value::Str(s.to_string())),
            Val::Temporal(t) => Item::Temporal((**t).clone()),
        }
    }
}

impl<'a, 'g> Row<'a, 'g> {
    /// The item in column `name`.
    pub fn get(&self, name: &str) -> Option<Item<'g>> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(Item::from_val(self.model, &self.values[i]))
    }

    /// The items in column order.
    pub fn items(&self) -> Vec<Item<'g>> {
        self.values
            .iter()
            .map(|v| Item::from_val(self.model, v))
            .collect()
    }

    /// The node in column `name`, if that column holds one.
    pub fn node(&self, name: &str) -> Option<NodeRef<'g>> {
        match self.get(name)? {
            Item::Node(n) => Some(n),
            _ => None,
        }
    }

    /// The scalar in column `name`, if that column holds one.
    pub fn value(&self, name: &str) -> Option<Value> {
        match self.get(name)? {
            Item::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// A node of a graph.
#[derive(Debug, Clone, Copy)]
pub struct NodeRef<'g> {
    model: &'g Model,
    id: u32,
}

impl<'g> NodeRef<'g> {
    /// The node's id in the model.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The node's external key (the input's id, an XMI element's fragment path).
    pub fn key(&self) -> &'g str {
        self.model.node_key(self.id).unwrap_or("")
    }

    /// Label names, the primary label first.
    pub fn labels(&self) -> Vec<&'g str> {
        crate::io::json_graph::label_names(self.model, self.id)
    }

    /// Property `name` (null when absent).
    pub fn property(&self, name: &str) -> ValueRef<'g> {
        self.model.node_property(self.id, name)
    }

    /// Every property the node has, in column order.
    pub fn properties(&self) -> Vec<(&'g str, ValueRef<'g>)> {
        let Some(g) = self.model.group_of(self.id) else {
            return Vec::new();
        };
        let row = (self.id - g.start) as usize;
        g.columns
            .iter()
            .map(|c| (c.name.as_str(), c.get(row)))
            .filter(|(_, v)| !v.is_null())
            .collect()
    }
}

/// A relationship of a graph.
#[derive(Debug, Clone, Copy)]
pub struct RelRef<'g> {
    model: &'g Model,
    id: u32,
}

impl<'g> RelRef<'g> {
    /// The relationship's id in the model.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Its type name.
    pub fn rel_type(&self) -> &'g str {
        self.model
            .edge_target(self.id)
            .and_then(|(_, t)| self.model.rel_types().name(t))
            .unwrap_or("")
    }

    /// Its source node.
    pub fn source(&self) -> NodeRef<'g> {
        NodeRef {
            model: self.model,
            id: self.model.edge_source(self.id).unwrap_or(0),
        }
    }

    /// Its target node.
    pub fn target(&self) -> NodeRef<'g> {
        NodeRef {
            model: self.model,
            id: self.model.edge_target(self.id).map_or(0, |(d, _)| d),
        }
    }

    /// Property `name` (null when absent).
    pub fn property(&self, name: &str) -> ValueRef<'g> {
        self.model.edge_property(self.id, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_the_host_with_options_and_reports_timings() {
        let g = Graph::from_json_str(
            r#"{"nodes": [{"id": 1, "labels": ["A"], "properties": {"v": 3}},
                          {"id": 2, "labels": ["A"], "properties": {"v": 4}},
                          {"id": 3, "labels": ["B"]}],
                "edges": [{"source": 1, "target": 2, "type": "T", "properties": {"w": 7}},
                          {"source": 2, "target": 1, "type": "T"},
                          {"source": 1, "target": 1, "type": "T"}]}"#,
        )
        .unwrap();
        let host = RunOptions::host();
        let q = g
            .query(
                "// gemp: semantics=isomorphism\n\
                 MATCH (x:A)-[r:T]->(y:A) RETURN x, r, y.v AS v ORDER BY v",
            )
            .unwrap();
        let m = g.execute(&q, &host).unwrap();
        assert_eq!(m.columns(), ["x", "r", "v"]);
        assert_eq!(m.count(), 2, "injective: the self-loop does not match");
        assert!(!m.is_partial());
        assert_eq!(m.timings().backend, "host");
        let rows: Vec<Row<'_, '_>> = m.rows().collect();
        let x = rows[0].node("x").unwrap();
        assert_eq!((x.key(), x.property("v")), ("2", ValueRef::Int(4)));
        assert_eq!(x.properties(), vec![("v", ValueRef::Int(4))]);
        assert_eq!(rows[0].value("v"), Some(Value::Int(3)));
        let Some(Item::Rel(r)) = rows[1].get("r") else {
            panic!("a relationship")
        };
        assert_eq!(
            (r.rel_type(), r.source().key(), r.target().key()),
            ("T", "1", "2")
        );
        assert_eq!(r.property("w"), ValueRef::Int(7));
        assert!(rows[0].get("nope").is_none());
        let homo = RunOptions::host().homomorphic().count_only();
        assert_eq!(g.execute(&q, &homo).unwrap().count(), 3);
        let gps = RunOptions::host().gpsense();
        let m = g.execute(&q, &gps).unwrap();
        assert_eq!(
            (m.count(), m.timings().backend.as_str()),
            (2, "gpsense host")
        );
        for choice in StageChoice::all() {
            let m = g.execute(&q, &RunOptions::host().stages(choice)).unwrap();
            assert_eq!(m.count(), 2, "{choice}");
            assert_eq!(m.timings().backend, format!("host stages {choice}"));
        }
        let both = RunOptions::host()
            .gpsense()
            .stages(StageChoice::parse("join=gpsense").unwrap());
        let err = g.execute(&q, &both).unwrap_err().to_string();
        assert!(err.contains("--engine gpsense"), "{err}");
        let err = g.query("MATCH (x:Nope) RETURN x").unwrap_err();
        assert!(matches!(err, Error::Query(_)), "{err}");
        let err = g.query("MATCH (x:A RETURN x").unwrap_err();
        assert!(err.to_string().contains("MATCH (x:A RETURN x"), "{err}");
    }
}
