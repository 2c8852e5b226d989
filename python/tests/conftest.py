"""Shared fixtures: the repository's bundled data, the `gemp` binary to compare with, and the
helpers that turn its JSON lines into the rows the Python package returns."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, List, Optional

import pytest

import gemp

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "imdb-sample"
QUERIES = ROOT / "datasets" / "queries"
RECIPES = ROOT / "datasets" / "recipes"


def _find_binary() -> Optional[Path]:
    if os.environ.get("GEMP_BIN"):
        return Path(os.environ["GEMP_BIN"])
    dirs = [os.environ.get("CARGO_TARGET_DIR"), str(ROOT / "target")]
    for d in filter(None, dirs):
        for profile in ("ci", "release", "debug"):
            p = Path(d) / profile / "gemp"
            if p.is_file():
                return p
    found = shutil.which("gemp")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def gemp_bin() -> Path:
    """The `gemp` command-line binary (GEMP_BIN, else $CARGO_TARGET_DIR or target/ of the
    repository). Missing: the comparison tests skip, or fail when GEMP_REQUIRE_BIN=1 (as
    scripts/test-python sets it)."""
    p = _find_binary()
    if p is None or not p.is_file():
        msg = "the gemp binary was not found (build it: cargo build --profile ci; or set GEMP_BIN)"
        if os.environ.get("GEMP_REQUIRE_BIN") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return p


def run_cli(binary: Path, *args: Any, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the binary with `args` (quiet), returning the finished process."""
    proc = subprocess.run(
        [str(binary), "-q", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"gemp {' '.join(map(str, args))} failed: {proc.stderr}")
    return proc


def cli_rows(binary: Path, *args: Any) -> List[dict]:
    """`gemp match … --format jsonl` as a list of dicts (the partial marker dropped)."""
    out = run_cli(binary, "match", *args, "--format", "jsonl").stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return [r for r in rows if "_partial" not in r]


def without_properties(v: Any) -> Any:
    """A value from the Python package as JSON lines print it: nodes and relationships without
    their properties (the CLI does not print them). Labels are sorted: the package lists a
    node's primary label first (as `gemp::api::NodeRef::labels`), JSON lines in the model's
    label order."""
    if isinstance(v, dict):
        return {
            k: sorted(x) if k == "labels" else without_properties(x)
            for k, x in v.items()
            if k != "properties"
        }
    if isinstance(v, list):
        return [without_properties(x) for x in v]
    return v


def canonical(rows: List[dict]) -> List[str]:
    """Rows as sorted JSON texts (a multiset: the host may hand rows out in any order)."""
    return sorted(json.dumps(without_properties(r), sort_keys=True) for r in rows)


@pytest.fixture(scope="session")
def sample() -> gemp.Graph:
    """The bundled IMDb sample (the README's quick start data)."""
    return gemp.load(SAMPLE)


@pytest.fixture(scope="session")
def sample_snapshot(sample: gemp.Graph, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample saved as a snapshot by the Python package."""
    path = tmp_path_factory.mktemp("snap") / "sample.gemp"
    sample.save(path)
    return path


def trainbenchmark_dir() -> Optional[Path]:
    for base in (os.environ.get("GEMP_SHARED_DATA"), str(ROOT / ".." / "shared" / "data")):
        if base and (Path(base) / "trainbenchmark" / "railway.xcore").is_file():
            return Path(base) / "trainbenchmark"
    return None
