"""Results as Arrow, pandas and Polars, equal to the rows `gemp match --format jsonl` prints on
the bundled sample and on the Train Benchmark models."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import gemp

from conftest import QUERIES, canonical, cli_rows, trainbenchmark_dir, without_properties

SAMPLE_QUERIES = sorted(QUERIES.glob("*.cypher"))


def python_rows(result: gemp.Result) -> list:
    return result.to_arrow().to_pylist()


def parse_properties(rows: list) -> list:
    """Arrow rows with each node's and relationship's `properties` JSON text parsed."""

    def fix(v: object) -> object:
        if isinstance(v, dict):
            return {k: (json.loads(x) if k == "properties" else fix(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v

    return [fix(r) for r in rows]


@pytest.mark.parametrize("query", SAMPLE_QUERIES, ids=lambda p: p.stem)
def test_arrow_rows_equal_the_cli_s_on_the_sample(
    sample: gemp.Graph, sample_snapshot: Path, gemp_bin: Path, query: Path
) -> None:
    want = cli_rows(gemp_bin, "--model", sample_snapshot, query, "--param", "year=2000")
    result = sample.execute(query.read_text(), {"year": 2000})
    got = python_rows(result)
    assert len(got) == len(want) == result.count
    assert canonical(got) == canonical(want)
    # Iteration gives the same values, properties as dicts.
    assert canonical([dict(zip(result.columns, r)) for r in result]) == canonical(want)
    assert [dict(zip(result.columns, r)) for r in result] == parse_properties(got)
    if "ORDER BY" in query.read_text():
        assert [without_properties(r) for r in got] == [without_properties(r) for r in want]


@pytest.mark.parametrize("query", SAMPLE_QUERIES, ids=lambda p: p.stem)
def test_pandas_and_polars_hold_the_arrow_table_s_values(
    sample: gemp.Graph, query: Path
) -> None:
    result = sample.execute(query.read_text(), {"year": 2000})
    table = result.to_arrow()
    df = result.to_pandas()
    assert list(df.columns) == result.columns and len(df) == len(result)
    assert df.equals(table.to_pandas())
    pl_df = result.to_polars()
    assert pl_df.columns == result.columns and pl_df.height == len(result)
    assert pl_df.to_arrow().to_pylist() == table.to_pylist()


def test_nodes_relationships_lists_and_mixed_columns_as_arrow(sample: gemp.Graph) -> None:
    r = sample.execute(
        "MATCH (p:Person)-[r:ACTOR]->(m:Movie) WHERE m.numVotes > 1000 "
        "RETURN p, r, m.averageRating AS rating, [p.primaryName, m.primaryTitle] AS names "
        "ORDER BY rating DESC, p.primaryName LIMIT 3"
    )
    t = r.to_arrow()
    assert t.schema.field("p").type == pa.struct(
        [
            pa.field("id", pa.int64(), False),
            pa.field("key", pa.string(), False),
            pa.field("labels", pa.list_(pa.string()), False),
            pa.field("properties", pa.string(), False),
        ]
    )
    assert [f.name for f in t.schema.field("r").type] == ["id", "type", "src", "dst", "properties"]
    assert t.schema.field("rating").type == pa.float64()
    assert t.schema.field("names").type == pa.list_(pa.string())
    p, rel, rating, names = r[0]
    assert p["labels"] == ["Person"] and p["key"].startswith("nm")
    assert p["properties"]["primaryName"] == names[0]
    assert rel["type"] == "ACTOR" and rel["src"] == p["id"]
    assert isinstance(rating, float)
    # Types the rows mix: integers and floats widen to double; anything else is text.
    g = gemp.from_json(
        {
            "nodes": [
                {"id": "a", "labels": ["X"], "properties": {"v": 1}},
                {"id": "b", "labels": ["X"], "properties": {"v": 3}},
                {"id": "c", "labels": ["X"]},
            ],
            "edges": [],
        }
    )
    m = g.execute(
        "MATCH (x:X) RETURN CASE WHEN x.v > 2 THEN 2.5 ELSE x.v END AS v, "
        "CASE WHEN x.v > 2 THEN 'big' ELSE x.v END AS w, CASE WHEN x.v > 100 THEN 1 END AS nothing, "
        "CASE WHEN x.v > 2 THEN [x.v, null] END AS l ORDER BY v"
    )
    t = m.to_arrow()
    assert t.schema.types == [pa.float64(), pa.string(), pa.null(), pa.list_(pa.int64())]
    assert t.to_pydict() == {
        "v": [1.0, 2.5, None],
        "w": ["1", "big", None],
        "nothing": [None, None, None],
        "l": [None, [3, None], None],
    }
    assert m.fetchall() == [(1.0, "1", None, None), (2.5, "big", None, [3, None]), (None, None, None, None)]
    df = m.to_pandas()
    assert df["v"].isna().sum() == 1 and math.isclose(df["v"].sum(), 3.5)
    assert m.to_polars()["w"].to_list() == ["1", "big", None]


def test_count_only_and_empty_results_convert(sample: gemp.Graph) -> None:
    empty = sample.execute("MATCH (m:Movie) WHERE m.startYear > 3000 RETURN m.primaryTitle AS t")
    assert len(empty) == 0 and empty.to_arrow().num_rows == 0
    assert empty.to_arrow().column_names == ["t"]
    assert len(empty.to_pandas()) == 0 and empty.to_polars().height == 0
    counted = sample.execute("MATCH (m:Movie) RETURN m", count_only=True)
    assert counted.count == 266 and counted.to_arrow().num_rows == 0


def test_the_arrow_pycapsule_protocol(sample: gemp.Graph) -> None:
    r = sample.execute("MATCH (m:Movie) RETURN m.primaryTitle AS title, m.startYear AS year")
    via_table = pa.table(r)
    via_reader = pa.RecordBatchReader.from_stream(r).read_all()
    assert via_table.equals(via_reader) and via_table.num_rows == 266
    assert pa.schema(r) == via_table.schema
    assert pl.DataFrame(r).height == 266
    # Every call is a fresh stream over the same columns.
    assert pa.table(r).equals(via_table)


@pytest.mark.skipif(trainbenchmark_dir() is None, reason="../shared/data/trainbenchmark not found")
@pytest.mark.parametrize("scenario,expected", [("inject", [12, 0, 7, 1, 4, 0]), ("repair", [52, 0, 12, 1, 4, 8])])
def test_train_benchmark_counts_and_rows_equal_the_cli_s(
    gemp_bin: Path, scenario: str, expected: list
) -> None:
    d = trainbenchmark_dir()
    assert d is not None
    xcore, xmi = d / "railway.xcore", d / f"railway-{scenario}-1.xmi"
    g = gemp.load([xcore, xmi])
    names = ["PosLength", "SwitchMonitored", "RouteSensor", "SwitchSet", "ConnectedSegments", "SemaphoreNeighbor"]
    for name, want_count in zip(names, expected):
        q = QUERIES / "trainbenchmark" / f"{name}.cypher"
        r = g.execute(q.read_text())
        assert (name, r.count) == (name, want_count)
        want = cli_rows(gemp_bin, "-m", xcore, "-m", xmi, q)
        assert canonical(python_rows(r)) == canonical(want), name
        assert len(r.to_pandas()) == len(r.to_polars()) == want_count
