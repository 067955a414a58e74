#!/usr/bin/env bash
# Scale-out over a network (docs/scaling.md, section 7), measured with the sweep's link axis: for each
# reference preset (imdb, charrnn, poems), one sweep of 2 processes of 1 thread over
# `--grid link=unshaped,1gbit,100mbit --grid grad_compression=none,fp16` (each cell's two ranks on hosts
# made with network namespaces, their links shaped with tc's token-bucket filter), and one sweep of the
# preset in one process of 1 thread, the model's T(1); each cell REPEATS times (default 3).
# bench/network_scaling.py then sets each cell's median step beside the cost model's prediction for the same
# link and gradient bytes (bench/scaling_model.py).
#
# Writes docs/benchmarks/network-scaling/scaling.json and, for each preset, the two sweep folders without
# their weights and vocabularies (PRESET/hosts and PRESET/one-process: sweep.json, results.csv, the plots,
# each run's config.json, run.json, metrics.csv and baseline.json), which the app's Sweep tab opens (File →
# Open Sweep Folder).
# Needs root and iproute2 (the sweep says so otherwise); the sweep removes its namespaces. About 35 minutes
# here. A quick check of the script itself: STEPS_SCALE=0.2 REPEATS=1 OUT_DIR=/tmp/scaling.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
outdir=${OUT_DIR:-docs/benchmarks/network-scaling}
scale=${STEPS_SCALE:-1}
repeats=${REPEATS:-3}
work=$(mktemp -d /tmp/lstm-workbench-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
for corpus in spam-assassin fortunes-text tang-quatrains-7; do
  "$cli" inspect "$corpus" >/dev/null 2>&1 || "$cli" prepare "$corpus" >&2
done
steps_of() {  # a few seconds of training per preset, at least 10 steps
  local s
  case $1 in imdb) s=60 ;; charrnn) s=60 ;; poems) s=15 ;; esac
  python3 -c "print(max(10, int($s * $scale)))"
}
corpus_of() { case $1 in imdb) echo spam-assassin ;; charrnn) echo fortunes-text ;; poems) echo tang-quatrains-7 ;; esac; }
flags() {
  echo "--preset $1 --max-steps $(steps_of "$1") --warmup 3 --threads 1 --validate-every 100000 --repeats $repeats --quiet"
}

commands=()  # "PRESET/SWEEP<tab>the command", for the JSON
for preset in imdb charrnn poems; do
  one="sweep $(corpus_of "$preset") $(flags "$preset") --grid processes=1"
  hosts="sweep $(corpus_of "$preset") $(flags "$preset") --nproc 2 --grid link=unshaped,1gbit,100mbit --grid grad_compression=none,fp16"
  # shellcheck disable=SC2086
  "$cli" $one --out "$work/$preset/one-process"
  # shellcheck disable=SC2086
  "$cli" $hosts --out "$work/$preset/hosts"
  commands+=("$preset/one-process	lstm-workbench-cli $one --out $preset/one-process"
             "$preset/hosts	lstm-workbench-cli $hosts --out $preset/hosts")
  echo "$preset: done" >&2
done
for preset in imdb charrnn poems; do
  rm -rf "${outdir:?}/$preset"
  mkdir -p "$outdir/$preset"
  cp -r "$work/$preset/one-process" "$work/$preset/hosts" "$outdir/$preset/"
  find "$outdir/$preset" \( -name '*.safetensors' -o -name vocab.json \) -delete
done
python3 bench/network_scaling.py "$outdir" "${commands[@]}"
