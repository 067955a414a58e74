#!/usr/bin/env bash
# Builds everything, checks the formatting, and runs every test (core, CLI end to end, GUI offscreen,
# datasets, packaging, the fuzzers' seeds and regressions); then the Python package's tests (python/, with
# TensorBoard and ONNX Runtime: scripts/test-python.sh); then the same suite built with ASan + UBSan against
# PyTorch 2.15's own LibTorch from PyPI (scripts/test-sanitized.sh, build-asan/: memory errors and LibTorch
# API drift in one build); then the CUDA half compiled against that PyTorch's CUDA build, without a GPU
# (scripts/test-cuda-build.sh, build-cuda/); then each libFuzzer target for 15 CPU-seconds (scripts/fuzz.sh,
# clang, build-fuzz/).
# What runs beside the suites takes the core they leave idle: the Python tests and, at the lowest priority,
# the sanitizer build beside the release suite; the fuzz build beside the sanitized suite; the CUDA compile
# check beside the sanitized suite and the fuzzing.
# Every phase prints its wall and CPU seconds; the builds go through ccache when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-phase-times.sh
# The machine, for the phase times below: they depend on its CPU generation (docs/benchmarks.md).
echo "test: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), CPU family $(lscpu | sed -n 's/^CPU family: *//p')" \
  "model $(lscpu | sed -n 's/^Model: *//p'), AVX-512 $(grep -q avx512f /proc/cpuinfo && echo yes || echo no);" \
  "LSTM_WORKBENCH_CPU_CAPABILITY=${LSTM_WORKBENCH_CPU_CAPABILITY:-} ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY:-}" >&2
