"""Graphs: open, load, save, info, from_json, from_frames, transform."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import gemp

from conftest import SAMPLE, run_cli

TASKS = {
    "nodes": [
        {"id": "a", "labels": ["Task"], "properties": {"name": "cut", "length": -3}},
        {"id": "b", "labels": ["Task"], "properties": {"name": "fry", "length": 2}},
    ],
    "edges": [{"source": "a", "target": "b", "type": "NEXT", "properties": {"w": 7}}],
}


def test_load_save_open_round_trip(sample: gemp.Graph, tmp_path: Path) -> None:
    assert (sample.node_count, sample.edge_count) == (7000, 17827)
    path = tmp_path / "sample.gemp"
    sample.save(path)
    for g in (gemp.open(path), gemp.load(path), gemp.load([str(path)], format="snapshot")):
        assert (g.node_count, g.edge_count) == (7000, 17827)
        assert g.info()["label_counts"] == sample.info()["label_counts"]
    # open() also takes what load() reads.
    assert gemp.open(SAMPLE).node_count == 7000
    assert gemp.load(SAMPLE, format="imdb-tsv").node_count == 7000
    assert "7000 nodes" in repr(sample)


def test_info_has_counts_per_label_and_type(sample: gemp.Graph, gemp_bin: Path) -> None:
    info = sample.info()
    assert (info["nodes"], info["edges"]) == (7000, 17827)
    assert info["label_counts"]["Person"] == 4000 and info["label_counts"]["Movie"] == 266
    assert sum(info["type_counts"].values()) == 17827
    cli = json.loads(run_cli(gemp_bin, "info", SAMPLE, "--json").stdout)
    assert {k: v for k, v in info.items() if k not in ("label_counts", "type_counts")} == cli


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(gemp.FileError) as e:
        gemp.load(tmp_path / "missing.tsv")
    assert isinstance(e.value, OSError) and "missing.tsv" in str(e.value)
    assert e.value.kind == "io"
    with pytest.raises(gemp.InvalidArgumentError):
        gemp.load(SAMPLE, format="parquet")
    bad = tmp_path / "g.json"
    bad.write_text(
        '{"nodes": [{"id": "a", "labels": ["A"]}],\n'
        ' "edges": [{"source": "a", "target": "nowhere", "type": "T"}]}\n'
    )
    assert gemp.load(bad).edge_count == 1  # lenient: a dangling node
    with pytest.raises(gemp.ParseError) as e:
        gemp.load(bad, strict=True)
    assert e.value.line == 2 and e.value.file and e.value.file.endswith("g.json")
    assert e.value.kind == "parse"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(gemp.InvalidArgumentError, match="cannot tell the format"):
        gemp.open(empty)


def test_from_json_text_and_dict() -> None:
    for doc in (TASKS, json.dumps(TASKS)):
        g = gemp.from_json(doc)
        r = g.execute("MATCH (x:Task)-[r:NEXT]->(y:Task) RETURN x.name AS x, r.w AS w, y.name AS y")
        assert r.fetchall() == [("cut", 7, "fry")]


def frames_graph(kind: str) -> gemp.Graph:
    nodes = pd.DataFrame(
        {
            "id": ["p1", "p2", "m1"],
            "labels": ["Person", "Person:Director", "Movie"],
            "name": ["Ann", "Bob", None],
            "born": [1970.0, float("nan"), None],
            "title": [None, None, "Heat"],
        }
    )
    edges = pd.DataFrame(
        {"source": ["p1", "p2"], "target": ["m1", "m1"], "type": ["ACTED", "DIRECTED"], "role": ["lead", None]}
    )
    if kind == "pandas":
        return gemp.from_frames(nodes=nodes, edges=edges)
    if kind == "arrow":
        return gemp.from_frames(pa.Table.from_pandas(nodes), pa.Table.from_pandas(edges))
    if kind == "polars":
        return gemp.from_frames(pl.from_pandas(nodes), pl.from_pandas(edges))
    return gemp.from_frames(nodes.to_dict("records"), edges.to_dict("records"))


@pytest.mark.parametrize("kind", ["pandas", "arrow", "polars", "records"])
def test_from_frames(kind: str) -> None:
    g = frames_graph(kind)
    assert (g.node_count, g.edge_count) == (3, 2)
    info = g.info()
    assert info["label_counts"] == {"Person": 2, "Director": 1, "Movie": 1}
    assert info["type_counts"] == {"ACTED": 1, "DIRECTED": 1}
    r = g.execute(
        "MATCH (p:Person)-[a]->(m:Movie) RETURN p.name AS name, p.born AS born, type(a) AS t, "
        "a.role AS role, m.title AS title ORDER BY name"
    )
    assert r.fetchall() == [("Ann", 1970.0, "ACTED", "lead", "Heat"), ("Bob", None, "DIRECTED", None, "Heat")]
    assert g.count("MATCH (d:Director) RETURN d") == 1


def test_from_frames_errors() -> None:
    with pytest.raises(gemp.InvalidArgumentError, match="id"):
        gemp.from_frames(pd.DataFrame({"name": ["x"]}))
    with pytest.raises(gemp.InvalidArgumentError, match="type"):
        gemp.from_frames([{"id": 1}], [{"source": 1, "target": 1}])
    with pytest.raises(gemp.InvalidArgumentError):
        gemp.from_frames("not a table")


def test_transform_reports_changes_and_later_queries_see_them() -> None:
    g = gemp.from_json(TASKS)
    report = g.transform("MATCH (s:Task) WHERE s.length <= 0 SET s.length = -s.length + 1")
    assert report["totals"]["properties_set"] == 1 and report["changed"]
    assert report["statements"][0]["matches"] == 1
    assert g.count("MATCH (s:Task) WHERE s.length = 4 RETURN s") == 1
    report = g.transform("MATCH (t:Task {name: $n}) CREATE (t)-[:NEXT]->(:Task {name: 'serve'})", {"n": "fry"})
    assert report["totals"]["nodes_created"] == 1
    assert (g.node_count, g.edge_count) == (3, 2)
    fix = g.transform(
        "MATCH (t:Task) WHERE t.length IS NULL SET t.length = 0", until_fixpoint=True
    )
    assert fix["fixpoint_reached"] and fix["iterations"] >= 1


def test_transform_errors_leave_the_graph_unchanged() -> None:
    g = gemp.from_json(TASKS)
    with pytest.raises(gemp.QueryError) as e:
        g.transform("MATCH (t:Task)\nSET t.name = ")
    assert e.value.line == 2 and e.value.kind == "syntax"
    # The second statement fails while it runs: the first one's change is not kept either, and
    # the error's position is read from its report.
    with pytest.raises(gemp.QueryError) as e:
        g.transform("MATCH (t:Task) SET t.name = 'x';\nMATCH (t:Task) SET t.length = t.length / 0")
    assert (e.value.line, e.value.column) == (2, 31) and "division by zero" in e.value.message
    with pytest.raises(gemp.QueryError, match="still has 1 relationship"):
        g.transform("MATCH (t:Task) DELETE t")
    assert g.count("MATCH (t:Task) WHERE t.name = 'x' RETURN t") == 0
    assert (g.node_count, g.edge_count) == (2, 1)
