#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan + UBSan) into build-fuzz/ and runs each for a bounded
# time, starting from a copy of its committed seeds (build-fuzz/corpus/<target>, kept between runs, so the
# seeds in fuzz/seeds/ stay as committed). Prints executions per target; exits non-zero when a target
# finds a crash, a sanitizer error, a hang or an out-of-memory (the input is left in
# build-fuzz/artifacts/<target>/: add it to fuzz/regressions/<target>/ with the fix).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default 20 CPU-seconds, every target
#   scripts/fuzz.sh --build-only                         the build alone (test.sh builds beside a suite)
#
# A target's SECONDS are seconds of CPU time, and the targets run one per core; the last one starts without
# waiting for a core, so that the last round ends together instead of one target fuzzing alone (11 targets on
# 2 cores took 97 s of wall time for 15 s each; their CPU time needs 83).
# WORKBENCH_FUZZ_BUILD_DIR overrides build-fuzz; WORKBENCH_FUZZ_JOBS the build's parallelism;
# WORKBENCH_FUZZ_PARALLEL how many targets fuzz at once (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-phase-times.sh
build_only=0
[ "${1:-}" = --build-only ] && build_only=1 && shift
seconds=${1:-20}
shift || true
./scripts/install-deps.sh
build_dir=${WORKBENCH_FUZZ_BUILD_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWORKBENCH_FUZZ=ON >/dev/null
cmake --build "$build_dir" -j"${WORKBENCH_FUZZ_JOBS:-$(nproc)}"
phase "fuzz build"
[ "$build_only" = 1 ] && exit 0

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(utf8 text poems tsv csv folder config safetensors runfolder verse sweep)
fi

# Each target runs until its process has used SECONDS of CPU time (user + system, /proc/PID/stat), then
# gets SIGUSR1: libFuzzer finishes the input at hand, prints its final stats and exits 0. (All eleven at once
# instead: 86 s, but 11-30 % fewer executions in the same CPU time for ten of the eleven, the cores' caches
# shared eleven ways.) The total time is a wall-clock cap only. Each target writes its line of the table to
# logs/<target>.result; the table comes in order.
lanes=${WORKBENCH_FUZZ_PARALLEL:-$(nproc)}
budget=$((seconds * $(getconf CLK_TCK)))  # in clock ticks, /proc's unit
# `fuzz_within_budget PID`: true while the process runs and has used less than its CPU time. Builtins only
# (eleven targets poll once a second).
fuzz_within_budget() {
  local stat fields
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  read -ra fields <<<"${stat##*) }"  # state, ppid, ... : utime and stime are the 12th and 13th after the name
  [ "${fields[0]}" != Z ] && [ $((fields[11] + fields[12])) -lt "$budget" ]
}
fuzz_one() {
  local t=$1 corpus="$build_dir/corpus/$1" artifacts="$build_dir/artifacts/$1" log="$build_dir/logs/$1.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  cp -n fuzz/seeds/"$t"/* "$corpus"/ 2>/dev/null || true
  [ -d fuzz/regressions/"$t" ] && cp -n fuzz/regressions/"$t"/* "$corpus"/ 2>/dev/null || true
  local dict=()
  [ -f fuzz/dicts/"$t".dict ] && dict=(-dict=fuzz/dicts/"$t".dict)
  local rc=0 pid
  "$build_dir/bin/fuzz_$t" "${dict[@]}" -max_total_time=$((seconds * 3 + 60)) -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 &
  pid=$!
  while fuzz_within_budget "$pid"; do sleep 1; done
  kill -USR1 "$pid" 2>/dev/null || true
  wait "$pid" || rc=$?
  local execs speed="" files result
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # Per second of the target's CPU budget, not libFuzzer's per second of wall time: the last round's targets
  # share the cores, and their rates stay comparable with the others' (a target stopped early, by a finding
  # or the wall-clock cap, reads low).
  [ -n "$execs" ] && speed=$((execs / seconds))
  files=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $rc): $(grep -m1 -E '^==[0-9]+==ERROR|runtime error|^fuzz: invariant|ERROR: libFuzzer' "$log" || true)"
  fi
  printf '%-12s %12s %10s %8s  %s\n' "$t" "${execs:-?}" "${speed:-?}" "$files" "$result" >"$build_dir/logs/$t.result"
}

mkdir -p "$build_dir/logs"
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  rm -f "$build_dir/logs/$t.result"
  if [ $((i + 1)) -lt ${#targets[@]} ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n || true; done
  fi
  fuzz_one "$t" &
done
wait

failed=()
printf '%-12s %12s %10s %8s  %s\n' target executions exec/CPU-s corpus result
for t in "${targets[@]}"; do
  if [ -f "$build_dir/logs/$t.result" ]; then cat "$build_dir/logs/$t.result"; else echo "$t: no result (the script failed)"; fi
  grep -q '  ok$' "$build_dir/logs/$t.result" 2>/dev/null || failed+=("$t")
done

phase "fuzzing"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${failed[*]} failed; logs in $build_dir/logs/, inputs in $build_dir/artifacts/" >&2
  exit 1
fi
