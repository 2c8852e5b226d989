"""gemp: graph pattern matching, graph similarity and TruST, from Python.

Load a graph, run Cypher pattern queries on it, and take the rows as tuples, dicts, a
``pyarrow.Table``, a pandas or a Polars DataFrame::

    import gemp

    g = gemp.load("datasets/imdb-sample")          # or gemp.open("sample.gemp")
    r = g.execute(
        "MATCH (p:Person)-[:ACTOR]->(m:Movie) WHERE m.startYear >= $year "
        "RETURN p.primaryName AS actor, m.primaryTitle AS movie",
        params={"year": 2000},
        limit=10,
    )
    for actor, movie in r:
        print(actor, movie)
    df = r.to_pandas()

The query language is gemp's subset of openCypher (``docs/query-language.md`` in the
repository). A :class:`Graph` keeps its model and its sessions (one per backend: on an OpenCL
device the model is uploaded once) for all its queries. Queries run on a thread of the graph's
own with the GIL released; Ctrl-C (``KeyboardInterrupt``) cancels a running query.

Errors are :class:`gemp.Error` and its subclasses (:mod:`gemp.errors`).
"""

from __future__ import annotations

import json as _json
import math as _math
import os as _os
import warnings as _warnings
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _gemp
from .errors import (
    DeviceError,
    Error,
    FileError,
    InvalidArgumentError,
    MemoryLimitError,
    ParameterError,
    ParseError,
    PartialResultWarning,
    QueryError,
    QueryWarning,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars
    import pyarrow

__version__: str = _gemp.__version__
#: True when this build has the OpenCL backends (``backend="opencl"``).
OPENCL: bool = _gemp.OPENCL

PathLike = Union[str, "_os.PathLike[str]"]
#: A query parameter value: a scalar, or a list / tuple / dict (string keys) of them.
ParamValue = Union[None, bool, int, float, str, Sequence[Any], Mapping[str, Any]]

__all__ = [
    "open",
    "load",
    "from_json",
    "from_frames",
    "similarity",
    "Graph",
    "Result",
    "Error",
    "QueryError",
    "ParseError",
    "FileError",
    "DeviceError",
    "MemoryLimitError",
    "InvalidArgumentError",
    "ParameterError",
    "PartialResultWarning",
    "QueryWarning",
    "OPENCL",
]


def open(path: PathLike) -> "Graph":  # noqa: A001 - the package's entry point, as sqlite3.connect
    """Opens a graph: a ``.gemp`` snapshot (memory-mapped, instant), or any file or directory
    :func:`load` reads (the format detected).

    Raises :class:`FileError` when the path cannot be read or its format is not recognised.
    """
    path = _os.fspath(path)
    if _os.path.isfile(path) and path.endswith(".gemp"):
        return Graph(_gemp.open(path))
    return Graph(_gemp.load([path]))


def load(
    paths: Union[PathLike, Sequence[PathLike]],
    format: Optional[str] = None,
    *,
    metamodel: Optional[PathLike] = None,
    strict: bool = False,
) -> "Graph":
    """Loads files or directories into a graph, as ``gemp load`` does.

    ``paths`` is one path or a list. ``format`` is one of ``"auto"`` (default: detected from
    names and contents), ``"snapshot"``, ``"imdb-tsv"``, ``"imdb-lists"``, ``"subgraph-bench"``,
    ``"xmi"``, ``"neo4j-csv"``, ``"json"``. ``metamodel`` is an ``.ecore`` / ``.xcore`` file for
    XMI, CSV and JSON inputs (``.ecore`` / ``.xcore`` files among ``paths`` are used as the
    metamodel too). With ``strict``, the first malformed row is an error
    (:class:`ParseError`, with file, line and column) instead of being skipped.
    """
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]  # type: ignore[list-item]
    names = [_os.fspath(p) for p in paths]  # type: ignore[union-attr]
    meta = _os.fspath(metamodel) if metamodel is not None else None
    return Graph(_gemp.load(names, format, meta, strict))


def from_json(document: Union[str, Mapping[str, Any]]) -> "Graph":
    """A graph from a JSON graph document (text or an already parsed dict)::

        {"nodes": [{"id": "a", "labels": ["Task"], "properties": {"name": "cut"}}],
         "edges": [{"source": "a", "target": "b", "type": "NEXT", "properties": {}}]}

    Ids are strings or integers (an integer id is the node whose key is its decimal text).
    Property values are strings, integers, floats and booleans; ``null`` is no value; nested
    lists and objects are stored as their JSON text.
    """
    text = document if isinstance(document, str) else _json.dumps(document)
    return Graph(_gemp.from_json(text))


