#!/usr/bin/env bash
# imdb and charrnn in bf16, one build, the activated gates kept for the backward in fp32 (new: the default since
# they are kept so for accuracy) against bf16 (old: LSTM_WORKBENCH_FP32_SAVED_GATES=off), alternating in each
# round. ROUNDS=3 by default; THREADS (default "1 2").
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=docs/benchmarks/bf16-saved-gates-zen4
for round in $(seq 1 "${ROUNDS:-3}"); do
  for preset in imdb charrnn; do
    for threads in ${THREADS:-1 2}; do
      for side in old new; do
        sw=on; [ $side = old ] && sw=off
        LSTM_WORKBENCH_FP32_SAVED_GATES=$sw build/bin/lstm-workbench-cli bench --preset $preset --device cpu:$threads \
          --precision bf16 --steps 20 --json >"$out/$side-$preset-$threads-bf16-$round.json"
      done
    done
  done
done
