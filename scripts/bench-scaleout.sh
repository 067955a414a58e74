#!/usr/bin/env bash
# Measures threads against processes on this machine (bench/scaleout_bench.py: per preset, 1 process x 1
# thread, 1 x 2 threads and 2 processes x 1 thread over c10d Gloo, alternating round after round) and puts
# the table into docs/benchmarks.md, between its scale-out markers (appended the first time), with the raw
# JSON in docs/benchmarks/scaleout.json. scripts/bench-report.sh calls it after rendering the rest.
# Usage: scripts/bench-scaleout.sh   (env: BUILD_DIR=build-bench, ROUNDS=3, STEPS=60, POEMS_STEPS=15)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh  # BUILD_DIR, and cli: the release CLI, built up to date
out="$BUILD_DIR/bench-scaleout"
/usr/bin/python3 bench/scaleout_bench.py "$cli" "$out" --rounds "${ROUNDS:-3}" \
  --steps "${STEPS:-60}" --poems-steps "${POEMS_STEPS:-15}" >/dev/null
mkdir -p docs/benchmarks
cp "$out/scaleout.json" docs/benchmarks/scaleout.json
/usr/bin/python3 bench/put_section.py docs/benchmarks.md "$out/scaleout.md" "scale-out" scripts/bench-scaleout.sh
echo "bench-scaleout: updated docs/benchmarks.md and docs/benchmarks/scaleout.json" >&2
