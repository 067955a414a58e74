#!/usr/bin/env bash
# imdb and charrnn in bf16, one build, the activated gates kept for the backward folded into bf16 (new: the
# default where the AVX512_BF16 gate kernels run) against fp32 (old: LSTM_WORKBENCH_FOLDED_GATES=off, the
# default before), alternating in each round. ROUNDS=3 by default; THREADS (default "1 2"); PRESETS (default
# "imdb charrnn").
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/benchmarks/folded-gates-zen4
for round in $(seq 1 "${ROUNDS:-3}"); do
  for preset in ${PRESETS:-imdb charrnn}; do
    for threads in ${THREADS:-1 2}; do
      for side in old new; do
        sw=on; [ $side = old ] && sw=off
        LSTM_WORKBENCH_FOLDED_GATES=$sw build/bin/lstm-workbench-cli bench --preset $preset --device cpu:$threads \
          --precision bf16 --steps 20 --json >"$out/$side-$preset-$threads-bf16-$round.json"
      done
    done
  done
done
