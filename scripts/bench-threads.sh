#!/usr/bin/env bash
# Measures how a CPU step uses two threads (bench/thread_split_bench.py: per preset, 1 thread, 2 threads
# splitting every operation and 2 threads splitting the batch, alternating, on an idle machine and with a
# busy core) and puts the table into docs/benchmarks.md between its markers (appended the first time), with
# the raw JSON in docs/benchmarks/thread-split.json. scripts/bench-report.sh calls it after the rest.
# Usage: scripts/bench-threads.sh   (env: BUILD_DIR=build-bench, ROUNDS=3, STEPS=20, POEMS_STEPS=6)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh  # BUILD_DIR, and cli: the release CLI, built up to date
out="$BUILD_DIR/bench-threads"
/usr/bin/python3 bench/thread_split_bench.py "$cli" "$out" --rounds "${ROUNDS:-3}" \
  --steps "${STEPS:-20}" --poems-steps "${POEMS_STEPS:-6}"
mkdir -p docs/benchmarks
cp "$out/thread-split.json" docs/benchmarks/thread-split.json
/usr/bin/python3 bench/put_section.py docs/benchmarks.md "$out/thread-split.md" "thread split" scripts/bench-threads.sh
echo "bench-threads: updated docs/benchmarks.md and docs/benchmarks/thread-split.json" >&2
