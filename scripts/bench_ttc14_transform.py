#!/usr/bin/env python3
"""TTC 2014 Movie Database Case transformation times (driven by scripts/bench-ttc14-transform).

For each model size (N blocks of `gemp generate ttc14`, cached under bench-data/ttc14-transform/):
load the generated IMDb TSV dump once into a .gemp snapshot (timed apart), then run
`gemp transform --model SNAP RULES -o OUT.gemp --json` --runs times for each rule file
(datasets/queries/ttc14/couples.transform.cypher and cliques.transform.cypher), recording the wall
time and peak resident memory of each process and its change report. The report's counts must equal
the case's closed form (src/generate/ttc14.rs; scripts/bench_peers.py's ttc14_expected):

  couples   3N Couple nodes (2 properties each), 6N p1/p2 links + 15N commonMovies links = 21N
  cliques   N Clique nodes (2 properties each), 3N persons links + 5N commonMovies links = 8N

and a second check counts the Couple / Clique nodes and their commonMovies links in the written
snapshot with `gemp match`, and its nodes and edges with `gemp info`. Any mismatch or failed run
makes the exit status non-zero.

The default sizes are the block counts whose model has about 1.0 M and 3.26 M elements (the element
counts of the case's imdb-200000 and imdb-all models), with the elements per block measured on a
generated and loaded 1-block model (nodes only, the case's model objects, as scripts/bench-peers counts
them; nodes + edges with --elements nodes+edges).

Writes OUT/ttc14-transform.csv (every load and run) and OUT/ttc14-transform.md (medians), OUT by
default target/bench-ttc14-transform/UTC-TIMESTAMP. Nothing is written into docs/. The gemp binary
is $GEMP_BIN, else target/release/gemp (under $CARGO_TARGET_DIR when that is set).
"""

