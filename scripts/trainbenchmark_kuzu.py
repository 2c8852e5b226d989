#!/usr/bin/env python3
"""One Train Benchmark scenario on one railway model in Kùzu, phase by phase: the peer of
`examples/trainbenchmark.rs`, printing the same JSON lines.

    scripts/trainbenchmark_kuzu.py --scenario batch|inject|repair [--iterations N] \\
        [--queries A,B] [--metamodel railway.xcore] [--gemp BIN] [--compare-with GEMP.jsonl] \\
        MODEL.xmi

Run it with a Python that has `kuzu` (`.venv/bin/python`, made by `scripts/setup`). Steps:

1. The model is written as Neo4j-style CSV by `gemp export --format neo4j-csv` (the gemp binary is
   `--gemp`, else `$GEMP_BIN`, else /work/bin-snap/gemp, else `gemp` on the PATH) into a temporary
   directory, once; the CSV is rewritten for Kùzu's `COPY` (below). Not timed (reported on stderr).
2. For each query (all six, or `--queries`), a fresh Kùzu database in a temporary directory: one
   node table per concrete class (primary key `_pk SERIAL`, the CSV's properties), one
   relationship table per reference with every (FROM, TO) pair of concrete classes the metamodel
   allows (the source class's and the target type's concrete subclasses; pairs seen in the data are
   added too), loaded by `COPY` (phase `load`: opening the database, the schema and the `COPY`s).
   A gemp node's superclass labels (Segment is also TrackElement and RailwayElement) have no table:
   the Kùzu queries match an abstract class as the union of its concrete tables, `(te:Segment:Switch)`.
3. The phases of the Rust example: `check` (the query counted), then by scenario nothing (`batch`),
   `--iterations` times the inject rule file (`transform`) and the count again (`recheck`)
   (`inject`), or the repair rule file once and the count again (`repair`).

The queries and rule files are those of datasets/queries/trainbenchmark/kuzu/ (Kùzu's dialect; a
header comment in each says how it differs from the gemp version next to it). A rule file's
statements (separated by `;`, `//` comments) run in order, each in its own (auto-committed)
transaction. The check query's final `RETURN ...` is replaced by `RETURN count(*)`, as the Rust
example counts without materialising the rows.

Each phase prints one JSON object on its own line, as the Rust example does: `query`, `phase`,
`iteration` (0 for load and check), `seconds`, then `nodes` and `edges` (after load), `matches`
(after check and recheck) or `changes` (after transform). `changes` is measured (untimed) as the net
difference of the model: nodes and relationships created plus deleted, plus property values that
differ (a new node's properties count as set). gemp counts what its statements did, so its figure
is larger where the gemp rule file uses temporary labels (SwitchMonitored and SwitchSet inject: a
label added and removed per selected switch) or sets a property to the value it had.

`--compare-with FILE` reads the Rust example's output for the same model and scenario (JSON lines)
and, after the run, compares every `matches` (and the load's `nodes` / `edges`) phase by phase;
the table goes to stderr, the exit status is 1 on any difference in matches, nodes or edges.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

QUERIES = ["ConnectedSegments", "PosLength", "RouteSensor", "SemaphoreNeighbor",
           "SwitchMonitored", "SwitchSet"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KUZU_QUERIES = os.path.join(ROOT, "datasets", "queries", "trainbenchmark", "kuzu")

# Neo4j CSV header types (as gemp export writes them) and metamodel types -> Kùzu types.
CSV_TYPES = {"LONG": "INT64", "INT": "INT64", "SHORT": "INT64", "BYTE": "INT64",
             "DOUBLE": "DOUBLE", "FLOAT": "DOUBLE", "BOOLEAN": "BOOLEAN", "STRING": "STRING"}
ECORE_TYPES = {"int": "INT64", "long": "INT64", "short": "INT64", "byte": "INT64",
               "double": "DOUBLE", "float": "DOUBLE", "boolean": "BOOLEAN", "String": "STRING",
               "EInt": "INT64", "ELong": "INT64", "EDouble": "DOUBLE", "EBoolean": "BOOLEAN",
               "EString": "STRING"}


def q(name):
    return "`" + name.replace("`", "``") + "`"


# --------------------------------------------------------------------------------------------
# Metamodel (Xcore): classes, inheritance, attributes, references.
# --------------------------------------------------------------------------------------------

def parse_xcore(path):
    """{class: {"abstract", "supers", "attrs": {name: kuzu type}, "refs": {name: type}}} and the
    enum names; enough of Xcore for the Train Benchmark's railway.xcore."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    enums = set(re.findall(r"\benum\s+(\w+)", text))
    classes = {}
    for m in re.finditer(r"\b((?:abstract\s+)?)(class|interface)\s+(\w+)"
                         r"(?:\s+extends\s+([\w\s,]+?))?\s*\{([^}]*)\}", text):
        abstract = bool(m.group(1).strip()) or m.group(2) == "interface"
        supers = [s.strip() for s in (m.group(4) or "").split(",") if s.strip()]
        attrs, refs = {}, {}
        for line in m.group(5).split("\n"):
            line = line.strip()
            r = re.match(r"(?:(?:unordered|unique|resolving|transient|volatile|derived|unsettable|"
                         r"readonly|id)\s+)*(contains|container|refers)\s+(\w+)\s*(\[[^\]]*\])?\s*"
                         r"\^?(\w+)", line)
            if r:
                refs[r.group(4)] = r.group(2)
                continue
            a = re.match(r"(?:(?:unique|transient|volatile|derived|unsettable|readonly|id)\s+)*"
                         r"(\w+)\s*(\[[^\]]*\])?\s+\^?(\w+)", line)
            if a and a.group(1) not in ("op", "package", "annotation", "import"):
                t = a.group(1)
                attrs[a.group(3)] = "STRING" if t in enums else ECORE_TYPES.get(t, "STRING")
        classes[m.group(3)] = {"abstract": abstract, "supers": supers, "attrs": attrs, "refs": refs}
    return classes


