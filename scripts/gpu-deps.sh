#!/usr/bin/env bash
# Prepares, on this machine, what the GPU build needs besides LibTorch, in .deps/root/ (ignored by git): the
# device machine reaches no package registry, so it travels with the device tool's call
# (`carry: [".deps/root"]`, a few MB). Debian's nlohmann-json and CLI11 (header-only), GoogleTest (headers and
# static libraries) and Gloo's headers (c10d's process groups; core/engine/CMakeLists.txt says why any Gloo
# headers will do), unpacked; and the poems corpus, prepared, for scripts/gpu-bench.sh's train, generate and
# sweep. Run it here, before scripts/gpu-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps/root
mkdir -p .deps/root/debs
(cd .deps/root/debs && apt-get download nlohmann-json3-dev libcli11-dev libgtest-dev libgloo-dev >/dev/null)
for deb in .deps/root/debs/*.deb; do dpkg -x "$deb" .deps/root; done
rm -rf .deps/root/debs
LSTM_WORKBENCH_DATA="$PWD/.deps/root/corpora" python3 datasets/prepare.py tang-quatrains-7 >/dev/null
rm -rf .deps/root/corpora/.downloads  # the 82 MB package it was prepared from: the carry holds 64 MiB in all
echo "gpu-deps: unpacked into .deps/root ($(du -sh .deps/root | cut -f1))"
