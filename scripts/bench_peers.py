#!/usr/bin/env python3
"""Side-by-side benchmark of gemp against DuckDB, Kùzu, LadybugDB and igraph (scripts/bench-peers).

Every (engine, query, repetition) runs in its own process under a wall-clock cap. All engines must
return the same counts for a query before any of its times is reported; a mismatch stops the run
with a non-zero exit and leaves docs/benchmarks.md untouched.

Semantics, per engine:
  gemp     node-injective matching (subgraph monomorphism), anonymous relationships are existence
           checks; queries in benches/peers/*.gemp.cypher; HPRD query graphs as `.graph` files.
  DuckDB   SQL joins are homomorphic: injectivity is written as explicit `<>` / `<` conditions, and
           credits are taken as DISTINCT (person, title) pairs (benches/peers/*.duckdb.sql).
  Kùzu     Cypher matching is homomorphic for nodes: injectivity is written as explicit `<>` / `<`
           conditions (benches/peers/*.kuzu.cypher); one relationship table per credit category.
  LadybugDB  the maintained fork of Kùzu (archived), same Python API: loaded by the same code and run
           on the same *.kuzu.cypher queries (a benches/peers/<q>.ladybug.cypher would override one).
  igraph   LAD (`get_subisomorphisms_lad`, induced=False) and VF2 (`count_subisomorphisms_vf2`)
           both count non-induced subgraph monomorphisms with automorphic images counted separately,
           which is what HPRD's published counts are; labels are LAD domains / VF2 colours.

Workloads: 1 and 2 the IMDb-like graphs of `gemp generate imdb` (mid-size and >= 1M persons), 3 HPRD,
4 loading the TSV files, 5 the TTC 2014 Movie Database Case's synthetic models (`gemp generate ttc14`,
whose couples and 3-cliques are also checked against the case's closed form).

Usage: scripts/bench-peers [--quick] [--out DIR] [--reps N] [--cap S] ... (see --help).
The worker sub-command (`bench_peers.py worker ...`) is what the driver runs in child processes.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERIES = os.path.join(ROOT, "benches", "peers")
# The binary `cargo build --release` wrote (scripts/bench-peers builds it): under $CARGO_TARGET_DIR
# when that is set, as cargo does; $GEMP_BIN names a prebuilt binary instead (a machine without Rust).
GEMP = os.environ.get("GEMP_BIN") or os.path.join(
    os.path.abspath(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")), "release", "gemp")
# Every peer engine the script knows; --peers picks a subset.
ALL_PEERS = ("duckdb", "kuzu", "ladybug", "igraph")
# The Kùzu-family engines: the Python module of each (LadybugDB keeps Kùzu's API), run by the
# same workers on the same data and queries.
KUZU_FAMILY = ("kuzu", "ladybug")
BEGIN = "<!-- bench-peers:begin -->"
END = "<!-- bench-peers:end -->"

# The IMDb TSV files every engine loads (the generator writes exactly these).
TSV_FILES = ["title.basics", "name.basics", "title.principals", "title.ratings"]

# Workload 1's graph (persons,titles,credits; bench_stages.py generates the same one).
MID_DEFAULT = "100000,70000,420000"

# Workload 1 (the mid-size graph) and workload 2 (the >= 1M-person graph).
W1 = ["four-actors-jack", "actor-director-pairs", "costar-triangle", "costar-cycle"]
W2 = ["couples", "three-cliques"]
# Workload 5: the TTC 2014 Movie Database Case's queries on its synthetic models.
W5 = ["couples", "three-cliques"]
# FunnyQT's published times (8 cores) on the case's IMDb models of the same element counts.
FUNNYQT = {"couples": ("35.4 s", "117.8 s"), "three-cliques": ("619 s", "4295 s")}


def ttc14_expected(query, blocks):
    """The case's closed form for N blocks (src/generate/ttc14.rs): 3N couples sharing 15N movies
    in all, N 3-cliques sharing 5N."""
    if query == "couples":
        return {"pairs": 3 * blocks, "embeddings": 15 * blocks}
    if query == "three-cliques":
        return {"triples": blocks, "embeddings": 5 * blocks}
    return None


# --------------------------------------------------------------------------------------------
# Workers: one measurement each, run in a child process; print one JSON object on stdout.
# --------------------------------------------------------------------------------------------

def mem_gb():
    """Memory limit of DuckDB and of Kùzu's and LadybugDB's buffer pool (the machine is shared;
    they default to 80 % of RAM otherwise)."""
    return int(os.environ.get("BENCH_PEERS_MEM_GB", "6"))


def tsv_options_duckdb():
    return "delim='\\t', header=true, quote='', escape='', nullstr='\\N'"


def worker_duckdb_load(data, db):
    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect(db, config={"memory_limit": f"{mem_gb()}GB"})
    for name in TSV_FILES:
        path = os.path.join(data, name + ".tsv")
        table = name.replace(".", "_")
        con.execute(
            f"CREATE TABLE {table} AS SELECT * FROM read_csv('{path}', {tsv_options_duckdb()})"
        )
    con.close()
    return {"seconds": time.perf_counter() - t0}


def worker_duckdb_query(db, query_file):
    import duckdb

    sql = open(query_file, encoding="utf-8").read()
    con = duckdb.connect(db, read_only=True, config={"memory_limit": f"{mem_gb()}GB"})
    t0 = time.perf_counter()
    cur = con.execute(sql)
    row = cur.fetchone()
    seconds = time.perf_counter() - t0
    names = [d[0] for d in cur.description]
    con.close()
    return {"seconds": seconds, "result": {n: int(v or 0) for n, v in zip(names, row)}}


def kuzu_csv_options():
    # IMDb TSV has no quoting: quote/escape are set to a byte the data never holds.
    return ("(header=true, delim='\t', quote='\x07', escape='\x07', null_strings=['\\\\N'], "
            "file_format='csv')")


def kuzu_module(module):
    """The Python module of a Kùzu-family engine: `kuzu` or `ladybug` (the same API)."""
    import importlib

    if module not in KUZU_FAMILY:
        raise SystemExit(f"not a Kùzu-family engine: {module}")
    return importlib.import_module(module)


def worker_kuzu_load(module, data, db):
    kuzu = kuzu_module(module)

    opts = kuzu_csv_options()
    path = {n: os.path.join(data, n + ".tsv") for n in TSV_FILES}
    t0 = time.perf_counter()
    database = kuzu.Database(db, buffer_pool_size=mem_gb() << 30)
    con = kuzu.Connection(database)
    con.execute(
        "CREATE NODE TABLE Title(tconst STRING, titleType STRING, primaryTitle STRING, "
        "originalTitle STRING, isAdult INT64, startYear INT64, endYear INT64, runtimeMinutes INT64, "
        "genres STRING, averageRating DOUBLE, numVotes INT64, PRIMARY KEY(tconst))"
    )
    con.execute(
        "CREATE NODE TABLE Person(nconst STRING, primaryName STRING, birthYear INT64, "
        "deathYear INT64, primaryProfession STRING, knownForTitles STRING, PRIMARY KEY(nconst))"
    )
    # COPY straight from the file cannot map `\N` to NULL in INT64 columns (Kùzu 0.11 casts
    # first); COPY from a LOAD FROM subquery applies null_strings.
    con.execute(
        f"COPY Title FROM (LOAD FROM '{path['title.basics']}' {opts} "
        "RETURN tconst, titleType, primaryTitle, originalTitle, CAST(isAdult AS INT64) AS isAdult, "
        "CAST(startYear AS INT64) AS startYear, CAST(endYear AS INT64) AS endYear, "
        "CAST(runtimeMinutes AS INT64) AS runtimeMinutes, genres, "
        "CAST(NULL AS DOUBLE) AS averageRating, CAST(NULL AS INT64) AS numVotes)"
    )
    con.execute(
        f"COPY Person FROM (LOAD FROM '{path['name.basics']}' {opts} "
        "RETURN nconst, primaryName, CAST(birthYear AS INT64) AS birthYear, "
        "CAST(deathYear AS INT64) AS deathYear, "
        "primaryProfession, knownForTitles)"
    )
    # Ratings are properties of titles, as in gemp. The column types are declared: sniffed from
    # the first rows, a rating like 7.3 becomes DECIMAL(2, 1), which the TTC 2014 models' ratings
    # (movie j is rated j) overflow.
    con.execute(
        "LOAD WITH HEADERS (tconst STRING, averageRating DOUBLE, numVotes INT64) "
        f"FROM '{path['title.ratings']}' {opts} "
        "MATCH (t:Title {tconst: tconst}) "
        "SET t.averageRating = averageRating, t.numVotes = numVotes"
    )
    # One relationship table per credit category (gemp's relationship types): Kùzu copies one
    # table per statement, each from the principals file filtered to its category.
    res = con.execute(
        f"LOAD FROM '{path['title.principals']}' {opts} RETURN DISTINCT category"
    )
    categories = []
    while res.has_next():
        categories.append(res.get_next()[0])
    for cat in sorted(categories):
        table = cat.upper()
        if not re.fullmatch(r"[A-Z_]+", table):
            raise ValueError(f"unexpected credit category {cat!r}")
        con.execute(
            f"CREATE REL TABLE {table}(FROM Person TO Title, ordering INT64, job STRING, "
            "characters STRING)"
        )
        con.execute(
            f"COPY {table} FROM (LOAD FROM '{path['title.principals']}' {opts} "
            f"WHERE category = '{cat}' RETURN nconst, tconst, CAST(ordering AS INT64) AS ordering, job, characters)"
        )
    # Kùzu evaluates `[:ACTOR|:ACTRESS]` over two tables far slower than one table (the co-star
    # pairs of the 100k-person graph: 17 s against 0.3 s), so the acting credits also go into one
    # table, as distinct (person, title) pairs: what a Kùzu user would model for these queries.
    con.execute("CREATE REL TABLE ACTS(FROM Person TO Title)")
    con.execute(
        f"COPY ACTS FROM (LOAD FROM '{path['title.principals']}' {opts} "
        "WHERE category = 'actor' OR category = 'actress' RETURN DISTINCT nconst, tconst)"
    )
    con.close()
    database.close()
    return {"seconds": time.perf_counter() - t0, "categories": len(categories)}


def worker_kuzu_query(module, db, query_file):
    kuzu = kuzu_module(module)

    query = open(query_file, encoding="utf-8").read()
    database = kuzu.Database(db, read_only=True, buffer_pool_size=mem_gb() << 30)
    con = kuzu.Connection(database)
    t0 = time.perf_counter()
    res = con.execute(query)
    row = res.get_next()
    seconds = time.perf_counter() - t0
    names = res.get_column_names()
    return {"seconds": seconds, "result": {n: int(v or 0) for n, v in zip(names, row)}}


def worker_duckdb_count(db):
    """Nodes (titles + persons) and credits, to check that every engine loaded the same data."""
    import duckdb

    con = duckdb.connect(db, read_only=True)
    one = lambda q: con.execute(q).fetchone()[0]  # noqa: E731
    return {"nodes": one("SELECT count(*) FROM title_basics") + one("SELECT count(*) FROM name_basics"),
            "edges": one("SELECT count(*) FROM title_principals")}


def worker_kuzu_count(module, db):
    """Nodes and credits (every relationship table but the derived ACTS)."""
    kuzu = kuzu_module(module)

    database = kuzu.Database(db, read_only=True, buffer_pool_size=mem_gb() << 30)
    con = kuzu.Connection(database)
    one = lambda q: con.execute(q).get_next()[0]  # noqa: E731
    return {"nodes": one("MATCH (n) RETURN count(*)"),
            "edges": one("MATCH ()-[r]->() RETURN count(*)") - one("MATCH ()-[r:ACTS]->() RETURN count(*)")}


def read_subgraph_bench(path):
    """`t N M` / `v id label degree` / `e u v` -> (n, labels, edges)."""
    labels, edges, n = [], [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "t":
                n = int(parts[1])
                labels = [0] * n
            elif parts[0] == "v":
                labels[int(parts[1])] = int(parts[2])
            elif parts[0] == "e":
                edges.append((int(parts[1]), int(parts[2])))
    return n, labels, edges


def worker_igraph_hprd(graph_file, query_file, algo):
    """Counts one query graph's embeddings; times the igraph call only."""
    import igraph

    n, labels, edges = read_subgraph_bench(graph_file)
    g = igraph.Graph(n=n, edges=edges)
    qn, qlabels, qedges = read_subgraph_bench(query_file)
    q = igraph.Graph(n=qn, edges=qedges)
    if algo == "lad":
        by_label = {}
        for v, lab in enumerate(labels):
            by_label.setdefault(lab, []).append(v)
        domains = [by_label.get(lab, []) for lab in qlabels]
        t0 = time.perf_counter()
        count = len(g.get_subisomorphisms_lad(q, domains=domains, induced=False))
    else:
        t0 = time.perf_counter()
        count = g.count_subisomorphisms_vf2(q, color1=labels, color2=qlabels)
    return {"seconds": time.perf_counter() - t0, "result": {"embeddings": count}}


