#!/usr/bin/env python3
"""gemp's matching core against SubgraphMatching (Sun & Luo, SIGMOD 2020) on the field's benchmark.

Data: ../shared/data/yeast (six query sets of 200: dense/sparse x 16/24/32 vertices) and
../shared/data/hprd (100 queries). Engines, in the same run:

- gemp on one thread (RAYON_NUM_THREADS=1) and on all cores: one `gemp batch --count` process per
  query set and protocol, per-query time = filter + plan + match + results from `--timings`
  (loading excluded, as the peer's "Total time" excludes it);
- SubgraphMatching GQL/GQL/LFTJ and DPiso/DPiso/DPiso: one process per query, its "Total time".

Protocols: `first` (stop at the first 100,000 embeddings: `--limit 100000` / `-num 100000`) and
`all` (every embedding). A query not answered within the cap is unsolved. Counts are checked
between every pair of engines that both solved a query; a mismatch is reported and makes the
exit status 1.

Writes a CSV of every measurement, a markdown table (solved, total and median query time, ratios
against the peer's best configuration) and, unless --no-docs, puts the table between the
bench-subgraph markers of docs/benchmarks.md. The load average is printed with the table.

usage: scripts/bench-subgraph [--sets dense_16,...] [--per-set N] [--cap S] [--protocols first,all]
"""

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
YEAST_SETS = [f"{d}_{n}" for d in ("dense", "sparse") for n in (16, 24, 32)]
PEER_CONFIGS = {"GQL": ("GQL", "GQL", "LFTJ"), "DPiso": ("DPiso", "DPiso", "DPiso")}
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def duration(text):
    m = re.fullmatch(r"([0-9.]+)\s*(ns|µs|us|ms|s)", text.strip())
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def gemp_bin():
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(os.environ.get("GEMP_BIN", target / "release" / "gemp"))


def snapshot(gemp, graph, out):
    if not out.exists() or out.stat().st_mtime < graph.stat().st_mtime:
        subprocess.run([gemp, "load", str(graph), "-o", str(out), "--force", "-q"], check=True)
    return out


def run_gemp(gemp, model, queries, limit, cap, threads, workdir):
    """{query name: (seconds or None, count or None)} from one batch process."""
    out_dir = workdir / f"gemp-{threads}-{limit or 'all'}"
    cmd = [gemp, "batch", "-q", "--backend", "host", "--model", str(model), "--count",
           "--timings", "--timeout", str(cap), "--out", str(out_dir), "--force"]
    if limit:
        cmd += ["--limit", str(limit)]
    env = dict(os.environ)
    if threads == 1:
        env["RAYON_NUM_THREADS"] = "1"
    else:
        env.pop("RAYON_NUM_THREADS", None)
    proc = subprocess.run(cmd + [str(q) for q in queries], capture_output=True, text=True, env=env)
    times = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"(\S+): timings \[[^\]]*\]: (.*)", line)
        if not m:
            continue
        parts = dict(p.strip().rsplit(" ", 1) for p in m.group(2).split(","))
        times[m.group(1)] = sum(duration(parts[k]) for k in ("filter", "plan", "match", "results"))
    status = {}
    for line in proc.stdout.splitlines()[1:]:
        f = line.split()
        if len(f) >= 4:
            status[f[0]] = f[-1]
    result = {}
    for q in queries:
        name = q.stem
        ok = status.get(name) == "ok"
        count = None
        path = out_dir / f"{name}.count"
        if ok and path.exists():
            count = int(path.read_text().split()[0])
        result[name] = (times.get(name) if ok else None, count)
    return result


def run_peer(peer, data, query, config, limit, cap):
    f, o, e = PEER_CONFIGS[config]
    cmd = [peer, "-d", str(data), "-q", str(query), "-filter", f, "-order", o, "-engine", e,
           "-num", str(limit) if limit else "MAX"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=cap + 5)
    except subprocess.TimeoutExpired:
        return (None, None)
    total = re.search(r"Total time \(seconds\): ([0-9.e+-]+)", proc.stdout)
    count = re.search(r"#Embeddings: (\d+)", proc.stdout)
    if not total or not count:
        return (None, None)
    secs = float(total.group(1))
    return (secs if secs <= cap else None, int(count.group(1)))


