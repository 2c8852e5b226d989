"""The similarity (A*) and TruST entry points, against the command line's JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gemp

from conftest import RECIPES, run_cli


def test_similarity_equals_the_cli_s_ranking(gemp_bin: Path) -> None:
    cases = RECIPES / "cases.json"
    # The smallest recipe, searches bounded by max_queue (an unbounded A* search of a larger
    # recipe holds gigabytes): the finished cases are exact, so both runs rank them alike.
    args = dict(query_name="recipe-01", k=3, max_queue=20000)
    got = gemp.similarity(cases, RECIPES, mappings=True, **args)
    cli = json.loads(
        run_cli(
            gemp_bin, "similarity", "--query", cases, "--query-name", "recipe-01",
            "--cases", RECIPES, "--k", "3", "--max-queue", "20000", "--format", "json",
        ).stdout
    )
    assert got["query"] == "recipe-01" and got["variant"] == cli["variant"]
    assert [(r["case"], r["similarity"]) for r in got["results"]] == [
        (r["case"], r["similarity"]) for r in cli["results"]
    ]
    best = got["results"][0]
    assert best["case"] == "recipe-01" and best["similarity"] == pytest.approx(1.0)
    assert best["mapping"]["nodes"] and best["status"] == "optimal"


def test_similarity_errors() -> None:
    cases = RECIPES / "cases.json"
    with pytest.raises(gemp.InvalidArgumentError, match="no graph named"):
        gemp.similarity(cases, RECIPES, query_name="nope")
    with pytest.raises(gemp.Error):
        gemp.similarity(cases, RECIPES, algorithm="astar9")
    with pytest.raises(gemp.FileError):
        gemp.similarity(RECIPES / "missing.json", RECIPES)


def chain(values: list, name: str) -> gemp.Graph:
    nodes = [{"id": f"{name}{i}", "labels": ["V"], "properties": {"value": v}} for i, v in enumerate(values)]
    edges = [
        {"source": f"{name}{i}", "target": f"{name}{i + 1}", "type": "E"} for i in range(len(values) - 1)
    ]
    return gemp.from_json({"nodes": nodes, "edges": edges})


def test_trust_equals_the_cli_s(gemp_bin: Path, tmp_path: Path) -> None:
    template = chain(["kitchen", "knife", "onion"], "t")
    data = chain(["garden", "kitchen", "knives", "onions", "table", "kitten"], "d")
    got = data.trust(template, top=3)
    best = got["matchings"][0]
    assert [n["data"] for n in best["nodes"]] == ["d1", "d2", "d3"]
    assert 0 < best["score"] <= 1
    template.save(tmp_path / "t.gemp")
    data.save(tmp_path / "d.gemp")
    cli = json.loads(
        run_cli(
            gemp_bin, "trust", "--template", tmp_path / "t.gemp", "--data", tmp_path / "d.gemp",
            "--top", "3", "--json",
        ).stdout
    )
    assert [m["score"] for m in got["matchings"]] == [m["score"] for m in cli["matchings"]]
    assert [m["nodes"] for m in got["matchings"]] == [m["nodes"] for m in cli["matchings"]]
    with pytest.raises(gemp.InvalidArgumentError):
        data.trust(template, k0=0)
