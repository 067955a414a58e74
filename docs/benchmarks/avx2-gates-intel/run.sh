#!/usr/bin/env bash
# Both builds capped to AVX2 (our kernels by LSTM_WORKBENCH_CPU_CAPABILITY, OpenBLAS by its core type):
# old = the commit before with its row functions cloned for AVX2 only (what an AVX2-only CPU ran),
# new = the AVX2 gate kernels. Alternating, 3 rounds, fp32.
set -euo pipefail
cd "$(dirname "$0")"
export LSTM_WORKBENCH_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell
for r in 1 2 3; do for preset in imdb charrnn poems; do
  steps=20; [ $preset = poems ] && steps=6
  for t in 1 2; do for side in old new; do
    cli=/tmp/ab/cli-avx2clone; [ $side = new ] && cli=/tmp/ab/cli-avx2gates
    $cli bench --preset $preset --device cpu:$t --precision fp32 --steps $steps --json > $side-$preset-$t-$r.json
  done; done
done; done
