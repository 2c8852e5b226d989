"""execute(): parameters, semantics, limit, timeout, count, explain, errors and cancellation."""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings

import pytest

import gemp

from conftest import QUERIES

ACTED = "MATCH (p:Person)-[:ACTOR]->(m:Movie) WHERE m.startYear >= {} RETURN p.primaryName AS actor, m.primaryTitle AS movie"

# Five people linked by co-starring, four hops: the search runs for minutes (no row passes the
# WHERE, so no memory grows) and checks its deadline often.
LONG = (
    "MATCH (a:Person)-[:ACTOR|ACTRESS]->(t1:Title)<-[:ACTOR|ACTRESS]-(b:Person)"
    "-[:ACTOR|ACTRESS]->(t2:Title)<-[:ACTOR|ACTRESS]-(c:Person)"
    "-[:ACTOR|ACTRESS]->(t3:Title)<-[:ACTOR|ACTRESS]-(d:Person)"
    "-[:ACTOR|ACTRESS]->(t4:Title)<-[:ACTOR|ACTRESS]-(e:Person) "
    "WHERE a.primaryName = e.primaryName + 'x' RETURN a, e"
)

TRIANGLE = {
    "nodes": [
        {"id": "a", "labels": ["N"]},
        {"id": "b", "labels": ["N"]},
    ],
    "edges": [
        {"source": "a", "target": "b", "type": "T"},
        {"source": "b", "target": "a", "type": "T"},
        {"source": "a", "target": "b", "type": "T"},
    ],
}


def test_rows_columns_count_and_iteration(sample: gemp.Graph) -> None:
    r = sample.execute(ACTED.format(2000) + " ORDER BY actor, movie")
    assert r.columns == ["actor", "movie"]
    assert len(r) == r.count > 10
    rows = list(r)
    assert rows == r.fetchall()
    assert all(isinstance(row, tuple) and len(row) == 2 for row in rows)
    assert rows == sorted(rows)
    assert r[0] == rows[0] and r[-1] == rows[-1]
    with pytest.raises(IndexError):
        r[len(r)]
    assert [tuple(d.values()) for d in r.dicts()] == rows
    assert list(next(r.dicts())) == ["actor", "movie"]
    assert r.backend == "host" and not r.partial and r.elapsed >= 0


def test_parameters_give_the_literal_query_s_rows(sample: gemp.Graph) -> None:
    literal = sample.execute(ACTED.format(2000)).fetchall()
    bound = sample.execute(ACTED.format("$year"), {"year": 2000}).fetchall()
    assert sorted(bound) == sorted(literal) and bound
    # A float, a string, a bool and null, each compared as gemp compares them.
    q = "MATCH (m:Movie) WHERE m.averageRating >= $r AND m.titleType = $t RETURN count(*) AS n"
    n = sample.execute(q, {"r": 8.0, "t": "movie"}).fetchall()[0][0]
    assert n == sample.execute(
        "MATCH (m:Movie) WHERE m.averageRating >= 8.0 AND m.titleType = 'movie' RETURN count(*) AS n"
    ).fetchall()[0][0]
    assert n > 0
    adult = sample.execute("MATCH (m:Movie) WHERE m.isAdult = $a RETURN count(*)", {"a": False})
    assert adult.fetchall()[0][0] > 0
    none = sample.execute("MATCH (m:Movie) WHERE m.startYear = $y RETURN count(*)", {"$y": None})
    assert none.fetchall()[0][0] == 0
    assert sample.execute("UNWIND [1] AS one RETURN $x AS x", {"x": 2**62}).fetchall() == [(2**62,)]