def _rows_of(frame: Any, what: str) -> List[Dict[str, Any]]:
    """The rows of a pandas / Polars DataFrame, pyarrow Table, Arrow stream or list of dicts."""
    if frame is None:
        return []
    if isinstance(frame, list):
        return frame
    try:
        import pyarrow as pa
    except ImportError as e:  # pragma: no cover - pyarrow is a test dependency
        raise InvalidArgumentError(
            f"{what}: reading a DataFrame or Arrow table needs pyarrow (pip install pyarrow)"
        ) from e
    module = type(frame).__module__.split(".")[0]
    if module == "pandas":
        table = pa.Table.from_pandas(frame, preserve_index=False)
    elif module == "polars":
        table = frame.to_arrow()
    elif isinstance(frame, (pa.Table, pa.RecordBatch)):
        table = frame
    elif hasattr(frame, "__arrow_c_stream__"):
        table = pa.table(frame)
    else:
        raise InvalidArgumentError(
            f"{what}: expected a pandas or Polars DataFrame, a pyarrow Table or a list of dicts, "
            f"got {type(frame).__name__}"
        )
    return table.to_pylist()


def _json_value(value: Any, where: str) -> Any:
    """A property value as the JSON graph format stores it (``None``: no value)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if _math.isnan(value) else value
    if hasattr(value, "isoformat"):  # datetime, date, time, pandas.Timestamp
        return value.isoformat()
    if isinstance(value, (list, tuple, dict)):
        return value  # stored as its JSON text
    if hasattr(value, "item"):  # a NumPy scalar
        return _json_value(value.item(), where)
    raise InvalidArgumentError(
        f"{where}: a property value is None, bool, int, float, str, a date/time, a list or a "
        f"dict, not {type(value).__name__}"
    )


def from_frames(nodes: Any, edges: Any = None) -> "Graph":
    """A graph from tables: pandas or Polars DataFrames, pyarrow Tables, anything with
    ``__arrow_c_stream__``, or lists of dicts (one per row).

    ``nodes`` columns:

    - ``id`` (required): the node's key, a string or an integer (an integer id is the node
      whose key is its decimal text), unique;
    - ``labels``: a list of label names, or a string of names separated by ``:``
      (``"Person:Actor"``); or ``label``: one name. Both are optional;
    - every other column is a property; a null (``None``, ``NaN``, pandas' missing values) is
      no value. Values: ``bool``, ``int``, ``float``, ``str``; dates and times are stored as
      their ISO text, lists and dicts as their JSON text.

    ``edges`` columns: ``source`` and ``target`` (node ids, required), ``type`` (the
    relationship type, required), every other column a property as for nodes. An edge naming
    an id no node has creates a node without labels.

    The rows go through the JSON graph format (:func:`from_json`): one Python object per cell,
    fine for tables up to a few million cells; load bigger graphs from files with :func:`load`.
    """
    node_rows = _rows_of(nodes, "nodes")
    edge_rows = _rows_of(edges, "edges")
    out_nodes = []
    for i, row in enumerate(node_rows):
        row = dict(row)
        if row.get("id") is None:
            raise InvalidArgumentError(f"nodes row {i}: no id (the column `id` is required)")
        node_id = row.pop("id")
        if hasattr(node_id, "item"):
            node_id = node_id.item()
        labels = row.pop("labels", None)
        label = row.pop("label", None)
        if isinstance(labels, str):
            labels = [x for x in labels.split(":") if x]
        labels = list(labels) if labels is not None else []
        if label is not None:
            labels.insert(0, str(label))
        props = {}
        for k, v in row.items():
            v = _json_value(v, f"nodes row {i}, column {k}")
            if v is not None:
                props[k] = v
        out_nodes.append({"id": node_id, "labels": labels, "properties": props})
    out_edges = []
    for i, row in enumerate(edge_rows):
        row = dict(row)
        for required in ("source", "target", "type"):
            if row.get(required) is None:
                raise InvalidArgumentError(
                    f"edges row {i}: no {required} (the columns source, target and type are "
                    "required)"
                )
        src, dst, ty = row.pop("source"), row.pop("target"), row.pop("type")
        src = src.item() if hasattr(src, "item") else src
        dst = dst.item() if hasattr(dst, "item") else dst
        props = {}
        for k, v in row.items():
            v = _json_value(v, f"edges row {i}, column {k}")
            if v is not None:
                props[k] = v
        out_edges.append({"source": src, "target": dst, "type": str(ty), "properties": props})
    return from_json(_json.dumps({"nodes": out_nodes, "edges": out_edges}))


def similarity(
    query: PathLike,
    cases: PathLike,
    *,
    query_name: Optional[str] = None,
    model: Optional[PathLike] = None,
    k: int = 10,
    algorithm: str = "astar3",
    improvements: str = "rms",
    queue_limit: Optional[int] = None,
    max_queue: Optional[int] = None,
    time_limit: Optional[float] = None,
    early_stop: bool = True,
    mappings: bool = False,
) -> Dict[str, Any]:
    """A* similarity retrieval: the ``k`` cases of a case base most similar to a query graph
    (``gemp similarity --format json``), on the host.

    ``query`` is a graph file or a case-base file (``query_name`` picks the graph, default the
    first); ``cases`` a case-base file, a graph file or a directory of ``.json`` files;
    ``model`` the similarity model (default: ``model.json`` beside the cases, else equality of
    every attribute). ``algorithm``: ``"astar1"``, ``"astar2"`` or ``"astar3"``;
    ``improvements``: letters ``r``, ``m``, ``s`` or ``"none"``. ``time_limit`` (seconds) gives
    up on a case; Ctrl-C cancels the whole retrieval.

    Returns ``{"query", "variant", "backend", "k", "results": [{"case", "similarity",
    "status", "expansions", …, "mapping"?}], "not_finished": […], "time_ms"}``.
    """
    text = _gemp.similarity(
        _os.fspath(query),
        _os.fspath(cases),
        query_name,
        _os.fspath(model) if model is not None else None,
        k,
        algorithm,
        improvements,
        queue_limit,
        max_queue,
        time_limit,
        early_stop,
        mappings,
    )
    return _json.loads(text)


class Graph:
    """A loaded graph. Make one with :func:`open`, :func:`load`, :func:`from_json` or
    :func:`from_frames`.

    The graph lives on a thread of its own, with one session per backend (the model is
    uploaded to an OpenCL device once); its methods may be called from any Python thread.
    """

    __slots__ = ("_native",)

    def __init__(self, native: "_gemp.Graph") -> None:
        self._native = native

    @property
    def node_count(self) -> int:
        """The number of nodes."""
        return self._native.node_count

    @property
    def edge_count(self) -> int:
        """The number of relationships."""
        return self._native.edge_count

    def execute(
        self,
        query: str,
        params: Optional[Mapping[str, ParamValue]] = None,
        semantics: Optional[str] = None,
        backend: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        *,
        engine: Optional[str] = None,
        count_only: bool = False,
    ) -> "Result":
        """Runs a query and returns its :class:`Result`.

        - ``params``: values of ``$name`` parameters: ``None``, ``bool``, ``int`` (64-bit),
          ``float``, ``str``; a list or tuple of them (``x IN $p``, ``UNWIND $p AS x``); a dict
          with string keys (read by key: ``$p.key``). A set, bytes or another type raises
          :class:`ParameterError` (a ``TypeError``) instead of being converted.
        - ``semantics``: ``"cypher"`` (Neo4j's relationship isomorphism, the default),
          ``"isomorphism"`` (node-injective) or ``"homomorphism"``; ``None`` takes the query's
          ``// gemp: semantics=…`` line, else the default.
        - ``backend``: ``"auto"`` (default: OpenCL on a GPU or accelerator when this build has
          OpenCL, else the host), ``"host"`` or ``"opencl"``. ``engine``: ``"gemp"`` (default)
          or ``"gpsense"``.
        - ``limit``: stop after this many pattern matches (``gemp match --limit``).
        - ``timeout``: seconds; the run then stops and the result is partial
          (``result.partial``, with a :class:`PartialResultWarning`): true matches only, maybe
          not all.
        - ``count_only``: count the rows without materialising them (``result.count``).

        Ctrl-C cancels the run (``KeyboardInterrupt``; the graph stays usable). Errors:
        :class:`QueryError` (with ``line`` and ``column``) for a query that does not compile,
        :class:`ParameterError`, :class:`InvalidArgumentError`, :class:`DeviceError`.
        """
        native = self._native.execute(
            query, params, semantics, backend, engine, limit, timeout, count_only
        )
        result = Result(native)
        for w in native.warnings:
            _warnings.warn(QueryWarning(w), stacklevel=2)
        if native.partial:
            why = f"timed out after {timeout} s" if timeout is not None else "stopped early"
            _warnings.warn(
                PartialResultWarning(f"partial result: {why}; {native.count} rows so far"),
                stacklevel=2,
            )
        return result

    def count(
        self,
        query: str,
        params: Optional[Mapping[str, ParamValue]] = None,
        semantics: Optional[str] = None,
        backend: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> int:
        """The number of rows ``query`` returns, without materialising them (see
        :meth:`execute` for the arguments). A query that returns one aggregate
        (``RETURN count(*)``) has one row: read its value with ``execute(query)[0][0]``."""
        return self.execute(
            query, params, semantics, backend, limit, timeout, count_only=True
        ).count

    def explain(
        self,
        query: str,
        params: Optional[Mapping[str, ParamValue]] = None,
        semantics: Optional[str] = None,
        backend: Optional[str] = None,
        *,
        engine: Optional[str] = None,
    ) -> str:
        """How the query would run (engine, semantics, candidate filter, pivot, matching order,
        phases), as ``gemp explain`` prints it."""
        return self._native.explain(query, params, semantics, backend, engine)

    def info(self) -> Dict[str, Any]:
        """The graph's schema and statistics, as ``gemp info --json`` prints them, plus
        ``label_counts`` and ``type_counts``: ``{name: count}`` of nodes per label and
        relationships per type.

        Keys: ``nodes``, ``edges``, ``unlabelled_nodes``, ``out_degree`` and ``in_degree``
        (``max``, ``mean``, ``median``, ``p99``), ``labels`` and ``rel_types`` (lists of
        ``{"name", "count"}``, largest first), ``node_properties``, ``edge_properties``,
        ``label_counts``, ``type_counts``.
        """
        schema = _json.loads(self._native.schema_json())
        schema["label_counts"] = {x["name"]: x["count"] for x in schema.get("labels", [])}
        schema["type_counts"] = {x["name"]: x["count"] for x in schema.get("rel_types", [])}
        return schema

    def transform(
        self,
        rules: str,
        params: Optional[Mapping[str, ParamValue]] = None,
        *,
        until_fixpoint: bool = False,
        max_iterations: int = 100,
    ) -> Dict[str, Any]:
        """Applies a rule file (Cypher updating statements separated by ``;``, as ``gemp
        transform`` reads it) to this graph; later queries see the result. On an error the graph
        is left as it was. The change is applied whole: Ctrl-C during it is raised once it is
        done.

        Returns the change report: ``{"statements": [{"statement", "iteration", "line",
        "matches", "nodes_created", …}], "iterations", "fixpoint_reached", "totals": {…},
        "changed"}``.
        """
        return _json.loads(
            self._native.transform(rules, params, until_fixpoint, max_iterations)
        )

    def save(self, path: PathLike) -> None:
        """Saves the graph as a ``.gemp`` snapshot (written to a temporary file, then renamed)."""
        self._native.save(_os.fspath(path))

    def trust(
        self,
        template: "Graph",
        *,
        value_property: str = "value",
        k0: Optional[int] = None,
        beam: Optional[int] = None,
        depth: Optional[int] = None,
        top: Optional[int] = None,
    ) -> Dict[str, Any]:
        """TruST inexact matching: the ``top`` best mappings of ``template``'s nodes to this
        graph's nodes by value similarity (Levenshtein) and neighbourhood (``gemp trust
        --json``), on the host.

        Node values are the string property ``value_property`` (a non-string is compared as its
        text; a node without it uses its key); edges are taken as undirected. ``k0`` (pairs kept
        at level 1, default 32), ``beam`` (states kept per level, default 128), ``depth``
        (levels, default all template nodes), ``top`` (default 5).

        Returns ``{"matchings": [{"score", "nodes": [{"template", "template_value", "data",
        "data_value", "similarity", "one_hop"}]}], "levels": […], "timings_ms": {…}}``.
        """
        return _json.loads(
            self._native.trust(template._native, value_property, k0, beam, depth, top)
        )

    def __repr__(self) -> str:
        return repr(self._native)


class Result:
    """The rows of one query run.

    Iterating gives one tuple per row, in ``columns`` order (:meth:`dicts` gives dicts). Cell
    values: ``None``, ``bool``, ``int``, ``float``, ``str``, lists, and for nodes and
    relationships dicts: ``{"id", "key", "labels", "properties"}`` and ``{"id", "type",
    "src", "dst", "properties"}`` (``src`` and ``dst`` are node ids, as in ``gemp match
    --format jsonl``).

    :meth:`to_arrow`, :meth:`to_pandas` and :meth:`to_polars` read the Arrow columns built
    once in Rust (no Python object per row); the object also speaks the Arrow PyCapsule
    protocol (``pyarrow.table(result)``, ``polars.DataFrame(result)``, DuckDB). Arrow types:
    ``bool``, ``int64``, ``double`` (also for a column mixing integers and floats), ``string``;
    nodes and relationships are structs whose ``properties`` is JSON text; lists are
    ``list<…>``; a column holding values of different types is ``string`` (each value as
    ``gemp match`` prints it).
    """

    __slots__ = ("_native",)

    def __init__(self, native: "_gemp.Result") -> None:
        self._native = native

    @property
    def columns(self) -> List[str]:
        """The column names, in ``RETURN`` order."""
        return self._native.columns

    @property
    def count(self) -> int:
        """The number of result rows (also with ``count_only``, where no row is kept)."""
        return self._native.count

    @property
    def partial(self) -> bool:
        """True when a timeout stopped the run (the rows are true matches, maybe not all)."""
        return self._native.partial

    @property
    def backend(self) -> str:
        """Where the query ran: ``host``, ``opencl (<device>)``, ``gpsense host``, …"""
        return self._native.backend

    @property
    def elapsed(self) -> float:
        """Seconds the run took (search and result stages; compilation and conversion not
        included)."""
        return self._native.elapsed

    @property
    def columns_elapsed(self) -> float:
        """Seconds spent building the Arrow columns from the engine's rows (part of
        :meth:`Graph.execute`; :meth:`to_arrow` itself copies nothing)."""
        return self._native.columns_elapsed

    @property
    def semantics(self) -> str:
        """The matching semantics the query ran under."""
        return self._native.semantics

    @property
    def warnings(self) -> List[str]:
        """The binder's warnings about the query (also issued as :class:`QueryWarning`)."""
        return self._native.warnings

    def __len__(self) -> int:
        return len(self._native)

    def __iter__(self) -> Iterator[Tuple[Any, ...]]:
        n = len(self._native)
        for start in range(0, n, 1024):
            yield from self._native.rows(start, min(start + 1024, n))

    def __getitem__(self, i: int) -> Tuple[Any, ...]:
        n = len(self._native)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("result row out of range")
        return self._native.rows(i, i + 1)[0]

    def fetchall(self) -> List[Tuple[Any, ...]]:
        """Every row, as tuples."""
        return self._native.rows(0, len(self._native))

    def dicts(self) -> Iterator[Dict[str, Any]]:
        """The rows as dicts of column name to value."""
        columns = self.columns
        for row in self:
            yield dict(zip(columns, row))

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow C stream of the rows (Arrow PyCapsule interface)."""
        return self._native.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self) -> Any:
        """The Arrow C schema of the rows (Arrow PyCapsule interface)."""
        return self._native.__arrow_c_schema__()

    def to_arrow(self) -> "pyarrow.Table":
        """The rows as a ``pyarrow.Table`` (needs pyarrow >= 14), without copying them."""
        import pyarrow as pa

        return pa.table(self._native)

    def to_pandas(self) -> "pandas.DataFrame":
        """The rows as a pandas DataFrame (through :meth:`to_arrow`; needs pyarrow and pandas).
        Node and relationship cells are dicts; integer columns with nulls become floats, as
        pyarrow converts them."""
        return self.to_arrow().to_pandas()

    def to_polars(self) -> "polars.DataFrame":
        """The rows as a Polars DataFrame (through :meth:`to_arrow`; needs pyarrow and
        polars). Nodes and relationships are struct columns."""
        import polars as pl

        return pl.from_arrow(self.to_arrow())  # type: ignore[return-value]

    def __repr__(self) -> str:
        flag = ", partial" if self.partial else ""
        return f"<gemp.Result: {self.count} rows, columns {self.columns}{flag}>"
