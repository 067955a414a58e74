#!/usr/bin/env bash
# Unpacks what the GPU build needs besides LibTorch into .deps/ (ignored by git): the device machine reaches
# no package registry, so Debian's nlohmann-json and CLI11 (header-only) and GoogleTest (headers and static
# libraries) travel with the device tool's call (`carry: [".deps"]`). Run it here, before scripts/gpu-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps
mkdir -p .deps/debs
(cd .deps/debs && apt-get download nlohmann-json3-dev libcli11-dev libgtest-dev >/dev/null)
for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
rm -rf .deps/debs
echo "gpu-deps: unpacked into .deps/root ($(du -sh .deps | cut -f1))"
