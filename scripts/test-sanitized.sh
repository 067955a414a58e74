#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc) into
# build-asan/: any out-of-bounds access, use-after-free, undefined behaviour or leak fails the test that
# caused it. LeakSanitizer runs at the exit of every test process; tests/sanitizers/lsan.supp lists the
# few one-time allocations of third-party libraries it may not report (none of the project's code).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-phase-times.sh
./scripts/install-deps.sh
build_dir=${WORKBENCH_ASAN_BUILD_DIR:-build-asan}
# -O1: the sanitizers' own advice (readable stacks, a quick build); the fused LSTM's kernels still vectorise.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DWORKBENCH_SANITIZE=ON -DWORKBENCH_PCH=ON -DWORKBENCH_PACKAGING=OFF "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
phase "sanitizer build"

supp="$PWD/tests/sanitizers"
# allocator_may_return_null: a failed huge allocation is an out-of-memory error the app must report (the
# OutOfMemory test), not a sanitizer abort; max_allocation_size_mb makes "huge" fail at once, as the
# kernel does without ASan. detect_odr_violation=0: LibTorch's and OpenBLAS's own duplicate symbols.
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=16384:detect_odr_violation=0:abort_on_error=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
cd "$build_dir"
# The packaging test (a .deb of the release build; it says nothing about memory safety) is not configured
# here, nor the man pages it packs: this flavour builds only what it runs.
ctest --output-on-failure -j"$(nproc)" --timeout 1800
phase "sanitizer tests"