def test_list_and_map_parameters(sample: gemp.Graph) -> None:
    # By hand from datasets/imdb-sample/title.basics.tsv: 34 titles of 2000, 22 of 2001;
    # name.basics.tsv: "Anna Taylor" twice, "Anna Prescott" once.
    years = "MATCH (t:Title) WHERE t.startYear IN $years RETURN count(*) AS n"
    assert sample.execute(years, {"years": [2000, 2001]}).fetchall() == [(56,)]
    assert sample.execute(years, {"years": (2001,)}).fetchall() == [(22,)]
    assert sample.execute(years, {"years": []}).fetchall() == [(0,)]
    names = "MATCH (p:Person) WHERE p.primaryName IN $names RETURN count(*) AS n"
    assert sample.execute(names, {"names": ["Anna Taylor", "Anna Prescott"]}).fetchall() == [(3,)]
    unwind = (
        "UNWIND $years AS y MATCH (t:Title) WHERE t.startYear = y RETURN y, count(*) AS n ORDER BY y"
    )
    assert sample.execute(unwind, {"years": [2001, 2000]}).fetchall() == [(2000, 34), (2001, 22)]
    by_key = "MATCH (t:Title) WHERE t.startYear = $m.year RETURN count(*) AS n"
    assert sample.execute(by_key, {"m": {"year": 2001, "k": [1]}}).fetchall() == [(22,)]
    assert sample.execute(by_key, {"m": {"other": 1}}).fetchall() == [(0,)]  # absent key: null
    # A map where a value is needed, a key of a list: query errors naming the parameter.
    with pytest.raises(gemp.QueryError) as e:
        sample.execute(years, {"years": {"a": 1}})
    assert "`$years` holds a map" in str(e.value)
    with pytest.raises(gemp.QueryError) as e:
        sample.execute(by_key, {"m": [2001]})
    assert "`$m.year` reads a key of a list" in str(e.value)


@pytest.mark.parametrize("value", [{1, 2}, b"bytes", object(), 2**64, [1, {2}], {1: "a"}])
def test_parameters_gemp_cannot_take_are_refused(sample: gemp.Graph, value: object) -> None:
    with pytest.raises(gemp.ParameterError) as e:
        sample.execute("MATCH (m:Movie) WHERE m.startYear = $y RETURN m", {"y": value})
    assert isinstance(e.value, TypeError) and isinstance(e.value, gemp.Error)
    assert "$y" in str(e.value)
    if isinstance(value, set):
        assert "a list parameter is a list or tuple" in str(e.value)


def test_semantics_argument_and_the_query_s_directive() -> None:
    g = gemp.from_json(TRIANGLE)
    q = "MATCH (x:N)-[:T]->(y:N)-[:T]->(z:N) RETURN id(x) AS x"
    # Cypher text runs under Cypher's relationship-isomorphism by default, as Neo4j answers: each
    # relationship edge by edge, x = z allowed through distinct edges — (a,b,a) and (b,a,b), each
    # through either of the two a->b edges: 4 rows.
    default = g.execute(q)
    assert default.semantics == "cypher" and len(default) == 4
    assert len(g.execute(q, semantics="isomorphism")) == 0  # x and z differ
    homo = g.execute(q, semantics="homomorphism")
    assert homo.semantics == "homomorphism" and len(homo) == 2
    # Relationship-isomorphism: named relationships bind distinct edges, parallel edges count.
    q2 = "MATCH (x:N)-[r:T]->(y:N) RETURN x, y"
    assert len(g.execute(q2, semantics="cypher")) == 3
    assert len(g.execute(q2)) == 3
    declared = g.execute("// gemp: semantics=homomorphism\n" + q)
    assert (declared.semantics, len(declared)) == ("homomorphism", 2)
    # The argument wins over the directive.
    assert len(g.execute("// gemp: semantics=homomorphism\n" + q, semantics="isomorphism")) == 0
    with pytest.raises(gemp.InvalidArgumentError) as e:
        g.execute(q, semantics="graph-iso")
    assert isinstance(e.value, ValueError)


def test_limit_stops_after_that_many_matches(sample: gemp.Graph) -> None:
    everything = sample.execute(ACTED.format(1900))
    assert len(everything) > 50
    limited = sample.execute(ACTED.format(1900), limit=7)
    assert len(limited) == 7 and not limited.partial
    assert set(limited.fetchall()) <= set(everything.fetchall())
    with pytest.raises(gemp.InvalidArgumentError):
        sample.execute(ACTED.format(1900), limit=0)


def test_count_only(sample: gemp.Graph) -> None:
    n = len(sample.execute(ACTED.format(2000)))
    r = sample.execute(ACTED.format(2000), count_only=True)
    assert (r.count, len(r), r.columns) == (n, 0, ["actor", "movie"])
    assert sample.count(ACTED.format("$y"), {"y": 2000}) == n


