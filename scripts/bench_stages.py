#!/usr/bin/env python3
"""Every combination of stage algorithms, timed stage by stage (driven by scripts/bench-stages).

gemp's matching runs in three swappable stages (src/engines/staged): the filter (candidate sets),
the order (visiting order) and the join (enumeration), each by GEMP's or GpSense's algorithm. As in
Sun & Luo's subgraph-matching study, this benchmark runs every one of the 2 × 2 × 2 combinations
(`gemp match/batch --filter A --order B --join C --timings`) on the same queries and reports the
median time of each stage, their total, and the total over that of the default stages
(gemp/gemp/gemp) measured in the same run.

Workloads:
  hprd  HPRD (../shared/data/hprd, Sun & Luo's data set): the first N query graphs, every
        combination over all of them in one `gemp batch --count` process (one process per
        combination and repetition, capped). Every count must equal the default engine's
        (`gemp batch` without stage options) and the published one: a difference stops the run
        with exit code 1 and leaves docs/benchmarks.md alone.
  imdb  The IMDb-like 100k-person graph of scripts/bench-peers (workload 1; its
        bench-data/peers/imdb-mid/model.gemp is reused when present, else generated here) with
        four-actors-jack, actor-director-pairs and costar-triangle (benches/peers/*.gemp.cypher),
        one `gemp match` process per run. The staged engine always enumerates (the default engine
        counts some of these factorised), so a run that hits the cap is recorded as capped, not a
        failure; counts of runs that finish must equal the default engine's.

Times are those of gemp's `--timings` line: filter, order, join, and total = filter + order +
join + results (the staged engine's own time; opening the model and parsing are not in it).

Usage: scripts/bench-stages [--quick] [--out DIR] [--reps N] [--cap S] ... (see --help).
"""

import argparse
import csv
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no scripts/__pycache__ from importing bench_peers
import bench_peers as bp  # noqa: E402  (run_capped, data sets, HPRD, formatting)

ROOT = bp.ROOT
GEMP = bp.GEMP
BEGIN = "<!-- bench-stages:begin -->"
END = "<!-- bench-stages:end -->"
HEADING = "## Stage algorithms side by side (`scripts/bench-stages`)"
ALGOS = ("gemp", "gpsense")
DEFAULT = ("gemp", "gemp", "gemp")
# Every combination, the default stages first.
COMBOS = [DEFAULT] + [(f, o, j) for f in ALGOS for o in ALGOS for j in ALGOS if (f, o, j) != DEFAULT]
IMDB_QUERIES = ["four-actors-jack", "actor-director-pairs", "costar-triangle"]
STAGES = ("filter", "order", "join", "results")
# Seconds the default engine (the reference counts, not timed) may take per process.
REFERENCE_CAP = 300.0

TIMINGS_RE = re.compile(
    r"timings \[host stages filter=(\w+) order=(\w+) join=(\w+)\]: read input (\S+), "
    r"filter (\S+), order (\S+), join (\S+), results (\S+), output (\S+)")


class RunFailed(Exception):
    """A combination's count differs from the default engine's, or gemp failed."""


def combo_name(c):
    return "/".join(c)


def combo_args(c):
    return ["--filter", c[0], "--order", c[1], "--join", c[2]]


def parse_timings(text, combo):
    """{stage: seconds} from a staged `--timings` line (total = filter + order + join + results);
    None when the text holds none. The line must name the combination asked for."""
    m = TIMINGS_RE.search(text)
    if not m:
        return None
    if tuple(m.group(1, 2, 3)) != combo:
        raise RunFailed(f"asked for {combo_name(combo)}, gemp ran {'/'.join(m.group(1, 2, 3))}")
    t = {"filter": m.group(5), "order": m.group(6), "join": m.group(7), "results": m.group(8)}
    t = {k: bp.parse_duration(v) for k, v in t.items()}
    t["total"] = sum(t[s] for s in STAGES)
    return t