def fmt_s(x):
    return "—" if x is None else (f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s")


def summarise(rows, engines, peer_best):
    """Markdown lines: one row per (set, protocol)."""
    lines = [
        "| set | protocol | engine | solved | total | median | ÷ peer best (total) |",
        "|---|---|---|---|---|---|---|",
    ]
    groups = sorted({(r["set"], r["protocol"]) for r in rows})
    for s, p in groups:
        rs = [r for r in rows if r["set"] == s and r["protocol"] == p]
        totals = {}
        for e in engines:
            ts = [r[e] for r in rs if r[e] is not None]
            totals[e] = (len(ts), sum(ts), statistics.median(ts) if ts else None)
        peers = [e for e in engines if e in peer_best]
        # Without a peer in the run (--engines gemp-1, say) there is no ratio.
        best = min(peers, key=lambda e: (-totals[e][0], totals[e][1])) if peers else None
        for e in engines:
            n, tot, med = totals[e]
            # Ratio over the queries both solved.
            both = [r for r in rs if best and r[e] is not None and r[best] is not None]
            ratio = (sum(r[e] for r in both) / sum(r[best] for r in both)
                     if both and sum(r[best] for r in both) > 0 else None)
            lines.append(
                f"| {s} | {p} | {e}{' (best)' if e == best else ''} | {n}/{len(rs)} | "
                f"{fmt_s(tot)} | {fmt_s(med)} | {'—' if ratio is None else f'{ratio:.2f}'} |")
    if "gemp-1" in engines and "gemp-all" in engines:
        lines += ["", "All cores against one thread, summed over the queries where one thread takes "
                  "over 50 ms (both solved):", "",
                  "| set | protocol | queries | gemp-1 total | gemp-all total | speed-up |",
                  "|---|---|---|---|---|---|"]
        for s, p in groups:
            heavy = [r for r in rows if r["set"] == s and r["protocol"] == p
                     and r["gemp-1"] is not None and r["gemp-1"] > 0.05 and r["gemp-all"] is not None]
            one, many = sum(r["gemp-1"] for r in heavy), sum(r["gemp-all"] for r in heavy)
            lines.append(f"| {s} | {p} | {len(heavy)} | {fmt_s(one) if heavy else '—'} | "
                         f"{fmt_s(many) if heavy else '—'} | "
                         f"{f'{one / many:.2f}×' if heavy and many > 0 else '—'} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=",".join(YEAST_SETS + ["hprd"]),
                    help="query sets: yeast's dense_16 … sparse_32 and hprd (default: all)")
    ap.add_argument("--per-set", type=int, default=200, help="queries per set (default: 200)")
    ap.add_argument("--cap", type=float, default=10.0, help="seconds per query (default: 10)")
    ap.add_argument("--protocols", default="first,all", help="first (100,000 embeddings), all")
    ap.add_argument("--engines", default="gemp-1,gemp-all,GQL,DPiso")
    ap.add_argument("--out", default=str(ROOT / "bench-data" / "subgraph"))
    ap.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    a = ap.parse_args()

    gemp = gemp_bin()
    peer = subprocess.run([str(SHARED / "peers" / "build-subgraphmatching"),
                           str(ROOT / "bench-data" / "peers" / "subgraphmatching")],
                          check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    work = Path(a.out)
    work.mkdir(parents=True, exist_ok=True)
    engines = a.engines.split(",")
    rows = []
    mismatches = []
    for s in a.sets.split(","):
        if s == "hprd":
            data = SHARED / "data" / "hprd" / "HPRD.graph"
            qdir = SHARED / "data" / "hprd" / "queries"
            queries = sorted(qdir.glob("*.graph"), key=lambda p: p.name)[: a.per_set]
        else:
            data = SHARED / "data" / "yeast" / "yeast.graph"
            qdir = SHARED / "data" / "yeast" / "queries"
            queries = sorted(qdir.glob(f"query_{s}_*.graph"),
                             key=lambda p: int(p.stem.rsplit("_", 1)[1]))[: a.per_set]
        if not data.exists() or not queries:
            print(f"bench-subgraph: {s}: no data, skipped", file=sys.stderr)
            continue
        model = snapshot(gemp, data, work / f"{data.stem}.gemp")
        for p in a.protocols.split(","):
            limit = 100000 if p == "first" else None
            results = {}
            for e in engines:
                t0 = time.time()
                if e.startswith("gemp"):
                    threads = 1 if e == "gemp-1" else 0
                    results[e] = run_gemp(gemp, model, queries, limit, a.cap, threads, work)
                else:
                    results[e] = {q.stem: run_peer(peer, data, q, e, limit, a.cap) for q in queries}
                print(f"{s} {p} {e}: {time.time() - t0:.1f} s wall", file=sys.stderr)
            for q in queries:
                row = {"set": s, "protocol": p, "query": q.stem}
                counts = {}
                for e in engines:
                    secs, count = results[e][q.stem]
                    row[e] = secs
                    row[e + " count"] = count
                    if secs is not None and count is not None:
                        counts[e] = count
                if len(set(counts.values())) > 1:
                    mismatches.append((s, p, q.stem, counts))
                rows.append(row)
    load = os.getloadavg()
    with open(work / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["set"])
        w.writeheader()
        w.writerows(rows)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    command = " ".join(["scripts/bench-subgraph"] + sys.argv[1:])
    head = (f"`{command}` at {commit}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end; query time excludes loading; "
            f"ratios over the queries both solved.")
    table = [head, ""] + summarise(rows, engines, PEER_CONFIGS)
    if mismatches:
        table += ["", f"**{len(mismatches)} count mismatches**: " +
                  "; ".join(f"{s}/{p}/{q} {c}" for s, p, q, c in mismatches[:10])]
    print("\n".join(table))
    if not a.no_docs:
        doc = ROOT / "docs" / "benchmarks.md"
        text = doc.read_text()
        begin, end = "<!-- bench-subgraph:begin -->", "<!-- bench-subgraph:end -->"
        block = begin + "\n" + "\n".join(table) + "\n" + end
        if begin in text:
            text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
        else:
            text += "\n## Subgraph matching: gemp vs SubgraphMatching (bench-subgraph)\n\n" + block + "\n"
        doc.write_text(text)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
