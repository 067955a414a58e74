#!/usr/bin/env bash
# Measures how a CPU step uses two threads (bench/thread_split_bench.py: per preset, 1 thread, 2 threads
# splitting every operation and 2 threads splitting the batch, alternating, on an idle machine and with a
# busy core) and puts the table into docs/benchmarks.md between its markers (appended the first time), with
# the raw JSON in docs/benchmarks/thread-split.json. scripts/bench-report.sh calls it after the rest.
# Usage: scripts/bench-threads.sh   (env: BUILD_DIR=build-bench, ROUNDS=3, STEPS=20, POEMS_STEPS=6)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-bench}
if [ ! -x "$BUILD_DIR/bin/lstm-workbench-cli" ]; then
  ./scripts/install-deps.sh
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" --target lstm-workbench-cli >/dev/null
out="$BUILD_DIR/bench-threads"
/usr/bin/python3 bench/thread_split_bench.py "$BUILD_DIR/bin/lstm-workbench-cli" "$out" --rounds "${ROUNDS:-3}" \
  --steps "${STEPS:-20}" --poems-steps "${POEMS_STEPS:-6}"
mkdir -p docs/benchmarks
cp "$out/thread-split.json" docs/benchmarks/thread-split.json
/usr/bin/python3 - "$out/thread-split.md" docs/benchmarks.md <<'PY'
import sys
section, page = open(sys.argv[1]).read(), sys.argv[2]
text = open(page).read()
begin, end = "<!-- thread split: begin (scripts/bench-threads.sh) -->", "<!-- thread split: end -->"
block = begin + "\n" + section + end
if begin in text and end in text:
    text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(page, "w").write(text)
PY
echo "bench-threads: updated docs/benchmarks.md and docs/benchmarks/thread-split.json" >&2
