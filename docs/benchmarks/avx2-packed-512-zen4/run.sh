#!/usr/bin/env bash
# poems in fp32, ours and OpenBLAS capped to AVX2, one build, alternating in each round: old =
# LSTM_WORKBENCH_AVX2_PACKED_512=off (the recurrence's per-step products through BLAS at H = 512, as before
# session 45), new = the packed AVX2 kernel (no BLAS call per step). ROUNDS=5 by default.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/benchmarks/avx2-packed-512-zen4
export LSTM_WORKBENCH_CPU_CAPABILITY=avx2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell
for round in $(seq 1 ${ROUNDS:-5}); do
  for threads in 1 2; do
    for side in old new; do
      sw=on; [ $side = old ] && sw=off
      LSTM_WORKBENCH_AVX2_PACKED_512=$sw build/bin/lstm-workbench-cli bench --preset poems --device cpu:$threads \
        --precision fp32 --steps 6 --json >"$out/$side-poems-$threads-fp32-$round.json"
    done
  done
done
