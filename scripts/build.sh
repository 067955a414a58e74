#!/usr/bin/env bash
# Configures and builds LSTM Workbench into build/ (Release, Ninja), installing missing Debian packages
# first. Extra arguments go to CMake's configure step (e.g. -DWORKBENCH_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_dir=${WORKBENCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
