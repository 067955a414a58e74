#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/benchmarks/dx-last-avx2-intel
export LSTM_WORKBENCH_CPU_CAPABILITY=avx2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell
for round in $(seq 1 ${ROUNDS:-4}); do
  for threads in 1 2; do
    for side in old new; do
      if [ $side = new ]; then export WB_TMP_DXLAST=1; else unset WB_TMP_DXLAST; fi
      build/bin/lstm-workbench-cli bench --preset poems --device cpu:$threads \
        --precision fp32 --steps 6 --json >"$out/$side-poems-$threads-fp32-$round.json"
    done
  done
done
