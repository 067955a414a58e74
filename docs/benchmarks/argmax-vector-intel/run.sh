#!/usr/bin/env bash
# The loss's share of a poems step by function (perf record over `bench`, 6 steps, one thread, fp32), for the
# build with the scalar argmax scan (OLD_CLI) and the one with the vector pass (NEW_CLI), under AVX-512 (no
# cap), AVX2 and portable caps, alternating, ROUNDS times. Writes perf-SIDE-CAP-ROUND.txt (the softmax
# kernels' lines of perf's report by symbol) and the whole report's top lines beside them.
set -euo pipefail
cd "$(dirname "$0")"
old=${OLD_CLI:?} new=${NEW_CLI:?}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for cap in avx512 avx2 default; do
    for side in old new; do
      cli=$old; [ $side = new ] && cli=$new
      capValue=$cap; [ $cap = avx512 ] && capValue=
      data=$(mktemp)
      LSTM_WORKBENCH_CPU_CAPABILITY=$capValue perf record -q -o "$data" "$cli" bench --preset poems --device cpu:1 \
        --precision fp32 --steps 6 >/dev/null 2>&1
      perf report -i "$data" --no-children --sort sym --stdio 2>/dev/null | grep -E '^ +[0-9]' | sed -n '1,25p' \
        >"perf-$side-$cap-$round.txt"
      rm -f "$data"
    done
  done
done
for f in perf-*.txt; do
  echo "$f: $(grep -E 'softmaxkernels|rowMax' "$f" | awk '{s += $1} END {printf "%.2f %%", s}') in the loss's kernels"
done | tee summary.txt
