//! `gemp._gemp`: the native half of the `gemp` Python package (the Python half, in `gemp/`,
//! documents the public API and converts results to pandas and Polars).
//!
//! A [`PyGraph`] is a handle to a thread that owns the graph and its sessions ([`worker`]);
//! queries run there while the calling thread waits with the GIL released and Ctrl-C cancels
//! them. A [`PyQueryResult`] holds the rows as Arrow columns ([`table`]) and hands them to pyarrow,
//! pandas or Polars through the Arrow PyCapsule interface (`__arrow_c_stream__`).

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use arrow_array::ffi::FFI_ArrowSchema;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatchIterator, RecordBatchReader};
use gemp::api::embedding::{declared_semantics, Backend, EngineKind, Semantics};
use gemp::api::{CancelFlag, Graph, LoadSpec, QueryError, RunOptions};
use gemp::io::Format;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use serde_json::{json, Value as Json};

mod errors;
mod table;
mod values;
mod worker;

use table::Table;
use worker::Worker;

/// A loaded graph (see `gemp.Graph`).
#[pyclass(module = "gemp._gemp", name = "Graph", frozen)]
struct PyGraph {
    worker: Worker,
    /// Node and relationship counts (changed by `transform`).
    nodes: AtomicUsize,
    edges: AtomicUsize,
}

impl PyGraph {
    fn new(graph: Graph) -> PyGraph {
        let (nodes, edges) = (graph.model().node_count(), graph.model().edge_count());
        PyGraph {
            worker: Worker::start(graph),
            nodes: AtomicUsize::new(nodes),
            edges: AtomicUsize::new(edges),
        }
    }
}

/// What a run sends back from the graph's thread.
enum Answer<T> {
    Done(T),
    Query(QueryError, String),
    Failed(gemp::Error),
    Internal(String),
}

impl<T> Answer<T> {
    fn into_py(self, py: Python<'_>) -> PyResult<T> {
        match self {
            Answer::Done(t) => Ok(t),
            Answer::Query(e, source) => Err(errors::query_to_py(py, &e, &source)),
            Answer::Failed(e) => Err(errors::to_py(py, e)),
            Answer::Internal(why) => Err(errors::internal(&why)),
        }
    }
}

impl<T> From<gemp::Error> for Answer<T> {
    fn from(e: gemp::Error) -> Self {
        Answer::Failed(e)
    }
}

fn parse_backend(py: Python<'_>, name: Option<&str>) -> PyResult<Backend> {
    Ok(match name.unwrap_or("auto") {
        "auto" => Backend::Auto,
        "host" => Backend::Host,
        "opencl" => Backend::Opencl,
        other => {
            return Err(errors::invalid(
                py,
                &format!("backend {other:?}: expected 'auto', 'host' or 'opencl'"),
            ))
        }
    })
}

fn parse_engine(py: Python<'_>, name: Option<&str>) -> PyResult<EngineKind> {
    Ok(match name.unwrap_or("gemp") {
        "gemp" => EngineKind::Gemp,
        "gpsense" => EngineKind::Gpsense,
        other => {
            return Err(errors::invalid(
                py,
                &format!("engine {other:?}: expected 'gemp' or 'gpsense'"),
            ))
        }
    })
}

fn parse_semantics(py: Python<'_>, name: Option<&str>) -> PyResult<Option<Semantics>> {
    match name {
        None => Ok(None),
        Some(n) => Semantics::parse(n).map(Some).ok_or_else(|| {
            errors::invalid(
                py,
                &format!("semantics {n:?}: expected 'isomorphism', 'homomorphism' or 'cypher'"),
            )
        }),
    }
}

fn parse_format(py: Python<'_>, name: Option<&str>) -> PyResult<Format> {
    Ok(match name.unwrap_or("auto") {
        "auto" => Format::Auto,
        "snapshot" | "gemp" => Format::Snapshot,
        "imdb-tsv" => Format::ImdbTsv,
        "imdb-lists" => Format::ImdbLists,
        "subgraph-bench" => Format::SubgraphBench,
        "xmi" => Format::Xmi,
        "neo4j-csv" => Format::Neo4jCsv,
        "json" => Format::Json,
        other => {
            return Err(errors::invalid(
                py,
                &format!(
                    "format {other:?}: expected 'auto', 'snapshot', 'imdb-tsv', 'imdb-lists', \
                     'subgraph-bench', 'xmi', 'neo4j-csv' or 'json'"
                ),
            ))
        }
    })
}

