#!/usr/bin/env bash
# Measures fp32 against bf16 on the CPU (bench/precision_bench.py: per preset at 1 and 2 threads, the two
# precisions alternating, with each precision's matrix-product floor) and puts the table into
# docs/benchmarks.md between its markers (appended the first time), with the raw JSON in
# docs/benchmarks/precision.json. scripts/bench-report.sh calls it after the rest.
# Usage: scripts/bench-precision.sh   (env: BUILD_DIR=build-bench, ROUNDS=3, STEPS=20, POEMS_STEPS=6)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh  # BUILD_DIR, and cli: the release CLI, built up to date
out="$BUILD_DIR/bench-precision"
/usr/bin/python3 bench/precision_bench.py "$cli" "$out" --rounds "${ROUNDS:-3}" \
  --steps "${STEPS:-20}" --poems-steps "${POEMS_STEPS:-6}"
mkdir -p docs/benchmarks
cp "$out/precision.json" docs/benchmarks/precision.json
/usr/bin/python3 bench/put_section.py docs/benchmarks.md "$out/precision.md" "precision" scripts/bench-precision.sh
echo "bench-precision: updated docs/benchmarks.md and docs/benchmarks/precision.json" >&2
