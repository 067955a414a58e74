#!/usr/bin/env bash
# The release suite again, built against PyTorch's own LibTorch from PyPI (2.15.0, or the version given;
# scripts/pytorch-libtorch.sh fetches and caches it) into build-pytorch/: the LibTorch most users of a GPU
# have, beside Debian's that the release build uses. Without a CUDA toolkit it links the wheel's CPU half
# (cmake/WorkbenchTorch.cmake). The .deb's test is left out: the package depends on Debian's LibTorch.
#
#   scripts/test-pytorch.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-phase-times.sh
./scripts/install-deps.sh
version=${1:-2.15.0}
prefix=$(./scripts/pytorch-libtorch.sh "$version")
phase "pytorch $version fetch"
build_dir=${WORKBENCH_PYTORCH_BUILD_DIR:-build-pytorch}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DWORKBENCH_PACKAGING=OFF | grep -E "^-- LibTorch"
cmake --build "$build_dir" -j"$(nproc)"
# What the programs were built against, as they report it.
"$build_dir/bin/lstm-workbench-cli" devices | grep -i libtorch
phase "pytorch $version build"
cd "$build_dir"
ctest --output-on-failure -j"$(nproc)" --timeout 900
phase "pytorch $version tests"