def worker_version(module):
    import importlib

    return {"version": importlib.import_module(module).__version__}


def worker_main(argv):
    engine, action = argv[0], argv[1]
    args = argv[2:]
    if engine in ALL_PEERS and action == "version":
        out = worker_version(engine)
    elif engine == "duckdb" and action == "load":
        out = worker_duckdb_load(*args)
    elif engine == "duckdb" and action == "query":
        out = worker_duckdb_query(*args)
    elif engine in KUZU_FAMILY and action == "load":
        out = worker_kuzu_load(engine, *args)
    elif engine == "duckdb" and action == "count":
        out = worker_duckdb_count(*args)
    elif engine in KUZU_FAMILY and action == "count":
        out = worker_kuzu_count(engine, *args)
    elif engine in KUZU_FAMILY and action == "query":
        out = worker_kuzu_query(engine, *args)
    elif engine == "igraph" and action == "hprd":
        out = worker_igraph_hprd(*args)
    else:
        raise SystemExit(f"unknown worker {engine} {action}")
    print(json.dumps(out))


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

class RunFailed(Exception):
    """Engines disagree on a count, or gemp itself failed: the run stops loudly."""


def run_capped(cmd, cap, env=None, stats=None):
    """Runs cmd in its own process group; kills the whole group after `cap` seconds.
    Returns (status, wall seconds, stdout, stderr) with status ok | timeout | error. The process is
    reaped with wait4, so `stats` (a dict), when given, receives its peak resident set size
    (`peak_rss_kib`, the kernel's ru_maxrss of that process)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    outs = {}

    def drain(name, pipe):
        outs[name] = pipe.read()
        pipe.close()

    readers = [threading.Thread(target=drain, args=(n, p), daemon=True)
               for n, p in (("out", proc.stdout), ("err", proc.stderr))]
    for r in readers:
        r.start()
    reaped = []

    def reap():
        _, wstatus, usage = os.wait4(proc.pid, 0)
        reaped.append((time.perf_counter(), wstatus, usage))

    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    waiter.join(cap)
    timed_out = waiter.is_alive()
    if timed_out:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        waiter.join()
    end, wstatus, usage = reaped[0]
    # Reaped here, so Popen must not wait for it again.
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    for r in readers:
        r.join()
    if stats is not None:
        stats["peak_rss_kib"] = usage.ru_maxrss
        stats["cpu_s"] = usage.ru_utime + usage.ru_stime
    status = "timeout" if timed_out else ("ok" if proc.returncode == 0 else "error")
    return status, end - t0, outs.get("out", ""), outs.get("err", "")


UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_duration(text):
    m = re.fullmatch(r"([0-9.]+)(ns|µs|us|ms|s)", text)
    return float(m.group(1)) * UNITS[m.group(2)]


def gemp_read_input(stderr):
    m = re.search(r"read input ([0-9.]+(?:ns|µs|us|ms|s))", stderr)
    return parse_duration(m.group(1)) if m else 0.0


def last_line(stderr):
    """The last non-empty line of a failed run's stderr (the error message)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def timings_line(stderr):
    """gemp's `--timings` line (kept in the CSV: where the time went)."""
    return next((line for line in stderr.splitlines() if line.startswith("timings [")), "")


