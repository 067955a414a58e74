#!/usr/bin/env bash
# The Sweep tab's "Estimate Time" (`lstm-workbench-cli sweep --plan`) against the measured time of the same
# grid: a 4-cell grid (batch 32, 64 x device cpu:1, cpu:2) of the default experiment on tang-quatrains-7, at
# a few step counts per cell (STEPS, default "20 150"). Prints the estimate, the measured wall time and
# their ratio per grid, and writes them to docs/benchmarks/sweep-estimate/ (JSON, with the command).
# Run on an idle machine: the estimate calibrates on this machine as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
out_dir=docs/benchmarks/sweep-estimate
mkdir -p "$out_dir"
work=$(mktemp -d /tmp/lstm-workbench-sweep-estimate.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$cli" inspect tang-quatrains-7 >/dev/null 2>&1 || "$cli" prepare tang-quatrains-7 >&2
stamp=$(date -u +%Y%m%d-%H%M)
results=()
for steps in ${STEPS:-20 150}; do
  grid=(--grid batch_size=32,64 --grid device=cpu:1,cpu:2 --max-steps "$steps")
  plan_start=$(date +%s.%N)
  estimate=$("$cli" sweep tang-quatrains-7 --out "$work/s$steps" "${grid[@]}" --plan --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated_seconds"])')
  plan_seconds=$(python3 -c "import time; print(round(time.time() - $plan_start, 1))")
  start=$(date +%s.%N)
  "$cli" sweep tang-quatrains-7 --out "$work/s$steps" "${grid[@]}" --quiet >/dev/null
  measured=$(python3 -c "import time; print(round(time.time() - $start, 1))")
  ratio=$(python3 -c "print(round($estimate / $measured, 3))")
  printf 'steps %4s: estimated %6.1f s, measured %6.1f s, estimate/measured %.2f (the estimate took %s s)\n' \
    "$steps" "$estimate" "$measured" "$ratio" "$plan_seconds"
  results+=("{\"steps_per_cell\": $steps, \"estimated_seconds\": $estimate, \"measured_seconds\": $measured, \"ratio\": $ratio, \"plan_seconds\": $plan_seconds}")
done
{
  echo "{"
  echo "  \"command\": \"scripts/bench-sweep-estimate.sh (STEPS='${STEPS:-20 150}')\","
  echo "  \"grid\": \"tang-quatrains-7, default experiment, --grid batch_size=32,64 --grid device=cpu:1,cpu:2\","
  echo "  \"commit\": \"$(git describe --always --dirty)\","
  echo "  \"machine\": \"$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\","
  echo "  \"load_before\": \"$(cut -d' ' -f1-3 /proc/loadavg)\","
  echo "  \"grids\": ["
  (IFS=,; echo "    ${results[*]}" | sed 's/}, *{/},\n    {/g')
  echo "  ]"
  echo "}"
} > "$out_dir/$stamp.json"
echo "written: $out_dir/$stamp.json"
