#!/usr/bin/env bash
# Compile time as a number: a cold Release build into its own folder, timed in the order a new user meets it
# (configure; the two programs, which run-app.sh builds; then everything else, which test.sh adds), then
# one-file rebuilds (a core source, a core public header, a ui source, a test), and where the compiler's
# time went per target with the slowest steps (bench/build_times.py on Ninja's log). Writes the numbers to
# BUILD_DIR/build-times.json; `--label NAME` also copies them to docs/benchmarks/build-times/NAME.json.
# Run it on an idle machine: both cores are busy for about ten minutes.
#
#   scripts/build-times.sh [--label NAME] [BUILD_DIR] [CMAKE_ARGS...]     default BUILD_DIR: build-times
set -euo pipefail
cd "$(dirname "$0")/.."
label=""
if [ "${1:-}" = "--label" ]; then label=$2; shift 2; fi
dir=${1:-build-times}
shift || true
./scripts/install-deps.sh
rm -rf "$dir"

now() { date +%s.%N; }
timed() {  # timed NAME COMMAND...: runs it quietly, records its wall seconds under NAME
  local start end
  start=$(now)
  "${@:2}" >/dev/null
  end=$(now)
  awk -v n="$1" -v s="$start" -v e="$end" 'BEGIN { printf "%s %.1f\n", n, e - s }' >>"$dir/wall-times.txt"
}
mkdir -p "$dir"
timed configure cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
timed cold_programs cmake --build "$dir" -j"$(nproc)" --target lstm-workbench lstm-workbench-cli
timed cold_rest cmake --build "$dir" -j"$(nproc)"
# Ninja's log of the cold build, before the rebuilds below overwrite the entries they repeat.
/usr/bin/python3 bench/build_times.py "$dir" --json "$dir/build-steps.json" >"$dir/build-steps.txt"

rebuild() {  # rebuild NAME FILE TARGET: touch one file, rebuild TARGET (then the rest, untimed, so that
  touch "$2"  # the next rebuild starts from an up-to-date tree)
  timed "$1" cmake --build "$dir" -j"$(nproc)" --target "$3"
  cmake --build "$dir" -j"$(nproc)" >/dev/null
}
rebuild rebuild_core_source core/engine/src/train/TrainingSession.cpp lstm-workbench-cli
rebuild rebuild_core_header core/domain/include/workbench/domain/domain/Config.h lstm-workbench
rebuild rebuild_ui_source ui/MainWindow.cpp lstm-workbench
rebuild rebuild_test_source tests/core/train/TrainingJobTest.cpp core_tests

/usr/bin/python3 - "$dir" "$label" <<'PY'
import json, os, platform, subprocess, sys, time
d, label = sys.argv[1], sys.argv[2]
times = dict((k, float(v)) for k, v in (l.split() for l in open(os.path.join(d, "wall-times.txt"))))
steps = json.load(open(os.path.join(d, "build-steps.json")))
load = open("/proc/loadavg").read().split()[:3]
out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip(),
       "dirty": bool(subprocess.run(["git", "status", "--porcelain", "-uno"], capture_output=True, text=True).stdout.strip()),
       "cpus": os.cpu_count(), "load_after": load, "wall_s": times,
       "compiler_s_total": steps["total_s"], "targets": steps["targets"],
       "slowest_steps": sorted(steps["steps"].items(), key=lambda kv: -kv[1])[:25]}
json.dump(out, open(os.path.join(d, "build-times.json"), "w"), indent=1)
if label:
    os.makedirs("docs/benchmarks/build-times", exist_ok=True)
    json.dump(out, open(f"docs/benchmarks/build-times/{label}.json", "w"), indent=1)
print(f"build-times: {out['date']}, commit {out['commit']}{' (with changes)' if out['dirty'] else ''}, {out['cpus']} CPUs, load after {' '.join(load)}")
for k, v in times.items():
    print(f"  {k:<22} {v:7.1f} s")
PY
cat "$dir/build-steps.txt"