import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench_peers import cpu_and_memory, run_capped

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMP = os.environ.get("GEMP_BIN") or os.path.join(
    os.path.abspath(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")),
    "release", "gemp")
RULES_DIR = os.path.join(ROOT, "datasets", "queries", "ttc14")
RULES = {"couples": "couples.transform.cypher", "cliques": "cliques.transform.cypher"}
# The label each rule file creates (counted in the written snapshot as the second check).
LABEL = {"couples": "Couple", "cliques": "Clique"}
# The TSV files `gemp generate ttc14` writes (as scripts/bench_peers.py's TSV_FILES).
TSV_FILES = ["title.basics", "name.basics", "title.principals", "title.ratings"]
# The case's IMDb models whose element counts the default sizes take, and FunnyQT's published
# transformation times on them (8 cores, real IMDb data; as in scripts/bench_peers.py).
CASE_MODELS = [("imdb-200000", 1_000_000), ("imdb-all", 3_260_000)]
FUNNYQT = {"couples": {"imdb-200000": "35.4 s", "imdb-all": "117.8 s"},
           "cliques": {"imdb-200000": "619 s", "imdb-all": "4295 s"}}
FIELDS = ["blocks", "elements", "phase", "rule", "run", "status", "seconds", "peak_rss_mib",
          "nodes_created", "relationships_created", "properties_set", "matches",
          "expected_nodes", "expected_relationships", "expected_properties", "note"]


def expected(rule, blocks):
    """The case's closed form for N blocks: nodes, relationships and properties the rule creates."""
    if rule == "couples":
        return {"nodes": 3 * blocks, "relationships": 2 * 3 * blocks + 15 * blocks,
                "properties": 2 * 3 * blocks, "links": 15 * blocks}
    return {"nodes": blocks, "relationships": 3 * blocks + 5 * blocks,
            "properties": 2 * blocks, "links": 5 * blocks}


def parse_args():
    p = argparse.ArgumentParser(
        prog="scripts/bench-ttc14-transform",
        description="TTC 2014 Movie Database Case: couples and 3-cliques transformation times.")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: sizes 20,200 blocks, 1 run")
    p.add_argument("--out", default=None,
                   help="output directory (default target/bench-ttc14-transform/UTC-TIMESTAMP)")
    p.add_argument("--data", default=os.path.join(ROOT, "bench-data", "ttc14-transform"),
                   help="cache of the generated models and their snapshots "
                        "(default bench-data/ttc14-transform)")
    p.add_argument("--sizes", default=None,
                   help="block counts N, comma-separated (default: the N of about 1.0 M and "
                        "3.26 M elements, computed from a 1-block model)")
    p.add_argument("--elements", default="nodes", choices=["nodes", "nodes+edges"],
                   help="what counts as a model element when sizing the defaults (default "
                        "nodes: movies and persons, the case's model objects, as scripts/bench-peers counts "
                        "them; nodes+edges also counts the acting links)")
    p.add_argument("--runs", type=int, default=3, help="transform runs per size and rule (median)")
    p.add_argument("--rules", default=",".join(RULES),
                   help="rule files to run, a subset of couples,cliques (default both)")
    p.add_argument("--cap", type=float, default=3600.0,
                   help="seconds one transform (or load) may take (default 3600)")
    p.add_argument("--keep", action="store_true",
                   help="keep the transformed snapshots (default: deleted after the checks)")
    a = p.parse_args()
    if a.quick:
        a.runs = 1
        if a.sizes is None:
            a.sizes = "20,200"
    a.rules = [r for r in a.rules.split(",") if r]
    for r in a.rules:
        if r not in RULES:
            p.error(f"--rules: unknown rule {r} (known: {', '.join(RULES)})")
    if a.runs < 1:
        p.error("--runs must be at least 1")
    return a


class Failed(Exception):
    pass


def run_measured(cmd, cap):
    """Runs cmd (bench_peers.run_capped: its own process group, killed after `cap` seconds, reaped
    with wait4); returns (status ok|timeout|error, wall seconds, peak RSS KiB — the kernel's
    ru_maxrss of that process —, stdout, stderr)."""
    stats = {}
    status, seconds, out, err = run_capped(cmd, cap, stats=stats)
    return status, seconds, stats.get("peak_rss_kib", 0), out, err


def last_line(stderr):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def gemp(*args, cap=600.0):
    """A helper gemp command (not measured); its stdout, or Failed."""
    status, _, _, out, err = run_measured([GEMP, "-q", *args], cap)
    if status != "ok":
        raise Failed(f"gemp {' '.join(args)}: {status}: {last_line(err)}")
    return out


def info(snapshot):
    parsed = json.loads(gemp("info", snapshot, "--json", "--top", "0"))
    return parsed["nodes"], parsed["edges"]


def count(snapshot, query_text):
    """The single `n` a count query returns on snapshot (host matcher)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cypher", delete=False) as f:
        f.write(query_text + "\n")
        qfile = f.name
    try:
        out = gemp("match", "-m", snapshot, qfile, "--backend", "host", "--format", "jsonl")
    finally:
        os.remove(qfile)
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return rows[0]["n"] if rows else 0


def dataset(args, blocks, log):
    """The generated TSV dump of N blocks (regenerated only when absent or made otherwise)."""
    d = os.path.join(args.data, f"ttc14-{blocks}")
    data = os.path.join(d, "data")
    stamp = os.path.join(data, "PARAMS")
    params = f"ttc14 --blocks {blocks}"
    if not (os.path.exists(stamp) and open(stamp).read() == params):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(data)
        log(f"generating ttc14-{blocks}: gemp generate {params}")
        gemp("generate", *params.split(), "-o", data, cap=args.cap)
        open(stamp, "w").write(params)
    size = sum(os.path.getsize(os.path.join(data, f + ".tsv")) for f in TSV_FILES)
    return d, data, size


def elements_per_block(args, log):
    """Elements of a generated and loaded 1-block model, as gemp reports them."""
    d, data, _ = dataset(args, 1, log)
    snap = os.path.join(d, "model.gemp")
    gemp("load", data, "-o", snap, "--force")
    nodes, edges = info(snap)
    per = nodes + edges if args.elements == "nodes+edges" else nodes
    log(f"a 1-block model loads as {nodes} nodes and {edges} edges: {per} elements per block "
        f"({args.elements})")
    return nodes, edges, per


def case_model(elements):
    """The case model whose element count is within 5 % of `elements`, if any."""
    for name, n in CASE_MODELS:
        if abs(elements - n) <= 0.05 * n:
            return name
    return None


def median(xs):
    return statistics.median(xs) if xs else None


def machine():
    cpu, mem = cpu_and_memory()
    return f"{platform.node()}, {cpu}, {os.cpu_count()} CPUs, {mem:.0f} GiB, {platform.platform()}"


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def fmt_s(x):
    if x is None:
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def markdown(args, meta, sizes, rows, failures):
    out = [f"# TTC 2014 Movie Database Case: transformation times ({meta['started']})", "",
           f"Machine: {meta['machine']}. Load average (1, 5, 15 min) at the start "
           f"{meta['load_start']}, at the end {meta['load_end']}. gemp: `{GEMP}` "
           f"({meta['version']}). Runs per size and rule: {args.runs} (medians).", "",
           f"Models: `gemp generate ttc14 --blocks N` (N blocks of 10 movies, 10 persons and 32 "
           f"acting credits), loaded once into a .gemp snapshot (the load is timed apart). A "
           f"1-block model loads as {meta['epb_nodes']} nodes and {meta['epb_edges']} edges; "
           f"elements here are {args.elements}, {meta['epb']} per block"
           + (", so the default sizes are the N of about 1.0 M and 3.26 M elements (the case's "
              "imdb-200000 and imdb-all models)." if meta["default_sizes"] else ".")
           + " Each transform is one `gemp transform --model SNAP RULES -o OUT.gemp --json` "
             "process: its time includes opening the snapshot and writing the output snapshot. "
             "The created counts are the change report's; they must equal the case's closed form "
             "(couples: 3N Couple nodes, 6N p1/p2 + 15N commonMovies = 21N relationships; "
             "3-cliques: N Clique nodes, 3N persons + 5N commonMovies = 8N relationships), and "
             "`gemp match` / `gemp info` on the written snapshot must agree.", "",
           "FunnyQT's published times (8 cores) are on the case's **real IMDb** models of the same "
           "element count, on another machine: the synthetic blocks match only the element "
           "count, not the work, so only the order of magnitude compares.", "",
           "## Load", "",
           "| blocks | elements | nodes | edges | TSV MB | load s | peak RSS MiB | snapshot MB |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sizes:
        if "load_s" not in s:
            continue
        out.append(f"| {s['blocks']:,} | {s['elements']:,} | {s['nodes']:,} | {s['edges']:,} | "
                   f"{s['tsv'] / 1e6:.1f} | {fmt_s(s['load_s'])} | {s['load_rss'] / 1024:.0f} | "
                   f"{s['snap'] / 1e6:.1f} |")
    out += ["", "## Transform", "",
            "| blocks | elements | rule file | transform s (median) | peak RSS MiB | "
            "created nodes / rels | expected nodes / rels | FunnyQT (published, real IMDb) |",
            "|---:|---:|---|---:|---:|---:|---:|---|"]
    for s in sizes:
        for rule in args.rules:
            rs = [r for r in rows if r["phase"] == "transform" and r["blocks"] == s["blocks"]
                  and r["rule"] == rule]
            if not rs:
                continue
            ok = [r for r in rs if r["status"] == "ok"]
            t = median([float(r["seconds"]) for r in ok])
            rss = max((float(r["peak_rss_mib"]) for r in ok), default=None)
            last = ok[-1] if ok else rs[-1]
            exp = expected(rule, s["blocks"])
            created = (f"{last['nodes_created']:,} / {last['relationships_created']:,}"
                       if ok else "–")
            name = case_model(s["elements"])
            fq = f"{FUNNYQT[rule][name]} ({name})" if name else "–"
            note = "" if len(ok) == len(rs) else f" ({len(rs) - len(ok)} of {len(rs)} failed)"
            out.append(f"| {s['blocks']:,} | {s['elements']:,} | `{RULES[rule]}` | "
                       f"{fmt_s(t)}{note} | {'–' if rss is None else f'{rss:.0f}'} | {created} | "
                       f"{exp['nodes']:,} / {exp['relationships']:,} | {fq} |")
    out.append("")
    if failures:
        out += ["## Failures", ""] + [f"- {f}" for f in failures] + [""]
    return "\n".join(out)


def main():
    args = parse_args()
    if not os.access(GEMP, os.X_OK):
        sys.exit(f"bench-ttc14-transform: {GEMP} not found (build it, or set GEMP_BIN)")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or os.path.join(ROOT, "target", "bench-ttc14-transform", stamp)
    os.makedirs(out, exist_ok=True)
    os.makedirs(args.data, exist_ok=True)
    log_file = open(os.path.join(out, "ttc14-transform.log"), "a", encoding="utf-8")

    def log(msg):
        line = f"[{datetime.datetime.now(datetime.timezone.utc):%H:%M:%S}] {msg}"
        print(line, file=sys.stderr, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    meta = {"started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(), "load_start": loadavg(),
            "version": subprocess.run([GEMP, "-V"], capture_output=True, text=True).stdout.strip(),
            "default_sizes": args.sizes is None}
    log(f"bench-ttc14-transform: gemp {GEMP}; load average at start {meta['load_start']}; "
        f"output in {out}")
    rows, failures, sizes = [], [], []

    def record(**row):
        base = {k: "" for k in FIELDS}
        base.update(row)
        rows.append(base)
        return base

    try:
        meta["epb_nodes"], meta["epb_edges"], meta["epb"] = elements_per_block(args, log)
        if args.sizes is None:
            blocks_list = [round(n / meta["epb"]) for _, n in CASE_MODELS]
            log("default sizes: " + ", ".join(
                f"{name} ({n:,} elements) -> N = {b:,} blocks ({b * meta['epb']:,} elements)"
                for (name, n), b in zip(CASE_MODELS, blocks_list)))
        else:
            blocks_list = [int(x) for x in args.sizes.split(",") if x.strip()]
        if not blocks_list or any(b < 1 for b in blocks_list):
            raise Failed("--sizes: every N must be at least 1")
        for blocks in blocks_list:
            elements = blocks * meta["epb"]
            s = {"blocks": blocks, "elements": elements}
            sizes.append(s)
            d, data, s["tsv"] = dataset(args, blocks, log)
            snap = os.path.join(d, "model.gemp")
            if os.path.exists(snap):
                os.remove(snap)  # loaded afresh each run: the load is timed too
            log(f"ttc14-{blocks}: loading {s['tsv'] / 1e6:.1f} MB of TSV")
            status, wall, rss, _, err = run_measured([GEMP, "-q", "load", data, "-o", snap],
                                                     args.cap)
            record(blocks=blocks, elements=elements, phase="load", status=status,
                   seconds=f"{wall:.4f}", peak_rss_mib=f"{rss / 1024:.1f}",
                   note="" if status == "ok" else last_line(err))
            if status != "ok":
                failures.append(f"ttc14-{blocks} load: {status}: {last_line(err)}")
                continue
            s.update(load_s=wall, load_rss=rss, snap=os.path.getsize(snap))
            s["nodes"], s["edges"] = info(snap)
            log(f"  loaded in {wall:.2f} s: {s['nodes']:,} nodes, {s['edges']:,} edges")
            if (s["nodes"], s["edges"]) != (blocks * meta["epb_nodes"], blocks * meta["epb_edges"]):
                failures.append(f"ttc14-{blocks}: loaded {s['nodes']} nodes and {s['edges']} "
                                f"edges, not {blocks} times the 1-block model's")
            for rule in args.rules:
                rules = os.path.join(RULES_DIR, RULES[rule])
                exp = expected(rule, blocks)
                target = os.path.join(d, f"{rule}.out.gemp")
                good = None
                for run in range(1, args.runs + 1):
                    status, wall, rss, stdout, err = run_measured(
                        [GEMP, "-q", "transform", "--model", snap, rules, "-o", target, "--force",
                         "--json"], args.cap)
                    row = record(blocks=blocks, elements=elements, phase="transform", rule=rule,
                                 run=run, status=status, seconds=f"{wall:.4f}",
                                 peak_rss_mib=f"{rss / 1024:.1f}",
                                 expected_nodes=exp["nodes"],
                                 expected_relationships=exp["relationships"],
                                 expected_properties=exp["properties"])
                    if status != "ok":
                        row["note"] = last_line(err)
                        failures.append(f"ttc14-{blocks} {rule} run {run}: {status} after "
                                        f"{wall:.1f} s: {row['note']}")
                        log(f"  {rule} run {run}/{args.runs}: {status} after {wall:.1f} s")
                        continue
                    report = json.loads(stdout)
                    tot = report["totals"]
                    row.update(nodes_created=tot["nodes_created"],
                               relationships_created=tot["relationships_created"],
                               properties_set=tot["properties_set"],
                               matches=" ".join(str(st["matches"]) for st in report["statements"]))
                    log(f"  {rule} run {run}/{args.runs}: {wall:.2f} s, peak RSS "
                        f"{rss / 1024:.0f} MiB, +{tot['nodes_created']} nodes, "
                        f"+{tot['relationships_created']} relationships")
                    got = (tot["nodes_created"], tot["relationships_created"],
                           tot["properties_set"], tot["nodes_deleted"],
                           tot["relationships_deleted"])
                    want = (exp["nodes"], exp["relationships"], exp["properties"], 0, 0)
                    if got != want:
                        failures.append(
                            f"ttc14-{blocks} {rule} run {run}: created (nodes, relationships, "
                            f"properties, deleted nodes, deleted relationships) {got}, the closed "
                            f"form says {want}")
                    good = tot
                if good is None:
                    continue
                # The second check, on the snapshot the last good run wrote.
                label = LABEL[rule]
                n = count(target, f"MATCH (c:{label}) RETURN count(c) AS n")
                links = count(target, f"MATCH (c:{label})-[:commonMovies]->(t:Title) "
                                      f"RETURN count(*) AS n")
                nodes, edges = info(target)
                want = (exp["nodes"], exp["links"], s["nodes"] + exp["nodes"],
                        s["edges"] + exp["relationships"])
                got = (n, links, nodes, edges)
                log(f"  {rule}: the written snapshot holds {n:,} {label} nodes with {links:,} "
                    f"commonMovies links, {nodes:,} nodes and {edges:,} edges in all")
                if got != want:
                    failures.append(f"ttc14-{blocks} {rule}: the written snapshot holds "
                                    f"({label} nodes, commonMovies links, nodes, edges) {got}, "
                                    f"expected {want}")
                if not args.keep:
                    os.remove(target)
    except Failed as e:
        failures.append(str(e))
    meta["load_end"] = loadavg()
    meta.setdefault("epb_nodes", "?")
    meta.setdefault("epb_edges", "?")
    meta.setdefault("epb", "?")
    with open(os.path.join(out, "ttc14-transform.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    table = markdown(args, meta, sizes, rows, failures)
    with open(os.path.join(out, "ttc14-transform.md"), "w", encoding="utf-8") as f:
        f.write(table + "\n")
    print(table)
    log(f"wrote {out}/ttc14-transform.csv and ttc14-transform.md")
    if failures:
        log(f"FAILED: {len(failures)} problem(s); see the Failures section")
        sys.exit(1)


if __name__ == "__main__":
    main()