def dataset_params(generate):
    """What a data set's `data/PARAMS` stamp holds: the `gemp generate` arguments."""
    return " ".join(generate)


def generate_dataset(out, name, generate, log):
    """Generates data set `name` under `out` with `gemp generate <generate…>` unless the same data
    is already there (its `data/PARAMS` stamp); returns (its directory, its TSV directory, TSV bytes).
    Shared with scripts/bench_stages.py."""
    d = os.path.join(out, name)
    data = os.path.join(d, "data")
    stamp = os.path.join(data, "PARAMS")
    params = dataset_params(generate)
    if not (os.path.exists(stamp) and open(stamp).read() == params):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(data)
        log(f"generating {name}: gemp generate {params}")
        subprocess.run([GEMP, "-q", "generate", *generate, "-o", data], check=True)
        open(stamp, "w").write(params)
    size = sum(os.path.getsize(os.path.join(data, f + ".tsv")) for f in TSV_FILES)
    return d, data, size


def imdb_generate_args(sizes):
    """`gemp generate` arguments of an IMDb-like graph from "persons,titles,credits" (seed 11)."""
    persons, titles, credits = (int(x) for x in sizes.split(","))
    return ["imdb", "--titles", str(titles), "--persons", str(persons), "--principals",
            str(credits), "--seed", "11"]


def hprd_expected(hdir):
    """HPRD's published embedding counts (`expected_counts.txt`: `query_name:count`)."""
    expected = {}
    for line in open(os.path.join(hdir, "expected_counts.txt"), encoding="utf-8"):
        if ":" in line:
            k, v = line.strip().split(":")
            expected[k] = int(v)
    return expected


def hprd_query_files(hdir, first=None):
    """The file names of HPRD's query graphs (in `queries/`), sorted; only the first `first` when
    given."""
    qdir = os.path.join(hdir, "queries")
    queries = sorted(f for f in os.listdir(qdir) if f.endswith(".graph"))
    if first:
        queries = queries[:first]
    return queries


def log_failure(bench, failed, csv_path):
    """The banner of a run that stopped on an error or a count mismatch: no times reported."""
    bench.log("=" * 78)
    bench.log(f"FAILED: {failed}")
    bench.log("no times are reported; raw rows in " + str(csv_path))
    bench.log("=" * 78)


def kuzu_query_file(query, engine):
    """The query file of a Kùzu-family engine: benches/peers/<query>.<engine>.cypher when there is
    one (a query LadybugDB needs changed), else Kùzu's <query>.kuzu.cypher."""
    own = os.path.join(QUERIES, f"{query}.{engine}.cypher")
    return own if os.path.exists(own) else os.path.join(QUERIES, query + ".kuzu.cypher")


def worker_cmd(*args):
    return [sys.executable, os.path.abspath(__file__), "worker", *args]