def test_timeout_gives_a_partial_result_with_a_warning(sample: gemp.Graph) -> None:
    start = time.monotonic()
    with pytest.warns(gemp.PartialResultWarning, match="timed out after 0.3 s"):
        r = sample.execute(LONG, timeout=0.3)
    assert time.monotonic() - start < 10
    assert r.partial
    with pytest.raises(gemp.InvalidArgumentError):
        sample.execute(LONG, timeout=-1)


def test_ctrl_c_cancels_a_running_query_and_the_graph_stays_usable(sample: gemp.Graph) -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sample.execute(LONG)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10, "Ctrl-C did not stop the query"
    # The graph's thread is free again: the long query really stopped.
    start = time.monotonic()
    assert len(sample.execute(ACTED.format(2000))) > 0
    assert time.monotonic() - start < 5


def test_queries_from_several_threads(sample: gemp.Graph) -> None:
    want = sorted(sample.execute(ACTED.format(2000)).fetchall())
    results: list = []

    def run() -> None:
        results.append(sorted(sample.execute(ACTED.format("$y"), {"y": 2000}).fetchall()))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [want] * 4


def test_explain_describes_the_plan(sample: gemp.Graph) -> None:
    text = sample.explain((QUERIES / "four-actors-jack.cypher").read_text())
    assert text.startswith("engine: host\nsemantics: node-isomorphism")
    assert "matching order" in text
    homo = sample.explain("MATCH (p:Person) RETURN p", semantics="homomorphism")
    assert "semantics: homomorphism" in homo


def test_query_errors_carry_their_position(sample: gemp.Graph) -> None:
    with pytest.raises(gemp.QueryError) as e:
        sample.execute("MATCH (p:Person)\nWHERE p.primaryName = 'x'\nRETURN p.nope")
    err = e.value
    assert (err.line, err.column, err.kind) == (3, 10, "semantic")
    assert "nope" in err.message
    assert "3 | RETURN p.nope" in str(err) and "         ^^^^" in str(err)
    with pytest.raises(gemp.QueryError) as e:
        sample.execute("MATCH (p:Person RETURN p")
    assert (e.value.line, e.value.column, e.value.kind) == (1, 17, "syntax")
    with pytest.raises(gemp.QueryError) as e:
        sample.explain("MATCH (p:Persn) RETURN p")
    assert (e.value.line, e.value.column) == (1, 10)
    assert e.value.help and "Person" in e.value.help
    assert e.value.file is None
    # Missing parameters are query errors too.
    with pytest.raises(gemp.QueryError) as e:
        sample.execute("MATCH (m:Movie) WHERE m.startYear = $y RETURN m")
    assert "$y" in str(e.value) or "y" in e.value.message


def test_binder_warnings_are_python_warnings(sample: gemp.Graph) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = sample.execute("MATCH (m:Movie) WHERE m.primaryTitle = 3 RETURN m")
    assert len(r) == 0
    assert r.warnings and any(issubclass(w.category, gemp.QueryWarning) for w in caught)


def test_unknown_backend_and_engine(sample: gemp.Graph) -> None:
    with pytest.raises(gemp.InvalidArgumentError):
        sample.execute("MATCH (p:Person) RETURN p", backend="gpu")
    with pytest.raises(gemp.InvalidArgumentError):
        sample.execute("MATCH (p:Person) RETURN p", engine="nope")
    # GpSense runs node-isomorphism only: Cypher's default semantics is refused, with the way out.
    with pytest.raises(gemp.QueryError, match="--semantics isomorphism"):
        sample.execute("MATCH (p:Person)-[:ACTOR]->(m:Movie) RETURN p, m", engine="gpsense")
    r = sample.execute(
        "MATCH (p:Person)-[:ACTOR]->(m:Movie) RETURN p, m",
        backend="host",
        engine="gpsense",
        semantics="isomorphism",
    )
    assert r.backend == "gpsense host"
    assert len(r) == len(sample.execute("MATCH (p:Person)-[:ACTOR]->(m:Movie) RETURN p, m"))
    if not gemp.OPENCL:
        with pytest.raises(gemp.DeviceError, match="without OpenCL"):
            sample.execute("MATCH (p:Person) RETURN p", backend="opencl")
