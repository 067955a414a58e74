#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc) into
# build-asan/, against PyTorch's own LibTorch from PyPI (2.15.0, or the version given; the release build uses
# Debian's): any out-of-bounds access, use-after-free, undefined behaviour or leak fails the test that caused
# it, and the same build is the suite against the LibTorch most users of a GPU have, which catches LibTorch
# API drift. One build does both: CI used to build and run the whole suite once for each (docs/benchmarks.md,
# "Build and CI time"); scripts/test-pytorch.sh still makes an optimised build against any version.
# LeakSanitizer runs at the exit of every test process; tests/sanitizers/lsan.supp lists the few one-time
# allocations of third-party libraries it may not report (none of the project's code).
#
#   scripts/test-sanitized.sh [--build-only | --tests-only] [VERSION] [CMAKE_ARGS...]
#                                         VERSION: 2.15.0 (default), or debian for Debian's
# --build-only stops after the build, --tests-only runs the suite of a finished build: scripts/test.sh builds
# beside the release suite and tests after it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-phase-times.sh
steps=all
case "${1:-}" in --build-only) steps=build; shift ;; --tests-only) steps=tests; shift ;; esac
version=2.15.0
case "${1:-}" in [0-9]* | debian) version=$1; shift ;; esac
cmake_args=("$@")
build_dir=${WORKBENCH_ASAN_BUILD_DIR:-build-asan}
build() {
  ./scripts/install-deps.sh
  torch_args=()
  if [ "$version" != debian ]; then
    torch_args=(-DCMAKE_PREFIX_PATH="$(./scripts/pytorch-libtorch.sh "$version")")
    phase "pytorch $version fetch"
  fi
  mkdir -p "$build_dir"
  # A folder configured against another LibTorch (CMake keeps the Torch_DIR it found) starts its cache anew.
  if [ "$(cat "$build_dir/libtorch-version" 2>/dev/null)" != "$version" ]; then
    rm -rf "$build_dir/CMakeCache.txt" "$build_dir/CMakeFiles"
    echo "$version" >"$build_dir/libtorch-version"
  fi
  # -O1: the sanitizers' own advice (readable stacks, a quick build); the fused LSTM's kernels still
  # vectorise.
  if ! cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DWORKBENCH_SANITIZE=ON -DWORKBENCH_PCH=ON -DWORKBENCH_PACKAGING=OFF \
    "${torch_args[@]}" "${cmake_args[@]}" >"$build_dir/configure.log" 2>&1; then
    cat "$build_dir/configure.log" >&2
    exit 1
  fi
  grep -E "^-- LibTorch" "$build_dir/configure.log" || true
  cmake --build "$build_dir" -j"$(nproc)"
  # What the programs were built against, as they report it.
  "$build_dir/bin/lstm-workbench-cli" devices | grep -i libtorch
  phase "sanitizer build (LibTorch $version)"
}

tests() {
  supp="$PWD/tests/sanitizers"
  # allocator_may_return_null: a failed huge allocation is an out-of-memory error the app must report (the
  # OutOfMemory test), not a sanitizer abort; max_allocation_size_mb makes "huge" fail at once, as the
  # kernel does without ASan. detect_odr_violation=0: LibTorch's and OpenBLAS's own duplicate symbols.
  export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=16384:detect_odr_violation=0:abort_on_error=0:detect_leaks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  cd "$build_dir"
  # The packaging test (a .deb of the release build; it says nothing about memory safety) is not configured
  # here, nor the man pages it packs: this flavour builds only what it runs. The suites labelled release-only
  # (tests/ReleaseOnlyTests.cmake: the network between namespaces, the window manager's frame, a real Slurm) add
  # nothing the sanitizers check.
  ctest --output-on-failure -j"$(nproc)" --timeout 1800 -LE release-only | tee ctest.log
  slowest_tests ctest.log
  phase "sanitizer tests"
}

case "$steps" in
  build) build ;;
  tests) tests ;;
  *)
    build
    tests
    ;;
esac