fn timeout(py: Python<'_>, seconds: Option<f64>) -> PyResult<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(errors::invalid(
            py,
            &format!("timeout must be a positive number of seconds, got {s}"),
        )),
    }
}

/// Options of one run, as the Python call gives them.
struct RunSpec {
    source: String,
    options: RunOptions,
    semantics: Option<Semantics>,
}

impl RunSpec {
    /// The options with the semantics in force: the argument, else the query's
    /// `// gemp: semantics=…` line, else Cypher's (the default for Cypher text).
    fn options(&self) -> gemp::Result<RunOptions> {
        let mut options = self.options.clone();
        let declared = self.semantics.or(declared_semantics(&self.source)?);
        options.semantics = Some(declared.unwrap_or(Semantics::Cypher));
        Ok(options)
    }
}

/// Runs `f` on a new thread with the GIL released, polling for signals; on Ctrl-C `cancel` is
/// raised and the thread waited for.
fn run_detached<R: Send + 'static>(
    py: Python<'_>,
    cancel: Option<Arc<AtomicBool>>,
    f: impl FnOnce() -> R + Send + 'static,
) -> PyResult<R> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    let on_interrupt = cancel.map(|c| move || c.store(true, Ordering::Relaxed));
    worker::wait_with(py, rx, on_interrupt.as_ref().map(|f| f as &dyn Fn()))
}

