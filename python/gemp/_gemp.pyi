"""Type stub of the native module ``gemp._gemp`` (use the documented API in ``gemp``)."""

from typing import Any, List, Mapping, Optional, Tuple

__version__: str
OPENCL: bool

class Graph:
    @property
    def node_count(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def execute(
        self,
        query: str,
        params: Optional[Mapping[str, Any]] = None,
        semantics: Optional[str] = None,
        backend: Optional[str] = None,
        engine: Optional[str] = None,
        limit: Optional[int] = None,
        timeout: Optional[float] = None,
        count_only: bool = False,
    ) -> Result: ...
    def explain(
        self,
        query: str,
        params: Optional[Mapping[str, Any]] = None,
        semantics: Optional[str] = None,
        backend: Optional[str] = None,
        engine: Optional[str] = None,
    ) -> str: ...
    def schema_json(self) -> str: ...
    def transform(
        self,
        rules: str,
        params: Optional[Mapping[str, Any]] = None,
        until_fixpoint: bool = False,
        max_iterations: int = 100,
    ) -> str: ...
    def save(self, path: str) -> None: ...
    def trust(
        self,
        template: Graph,
        value_property: str = "value",
        k0: Optional[int] = None,
        beam: Optional[int] = None,
        depth: Optional[int] = None,
        top: Optional[int] = None,
    ) -> str: ...

class Result:
    @property
    def columns(self) -> List[str]: ...
    @property
    def count(self) -> int: ...
    @property
    def num_rows(self) -> int: ...
    @property
    def partial(self) -> bool: ...
    @property
    def backend(self) -> str: ...
    @property
    def elapsed(self) -> float: ...
    @property
    def columns_elapsed(self) -> float: ...
    @property
    def semantics(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    def rows(self, start: int, stop: int) -> List[Tuple[Any, ...]]: ...
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def __arrow_c_schema__(self) -> Any: ...
    def __len__(self) -> int: ...

def open(path: str) -> Graph: ...
def load(
    paths: List[str],
    format: Optional[str] = None,
    metamodel: Optional[str] = None,
    strict: bool = False,
) -> Graph: ...
def from_json(text: str) -> Graph: ...
def similarity(
    query: str,
    cases: str,
    query_name: Optional[str] = None,
    model: Optional[str] = None,
    k: int = 10,
    algorithm: str = "astar3",
    improvements: str = "rms",
    queue_limit: Optional[int] = None,
    max_queue: Optional[int] = None,
    time_limit: Optional[float] = None,
    early_stop: bool = True,
    mappings: bool = False,
) -> str: ...