def all_attrs(classes, name):
    out = {}
    for s in classes[name]["supers"]:
        if s in classes:
            out.update(all_attrs(classes, s))
    out.update(classes[name]["attrs"])
    return out


def concrete_subclasses(classes, name):
    def is_sub(c, target):
        return c == target or any(is_sub(s, target) for s in classes.get(c, {}).get("supers", []))
    return sorted(c for c in classes if not classes[c]["abstract"] and is_sub(c, name))


# --------------------------------------------------------------------------------------------
# Export and conversion.
# --------------------------------------------------------------------------------------------

def gemp_binary(arg):
    for cand in (arg, os.environ.get("GEMP_BIN"), "/work/bin-snap/gemp"):
        if cand and os.path.exists(cand):
            return cand
    found = shutil.which("gemp")
    if not found:
        sys.exit("error: no gemp binary (give --gemp or set GEMP_BIN)")
    return found


def export_and_convert(gemp, model, metamodel, work):
    """gemp export -> Neo4j CSV -> Kùzu CSVs. Returns the schema and the COPY list."""
    raw = os.path.join(work, "neo4j-csv")
    cmd = [gemp, "export", "-q", model, "--format", "neo4j-csv", "-o", raw]
    if metamodel:
        cmd[3:3] = ["--metamodel", metamodel]
    subprocess.run(cmd, check=True)
    files = sorted(os.listdir(raw))
    tables = {}        # table -> {"columns": [(name, type)], "rows": [[...]]}
    key = {}           # gemp node id -> (table, serial)
    for f in files:
        if not f.startswith("nodes-"):
            continue
        with open(os.path.join(raw, f), newline="", encoding="utf-8") as h:
            rd = csv.reader(h)
            header = next(rd)
            id_col = header.index(":ID")
            label_col = header.index(":LABEL")
            props = [(i, c.split(":")[0], CSV_TYPES.get(c.split(":")[1].upper(), "STRING")
                      if ":" in c else "STRING")
                     for i, c in enumerate(header) if i not in (id_col, label_col)]
            for row in rd:
                labels = row[label_col].split(";")
                table = labels[0]
                t = tables.setdefault(table, {"columns": [], "rows": []})
                for _, name, typ in props:
                    if name not in [c[0] for c in t["columns"]]:
                        t["columns"].append((name, typ))
                        for old in t["rows"]:
                            old[name] = ""
                key[row[id_col]] = (table, len(t["rows"]))
                t["rows"].append({name: row[i] for i, name, _ in props})
    rels = defaultdict(lambda: defaultdict(list))   # type -> (from, to) -> [(i, j)]
    for f in files:
        if not f.startswith("rels-"):
            continue
        with open(os.path.join(raw, f), newline="", encoding="utf-8") as h:
            rd = csv.reader(h)
            header = next(rd)
            s, e, ty = header.index(":START_ID"), header.index(":END_ID"), header.index(":TYPE")
            for row in rd:
                (ft, i), (tt, j) = key[row[s]], key[row[e]]
                rels[row[ty]][(ft, tt)].append((i, j))
    # The metamodel adds classes without instances, attributes never set, and every (FROM, TO)
    # pair a reference allows (rule files create relationships the model may not have yet).
    pairs = {r: set(p) for r, p in rels.items()}
    if metamodel and metamodel.endswith(".xcore"):
        classes = parse_xcore(metamodel)
        for c, info in classes.items():
            if info["abstract"]:
                continue
            t = tables.setdefault(c, {"columns": [], "rows": []})
            for name, typ in all_attrs(classes, c).items():
                if name not in [x[0] for x in t["columns"]]:
                    t["columns"].append((name, typ))
                    for old in t["rows"]:
                        old[name] = ""
        for c, info in classes.items():
            for ref, target in info["refs"].items():
                for a in concrete_subclasses(classes, c):
                    for b in concrete_subclasses(classes, target):
                        pairs.setdefault(ref, set()).add((a, b))
    elif metamodel:
        print(f"note: {metamodel}: only .xcore is read for the schema; relationship tables get "
              "the (FROM, TO) pairs seen in the data", file=sys.stderr)
    out = os.path.join(work, "kuzu-csv")
    os.makedirs(out)
    ddl, copies = [], []
    for table, t in tables.items():
        cols = ", ".join(f"{q(n)} {ty}" for n, ty in t["columns"])
        ddl.append(f"CREATE NODE TABLE {q(table)}(_pk SERIAL PRIMARY KEY"
                   + (f", {cols}" if cols else "") + ")")
        if t["rows"]:
            path = os.path.join(out, f"node-{table}.csv")
            with open(path, "w", newline="", encoding="utf-8") as h:
                w = csv.writer(h)
                w.writerow([n for n, _ in t["columns"]])
                for row in t["rows"]:
                    w.writerow([row.get(n, "") for n, _ in t["columns"]])
            if t["columns"]:
                # One reader thread: a parallel COPY may hand out the SERIAL keys out of file order,
                # and the relationship files name nodes by that order.
                copies.append(f"COPY {q(table)} FROM '{path}' (header=true, parallel=false)")
            else:   # no property: one SERIAL column only; create the nodes one statement each
                copies.extend([f"CREATE (:{q(table)})"] * len(t["rows"]))
    # Kùzu's table names are case-insensitive and shared by node and relationship tables: a
    # reference named like a class (the railway's SwitchPosition.route, opposite of
    # Route.follows, beside the class Route) is renamed with a suffix `_ref` (no query uses it).
    taken = {t.lower() for t in tables}
    renamed = {}
    for ref in sorted(pairs):
        name = ref
        while name.lower() in taken:
            name += "_ref"
        taken.add(name.lower())
        if name != ref:
            renamed[ref] = name
            print(f"note: reference {ref} is the Kùzu relationship table {name} (Kùzu's table "
                  f"names ignore case, and a class has this name)", file=sys.stderr)
    for ref in sorted(pairs):
        ps = sorted(p for p in pairs[ref] if p[0] in tables and p[1] in tables)
        if not ps:
            continue
        table = renamed.get(ref, ref)
        ddl.append(f"CREATE REL TABLE {q(table)}("
                   + ", ".join(f"FROM {q(a)} TO {q(b)}" for a, b in ps) + ")")
        for (a, b), edges in sorted(rels.get(ref, {}).items()):
            path = os.path.join(out, f"rel-{ref}-{a}-{b}.csv")
            with open(path, "w", newline="", encoding="utf-8") as h:
                w = csv.writer(h)
                w.writerow(["from", "to"])
                w.writerows(edges)
            opts = "header=true" + (f", from='{a}', to='{b}'" if len(ps) > 1 else "")
            copies.append(f"COPY {q(table)} FROM '{path}' ({opts})")
    schema = {t: [n for n, _ in tables[t]["columns"]] for t in tables}
    return ddl, copies, schema


