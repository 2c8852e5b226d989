#!/usr/bin/env bash
# Load throughput of the MDE readers on one synthetic railway model (scripts/gen-railway-xmi.py),
# as EMF XMI and as the Neo4j CSV that `gemp export` writes from it, plus the six Train Benchmark
# queries on the loaded model. Usage: scripts/bench-mde-load.sh [REGIONS] (default 500).
set -euo pipefail
cd "$(dirname "$0")/.."
REGIONS=${1:-500}
XCORE=${GEMP_SHARED_DATA:-../shared/data}/trainbenchmark/railway.xcore
OUT=${BENCH_DIR:-bench-data/mde}
mkdir -p "$OUT"
cargo build --release -q
G=target/release/gemp
python3 scripts/gen-railway-xmi.py "$REGIONS" "$OUT/railway.xmi"
rm -rf "$OUT/csv"
$G -q export "$OUT/railway.xmi" --metamodel "$XCORE" --format neo4j-csv -o "$OUT/csv"
echo "XMI: $(du -h "$OUT/railway.xmi" | cut -f1), CSV: $(du -sh "$OUT/csv" | cut -f1)"
for i in 1 2 3; do
  $G load "$OUT/railway.xmi" --metamodel "$XCORE" 2>&1 | grep loaded | sed 's/^/xmi: /'
  $G load --format neo4j-csv "$OUT/csv" --metamodel "$XCORE" 2>&1 | grep loaded | sed 's/^/csv: /'
done
$G -q load "$OUT/railway.xmi" --metamodel "$XCORE" -o "$OUT/railway.gemp" --force
for q in datasets/queries/trainbenchmark/*.cypher; do
  echo "$(basename "$q" .cypher): $($G -q match -m "$OUT/railway.gemp" "$q" --count --backend host)"
done