#[pymethods]
impl PyGraph {
    /// Nodes in the graph (as loaded or as last transformed).
    #[getter]
    fn node_count(&self) -> usize {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Relationships in the graph.
    #[getter]
    fn edge_count(&self) -> usize {
        self.edges.load(Ordering::Relaxed)
    }

    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (query, params=None, semantics=None, backend=None, engine=None, limit=None, timeout=None, count_only=false))]
    fn execute(
        &self,
        py: Python<'_>,
        query: String,
        params: Option<&Bound<'_, PyAny>>,
        semantics: Option<&str>,
        backend: Option<&str>,
        engine: Option<&str>,
        limit: Option<u64>,
        timeout: Option<f64>,
        count_only: bool,
    ) -> PyResult<PyQueryResult> {
        let spec = RunSpec {
            options: RunOptions {
                backend: parse_backend(py, backend)?,
                engine: parse_engine(py, engine)?,
                timeout: self::timeout(py, timeout)?,
                count_only,
                params: values::params(py, params)?,
                limit,
                ..RunOptions::default()
            },
            semantics: parse_semantics(py, semantics)?,
            source: query,
        };
        if limit == Some(0) {
            return Err(errors::invalid(py, "limit must be at least 1"));
        }
        let cancel = CancelFlag::new();
        let answer = self.worker.read(py, Some(&cancel), move |r| {
            let options = match spec.options() {
                Ok(o) => o,
                Err(e) => return Answer::Failed(e),
            };
            let (query, warnings) =
                match r.graph.compile_with_warnings(&spec.source, &options.params) {
                    Ok(q) => q,
                    Err(e) => return Answer::Query(e, spec.source),
                };
            let ran = r.with_runner(&options, |runner| {
                let m = runner.execute(&query, &options)?;
                let start = std::time::Instant::now();
                let table = Table::build(&m)
                    .map_err(|e| gemp::Error::Model(format!("building Arrow columns: {e}")))?;
                let columns_elapsed = start.elapsed().as_secs_f64();
                let timings = m.timings();
                let count = m.count();
                let partial = m.is_partial();
                // Freeing the rows (one allocation each) waits until the answer is sent.
                r.discard_later(m);
                Ok::<_, gemp::Error>(PyQueryResult {
                    table,
                    count,
                    partial,
                    backend: timings.backend,
                    elapsed: timings.total.as_secs_f64(),
                    columns_elapsed,
                    semantics: options.semantics.unwrap_or_default().name().to_owned(),
                    warnings: warnings.iter().map(|w| w.to_string()).collect(),
                })
            });
            match ran {
                Ok(Ok(result)) => Answer::Done(result),
                Ok(Err(e)) | Err(e) => Answer::Failed(e),
            }
        })?;
        answer.into_py(py)
    }

    #[pyo3(signature = (query, params=None, semantics=None, backend=None, engine=None))]
    fn explain(
        &self,
        py: Python<'_>,
        query: String,
        params: Option<&Bound<'_, PyAny>>,
        semantics: Option<&str>,
        backend: Option<&str>,
        engine: Option<&str>,
    ) -> PyResult<String> {
        let spec = RunSpec {
            options: RunOptions {
                backend: parse_backend(py, backend)?,
                engine: parse_engine(py, engine)?,
                params: values::params(py, params)?,
                ..RunOptions::default()
            },
            semantics: parse_semantics(py, semantics)?,
            source: query,
        };
        let answer = self.worker.read(py, None, move |r| {
            let options = match spec.options() {
                Ok(o) => o,
                Err(e) => return Answer::Failed(e),
            };
            let query = match r.graph.compile(&spec.source, &options.params) {
                Ok(q) => q,
                Err(e) => return Answer::Query(e, spec.source),
            };
            match r.with_runner(&options, |runner| runner.explain(&query, &options)) {
                Ok(Ok(text)) => Answer::Done(text),
                Ok(Err(e)) | Err(e) => Answer::Failed(e),
            }
        })?;
        answer.into_py(py)
    }

    /// The schema as JSON text (`gemp info --json`).
    fn schema_json(&self, py: Python<'_>) -> PyResult<String> {
        let answer = self.worker.read(py, None, |r| {
            match serde_json::to_string(&r.graph.model().schema()) {
                Ok(s) => Answer::Done(s),
                Err(e) => Answer::Internal(e.to_string()),
            }
        })?;
        answer.into_py(py)
    }

    /// Applies a rule file; returns the change report as JSON text.
    #[pyo3(signature = (rules, params=None, until_fixpoint=false, max_iterations=100))]
    fn transform(
        &self,
        py: Python<'_>,
        rules: String,
        params: Option<&Bound<'_, PyAny>>,
        until_fixpoint: bool,
        max_iterations: usize,
    ) -> PyResult<String> {
        // Syntax errors keep their position (the library renders them to text).
        if let Err(e) = gemp::pattern::parser::parse_rules(&rules) {
            return Err(errors::query_to_py(py, &e, &rules));
        }
        if max_iterations == 0 {
            return Err(errors::invalid(py, "max_iterations must be at least 1"));
        }
        let options = gemp::transform::ApplyOptions {
            until_fixpoint,
            max_iterations,
            params: values::params(py, params)?,
            ..Default::default()
        };
        let answer =
            self.worker
                .write(py, move |graph| match graph.apply_with(&rules, &options) {
                    Ok(report) => {
                        let mut value = serde_json::to_value(&report).unwrap_or(Json::Null);
                        value["totals"] =
                            serde_json::to_value(report.totals()).unwrap_or(Json::Null);
                        value["changed"] = Json::Bool(report.changed());
                        Answer::Done((
                            value.to_string(),
                            graph.model().node_count(),
                            graph.model().edge_count(),
                        ))
                    }
                    Err(e) => Answer::Failed(e),
                })?;
        let (report, nodes, edges) = answer.into_py(py)?;
        self.nodes.store(nodes, Ordering::Relaxed);
        self.edges.store(edges, Ordering::Relaxed);
        Ok(report)
    }

    /// Saves the graph as a `.gemp` snapshot.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let answer = self
            .worker
            .read(py, None, move |r| match r.graph.save(&path) {
                Ok(()) => Answer::Done(()),
                Err(e) => Answer::Failed(e),
            })?;
        answer.into_py(py)
    }

    /// TruST: the best inexact matchings of `template` in this graph, as JSON text.
    #[pyo3(signature = (template, value_property="value", k0=None, beam=None, depth=None, top=None))]
    #[allow(clippy::too_many_arguments)]
    fn trust(
        &self,
        py: Python<'_>,
        template: &PyGraph,
        value_property: &str,
        k0: Option<usize>,
        beam: Option<usize>,
        depth: Option<usize>,
        top: Option<usize>,
    ) -> PyResult<String> {
        use gemp::trust::{SearchParams, TrustGraph, TrustParams};
        let property = value_property.to_owned();
        let trust_graph = |g: &PyGraph| {
            let property = property.clone();
            g.worker
                .read(py, None, move |r| {
                    match TrustGraph::from_model(r.graph.model(), &property) {
                        Ok((t, _)) => Answer::Done(t),
                        Err(e) => Answer::Failed(e),
                    }
                })?
                .into_py(py)
        };
        let t = trust_graph(template)?;
        let d = trust_graph(self)?;
        let defaults = TrustParams::default();
        let params = TrustParams {
            search: SearchParams {
                k0: k0.unwrap_or(defaults.search.k0),
                beam: beam.unwrap_or(defaults.search.beam),
                depth,
            },
            top: top.unwrap_or(defaults.top),
        };
        let answer = run_detached(py, None, move || {
            match gemp::trust::run_host(&t, &d, &params) {
                Ok(result) => Answer::Done(trust_json(&t, &d, &result).to_string()),
                Err(e) => Answer::Failed(e),
            }
        })?;
        answer.into_py(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<gemp.Graph: {} nodes, {} relationships>",
            self.node_count(),
            self.edge_count()
        )
    }
}

