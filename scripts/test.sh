#!/usr/bin/env bash
# Builds everything and runs every test (core, CLI end to end, GUI offscreen, datasets, packaging).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh "$@"
cd "${WORKBENCH_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" --timeout 900