def fmt_time(s):
    """bench_peers' format, with microseconds below 0.1 ms (the order stage often is)."""
    return f"{s * 1e6:.0f} µs" if s < 1e-4 else bp.fmt_time(s)


def git_rev():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "?"


def load_average():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Bench:
    def __init__(self, o):
        self.o = o
        self.rows = []
        os.makedirs(o.out, exist_ok=True)
        self.log_file = open(os.path.join(o.out, "bench-stages.log"), "a", encoding="utf-8")
        self.sets = {}  # query set -> description (counts) for the table

    def log(self, msg):
        line = f"[{datetime.datetime.utcnow():%H:%M:%S}] {msg}"
        print(line, flush=True)
        self.log_file.write(line + "\n")
        self.log_file.flush()

    def record(self, **row):
        base = {"workload": "", "query_set": "", "query": "", "combination": "", "rep": 0,
                "status": "", "filter_s": "", "order_s": "", "join_s": "", "results_s": "",
                "total_s": "", "wall_s": "", "result": "", "reference": "", "note": ""}
        for k, v in row.pop("t", {}).items():
            base[f"{k}_s"] = f"{v:.6f}"
        base.update(row)
        for k in ("result", "reference"):
            if isinstance(base[k], dict):
                base[k] = json.dumps(base[k], sort_keys=True)
        self.rows.append(base)
        return base

    # ---- HPRD -----------------------------------------------------------------------------

    def hprd(self):
        hdir = self.o.hprd
        graph = os.path.join(hdir, "HPRD.graph")
        if not os.path.exists(graph):
            self.log(f"HPRD not found at {hdir}: skipped")
            return
        published = bp.hprd_expected(hdir)
        qdir = os.path.join(hdir, "queries")
        files = bp.hprd_query_files(hdir, self.o.hprd_queries)
        names = [f[:-6] for f in files]
        paths = [os.path.join(qdir, f) for f in files]
        qset = f"HPRD, {len(files)} queries (sums)"
        snap = os.path.join(self.o.out, "hprd.gemp")
        status, _, _, err = bp.run_capped([GEMP, "-q", "load", graph, "-o", snap, "--force"], 300)
        if status != "ok":
            raise RunFailed(f"gemp could not load HPRD: {bp.last_line(err)}")
        # The default engine (no stage options): the reference counts, checked against the
        # published ones.
        outdir = os.path.join(self.o.out, "hprd-default")
        cmd = [GEMP, "-q", "batch", "--model", snap, "--count", "--out", outdir, "--force", *paths]
        # Not timed, so not held to the combinations' cap.
        status, wall, _, err = bp.run_capped(cmd, max(self.o.hprd_cap, REFERENCE_CAP))
        if status != "ok":
            raise RunFailed(f"the default engine's batch on HPRD: {status} {bp.last_line(err)}")
        reference = {n: self.read_count(outdir, n) for n in names}
        wrong = {n: (c, published[n]) for n, c in reference.items()
                 if n in published and c != published[n]}
        if wrong:
            raise RunFailed(f"COUNT MISMATCH: the default engine against HPRD's published counts "
                            f"(got, published): {wrong}")
        self.log(f"  hprd default engine: {len(names)} queries in {wall:.2f} s, counts equal to "
                 "the published ones")
        self.sets[qset] = "counts of every combination equal to the default engine's and the " \
                          "published ones"
        for combo in self.combos():
            outdir = os.path.join(self.o.out, "hprd-" + "-".join(combo))
            for rep in range(1, self.o.reps + 1):
                cmd = [GEMP, "-q", "batch", "--model", snap, *combo_args(combo), "--count",
                       "--timings", "--out", outdir, "--force", *paths]
                shutil.rmtree(outdir, ignore_errors=True)
                status, wall, out, err = bp.run_capped(cmd, self.o.hprd_cap)
                per_query = {}
                for line in err.splitlines():
                    name, _, rest = line.partition(": ")
                    if name in reference and rest.startswith("timings ["):
                        per_query[name] = parse_timings(rest, combo)
                done = 0
                for n in names:
                    t = per_query.get(n)
                    if t is None:
                        continue
                    count = self.read_count(outdir, n)
                    if count != reference[n]:
                        raise RunFailed(f"COUNT MISMATCH on HPRD {n}: {combo_name(combo)} "
                                        f"{count}, the default engine {reference[n]}")
                    done += 1
                    self.record(workload="hprd", query_set=qset, query=n,
                                combination=combo_name(combo), rep=rep, status="ok", t=t,
                                result={"embeddings": count},
                                reference={"embeddings": reference[n]})
                if status == "error":
                    raise RunFailed(f"{combo_name(combo)} batch failed on HPRD: "
                                    f"{bp.last_line(err)}")
                sums = {k: sum(t[k] for t in per_query.values()) for k in (*STAGES, "total")}
                row_status = "ok" if status == "ok" and done == len(names) else "capped"
                self.record(workload="hprd", query_set=qset, query="(all)",
                            combination=combo_name(combo), rep=rep, status=row_status, t=sums,
                            wall_s=f"{wall:.4f}",
                            note="" if row_status == "ok" else
                            f"{done} of {len(names)} queries done")
                self.log(f"  hprd {combo_name(combo)} #{rep}: {row_status}, {done}/{len(names)} "
                         f"queries; filter {sums['filter']:.3f} s, order {sums['order']:.3f} s, "
                         f"join {sums['join']:.3f} s, total {sums['total']:.3f} s "
                         f"(process {wall:.2f} s)")
                if row_status != "ok":
                    break

    @staticmethod
    def read_count(outdir, name):
        with open(os.path.join(outdir, name + ".count"), encoding="utf-8") as f:
            return int(f.read().split()[0])

    # ---- IMDb-like graph ------------------------------------------------------------------

    def imdb_model(self):
        """The snapshot of the 100k-person graph: --imdb-model, else bench-peers' (when it holds
        the same graph), else this benchmark's own (generated and loaded unless --quick)."""
        if self.o.imdb_model:
            return self.o.imdb_model, "given"
        params = bp.dataset_params(bp.imdb_generate_args(bp.MID_DEFAULT))
        for d in (os.path.join(ROOT, "bench-data", "peers", "imdb-mid"),
                  os.path.join(self.o.out, "imdb-mid")):
            snap = os.path.join(d, "model.gemp")
            stamp = os.path.join(d, "data", "PARAMS")
            if os.path.exists(snap) and os.path.exists(stamp) and open(stamp).read() == params:
                return snap, "reused"
        if self.o.quick:
            return None, "absent"
        d, data, _ = bp.generate_dataset(self.o.out, "imdb-mid",
                                         bp.imdb_generate_args(bp.MID_DEFAULT), self.log)
        snap = os.path.join(d, "model.gemp")
        self.log(f"loading {data} into {snap}")
        subprocess.run([GEMP, "-q", "load", data, "-o", snap, "--force"], check=True)
        return snap, "generated"

    def imdb(self):
        snap, how = self.imdb_model()
        if snap is None:
            self.log("imdb: no bench-data/peers/imdb-mid/model.gemp (--quick does not generate "
                     "it): skipped")
            return
        self.log(f"imdb: {how} {snap}")
        for q in self.o.imdb_queries:
            qfile = os.path.join(bp.QUERIES, q + ".gemp.cypher")
            qset = f"IMDb-like 100k persons: {q}"
            base = [GEMP, "-q", "match", "--model", snap, "--format", "csv"]
            status, wall, out, err = bp.run_capped(base + [qfile], max(self.o.cap, REFERENCE_CAP))
            if status != "ok":
                raise RunFailed(f"the default engine on {q}: {status} {bp.last_line(err)}")
            reference = self.csv_counts(out)
            self.sets[qset] = ", ".join(f"{k} {v:,}" for k, v in reference.items())
            self.log(f"  {q}: default engine {reference} in {wall:.2f} s")
            for combo in self.combos():
                for rep in range(1, self.o.reps + 1):
                    cmd = base + combo_args(combo) + ["--timings", qfile]
                    status, wall, out, err = bp.run_capped(cmd, self.o.cap)
                    if status == "error":
                        raise RunFailed(f"{combo_name(combo)} failed on {q}: {bp.last_line(err)}")
                    if status == "timeout":
                        self.record(workload="imdb", query_set=qset, query=q,
                                    combination=combo_name(combo), rep=rep, status="capped",
                                    wall_s=f"{wall:.4f}", reference=reference,
                                    note=f"over the {self.o.cap:g} s cap")
                        self.log(f"  {q} {combo_name(combo)} #{rep}: capped after {wall:.1f} s")
                        break
                    t = parse_timings(err, combo)
                    if t is None:
                        raise RunFailed(f"{combo_name(combo)} on {q}: no timings line")
                    counts = self.csv_counts(out)
                    if counts != reference:
                        raise RunFailed(f"COUNT MISMATCH on {q}: {combo_name(combo)} {counts}, "
                                        f"the default engine {reference}")
                    self.record(workload="imdb", query_set=qset, query=q,
                                combination=combo_name(combo), rep=rep, status="ok", t=t,
                                wall_s=f"{wall:.4f}", result=counts, reference=reference)
                    self.log(f"  {q} {combo_name(combo)} #{rep}: filter {t['filter']:.3f} s, "
                             f"order {t['order']:.3f} s, join {t['join']:.3f} s, "
                             f"total {t['total']:.3f} s {counts}")

    @staticmethod
    def csv_counts(out):
        lines = out.strip().splitlines()
        header, values = lines[0].split(","), lines[1].split(",")
        # An aggregate over no rows prints empty (null).
        return {h: int(v or 0) for h, v in zip(header, values)}

    # ---- output ---------------------------------------------------------------------------

    def combos(self):
        return self.o.combos

    def write_csv(self):
        path = os.path.join(self.o.out, "bench-stages.csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(self.rows[0].keys()))
            w.writeheader()
            w.writerows(self.rows)
        return path


def medians(rows):
    """Median per stage and total over the successful runs of one (query set, combination);
    None when none finished."""
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        return None
    return {k: statistics.median(float(r[f"{k}_s"]) for r in ok)
            for k in ("filter", "order", "join", "total")}, len(ok)


def table(rows, o):
    """One markdown row per (query set, combination)."""
    summary = [r for r in rows if r["workload"] == "imdb" or r["query"] == "(all)"]
    lines = ["| query set | combination (filter/order/join) | filter | order | join | total | "
             "÷ gemp/gemp/gemp |", "|---|---|---|---|---|---|---|"]
    for qset in dict.fromkeys(r["query_set"] for r in summary):
        srows = [r for r in summary if r["query_set"] == qset]
        cap = o.hprd_cap if srows[0]["workload"] == "hprd" else o.cap
        base = medians([r for r in srows if r["combination"] == combo_name(DEFAULT)])
        for combo in dict.fromkeys(r["combination"] for r in srows):
            crows = [r for r in srows if r["combination"] == combo]
            m = medians(crows)
            if m is None:
                note = next((r["note"] for r in crows if r["note"]), "")
                cells = ["—", "—", "—", f"> {cap:g} s (cap{'; ' + note if 'queries' in note else ''})"]
                ratio = "— (capped)"
            else:
                med, n = m
                cells = [fmt_time(med[k]) for k in ("filter", "order", "join")]
                cells.append(fmt_time(med["total"]) + f" (n={n})")
                if base is None:
                    ratio = f"< {bp.fmt_ratio(med['total'] / cap)} (default capped)"
                else:
                    ratio = f"**{bp.fmt_ratio(med['total'] / max(base[0]['total'], 1e-9))}**"
            lines.append(f"| {qset} | {combo} | " + " | ".join(cells) + f" | {ratio} |")
    return lines


def report(bench, started, finished, load_start, rev):
    o = bench.o
    cpu, mem = bp.cpu_and_memory()
    cmd = "scripts/bench-stages " + " ".join(o.argv) if o.argv else "scripts/bench-stages"
    load_end = load_average()
    out = [BEGIN, "",
           f"Produced by `{cmd}` on {started:%Y-%m-%d}, {started:%H:%M}–{finished:%H:%M} UTC "
           f"(gemp {rev}, Python {platform.python_version()}).",
           "",
           f"Machine: {os.cpu_count()} cores ({cpu}), {mem:.1f} GiB, {platform.platform()}. "
           f"**Load average at start: {load_start}** (at the end: {load_end})"
           + ("; other processes shared the cores, so absolute times are inflated and noisy"
              if float(load_start.split()[0]) >= 1 else "")
           + ". Compare the ratios, measured in the same run.",
           "",
           f"Each cell is the median over {o.reps} run(s) (n = runs that finished) of gemp's "
           "`--timings`: filter, order and join stages, and total = filter + order + join + "
           "result stage (opening the model and parsing the query are not in it). The staged "
           "engine always enumerates. HPRD: the first "
           f"{o.hprd_queries} query graphs in one `gemp batch --count` process per combination "
           f"and run (capped at {o.hprd_cap:g} s), times summed over the queries; IMDb-like graph "
           f"(`gemp generate imdb --seed 11`, {bp.MID_DEFAULT.split(',')[0]} persons, as "
           f"bench-peers' workload 1): one `gemp match` process per run, capped at {o.cap:g} s. "
           "÷ gemp/gemp/gemp: the total over the default stages' total on the same queries. "
           "Every count that finished equals the default engine's (a difference stops the run).",
           ""]
    sets = [s for s in dict.fromkeys(r["query_set"] for r in bench.rows)]
    if sets:
        out.append("Counts: " + "; ".join(f"{s}: {bench.sets.get(s, '—')}" for s in sets) + ".")
        out.append("")
    out += table(bench.rows, o)
    out += ["", f"Raw times: `bench-stages.csv` in the output directory ({os.path.relpath(o.out, ROOT)}).",
            "", END]
    return "\n".join(out)


def write_docs(path, section):
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n"
    if BEGIN in text and END in text:
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        text = text[:a] + section + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + HEADING + "\n\n" + section + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="scripts/bench-stages", description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Workloads and timing: see scripts/bench_stages.py's "
                                       "docstring and docs/benchmarks.md.")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 5 HPRD queries, the IMDb-like graph only when its data dir "
                        "already exists (not generated), 1 run each, 10 s caps, "
                        "docs/benchmarks.md not written")
    p.add_argument("--out", help="snapshots, result files, CSV, table and log (default "
                   "bench-data/stages; bench-data/stages-quick with --quick)")
    p.add_argument("--reps", type=int, help="runs per query set and combination (default 3; quick 1)")
    p.add_argument("--cap", type=float, help="seconds per IMDb run (default 20; quick 10); a "
                   "combination over the cap is recorded as capped")
    p.add_argument("--hprd", default=bp.default_hprd(),
                   help="HPRD directory (default ../shared/data/hprd; skipped when absent)")
    p.add_argument("--hprd-queries", type=int, help="the first N HPRD queries (default 20; quick 5)")
    p.add_argument("--hprd-cap", type=float, help="seconds per HPRD `gemp batch` process, i.e. "
                   "per combination and run over all its queries (default 120; quick 10)")
    p.add_argument("--imdb-model", help="snapshot of the IMDb-like 100k-person graph (default: "
                   "bench-data/peers/imdb-mid/model.gemp when it holds bench-peers' graph, else "
                   "generated into OUT/imdb-mid; --quick skips the workload when neither exists)")
    p.add_argument("--imdb-queries", default=",".join(IMDB_QUERIES),
                   help=f"queries of benches/peers/ to run (default {','.join(IMDB_QUERIES)})")
    p.add_argument("--only", default="hprd,imdb", help="workloads: hprd, imdb (default both)")
    p.add_argument("--combos", default="all",
                   help="combinations filter/order/join, comma-separated, e.g. "
                        "gemp/gemp/gemp,gpsense/gemp/gemp (default all 8; gemp/gemp/gemp is "
                        "always run, as the ratios' base)")
    p.add_argument("--docs", default=os.path.join(ROOT, "docs", "benchmarks.md"),
                   help="markdown file whose bench-stages section is rewritten")
    p.add_argument("--no-docs", action="store_true", help="do not write the markdown file")
    o = p.parse_args(argv)
    o.argv = argv
    if o.quick:
        o.reps = o.reps or 1
        o.cap = o.cap or 10.0
        o.hprd_cap = o.hprd_cap or 10.0
        o.hprd_queries = o.hprd_queries or 5
        if "--docs" not in argv:
            o.no_docs = True
    o.out = os.path.abspath(o.out or os.path.join(ROOT, "bench-data",
                                                  "stages-quick" if o.quick else "stages"))
    o.reps = o.reps or 3
    o.cap = o.cap or 20.0
    o.hprd_cap = o.hprd_cap or 120.0
    o.hprd_queries = o.hprd_queries or 20
    o.only = {x for x in o.only.split(",") if x}
    if o.only - {"hprd", "imdb"}:
        p.error(f"--only: unknown workload(s) {', '.join(sorted(o.only - {'hprd', 'imdb'}))}")
    o.imdb_queries = [q for q in o.imdb_queries.split(",") if q]
    for q in o.imdb_queries:
        if not os.path.exists(os.path.join(bp.QUERIES, q + ".gemp.cypher")):
            p.error(f"--imdb-queries: no benches/peers/{q}.gemp.cypher")
    if o.combos == "all":
        o.combos = list(COMBOS)
    else:
        combos = [DEFAULT]
        for c in o.combos.split(","):
            parts = tuple(c.strip().lower().split("/"))
            if len(parts) != 3 or any(x not in ALGOS for x in parts):
                p.error(f"--combos: `{c}` is not filter/order/join with each gemp or gpsense")
            if parts not in combos:
                combos.append(parts)
        o.combos = combos
    if o.reps < 1:
        p.error("--reps must be at least 1")
    return o