fn trust_json(
    template: &gemp::trust::TrustGraph,
    data: &gemp::trust::TrustGraph,
    result: &gemp::trust::TrustResult,
) -> Json {
    // The same JSON as `gemp trust --json` (gemp::trust::report).
    gemp::trust::report::to_json(template, data, result)
}

/// The rows of one run (see `gemp.Result`).
#[pyclass(module = "gemp._gemp", name = "Result", frozen)]
struct PyQueryResult {
    table: Table,
    count: u64,
    partial: bool,
    backend: String,
    elapsed: f64,
    columns_elapsed: f64,
    semantics: String,
    warnings: Vec<String>,
}

#[pymethods]
impl PyQueryResult {
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.table
            .batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    #[getter]
    fn count(&self) -> u64 {
        self.count
    }

    #[getter]
    fn num_rows(&self) -> usize {
        self.table.rows()
    }

    #[getter]
    fn partial(&self) -> bool {
        self.partial
    }

    #[getter]
    fn backend(&self) -> &str {
        &self.backend
    }

    #[getter]
    fn elapsed(&self) -> f64 {
        self.elapsed
    }

    #[getter]
    fn columns_elapsed(&self) -> f64 {
        self.columns_elapsed
    }

    #[getter]
    fn semantics(&self) -> &str {
        &self.semantics
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// Rows `start..stop` as tuples.
    fn rows<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        stop: usize,
    ) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let stop = stop.min(self.table.rows());
        let columns = self.table.batch.columns();
        (start.min(stop)..stop)
            .map(|i| {
                let cells = columns
                    .iter()
                    .map(|c| table::cell(py, c.as_ref(), i))
                    .collect::<PyResult<Vec<PyObject>>>()?;
                PyTuple::new(py, cells)
            })
            .collect()
    }

    /// The Arrow C stream of the rows (the Arrow PyCapsule interface): `pyarrow.table(result)`,
    /// `polars.from_arrow(...)`, DuckDB and others read it without copying.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is ours to choose; a requested one is a hint (the PyCapsule protocol).
        let _ = requested_schema;
        let batch = self.table.batch.clone();
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new(
            vec![Ok(batch.clone())],
            batch.schema(),
        ));
        let stream = FFI_ArrowArrayStream::new(reader);
        let name = CString::new("arrow_array_stream").expect("no NUL");
        PyCapsule::new(py, stream, Some(name))
    }

    /// The Arrow C schema of the rows.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.table.batch.schema().as_ref())
            .map_err(|e| errors::internal(&format!("exporting the Arrow schema: {e}")))?;
        let name = CString::new("arrow_schema").expect("no NUL");
        PyCapsule::new(py, schema, Some(name))
    }

    fn __len__(&self) -> usize {
        self.table.rows()
    }
}

/// Opens a `.gemp` snapshot (read into private memory: another program changing the file later
/// does not affect the graph).
#[pyfunction]
fn open(py: Python<'_>, path: PathBuf) -> PyResult<PyGraph> {
    let graph = py
        .allow_threads(|| Graph::open(&path))
        .map_err(|e| errors::to_py(py, e))?;
    Ok(PyGraph::new(graph))
}

/// Loads files or directories (or one snapshot).
#[pyfunction]
#[pyo3(signature = (paths, format=None, metamodel=None, strict=false))]
fn load(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    format: Option<&str>,
    metamodel: Option<PathBuf>,
    strict: bool,
) -> PyResult<PyGraph> {
    if paths.is_empty() {
        return Err(errors::invalid(py, "load needs at least one path"));
    }
    let spec = LoadSpec {
        format: parse_format(py, format)?,
        metamodel,
        strict,
    };
    let graph = py
        .allow_threads(|| Graph::load_with(&paths, &spec))
        .map_err(|e| errors::to_py(py, e))?;
    Ok(PyGraph::new(graph))
}

