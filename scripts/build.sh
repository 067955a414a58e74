#!/usr/bin/env bash
# Configures and builds LSTM Workbench into build/ (Release, Ninja), installing missing Debian packages
# first. Everything by default; `--target T` (repeatable) builds only T and what it needs, as run-app.sh does
# for the two programs. Other arguments go to CMake's configure step (e.g. -DWORKBENCH_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
configure_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=("$2"); shift 2 ;;
    *) configure_args+=("$1"); shift ;;
  esac
done
./scripts/install-deps.sh
build_dir=${WORKBENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${configure_args[@]}" >/dev/null
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}"
else
  cmake --build "$build_dir" -j"$(nproc)"
fi