class Bench:
    def __init__(self, opts):
        self.o = opts
        self.rows = []  # raw measurements (the CSV)
        self.out = opts.out
        os.makedirs(self.out, exist_ok=True)
        self.gemp_backends = gemp_backends()
        self.log_file = open(os.path.join(self.out, "bench-peers.log"), "a", encoding="utf-8")

    def log(self, msg):
        line = f"[{datetime.datetime.utcnow():%H:%M:%S}] {msg}"
        print(line, flush=True)
        self.log_file.write(line + "\n")
        self.log_file.flush()

    def record(self, **row):
        base = {"workload": "", "dataset": "", "query": "", "engine": "", "rep": 0,
                "status": "", "seconds": "", "wall_s": "", "peak_rss_mib": "", "cpu_cores": "",
                "result": "",
                "note": ""}
        base.update(row)
        if isinstance(base["result"], dict):
            base["result"] = json.dumps(base["result"], sort_keys=True)
        self.rows.append(base)
        return base

    # ---- data -------------------------------------------------------------------------------

    def dataset(self, name, generate):
        """Generates `name` with `gemp generate <generate…>` unless the same data is already there."""
        return generate_dataset(self.out, name, generate, self.log)

    def load(self, name, d, data, size):
        """Workload 4: each engine loads the same TSV files; the stores are kept for the queries."""
        cap = self.o.load_cap
        stores = {}
        for rep in range(1, self.o.load_reps + 1):
            snap = os.path.join(d, "model.gemp")
            duck = os.path.join(d, "duckdb.db")
            kz = {e: os.path.join(d, e + ".db") for e in KUZU_FAMILY}
            for p in (snap, duck, duck + ".wal", *kz.values(), *(k + ".wal" for k in kz.values())):
                if os.path.isdir(p):
                    shutil.rmtree(p)
                elif os.path.exists(p):
                    os.remove(p)
            runs = [
                ("gemp", [GEMP, "-q", "load", data, "-o", snap], snap),
                ("duckdb", worker_cmd("duckdb", "load", data, duck), duck),
            ] + [(e, worker_cmd(e, "load", data, kz[e]), kz[e]) for e in KUZU_FAMILY]
            if self.o.gemp_base:
                base = os.path.join(d, "model-base.gemp")
                if os.path.exists(base):
                    os.remove(base)
                runs.insert(1, ("gemp-base", [self.o.gemp_base, "-q", "load", data, "-o", base], base))
            for engine, cmd, store in runs:
                if not engine.startswith("gemp") and engine not in self.o.peers:
                    continue
                stats = {}
                status, wall, out, err = run_capped(cmd, cap, stats=stats)
                seconds = wall
                note = ""
                if status == "ok" and not engine.startswith("gemp"):
                    seconds = json.loads(out)["seconds"]
                elif status == "error":
                    note = last_line(err)
                    self.log(f"  {engine} load FAILED: {note}")
                self.record(workload="load", dataset=name, query=f"load {size / 1e6:.0f} MB TSV",
                            engine=engine, rep=rep, status=status,
                            seconds=f"{seconds:.4f}", wall_s=f"{wall:.4f}",
                            peak_rss_mib=f"{stats['peak_rss_kib'] / 1024:.1f}", note=note)
                self.log(f"  load {name} {engine}: {status} {seconds:.2f} s")
                if status == "ok":
                    stores[engine] = store
                elif engine.startswith("gemp"):
                    raise RunFailed(f"gemp load of {name} {status}: {note}")
        self.check_loaded(name, stores)
        return stores

    def check_loaded(self, name, stores):
        """Every engine holds the same nodes and credits (a silent partial load would skew it)."""
        counts = {}
        for engine, store in stores.items():
            if engine.startswith("gemp"):
                binary = self.o.gemp_base if engine == "gemp-base" else GEMP
                cmd = [binary, "-q", "info", store, "--json", "--top", "0"]
            else:
                cmd = worker_cmd(engine, "count", store)
            status, _, out, err = run_capped(cmd, self.o.load_cap)
            if status != "ok":
                raise RunFailed(f"counting what {engine} loaded of {name}: {last_line(err)}")
            parsed = json.loads(out)
            counts[engine] = {"nodes": parsed["nodes"], "edges": parsed["edges"]}
        if len({json.dumps(c, sort_keys=True) for c in counts.values()}) > 1:
            raise RunFailed(f"the engines loaded different data for {name}: {counts}")
        self.log(f"  loaded the same data everywhere: {counts.get('gemp')}")

    # ---- queries ----------------------------------------------------------------------------

    def engines_for(self, query, stores):
        """(engine label, command) for every engine that runs `query` on this dataset."""
        runs = []
        if "gemp" in stores:
            for label, args in self.gemp_backends:
                runs.append((label, [GEMP, "-q", "match", "--model", stores["gemp"], *args,
                                     "--format", "csv", "--timings",
                                     os.path.join(QUERIES, query + ".gemp.cypher")]))
        if "gemp-base" in stores:
            runs.append(("gemp-base", [self.o.gemp_base, "-q", "match", "--model",
                                       stores["gemp-base"], "--backend", "host", "--format", "csv",
                                       "--timings", os.path.join(QUERIES, query + ".gemp.cypher")]))
        if "duckdb" in stores:
            runs.append(("duckdb", worker_cmd("duckdb", "query", stores["duckdb"],
                                              os.path.join(QUERIES, query + ".duckdb.sql"))))
        for e in KUZU_FAMILY:
            if e in stores:
                runs.append((e, worker_cmd(e, "query", stores[e], kuzu_query_file(query, e))))
        return runs

    def run_query(self, workload, dataset, query, stores, expected=None):
        results = {}
        for engine in ("duckdb", *KUZU_FAMILY):
            if engine in self.o.peers and engine not in stores:
                self.record(workload=workload, dataset=dataset, query=query, engine=engine,
                            status="skipped", note="not loaded (its load failed or hit the cap)")
        for engine, cmd in self.engines_for(query, stores):
            for rep in range(1, self.o.reps + 1):
                stats = {}
                status, wall, out, err = run_capped(cmd, self.o.cap, stats=stats)
                seconds, result, note = "", "", ""
                if status == "ok":
                    if engine.startswith("gemp"):
                        lines = out.strip().splitlines()
                        header, values = lines[0].split(","), lines[1].split(",")
                        # An aggregate over no rows prints empty (null); peers print 0 / None.
                        result = {h: int(v or 0) for h, v in zip(header, values)}
                        # Query time: the whole process less opening the snapshot (so gemp pays
                        # its process start, parsing, planning and any device upload).
                        seconds = wall - gemp_read_input(err)
                        note = timings_line(err)
                    else:
                        parsed = json.loads(out)
                        seconds, result = parsed["seconds"], parsed["result"]
                    results.setdefault(engine, []).append(result)
                elif status == "error":
                    note = last_line(err)
                self.record(workload=workload, dataset=dataset, query=query, engine=engine,
                            rep=rep, status=status,
                            seconds=f"{seconds:.4f}" if seconds != "" else "",
                            wall_s=f"{wall:.4f}", peak_rss_mib=f"{stats['peak_rss_kib'] / 1024:.1f}",
                            cpu_cores=f"{stats['cpu_s'] / wall:.2f}" if wall > 0 else "",
                            result=result, note=note)
                shown = f"{seconds:.3f} s" if seconds != "" else f"{status} after {wall:.1f} s"
                self.log(f"  {query} {engine} #{rep}: {shown} {result if result else note}")
                if status == "error":
                    self.log(f"  FAILED: {engine} on {query}: {note}")
                    if engine.startswith("gemp"):
                        raise RunFailed(f"{engine} failed on {query}: {note}")
                # Slow or capped runs are not repeated (one sample says enough at this size).
                if status != "ok" or wall > self.o.repeat_below:
                    break
        self.check(query, results, expected)

    def check(self, query, results, expected=None):
        """Every result of every engine must be identical (and equal `expected` when given)."""
        distinct = {json.dumps(r, sort_keys=True) for rs in results.values() for r in rs}
        if expected is not None:
            distinct.add(json.dumps(expected, sort_keys=True))
        if len(distinct) > 1:
            detail = "; ".join(f"{e}: {rs}" for e, rs in results.items())
            raise RunFailed(f"COUNT MISMATCH on {query}: {detail}"
                           + (f"; expected {expected}" if expected is not None else ""))
        if len(results) < 2 and expected is None:
            self.log(f"  note: {query} finished on fewer than two engines; its count is unchecked")

    # ---- HPRD -------------------------------------------------------------------------------

    def hprd(self):
        hdir = self.o.hprd
        graph = os.path.join(hdir, "HPRD.graph")
        if not os.path.exists(graph):
            self.log(f"HPRD not found at {hdir}: workload 3 skipped")
            return False
        expected = hprd_expected(hdir)
        qdir = os.path.join(hdir, "queries")
        queries = hprd_query_files(hdir, self.o.hprd_queries)
        snap = os.path.join(self.out, "hprd.gemp")
        status, wall, _, err = run_capped([GEMP, "-q", "load", graph, "-o", snap, "--force"], self.o.load_cap)
        if status != "ok":
            raise RunFailed(f"gemp could not load HPRD: {err}")
        results = {}
        # gemp: one process per query.
        for label, args in self.gemp_backends:
            for qf in queries:
                name = qf[:-6]
                cmd = [GEMP, "-q", "match", "--model", snap, *args, "--count", "--timings",
                       os.path.join(qdir, qf)]
                status, wall, out, err = run_capped(cmd, self.o.hprd_cap)
                seconds, result = "", ""
                if status == "ok":
                    result = {"embeddings": int(out.strip())}
                    seconds = f"{wall - gemp_read_input(err):.4f}"
                    results.setdefault(name, {}).setdefault(label, []).append(result)
                self.record(workload="hprd", dataset="hprd", query=name, engine=label, rep=1,
                            status=status, seconds=seconds, wall_s=f"{wall:.4f}", result=result,
                            note=last_line(err) if status == "error" else "")
                if status == "error":
                    raise RunFailed(f"{label} failed on {name}: {last_line(err)}")
            self.log(f"  hprd {label}: {len(queries)} queries done")
        # gemp batch: every query in one process (snapshot opened and device set up once);
        # its wall time, whole, against the per-query sums.
        for label, args in self.gemp_backends:
            outdir = os.path.join(self.out, "hprd-batch-" + label)
            cmd = [GEMP, "-q", "batch", "--model", snap, *args, "--count", "--out", outdir, "--force",
                   *[os.path.join(qdir, q) for q in queries]]
            status, wall, out, err = run_capped(cmd, self.o.hprd_cap * len(queries))
            if status == "error":
                raise RunFailed(f"{label} batch failed on HPRD: {last_line(err)}")
            if status == "ok":
                for q in queries:
                    name = q[:-6]
                    with open(os.path.join(outdir, name + ".count"), encoding="utf-8") as f:
                        count = int(f.read().strip())
                    results.setdefault(name, {}).setdefault(label + "-batch", []).append(
                        {"embeddings": count})
            self.record(workload="hprd-batch", dataset="hprd", query=f"{len(queries)} queries",
                        engine=label, rep=1, status=status,
                        seconds=f"{wall:.4f}" if status == "ok" else "", wall_s=f"{wall:.4f}")
            self.log(f"  hprd {label} batch: {status} {wall:.2f} s")
        # igraph: one process per query and algorithm, like gemp.
        for algo in ("lad", "vf2") if "igraph" in self.o.peers else ():
            engine = f"igraph-{algo}"
            for qf in queries:
                name = qf[:-6]
                cmd = worker_cmd("igraph", "hprd", graph, os.path.join(qdir, qf), algo)
                status, wall, out, err = run_capped(cmd, self.o.hprd_cap)
                seconds, result, note = "", "", ""
                if status == "ok":
                    parsed = json.loads(out)
                    seconds, result = f"{parsed['seconds']:.4f}", parsed["result"]
                    results.setdefault(name, {}).setdefault(engine, []).append(result)
                elif status == "error":
                    note = last_line(err)
                    self.log(f"  FAILED: {engine} on {name}: {note}")
                self.record(workload="hprd", dataset="hprd", query=name, engine=engine, rep=1,
                            status=status, seconds=seconds, wall_s=f"{wall:.4f}", result=result,
                            note=note)
            self.log(f"  hprd {engine}: {len(queries)} queries done")
        for q in queries:
            name = q[:-6]
            self.check(name, results.get(name, {}), {"embeddings": expected[name]}
                       if name in expected else None)
        self.log(f"  hprd: all counts agree ({len(queries)} queries)")
        return True

    # ---- output -----------------------------------------------------------------------------

    def write_csv(self):
        path = os.path.join(self.out, "bench-peers.csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(self.rows[0].keys()))
            w.writeheader()
            w.writerows(self.rows)
        return path


def gemp_backends():
    """("gemp-host", args) plus one ("gemp-opencl-…", args) per OpenCL device `gemp devices` lists."""
    out = [("gemp-host", ["--backend", "host"])]
    try:
        text = subprocess.run([GEMP, "devices"], capture_output=True, text=True, check=True).stdout
    except subprocess.CalledProcessError:
        return out
    for line in text.splitlines():
        m = re.match(r"^[ *]+(\d+)\s+(\w+)\s+(\S+)", line)
        if m:
            idx, kind, name = m.groups()
            label = "gemp-opencl-pocl" if "pthread" in name or "cpu" == kind else f"gemp-opencl-{kind}{idx}"
            out.append((label, ["--backend", "opencl", "--device", idx]))
    return out


def device_names():
    try:
        return subprocess.run([GEMP, "devices"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

def fmt_time(s):
    if s >= 100:
        return f"{s:.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    return f"{s * 1000:.0f} ms" if s >= 0.01 else f"{s * 1000:.1f} ms"


def fmt_ratio(r):
    return f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def fmt_mem(mib):
    return f"{mib:.0f} MiB" if mib < 1024 else f"{mib / 1024:.1f} GiB"


def summarize(rows, cap, rss=False):
    """(median seconds or None, cell text) per engine from the raw rows of one query; with `rss`,
    the text adds the largest peak resident set size of its successful runs."""
    if not rows:
        return None, "not run"
    ok = [float(r["seconds"]) for r in rows if r["status"] == "ok"]
    if ok:
        med = statistics.median(ok)
        n = f" (n={len(ok)})" if len(ok) != 1 else " (n=1)"
        peaks = [float(r["peak_rss_mib"]) for r in rows
                 if r["status"] == "ok" and r.get("peak_rss_mib")]
        if rss and peaks:
            n = n[:-1] + f"; {fmt_mem(max(peaks))})"
        # CPU utilisation of gemp's own processes (cores busy over the process's wall time).
        cores = [float(r["cpu_cores"]) for r in rows
                 if r["status"] == "ok" and r.get("cpu_cores") and r["engine"].startswith("gemp")]
        if cores:
            n = n[:-1] + f"; {statistics.median(cores):.1f} cores)"
        return med, fmt_time(med) + n
    if any(r["status"] == "timeout" for r in rows):
        return None, f"> {cap:g} s (cap)"
    if any(r["status"] == "skipped" for r in rows):
        return None, "not loaded"
    reason = next((r["note"] for r in rows if r["note"]), "")
    short = "out of memory" if ("memory" in reason.lower() or "buffer pool" in reason.lower()) \
        else "failed"
    return None, f"{short}"


def engine_title(e):
    return {"gemp-host": "gemp host", "gemp-opencl-pocl": "gemp OpenCL (PoCL)",
            "duckdb": "DuckDB", "kuzu": "Kùzu", "ladybug": "LadybugDB", "igraph-lad": "igraph LAD",
            "igraph-vf2": "igraph VF2", "gemp-base": "gemp host, base build"}.get(e, e.replace("gemp-opencl-", "gemp OpenCL "))


def query_table(rows, workload, gemp_engines, peers, cap, rss=False):
    lines = []
    head = ["query", "counts (equal on every engine)"] + [engine_title(e) for e in gemp_engines] \
        + [engine_title(e) for e in peers] + [f"{engine_title(e)} ÷ best peer" for e in gemp_engines]
    with_base = "gemp-base" in gemp_engines and "gemp-host" in gemp_engines
    if with_base:
        head.append("gemp host ÷ base build")
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    queries = []
    for r in rows:
        if r["workload"] == workload and r["query"] not in queries:
            queries.append(r["query"])
    for q in queries:
        qrows = [r for r in rows if r["workload"] == workload and r["query"] == q]
        result = next((r["result"] for r in qrows if r["result"]), "")
        counts = ", ".join(f"{k} {v:,}" for k, v in json.loads(result).items()) if result else "—"
        cells, meds = [], {}
        for e in gemp_engines + peers:
            med, text = summarize([r for r in qrows if r["engine"] == e], cap, rss)
            meds[e] = med
            cells.append(text)
        ratios = []
        peer_meds = {e: meds[e] for e in peers}
        finished = [m for m in peer_meds.values() if m is not None]
        for e in gemp_engines:
            timed_out = any(r["status"] == "timeout" for r in qrows if r["engine"] == e)
            if meds[e] is None and timed_out and finished:
                ratios.append(f"**> {fmt_ratio(cap / min(finished))}**")
            elif meds[e] is None:
                ratios.append("—")
            elif all(m is None for m in peer_meds.values()):
                ratios.append(f"< {fmt_ratio(meds[e] / cap)} (no peer finished)")
            else:
                ratios.append(f"**{fmt_ratio(meds[e] / min(m for m in peer_meds.values() if m is not None))}**")
        if with_base:
            host, base = meds["gemp-host"], meds["gemp-base"]
            ratios.append(f"**{fmt_ratio(host / base)}**" if host is not None and base else "—")
        lines.append("| " + " | ".join([q, counts] + cells + ratios) + " |")
    return lines


def hprd_table(rows, gemp_engines, cap):
    hrows = [r for r in rows if r["workload"] == "hprd"]
    engines = gemp_engines + ["igraph-lad", "igraph-vf2"]
    names = sorted({r["query"] for r in hrows})
    lines = ["| engine | counts equal to the published ones | total of per-query times | "
             "median per query | slowest query | over the cap |",
             "|---|---|---|---|---|---|"]
    totals = {}
    for e in engines:
        er = [r for r in hrows if r["engine"] == e]
        if not er:
            continue
        ok = [float(r["seconds"]) for r in er if r["status"] == "ok"]
        over = sum(1 for r in er if r["status"] == "timeout")
        total = sum(ok) + over * cap
        totals[e] = (total, over)
        tot_text = ("≥ " if over else "") + fmt_time(total)
        lines.append(f"| {engine_title(e)} | {len(ok)} / {len(names)} | {tot_text} | "
                     f"{fmt_time(statistics.median(ok)) if ok else '—'} | "
                     f"{fmt_time(max(ok)) if ok else '—'} | {over} |")
    for r in rows:
        if r["workload"] == "hprd-batch":
            text = fmt_time(float(r["seconds"])) if r["status"] == "ok" else r["status"]
            lines.append(f"| {engine_title(r['engine'])}, `gemp batch` (one process) | — | "
                         f"{text} (whole process) | — | — | — |")
    ratio_lines = []
    batch = {r["engine"]: float(r["seconds"]) for r in rows
             if r["workload"] == "hprd-batch" and r["status"] == "ok"}
    peers = {e: totals[e] for e in ("igraph-lad", "igraph-vf2") if e in totals}
    for peer in sorted(peers, key=lambda e: (e != "igraph-lad", e)):
        total, over = peers[peer]
        qual = " (a lower bound for igraph: some queries hit the cap)" if over else ""
        parts = []
        for e in gemp_engines:
            if e in totals:
                parts.append(f"{engine_title(e)} {fmt_ratio(totals[e][0] / max(total, 1e-9))}")
            if e in batch:
                parts.append(f"{engine_title(e)} `gemp batch` "
                             f"{fmt_ratio(batch[e] / max(total, 1e-9))}")
        if ratio_lines:
            ratio_lines.append("")
        ratio_lines.append(f"gemp ÷ {engine_title(peer)} (totals): **" + "**, **".join(parts)
                           + f"**{qual}.")
    return lines, ratio_lines


def load_table(rows, cap):
    lrows = [r for r in rows if r["workload"] == "load"]
    lines = ["| data set | input | gemp load → snapshot | DuckDB `read_csv` → tables | "
             "Kùzu `COPY FROM` | LadybugDB `COPY FROM` | gemp ÷ best peer |",
             "|---|---|---|---|---|---|---|"]
    for ds in dict.fromkeys(r["dataset"] for r in lrows):
        drows = [r for r in lrows if r["dataset"] == ds]
        meds = {}
        cells = []
        for e in ("gemp", "duckdb", *KUZU_FAMILY):
            med, text = summarize([r for r in drows if r["engine"] == e], cap)
            meds[e] = med
            cells.append(text)
        peers = [m for e, m in meds.items() if e != "gemp" and m is not None]
        ratio = f"**{fmt_ratio(meds['gemp'] / min(peers))}**" if peers and meds["gemp"] else "—"
        lines.append(f"| {ds} | {drows[0]['query'].replace('load ', '')} | "
                     + " | ".join(cells) + f" | {ratio} |")
    return lines


def load_section(rows, cap):
    out = []
    out.append("**Load**, workload 4 — the same four TSV files (`title.basics`, `name.basics`, "
               "`title.principals`, `title.ratings`) into each engine's own store on disk: "
               "gemp `load -o` (parse, freeze, checksummed snapshot; whole process), DuckDB "
               "`CREATE TABLE … AS SELECT * FROM read_csv(…)` per file into a database file, "
               "Kùzu and LadybugDB (the same statements) node tables by `COPY FROM`, ratings by "
               "`LOAD FROM … SET`, one relationship table per credit category plus `ACTS` (acting "
               "credits as one table) by `COPY FROM (LOAD FROM …)`:")
    out.append("")
    out += load_table(rows, cap)
    out.append("")
    return out


def table_peers(o):
    """The peers of the query tables (DuckDB, Kùzu, LadybugDB) that this run measured."""
    return [e for e in ("duckdb", *KUZU_FAMILY) if e in o.peers]


def ttc14_section(rows, datasets, gemp_engines, cap, peers):
    """Workload 5: one table per synthetic model of the TTC 2014 Movie Database Case."""
    names = [n for n in datasets if n.startswith("ttc14-") and any(r["workload"] == n for r in rows)]
    if not names:
        return []
    out = ["**TTC 2014 Movie Database Case**, workload 5 — the case's synthetic models (`gemp "
           "generate ttc14 --blocks N`: N copies of its positive and negative test blocks, 10 "
           "movies, 10 persons and 32 acting credits each) with its couples (two persons in at "
           "least three common movies) and 3-cliques (three persons in at least three common "
           "movies); the counts must also equal the case's closed form (3N couples sharing 15N "
           "movies in all, N 3-cliques sharing 5N). Each cell adds the process's peak resident "
           "memory (RSS). For scale, FunnyQT's published times on the case's IMDb models of "
           f"1.0 M and 3.26 M elements (8 cores): couples {FUNNYQT['couples'][0]} (imdb-200000) "
           f"and {FUNNYQT['couples'][1]} (imdb-all), 3-cliques {FUNNYQT['three-cliques'][0]} and "
           f"{FUNNYQT['three-cliques'][1]}; those are real IMDb data on another machine, where "
           "these synthetic blocks match only the element count, not the work.", ""]
    for name in names:
        n = datasets[name]["blocks"]
        elements = 20 * n
        size = {1_000_000: " (imdb-200000's element count)",
                3_260_000: " (imdb-all's element count)"}.get(elements, "")
        out.append(f"*N = {n:,}*: {10 * n:,} movies and {10 * n:,} persons = {elements:,} "
                   f"elements{size}, {32 * n:,} acting credits:")
        out.append("")
        out += query_table(rows, name, gemp_engines, peers, cap, rss=True)
        out.append("")
    return out


def cpu_and_memory():
    """The CPU model name and the memory in GiB, from /proc ("unknown CPU" and 0 without it)."""
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0.0
    try:
        for line in open("/proc/meminfo", encoding="utf-8"):
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / 2 ** 20
    except OSError:
        pass
    return cpu, mem


def machine(load_start):
    cpu, mem = cpu_and_memory()
    return {"cores": os.cpu_count(), "cpu": cpu, "mem_gib": mem, "load_start": load_start,
            "load_end": " ".join(open("/proc/loadavg").read().split()[:3]),
            "os": platform.platform()}


def report(bench, m, versions, datasets, started, finished):
    o = bench.o
    rows = bench.rows
    gemp_engines = [label for label, _ in bench.gemp_backends]
    if o.gemp_base:
        gemp_engines.append("gemp-base")
    cmd = "scripts/bench-peers " + " ".join(o.argv) if o.argv else "scripts/bench-peers"
    out = [BEGIN, "",
           f"Produced by `{cmd}` on {started:%Y-%m-%d}, {started:%H:%M}–{finished:%H:%M} UTC "
           f"(gemp {versions['gemp']}; DuckDB {versions['duckdb']}, Kùzu {versions['kuzu']}, "
           f"LadybugDB {versions['ladybug']}, python-igraph {versions['igraph']}, "
           f"Python {versions['python']}).",
           "",
           f"Machine: {m['cores']} cores ({m['cpu']}), {m['mem_gib']:.1f} GiB, {m['os']}; "
           f"OpenCL devices: {versions['devices']}. "
           f"**Load average at start: {m['load_start']}** (at the end: {m['load_end']}); "
           + ("other processes shared the cores during the run, so absolute times are inflated "
              "and noisy. " if float(m["load_start"].split()[0]) >= 1 else "")
           + "Compare the ratios, measured in the same run.",
           "",
           f"Each cell is the median query time over separate processes (n = runs; for gemp also the "
           f"CPU cores its process kept busy, user + system time over wall time; a run slower "
           f"than {o.repeat_below:.0f} s is not repeated), capped at {o.cap:.0f} s per run "
           f"({o.hprd_cap:.0f} s per HPRD query). Query time: for DuckDB, Kùzu and LadybugDB the "
           "`execute` + fetch call after the database is open; for gemp the `gemp match` process "
           "less opening the snapshot (so gemp also pays process start, parsing, planning and, "
           "on OpenCL, device set-up and model upload). DuckDB, Kùzu and LadybugDB use all cores "
           f"and {mem_gb()} GiB of memory at most; gemp host uses all cores. "
           "Every engine returned the same counts before any time was kept (a mismatch stops "
           "the run).",
           ""]
    for wl, title in (("imdb-mid", "IMDb-like graph, workload 1"),
                      ("imdb-big", "IMDb-like graph, workload 2")):
        if wl in datasets and any(r["workload"] == wl for r in rows):
            d = datasets[wl]
            out.append(f"**{title}** — {d['persons']:,} persons, {d['titles']:,} titles, "
                       f"{d['credits']:,} credits requested (`gemp generate imdb --seed 11`):")
            out.append("")
            out += query_table(rows, wl, gemp_engines, table_peers(o), o.cap)
            out.append("")
    if any(r["workload"] == "hprd" for r in rows):
        nq = len({r['query'] for r in rows if r['workload'] == 'hprd'})
        out.append(f"**HPRD**, workload 3 — {nq} query graphs of 16 vertices, every embedding "
                   "counted (one process per query and engine; gemp: the process less opening the "
                   "snapshot, igraph: the counting call; `gemp batch` runs all queries in one process):")
        out.append("")
        lines, ratios = hprd_table(rows, gemp_engines, o.hprd_cap)
        out += lines
        out.append("")
        out += ratios
        out.append("")
    if any(r["workload"] == "load" for r in rows):
        out += load_section(rows, o.load_cap)
    out += ttc14_section(rows, datasets, gemp_engines, o.cap, table_peers(o))
    out.append("Semantics: gemp matches node-injectively (`--semantics isomorphism`, the default) "
               "and treats a relationship without a variable as an existence check. DuckDB (SQL "
               "joins), Kùzu and LadybugDB (Cypher, the same queries) match homomorphically, so "
               "their queries add injectivity as explicit `<>` (or `<` ordering) conditions and "
               "count acting credits as distinct (person, title) pairs (DuckDB with the ids' digits "
               "as integers, Kùzu and LadybugDB ordering by `id()`, both faster than comparing the "
               "id strings); igraph's LAD (`induced=False`, labels as domains) and VF2 (labels as "
               "colours) count non-induced embeddings with automorphic images separately, the "
               "semantics of HPRD's published counts. The queries of every engine "
               "are in `benches/peers/`; raw times in `bench-peers.csv` of the output directory.")
    out += ["", END]
    return "\n".join(out)


def write_docs(path, section):
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n"
    if BEGIN in text and END in text:
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        text = text[:a] + section + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n## Side by side: DuckDB, Kùzu, LadybugDB and igraph\n\n" + section + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

def versions(peers):
    """Versions of gemp (git revision), of each peer in `peers` and of Python; the OpenCL devices.
    Each peer reports its own in a worker process: `kuzu` and `ladybug` cannot be imported into one
    process (both register the same pybind11 types; the second import fails)."""

    def version(module):
        if module not in peers:
            return "not run"
        status, _, out, err = run_capped(worker_cmd(module, "version"), 60)
        if status != "ok":
            raise SystemExit(f"bench-peers: cannot import {module} (is it installed? "
                             f"scripts/bench-peers installs it): {last_line(err)}")
        return json.loads(out)["version"]

    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = "?"
    devs = []
    for line in device_names().splitlines()[1:]:
        parts = re.split(r"\s{2,}", line.replace("*", " ").strip())
        if len(parts) >= 4:
            devs.append(f"{parts[2]} (`{parts[1]}`, {parts[3]})")
    return {"gemp": rev or "?", "duckdb": version("duckdb"), "kuzu": version("kuzu"),
            "ladybug": version("ladybug"), "igraph": version("igraph"),
            "python": platform.python_version(),
            "devices": ", ".join(devs) or "none (OpenCL backend not measured)"}


def default_hprd():
    """../shared/data/hprd beside the checkout (or beside the main checkout of a git worktree)."""
    candidates = [os.path.join(ROOT, "..", "shared", "data", "hprd")]
    try:
        common = subprocess.run(["git", "-C", ROOT, "rev-parse", "--path-format=absolute",
                                 "--git-common-dir"], capture_output=True, text=True).stdout.strip()
        if common:
            candidates.append(os.path.join(os.path.dirname(common), "..", "shared", "data", "hprd"))
    except OSError:
        pass
    for c in candidates:
        if os.path.exists(os.path.join(c, "HPRD.graph")):
            return os.path.normpath(c)
    return os.path.normpath(candidates[0])


def parse_args(argv):
    p = argparse.ArgumentParser(prog="scripts/bench-peers", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="small smoke run: small graphs, 1 run each, 10 HPRD queries, 30 s caps, "
                        "docs/benchmarks.md not written")
    p.add_argument("--out", help="data, stores, CSV and log (default bench-data/peers, "
                   "bench-data/peers-quick with --quick)")
    p.add_argument("--reps", type=int, help="runs per query and engine (default 3; quick 1)")
    p.add_argument("--repeat-below", type=float, default=10.0,
                   help="runs slower than this many seconds are not repeated (default 10)")
    p.add_argument("--cap", type=float, help="seconds per query run (default 120; quick 30)")
    p.add_argument("--load-cap", type=float, help="seconds per load (default 300; quick 60)")
    p.add_argument("--load-reps", type=int, default=1, help="loads per engine and data set")
    p.add_argument("--hprd", default=default_hprd(),
                   help="HPRD directory (default ../shared/data/hprd; skipped when absent)")
    p.add_argument("--hprd-cap", type=float, default=20.0, help="seconds per HPRD query (default 20; quick 10)")
    p.add_argument("--hprd-queries", type=int, help="only the first N HPRD queries (quick: 10)")
    p.add_argument("--mid", default=MID_DEFAULT,
                   help=f"workload 1 graph: persons,titles,credits (default {MID_DEFAULT})")
    p.add_argument("--big", default="1000000,700000,4200000",
                   help="workload 2 graph: persons,titles,credits (default 1000000,700000,4200000)")
    p.add_argument("--ttc14", default="50000,163000",
                   help="workload 5: the TTC 2014 case's N (blocks) per synthetic model (default "
                        "50000,163000: 1.0 M and 3.26 M movies and persons, the element counts of "
                        "the case's imdb-200000 and imdb-all models; quick 20,200)")
    p.add_argument("--only", default="1,2,3,4,5",
                   help="workloads to run, e.g. 1,3: 1 and 2 the IMDb-like graphs, 3 HPRD, 4 "
                        "loading, 5 the TTC 2014 models (a graph is always loaded, workload 4, "
                        "before its queries run)")
    p.add_argument("--mem-gb", type=int, default=6,
                   help="memory limit of DuckDB and of Kùzu's and LadybugDB's buffer pool in GiB "
                        "(default 6; the engines' own default is 80 %% of RAM)")
    p.add_argument("--peers", default=",".join(ALL_PEERS),
                   help="peer engines to run, a subset of duckdb,kuzu,ladybug,igraph (default all "
                        "four; only these need to be installed; ladybug is LadybugDB, Kùzu's "
                        "maintained fork)")
    p.add_argument("--gemp-base", metavar="PATH",
                   help="a gemp binary built before a change (same-run A/B): it loads its own "
                        "snapshot and runs every IMDb query on the host backend beside this build; "
                        "the tables gain its column and 'gemp host ÷ base build'")
    p.add_argument("--docs", default=os.path.join(ROOT, "docs", "benchmarks.md"),
                   help="markdown file whose bench-peers section is rewritten")
    p.add_argument("--no-docs", action="store_true", help="do not write the markdown file")
    o = p.parse_args(argv)
    o.argv = argv
    if o.quick:
        o.reps = o.reps or 1
        o.cap = o.cap or 30.0
        o.load_cap = o.load_cap or 60.0
        o.hprd_queries = o.hprd_queries or 10
        o.hprd_cap = min(o.hprd_cap, 10.0)
        if "--mid" not in argv:
            o.mid = "10000,7000,42000"
        if "--big" not in argv:
            o.big = "30000,21000,126000"
        if "--ttc14" not in argv:
            o.ttc14 = "20,200"
        if "--docs" not in argv:
            o.no_docs = True
    o.out = o.out or os.path.join(ROOT, "bench-data", "peers-quick" if o.quick else "peers")
    o.reps = o.reps or 3
    o.cap = o.cap or 120.0
    o.load_cap = o.load_cap or 300.0
    o.only = {int(x) for x in o.only.split(",") if x}
    o.peers = [x for x in o.peers.split(",") if x]
    unknown = [x for x in o.peers if x not in ALL_PEERS]
    if unknown:
        p.error(f"--peers: unknown engine(s) {', '.join(unknown)} (known: {', '.join(ALL_PEERS)})")
    o.ttc14_blocks = [int(x) for x in o.ttc14.split(",") if x]
    if any(b < 1 for b in o.ttc14_blocks):
        p.error("--ttc14: every N must be at least 1")
    return o


def main(argv):
    o = parse_args(argv)
    os.environ["BENCH_PEERS_MEM_GB"] = str(o.mem_gb)  # read by the workers
    load_start = " ".join(open("/proc/loadavg").read().split()[:3])
    started = datetime.datetime.utcnow()
    bench = Bench(o)
    bench.log(f"bench-peers: load average at start {load_start}; output in {o.out}")
    vers = versions(o.peers)
    bench.log(f"versions: {vers}")
    datasets = {}
    failed = None
    try:
        plan = []
        if 1 in o.only or 4 in o.only:
            plan.append(("imdb-mid", o.mid, W1 if 1 in o.only else []))
        if 2 in o.only:
            plan.append(("imdb-big", o.big, W2))
        for name, sizes, queries in plan:
            persons, titles, credits = (int(x) for x in sizes.split(","))
            datasets[name] = {"persons": persons, "titles": titles, "credits": credits}
            d, data, size = bench.dataset(name, imdb_generate_args(sizes))
            bench.log(f"{name}: loading ({size / 1e6:.0f} MB of TSV)")
            stores = bench.load(name, d, data, size)
            for q in queries:
                bench.log(f"{name}: {q}")
                bench.run_query(name, name, q, stores)
        if 5 in o.only:
            for blocks in o.ttc14_blocks:
                name = f"ttc14-{blocks}"
                datasets[name] = {"blocks": blocks}
                d, data, size = bench.dataset(name, ["ttc14", "--blocks", str(blocks)])
                bench.log(f"{name}: loading ({size / 1e6:.0f} MB of TSV)")
                stores = bench.load(name, d, data, size)
                for q in W5:
                    bench.log(f"{name}: {q}")
                    bench.run_query(name, name, q, stores, ttc14_expected(q, blocks))
        if 3 in o.only:
            bench.log("hprd")
            bench.hprd()
    except RunFailed as e:
        failed = str(e)
    finished = datetime.datetime.utcnow()
    csv_path = bench.write_csv() if bench.rows else None
    if failed:
        log_failure(bench, failed, csv_path)
        return 1
    m = machine(load_start)
    section = report(bench, m, vers, datasets, started, finished)
    md_path = os.path.join(o.out, "bench-peers.md")
    open(md_path, "w", encoding="utf-8").write(section + "\n")
    if not o.no_docs:
        write_docs(o.docs, section)
        bench.log(f"wrote the table into {o.docs}")
    print(section)
    bench.log(f"raw times: {csv_path}; table: {md_path}; "
              f"{(finished - started).total_seconds():.0f} s in all")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker_main(sys.argv[2:])
    else:
        sys.exit(main(sys.argv[1:]))
