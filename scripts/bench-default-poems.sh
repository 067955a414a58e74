#!/usr/bin/env bash
# Trains the first-launch default experiment as it ships (tang-quatrains-7, every setting at its default, on
# 2 threads as the app's default device) and puts "The default experiment against the 5-gram baseline" into
# docs/benchmarks.md between its markers, with the run's metrics, baseline, samples and the generated poems
# (free and in strict meter) in docs/benchmarks/default-poems/. Takes about 10 minutes; run it on an idle machine.
# Usage: scripts/bench-default-poems.sh   (env: BUILD_DIR=build-bench)
# On another machine, a folder and a section of their own, as for session 33's AMD Zen 3:
#   OUT_DIR=docs/benchmarks/default-poems-zen3 HEADING_SUFFIX="on AMD Zen 3 (fp32)" scripts/bench-default-poems.sh
# TRAIN_ARGS adds train flags, for another precision than the default's auto (bf16 on a CPU with AVX512_BF16):
#   TRAIN_ARGS="--precision fp32" OUT_DIR=docs/benchmarks/default-poems-avx512-fp32 \
#     HEADING_SUFFIX="on AMD Zen 5 in fp32 (AVX-512)" scripts/bench-default-poems.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh  # BUILD_DIR, and cli: the release CLI, built up to date
out="$BUILD_DIR/bench-default-poems"
rm -rf "$out" && mkdir -p "$out"
"$cli" prepare tang-quatrains-7 >/dev/null
# shellcheck disable=SC2086 # TRAIN_ARGS is words
"$cli" train tang-quatrains-7 --threads 2 --out "$out/run" --quiet ${TRAIN_ARGS:-}
"$cli" generate "$out/run" --form quatrain7 --samples 100 --temperature 0.8 --rng-seed 1 --json >"$out/generated.json"
"$cli" generate "$out/run" --form quatrain7 --samples 100 --temperature 0.8 --rng-seed 1 --meter strict --json \
  >"$out/generated-strict.json"
/usr/bin/python3 bench/default_poems.py "$out/run" "$out/generated.json" "$out/generated-strict.json" \
  >"$out/section.md"
OUT_DIR=${OUT_DIR:-docs/benchmarks/default-poems}
mkdir -p "$OUT_DIR"
cp "$out/run/metrics.csv" "$out/run/baseline.json" "$out/run/samples.jsonl" "$out/run/config.json" \
  "$out/run/run.json" "$out/generated.json" "$out/generated-strict.json" "$OUT_DIR"/
lscpu >"$OUT_DIR/lscpu.txt"
/usr/bin/python3 bench/put_section.py docs/benchmarks.md "$out/section.md" "$(basename "$OUT_DIR")" scripts/bench-default-poems.sh
echo "bench-default-poems: updated docs/benchmarks.md and $OUT_DIR/" >&2