def main(argv):
    o = parse_args(argv)
    load_start = load_average()
    started = datetime.datetime.utcnow()
    rev = git_rev()
    bench = Bench(o)
    cpu, _ = bp.cpu_and_memory()
    bench.log(f"bench-stages: load average at start {load_start}; gemp {rev}; {cpu}; "
              f"output in {o.out}")
    failed = None
    try:
        if "hprd" in o.only:
            bench.log("hprd")
            bench.hprd()
        if "imdb" in o.only:
            bench.log("imdb")
            bench.imdb()
    except RunFailed as e:
        failed = str(e)
    finished = datetime.datetime.utcnow()
    csv_path = bench.write_csv() if bench.rows else None
    if failed:
        bp.log_failure(bench, failed, csv_path)
        return 1
    if not bench.rows:
        bench.log("nothing was measured (no HPRD, no IMDb-like graph)")
        return 1
    section = report(bench, started, finished, load_start, rev)
    md_path = os.path.join(o.out, "bench-stages.md")
    open(md_path, "w", encoding="utf-8").write(section + "\n")
    if not o.no_docs:
        write_docs(o.docs, section)
        bench.log(f"wrote the table into {o.docs}")
    print(section)
    bench.log(f"raw times: {csv_path}; table: {md_path}; "
              f"{(finished - started).total_seconds():.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
