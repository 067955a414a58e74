#!/usr/bin/env bash
# A change with no switch to keep the old path, measured against what it replaced: two builds of the CLI (the
# commit before and the commit with it), alternately in the same rounds, over every preset, 1 and 2 threads,
# fp32 and bf16. JSON into OUT_DIR, the table (medians, new / old) into OUT_DIR/table.md.
#
#   git stash / checkout the old commit; cmake --build build --target lstm-workbench-cli; cp build/bin/lstm-workbench-cli /tmp/cli-old
#   (the same for the new commit into /tmp/cli-new)
#   env -u OPENBLAS_CORETYPE scripts/bench-binaries-ab.sh /tmp/cli-old /tmp/cli-new OUT_DIR
#   (env: ROUNDS=3, PRESETS="imdb charrnn poems", PRECISIONS="fp32 bf16", THREADS="1 2")
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: $0 OLD_CLI NEW_CLI OUT_DIR" >&2; exit 2; }
old=$1 new=$2 out=$3
ROUNDS=${ROUNDS:-3}
rm -rf "$out" && mkdir -p "$out"
{
  echo "$(date -u +%FT%TZ) rounds $ROUNDS OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}" \
    "PRESETS=${PRESETS:-all} PRECISIONS=${PRECISIONS:-fp32 bf16} THREADS=${THREADS:-1 2}: $0 $*"
  echo "old: $("$old" --version 2>/dev/null | head -n 1) $(sha256sum "$old" | cut -c1-16)"
  echo "new: $("$new" --version 2>/dev/null | head -n 1) $(sha256sum "$new" | cut -c1-16)"
} >"$out/commands.txt"
lscpu >"$out/lscpu.txt"
uptime >"$out/load_before.txt"
for round in $(seq 1 "$ROUNDS"); do
  echo "bench-binaries-ab: round $round" >&2
  for preset in ${PRESETS:-imdb charrnn poems}; do
    steps=20; [ $preset = poems ] && steps=6
    for threads in ${THREADS:-1 2}; do
      for precision in ${PRECISIONS:-fp32 bf16}; do
        for side in old new; do
          cli=$old; [ $side = new ] && cli=$new
          "$cli" bench --preset $preset --device cpu:$threads --precision $precision --steps $steps --json \
            >"$out/$side-$preset-$threads-$precision-$round.json"
        done
      done
    done
  done
done
uptime >"$out/load_after.txt"
python3 bench/write_ab_table.py "$out" | tee "$out/table.md"