/// A graph from a JSON graph document (`{"nodes": [...], "edges": [...]}`).
#[pyfunction]
fn from_json(py: Python<'_>, text: String) -> PyResult<PyGraph> {
    let graph = py
        .allow_threads(|| Graph::from_json_str(&text))
        .map_err(|e| errors::to_py(py, e))?;
    Ok(PyGraph::new(graph))
}

/// A* similarity retrieval (`gemp similarity --format json`), as JSON text.
#[pyfunction]
#[pyo3(signature = (query, cases, query_name=None, model=None, k=10, algorithm="astar3", improvements="rms", queue_limit=None, max_queue=None, time_limit=None, early_stop=true, mappings=false))]
#[allow(clippy::too_many_arguments)]
fn similarity(
    py: Python<'_>,
    query: PathBuf,
    cases: PathBuf,
    query_name: Option<String>,
    model: Option<PathBuf>,
    k: usize,
    algorithm: &str,
    improvements: &str,
    queue_limit: Option<usize>,
    max_queue: Option<usize>,
    time_limit: Option<f64>,
    early_stop: bool,
    mappings: bool,
) -> PyResult<String> {
    use gemp::similarity::{Algorithm, Improvements, SearchOptions};
    let algorithm: Algorithm = algorithm
        .parse()
        .map_err(|e: gemp::Error| errors::to_py(py, e))?;
    let improvements: Improvements = improvements
        .parse()
        .map_err(|e: gemp::Error| errors::to_py(py, e))?;
    if improvements.selection && algorithm != Algorithm::AStarIII {
        return Err(errors::invalid(
            py,
            "improvement s needs algorithm='astar3'",
        ));
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let options = SearchOptions {
        algorithm,
        improvements,
        queue_limit,
        max_queue,
        time_limit: self::timeout(py, time_limit)?,
        cancel: Some(Arc::clone(&cancel)),
        ..Default::default()
    };
    let variant = gemp::similarity::variant_name(algorithm, improvements);
    let answer = run_detached(py, Some(cancel), move || {
        let run = || -> gemp::Result<Json> {
            let graphs = gemp::similarity::load::load_graphs(&query)?;
            let q = match &query_name {
                None => graphs.into_iter().next(),
                Some(name) => graphs.into_iter().find(|g| &g.name == name),
            }
            .ok_or_else(|| {
                gemp::Error::InvalidArgument(match &query_name {
                    Some(n) => format!("no graph named `{n}` in {}", query.display()),
                    None => format!("{} holds no graph", query.display()),
                })
            })?;
            let case_base = gemp::similarity::load::load_graphs(&cases)?;
            let model_path = model.or_else(|| {
                let dir = if cases.is_dir() {
                    cases.clone()
                } else {
                    cases.parent().map(PathBuf::from).unwrap_or_default()
                };
                Some(dir.join("model.json")).filter(|p| p.is_file())
            });
            let sim_model = match model_path {
                Some(p) => gemp::similarity::SimilarityModel::load(&p)?,
                None => gemp::similarity::SimilarityModel::equality(),
            };
            let r = gemp::similarity::retrieval::retrieve(
                &q, &case_base, &sim_model, k, &options, early_stop,
            )?;
            Ok(similarity_json(&variant, k, &q, &case_base, &r, mappings))
        };
        match run() {
            Ok(v) => Answer::Done(v.to_string()),
            Err(e) => Answer::Failed(e),
        }
    })?;
    answer.into_py(py)
}

fn similarity_json(
    variant: &str,
    k: usize,
    q: &gemp::similarity::SemanticGraph,
    cases: &[gemp::similarity::SemanticGraph],
    r: &gemp::similarity::retrieval::Retrieval,
    mappings: bool,
) -> Json {
    // The same JSON as `gemp similarity --json` (gemp::similarity::report).
    let case = |o: &gemp::similarity::retrieval::CaseOutcome| -> Json {
        gemp::similarity::report::case_json(q, cases, o, mappings)
    };
    json!({
        "query": q.name,
        "variant": variant,
        "backend": "host",
        "k": k,
        "results": r.ranked.iter().map(case).collect::<Vec<_>>(),
        "not_finished": r.stopped.iter().map(case).collect::<Vec<_>>(),
        "time_ms": r.time.as_secs_f64() * 1e3,
    })
}

/// The native module of the `gemp` package.
#[pymodule]
fn _gemp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGraph>()?;
    m.add_class::<PyQueryResult>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(from_json, m)?)?;
    m.add_function(wrap_pyfunction!(similarity, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("OPENCL", cfg!(feature = "opencl"))?;
    Ok(())
}