# --------------------------------------------------------------------------------------------
# Statements.
# --------------------------------------------------------------------------------------------

def strip_comments(text):
    """Drops `//` comments outside quotes."""
    out, i, quote = [], 0, None
    while i < len(text):
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
            out.append(ch)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def split_statements(text):
    stmts, cur, quote = [], [], None
    for ch in strip_comments(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == ";":
            stmts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    stmts.append("".join(cur))
    return [s.strip() for s in stmts if s.strip()]


def counting(check):
    """The check query with its final RETURN replaced by RETURN count(*)."""
    text = strip_comments(check).strip().rstrip(";")
    m = list(re.finditer(r"\bRETURN\b", text, flags=re.I))
    if not m:
        sys.exit("error: the check query has no RETURN")
    return text[:m[-1].start()] + "RETURN count(*) AS matches"


def rows(conn, stmt):
    res = conn.execute(stmt)
    out = []
    while res.has_next():
        out.append(res.get_next())
    res.close()
    return out


def snapshot(conn, schema):
    """The model as (nodes with their properties, multiset of relationships), by (table, _pk)."""
    nodes = {}
    for table, cols in schema.items():
        sel = ", ".join(["n._pk"] + [f"n.{q(c)}" for c in cols])
        for r in rows(conn, f"MATCH (n:{q(table)}) RETURN {sel}"):
            nodes[(table, r[0])] = tuple(r[1:])
    rels = Counter(tuple(r) for r in rows(
        conn, "MATCH (a)-[r]->(b) RETURN label(r), label(a), a._pk, label(b), b._pk"))
    return nodes, rels


def changes(before, after):
    (n0, r0), (n1, r1) = before, after
    c = sum(1 for k in n0 if k not in n1)                                  # nodes deleted
    for k, vals in n1.items():
        if k not in n0:
            c += 1 + sum(v is not None for v in vals)                      # created, its properties
        else:
            c += sum(a != b for a, b in zip(n0[k], vals))                  # properties changed
    c += sum((r0 - r1).values()) + sum((r1 - r0).values())                 # rels deleted, created
    return c


# --------------------------------------------------------------------------------------------

def emit(query, phase, iteration, seconds, **extra):
    line = {"query": query, "phase": phase, "iteration": iteration, "seconds": seconds}
    line.update(extra)
    print(json.dumps(line), flush=True)
    return line


def compare(lines, path):
    ref = {}
    for raw in open(path, encoding="utf-8"):
        raw = raw.strip()
        if raw.startswith("{"):
            d = json.loads(raw)
            ref[(d["query"], d["phase"], d["iteration"])] = d
    ok = True
    print(f"{'query':18} {'phase':9} {'it':>2} {'field':8} {'gemp':>8} {'kuzu':>8}", file=sys.stderr)
    for d in lines:
        k = (d["query"], d["phase"], d["iteration"])
        g = ref.get(k)
        for field in ("nodes", "edges", "matches", "changes"):
            if field not in d:
                continue
            gv = g.get(field) if g else None
            same = gv == d[field]
            if field != "changes" and not same:
                ok = False
            mark = "" if same else ("  (differs: see --help)" if field == "changes" else "  MISMATCH")
            print(f"{k[0]:18} {k[1]:9} {k[2]:>2} {field:8} {str(gv):>8} {d[field]:>8}{mark}",
                  file=sys.stderr)
    missing = [k for k in ref if k not in {(d["query"], d["phase"], d["iteration"]) for d in lines}]
    if missing:
        ok = False
        print(f"MISMATCH: phases in {path} that this run lacks: {missing}", file=sys.stderr)
    print("compare: " + ("all matches, nodes and edges equal" if ok else "DIFFERENCES"),
          file=sys.stderr)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--scenario", required=True, choices=["batch", "inject", "repair"])
    ap.add_argument("--iterations", type=int, default=1)
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--metamodel", help="railway.xcore (default: railway.xcore next to the model)")
    ap.add_argument("--gemp", help="gemp binary for the CSV export")
    ap.add_argument("--compare-with", metavar="JSONL",
                    help="the Rust example's output for the same model and scenario")
    ap.add_argument("--buffer-pool-mb", type=int, default=8192,
                    help="Kùzu buffer pool (default 8192 MiB: with 1 GiB, Kùzu 0.11.3 runs out of "
                         "it on the 200-region model's repair scenario)")
    ap.add_argument("--threads", type=int, default=0,
                    help="Kùzu threads per query (default: Kùzu's, all cores)")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (CSV, databases)")
    ap.add_argument("model", nargs="+", help="the model (.xmi); a .xcore here is the metamodel")
    a = ap.parse_args()
    import kuzu

    queries = a.queries.split(",")
    bad = [x for x in queries if x not in QUERIES]
    if bad:
        sys.exit(f"error: unknown query {bad[0]} (one of {', '.join(QUERIES)})")
    models = [m for m in a.model if not m.endswith((".xcore", ".ecore"))]
    metamodel = a.metamodel or next((m for m in a.model if m.endswith((".xcore", ".ecore"))), None)
    if len(models) != 1:
        sys.exit("error: give exactly one model file")
    model = models[0]
    if metamodel is None:
        cand = os.path.join(os.path.dirname(os.path.abspath(model)), "railway.xcore")
        metamodel = cand if os.path.exists(cand) else None
    if metamodel is None:
        print("warning: no metamodel (--metamodel railway.xcore): gemp labels the nodes by XMI "
              "tag and the queries will not find their tables", file=sys.stderr)
    gemp = gemp_binary(a.gemp)
    work = a.keep or tempfile.mkdtemp(prefix="tb-kuzu-")
    os.makedirs(work, exist_ok=True)
    lines = []
    try:
        t = time.perf_counter()
        ddl, copies, schema = export_and_convert(gemp, model, metamodel, work)
        print(f"export + CSV conversion: {time.perf_counter() - t:.3f} s", file=sys.stderr)
        for name in queries:
            def text(suffix):
                return open(os.path.join(KUZU_QUERIES, name + suffix), encoding="utf-8").read()
            check = counting(text(".cypher"))
            rules = None
            if a.scenario in ("inject", "repair"):
                rules = split_statements(text(f".{a.scenario}.cypher"))
            dbdir = os.path.join(work, f"db-{name}")
            shutil.rmtree(dbdir, ignore_errors=True)
            os.makedirs(dbdir)
            t = time.perf_counter()
            db = kuzu.Database(os.path.join(dbdir, "railway.kuzu"),
                               buffer_pool_size=a.buffer_pool_mb << 20)
            conn = kuzu.Connection(db, num_threads=a.threads) if a.threads else kuzu.Connection(db)
            for stmt in ddl + copies:
                conn.execute(stmt)
            seconds = time.perf_counter() - t
            nodes = rows(conn, "MATCH (n) RETURN count(n)")[0][0]
            edges = rows(conn, "MATCH ()-[r]->() RETURN count(r)")[0][0]
            lines.append(emit(name, "load", 0, seconds, nodes=nodes, edges=edges))

            def count():
                t = time.perf_counter()
                n = rows(conn, check)[0][0]
                return n, time.perf_counter() - t
            n, seconds = count()
            lines.append(emit(name, "check", 0, seconds, matches=n))
            if rules is not None:
                rounds = a.iterations if a.scenario == "inject" else 1
                for it in range(1, rounds + 1):
                    before = snapshot(conn, schema)
                    t = time.perf_counter()
                    for stmt in rules:
                        rows(conn, stmt)
                    seconds = time.perf_counter() - t
                    c = changes(before, snapshot(conn, schema))
                    lines.append(emit(name, "transform", it, seconds, changes=c))
                    n, seconds = count()
                    lines.append(emit(name, "recheck", it, seconds, matches=n))
            conn.close()
            db.close()
            if not a.keep:
                shutil.rmtree(dbdir, ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if a.compare_with and not compare(lines, a.compare_with):
        sys.exit(1)


if __name__ == "__main__":
    main()
