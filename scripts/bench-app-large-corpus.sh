#!/usr/bin/env bash
# The window's responsiveness on a corpus larger than memory (issue #30; docs/benchmarks.md, "Corpora larger
# than memory"): a 2 GB plain-text corpus of made-up words (bench/large_corpus.py's) is read on the Corpus
# page and then trained on (its first tokenization into a fresh cache, 20 steps of the default model), while a
# 10 ms timer on the GUI thread records how long the event loop went without turning. Runs the ui_tests case
# LargeCorpusResponsiveness (skipped in CI) offscreen; writes docs/benchmarks/large-corpus/app.json. About 2
# minutes here and 4 GB of free disk; the process's peak RSS too. SIZE_GB=0.2 OUT=/tmp/app.json checks the script.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-bench}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  ./scripts/install-deps.sh
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" --target ui_tests >/dev/null
out=${OUT:-docs/benchmarks/large-corpus/app.json}
size=${SIZE_GB:-2}
work=$(mktemp -d "${WORK:-/tmp}/wb-app-large.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work/corpus.txt" "$size" <<'PY'
import sys
sys.path.insert(0, "bench")
import large_corpus
large_corpus.make_corpus(sys.argv[1], int(float(sys.argv[2]) * 1e9))
PY
mkdir -p "$(dirname "$out")"
LSTM_WORKBENCH_BENCH_CORPUS="$work/corpus.txt" LSTM_WORKBENCH_BENCH_OUT="$work/app.json" \
  /usr/bin/time -f %M -o "$work/peak-kib" "$BUILD_DIR/bin/ui_tests" --gtest_filter='LargeCorpusResponsiveness.*' >"$work/log.txt" 2>&1 ||
  { cat "$work/log.txt"; exit 1; }
python3 - "$work/app.json" "$out" "$size" "$work/peak-kib" <<'PY'
import json, platform, os, sys, datetime
r = json.load(open(sys.argv[1]))
r["peak_rss_gib"] = round(int(open(sys.argv[4]).read().split()[-1]) / 2**20, 3)  # the whole process
r["corpus"] = f"{sys.argv[3]} GB of made-up words (bench/large_corpus.py make_corpus)"
r["command"] = "scripts/bench-app-large-corpus.sh"
r["machine"] = {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine()}
r["date"] = datetime.date.today().isoformat()
json.dump(r, open(sys.argv[2], "w"), indent=2)
for phase in ("read", "tokenize_and_train"):
    p = r[phase]
    print(f"{phase:20s} {p['seconds']:7.1f} s   event-loop gaps: median {p['median_gap_ms']:.1f} ms, "
          f"p99 {p['p99_gap_ms']:.1f} ms, max {p['max_gap_ms']:.1f} ms, {p['gaps_over_100ms']} over 100 ms")
print(f"peak RSS of the app (the test process) {r['peak_rss_gib']} GiB; wrote {sys.argv[2]}")
PY
