#!/usr/bin/env bash
# (What scripts/bench-binaries-ab.sh does, for two presets: PRESETS="imdb charrnn" there now does the same.)
# imdb and charrnn in bf16 (and fp32) on this CPU: old = a build of e4e11fa (the tree of the Zen 4
# round of 2026-11-28, built with WORKBENCH_BUILD_GUI=OFF in OLD_BUILD), new = build/ at HEAD, alternating in each
# round. ROUNDS=3 by default; PRECISIONS (default bf16), THREADS (default "1 2"), PRESETS (default "imdb charrnn").
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-docs/benchmarks/bf16-small-zen4}
old=${OLD_BUILD:?set OLD_BUILD to the build folder of the old tree}
for round in $(seq 1 "${ROUNDS:-3}"); do
  for preset in ${PRESETS:-imdb charrnn}; do
    for precision in ${PRECISIONS:-bf16}; do
      for threads in ${THREADS:-1 2}; do
        for side in old new; do
          cli=build/bin/lstm-workbench-cli
          [ $side = old ] && cli=$old/bin/lstm-workbench-cli
          "$cli" bench --preset "$preset" --device cpu:$threads --precision "$precision" --steps 20 --json \
            >"$out/$side-$preset-$threads-$precision-$round.json"
        done
      done
    done
  done
done