./scripts/install-deps.sh
# While the release build compiles, the Python tests' environment (about 3 GB of wheels on a first run) and
# PyTorch 2.15's LibTorch for the sanitizer build are fetched and unpacked beside it: mostly the network and
# the disk (installed without compiling bytecode: with it, the release build beside took 354 s, not 311).
# Their output goes to a log that is shown if they fail.
mkdir -p "${WORKBENCH_BUILD_DIR:-build}"
prepare_log="$PWD/${WORKBENCH_BUILD_DIR:-build}/prepare-python.log"
background=()
# On any exit, what still runs in the background goes with its children (a build's compilers, the tests'
# CLI), not only the shell that started them.
kill_tree() {  # (the children from /proc: no procps needed)
  local child
  for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'for p in "${background[@]}"; do kill_tree "$p"; done' EXIT
python_ready="$PWD/${WORKBENCH_BUILD_DIR:-build}/python-environment-ready"
rm -f "$python_ready"
if [ "${WORKBENCH_PYTHON_TESTS:-1}" != 0 ]; then
  {
    ./scripts/test-python.sh --prepare
    touch "$python_ready"
    if [ "${WORKBENCH_SANITIZE_TESTS:-1}" != 0 ]; then ./scripts/pytorch-libtorch.sh 2.15.0; fi
    if [ "${WORKBENCH_CUDA_BUILD_TESTS:-1}" != 0 ]; then ./scripts/cuda-toolkit.sh 2.15.0; fi
  } >"$prepare_log" 2>&1 &
  prepare_pid=$!
  background+=("$prepare_pid")
fi
./scripts/build.sh "$@"
phase "release build"
# The sources as .clang-format says, before the long part (scripts/check-format.sh).
./scripts/check-format.sh
# the domain never includes the engine, the engine never Qt, the front end never LibTorch; no function over 120
# lines.
./scripts/check-layers.sh
./scripts/check-function-size.sh
phase "format check"
# The Python package (python/) against the CLI just built, under PyTorch 2.15 from PyPI, with TensorBoard's
# reader and ONNX Runtime (scripts/test-python.sh; the first run fetches about 3 GB of wheels into the wheel
# cache). WORKBENCH_PYTHON_TESTS=0 skips them. One core's work, started beside the release suite as soon as
# their environment is ready (at once on a machine that made it before): the suite leaves a core idle for
# about a third of its time (its Slurm, network and window tests wait more than they compute: 218 CPU-s in
# 172 s of two cores on the Intel Xeon of 2026-12-03), which they take. Their output comes when they are
# waited for, after the sanitized suite.
python_log="$PWD/${WORKBENCH_BUILD_DIR:-build}/python-tests.log"
python_pid=""
if [ "${WORKBENCH_PYTHON_TESTS:-1}" != 0 ]; then
  {
    until [ -e "$python_ready" ]; do
      if ! kill -0 "$prepare_pid" 2>/dev/null && [ ! -e "$python_ready" ]; then
        echo "test: the Python tests' environment was not prepared (${prepare_log#"$PWD"/})"
        exit 1
      fi
      sleep 1
    done
    LSTM_WORKBENCH_CLI="${WORKBENCH_BUILD_DIR:-build}/bin/lstm-workbench-cli" ./scripts/test-python.sh
  } >"$python_log" 2>&1 &
  python_pid=$!
  background+=("$python_pid")
fi
# The sanitizer build goes beside the release suite, at the lowest priority: the suite leaves a core idle for
# about 40 % of its time (its network, scheduler and window tests wait more than they compute), and the
# build takes only what the suite leaves (nice 19: by the scheduler's weights, 15 against 1024, about 1.5 %
# of a core the suite wants). It starts when
# PyTorch 2.15's LibTorch is unpacked (the preparation above); its output is shown when it is waited for.
sanitizer_build_log="$PWD/${WORKBENCH_BUILD_DIR:-build}/sanitizer-build.log"
sanitizer_build_pid=""
if [ "${WORKBENCH_SANITIZE_TESTS:-1}" != 0 ] && [ -n "${prepare_pid:-}" ]; then
  {
    until ./scripts/pytorch-libtorch.sh --installed 2.15.0 >/dev/null; do
      kill -0 "$prepare_pid" 2>/dev/null || ./scripts/pytorch-libtorch.sh --installed 2.15.0 >/dev/null ||
        { echo "test: LibTorch 2.15.0 was not prepared" >&2; exit 1; }
      sleep 2
    done
    nice -n 19 ./scripts/test-sanitized.sh --build-only 2.15.0
  } >"$sanitizer_build_log" 2>&1 &
  sanitizer_build_pid=$!
  background+=("$sanitizer_build_pid")
fi
cd "${WORKBENCH_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" --timeout 900 | tee ctest.log
slowest_tests ctest.log
phase "release tests"
cd - >/dev/null
# The Python environment's preparation, waited for: its failure is shown here.
if [ "${WORKBENCH_PYTHON_TESTS:-1}" != 0 ]; then
  if ! wait "$prepare_pid"; then
    cat "$prepare_log" >&2
    echo "test: the Python tests' environment could not be prepared (log above)" >&2
    exit 1
  fi
  phase "python environment (beside the release build and its tests)"
fi
# The CUDA half compiled against PyTorch 2.15's CUDA wheel with nvcc and CUDA's headers from PyPI, without a
# GPU (scripts/test-cuda-build.sh: only the sources whose code differs under CUDA, about a minute cold);
# WORKBENCH_CUDA_BUILD_TESTS=0 skips it. At the lowest priority beside the sanitized suite and the fuzzing,
# which leave a core idle now and then (their tails, libFuzzer's merges); waited for at the end.
cuda_log="$PWD/${WORKBENCH_BUILD_DIR:-build}/cuda-build.log"
cuda_pid=""
# (Only where the preparation above fetched its environment and toolkit: alone it would fetch them itself,
# beside the sanitizer build's own fetch.)
if [ "${WORKBENCH_CUDA_BUILD_TESTS:-1}" != 0 ] && [ -n "${prepare_pid:-}" ]; then
  nice -n 19 ./scripts/test-cuda-build.sh 2.15.0 >"$cuda_log" 2>&1 &
  cuda_pid=$!
  background+=("$cuda_pid")
fi
# The fuzzers' build (clang, build-fuzz/) goes beside the sanitized suite at the lowest priority, in the core
# its waits and its tail leave idle (57 core-seconds of its 466 in a cold run on the Intel Xeon of
# 2026-12-03, where the fuzz build then took 52 s of both cores after it); the fuzzing waits for it.
fuzz_seconds=${WORKBENCH_FUZZ_SECONDS:-15}
fuzz_build_log="$PWD/${WORKBENCH_BUILD_DIR:-build}/fuzz-build.log"
fuzz_build_pid=""
start_fuzz_build() {
  if [ "$fuzz_seconds" -gt 0 ]; then
    nice -n 19 ./scripts/fuzz.sh --build-only >"$fuzz_build_log" 2>&1 &
    fuzz_build_pid=$!
    background+=("$fuzz_build_pid")
  fi
}
# WORKBENCH_SANITIZE_TESTS=0 skips the sanitizer build against PyTorch 2.15's LibTorch (about half of this
# script's time).
if [ -n "$sanitizer_build_pid" ]; then
  sanitizer_build_rc=0
  wait "$sanitizer_build_pid" || sanitizer_build_rc=$?
  cat "$sanitizer_build_log"
  if [ "$sanitizer_build_rc" != 0 ]; then
    echo "test: the sanitizer build failed (exit $sanitizer_build_rc)" >&2
    exit 1
  fi
  # The wait only: its own phase lines above say how long it ran and its CPU seconds, which the shell adds to
  # the phase it ended in (bash collects a finished background job at once).
  phase "sanitizer build (beside the release suite; the wait for it)"
  start_fuzz_build
  ./scripts/test-sanitized.sh --tests-only 2.15.0
  phase_skip
elif [ "${WORKBENCH_SANITIZE_TESTS:-1}" != 0 ]; then
  start_fuzz_build
  ./scripts/test-sanitized.sh 2.15.0
  phase_skip
fi
if [ "${WORKBENCH_PYTHON_TESTS:-1}" != 0 ]; then
  python_rc=0
  wait "$python_pid" || python_rc=$?
  cat "$python_log"
  [ "$python_rc" = 0 ] || { echo "test: the Python tests failed (exit $python_rc)" >&2; exit 1; }
  # The wait only: the tests ran beside the release suite; their output above says how long they took,
  # and their CPU seconds are in no phase line.
  phase "python tests (beside the release suite; the wait for them)"
fi
# `wait_beside PID LOG WHAT PHASE`: waits for a job that ran beside the suites, shows its output, stops the
# script if it failed (naming WHAT), and prints PHASE's time: the wait's only (its own phase lines in LOG say
# how long it ran).
wait_beside() {
  local rc=0
  wait "$1" || rc=$?
  cat "$2"
  [ "$rc" = 0 ] || { echo "test: $3 failed (exit $rc)" >&2; exit 1; }
  phase "$4"
}
# Then each fuzzer briefly (scripts/fuzz.sh 600 searches longer); WORKBENCH_FUZZ_SECONDS=0 skips them.
if [ -n "$fuzz_build_pid" ]; then
  wait_beside "$fuzz_build_pid" "$fuzz_build_log" "the fuzz build" \
    "fuzz build (beside the sanitized suite; the wait for it)"
fi
if [ "$fuzz_seconds" -gt 0 ]; then
  ./scripts/fuzz.sh "$fuzz_seconds"
  phase_skip
fi
if [ "${WORKBENCH_CUDA_BUILD_TESTS:-1}" != 0 ] && [ -z "$cuda_pid" ]; then
  ./scripts/test-cuda-build.sh 2.15.0
  phase_skip
elif [ -n "$cuda_pid" ]; then
  wait_beside "$cuda_pid" "$cuda_log" "the CUDA compile check" \
    "cuda compile check (beside the sanitized suite and the fuzzing; the wait for it)"
fi
