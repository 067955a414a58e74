#!/usr/bin/env bash
# Fetches PyTorch's own LibTorch from PyPI and unpacks it where CMake finds it; prints the CMake prefix to
# build against (-DCMAKE_PREFIX_PATH=..., README "Building against PyTorch's LibTorch").
#
#   scripts/pytorch-libtorch.sh [VERSION]        (default 2.15.0)
#   scripts/pytorch-libtorch.sh --installed [VERSION]   exits 0 when it is unpacked already, 1 when not (no
#                                                       network: what scripts/test.sh waits for)
#
# The torch wheel is LibTorch whole (headers, libraries, CMake package), a CUDA build. Without a CUDA toolkit
# the project links its CPU half (cmake/WorkbenchTorch.cmake), and libtorch_cpu then needs only the CUDA
# runtime and CUPTI of the nvidia-* wheels the torch wheel names, so those two are fetched, not cuDNN,
# cuBLAS or NCCL (gigabytes). Wheels are cached (under WORKBENCH_WHEEL_CACHE, default
# ~/.cache/lstm-workbench/wheels, a folder a version) and unpacked once into .deps/pytorch-VERSION/
# (WORKBENCH_PYTORCH_DIR), laid out as site-packages is (torch/ beside nvidia/), so that libtorch's RPATH
# finds the CUDA runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
installed_only=0
[ "${1:-}" = --installed ] && { installed_only=1; shift; }
version=${1:-2.15.0}
cache=${WORKBENCH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lstm-workbench/wheels}/torch-$version
prefix=${WORKBENCH_PYTORCH_DIR:-$PWD/.deps/pytorch-$version}
cmake_prefix="$prefix/torch/share/cmake"
if [ -f "$prefix/.complete" ]; then
  echo "$cmake_prefix"
  exit 0
fi
[ "$installed_only" = 0 ] || exit 1
# The wheels for this machine and its python3 (only LibTorch is used, never the Python module, so any
# CPython version's wheel will do).
python=python3
"$python" -m pip --version >/dev/null 2>&1 || python=/usr/bin/python3  # Debian's, with python3-pip
# The same wheels are in the Python tests' cache when scripts/pytorch-venv.sh fetched this version already
# (test.sh runs it first): taken from there without the network, the index only for what is missing there.
venv_cache=$(dirname "$cache")/venv-$version
pip_download() {
  "$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --dest "$cache" \
    --no-index --find-links "$venv_cache" "$@" >/dev/null 2>&1 ||
    "$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --dest "$cache" "$@" >&2
}
mkdir -p "$cache"
echo "pytorch-libtorch: fetching torch==$version (cache: $cache)" >&2
pip_download --no-deps "torch==$version"
wheel=$(ls "$cache"/torch-"$version"-cp3*.whl | head -1)
# The CUDA toolkit requirement the wheel names (cuda-toolkit[...]==X, PyTorch 2.15's form), with only the
# runtime and CUPTI, which libtorch_cpu is linked with (readelf -d: libcudart.so.13, libcupti.so.13).
toolkit=$(unzip -p "$wheel" "torch-$version.dist-info/METADATA" |
  sed -n 's/^Requires-Dist: cuda-toolkit\[[^]]*\] *\(==[^;]*\);.*/\1/p' | tr -d ' ' | head -1)
[ -n "$toolkit" ] || { echo "pytorch-libtorch: torch $version names no cuda-toolkit requirement" >&2; exit 1; }
pip_download "cuda-toolkit[cudart,cupti]$toolkit"

rm -rf "$prefix.partial"
mkdir -p "$prefix.partial"
unzip -q -o "$wheel" 'torch/*' -d "$prefix.partial"
for w in "$cache"/nvidia_cuda_runtime-*.whl "$cache"/nvidia_cuda_cupti-*.whl; do
  unzip -q -o "$w" 'nvidia/*' -d "$prefix.partial"
done
touch "$prefix.partial/.complete"
rm -rf "$prefix"
mv "$prefix.partial" "$prefix"
echo "pytorch-libtorch: LibTorch $version in $prefix ($(du -sh "$prefix" | cut -f1))" >&2
echo "$cmake_prefix"
