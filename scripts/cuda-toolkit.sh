#!/usr/bin/env bash
# A CUDA toolkit made of PyPI's wheels, for compiling the project's CUDA half on a machine without a GPU or a
# CUDA install (scripts/test-cuda-build.sh). Prints the toolkit's root (CUDA_HOME).
#
#   scripts/cuda-toolkit.sh [TORCH_VERSION]      (default 2.15.0)
#
# The Python tests' environment (scripts/pytorch-venv.sh) already holds the torch wheel and every nvidia-*
# wheel it needs at run time, headers included: the CUDA runtime, cuBLAS, cuSPARSE, cuSOLVER, CCCL, NVTX,
# cuDNN, NCCL. What a compile adds is the compiler, which LibTorch's CMake package runs (its
# public/cuda.cmake enables CMake's CUDA language and checks nvcc's version against the headers'): nvcc,
# cicc (nvidia-nvvm) and crt/host_defines.h with its siblings (nvidia-cuda-crt, missing on the first GPU
# machine the project met), each at the version torch names in its cuda-toolkit requirement, about 100 MB.
# They are unpacked into .deps/cuda-VERSION/ (WORKBENCH_CUDA_TOOLKIT_DIR), laid out as /usr/local/cuda is:
# bin/ and nvvm/ from those wheels, include/ and lib/ as links to the environment's headers and libraries
# (lib64 the same folder), and lib/stubs/libcuda.so, a stand-in for the driver's library, which no wheel
# ships and a compile never calls (CMake's CUDA::cuda_driver target needs a file to name).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2.15.0}
python=$(./scripts/pytorch-venv.sh "$version")
# The site-packages that holds torch (and the nvidia-* wheels beside it): the shared environment's.
site=$("$python" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
wheel_cache=${WORKBENCH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lstm-workbench/wheels}
venv_cache=$wheel_cache/venv-$version
# The toolkit version the torch wheel was built with: cuda-toolkit[...]==13.2.2 names the toolkit's
# release; its components carry their own versions (the runtime's is the compiler's: 13.2.86).
cudart=$("$python" -m pip show nvidia-cuda-runtime 2>/dev/null | sed -n 's/^Version: //p')
[ -n "$cudart" ] || {
  echo "cuda-toolkit: the torch $version environment has no nvidia-cuda-runtime (a CPU-only torch?)" >&2
  exit 1
}
root=${WORKBENCH_CUDA_TOOLKIT_DIR:-$PWD/.deps/cuda-$cudart}
if [ -f "$root/.complete" ] && [ "$(cat "$root/.complete")" = "$site" ]; then
  echo "$root"
  exit 0
fi
cache=$wheel_cache/cuda-$cudart
mkdir -p "$cache"
wants=("nvidia-cuda-nvcc==$cudart" "nvidia-cuda-crt==$cudart" "nvidia-nvvm==$cudart")
"$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --no-deps --dest "$cache" \
  --no-index --find-links "$cache" --find-links "$venv_cache" "${wants[@]}" >/dev/null 2>&1 ||
  "$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --no-deps --dest "$cache" \
    "${wants[@]}" >&2

rm -rf "$root.partial"
mkdir -p "$root.partial"
for w in "$cache"/nvidia_cuda_nvcc-"$cudart"-*.whl "$cache"/nvidia_cuda_crt-"$cudart"-*.whl \
  "$cache"/nvidia_nvvm-"$cudart"-*.whl; do
  unzip -q -o "$w" 'nvidia/*' -d "$root.partial/wheels"
done
# The wheels' nvidia/cu13/ (the CUDA major version's folder) is the toolkit's root; the compiler's files are
# moved there, the environment's linked in beside them.
major_dir=$(ls -d "$root.partial"/wheels/nvidia/cu*)
mv "$major_dir"/* "$root.partial/"
rm -rf "$root.partial/wheels"
env_major=$site/nvidia/$(basename "$major_dir")
[ -d "$env_major/include" ] || { echo "cuda-toolkit: no $env_major/include" >&2; exit 1; }
link_all() {  # link_all FROM_DIR TO_DIR: each entry of FROM_DIR linked into TO_DIR unless already there
  local entry
  mkdir -p "$2"
  for entry in "$1"/*; do
    [ -e "$2/$(basename "$entry")" ] || ln -s "$entry" "$2/$(basename "$entry")"
  done
}
link_all "$env_major/include" "$root.partial/include"
for extra in cudnn nccl cusparselt; do
  [ -d "$site/nvidia/$extra/include" ] && link_all "$site/nvidia/$extra/include" "$root.partial/include"
done
link_all "$env_major/lib" "$root.partial/lib"
for extra in cudnn nccl cusparselt; do
  [ -d "$site/nvidia/$extra/lib" ] && link_all "$site/nvidia/$extra/lib" "$root.partial/lib"
done
# The wheels ship each library under its soname only (libcudart.so.13); find_library looks for libcudart.so.
for lib in "$root.partial"/lib/lib*.so.*; do
  plain=${lib%%.so.*}.so
  [ -e "$plain" ] || ln -s "$(basename "$lib")" "$plain"
done
ln -s lib "$root.partial/lib64"
mkdir -p "$root.partial/lib/stubs"
cc -shared -o "$root.partial/lib/stubs/libcuda.so" -x c /dev/null
echo "$site" >"$root.partial/.complete"
rm -rf "$root"
mv "$root.partial" "$root"
echo "cuda-toolkit: nvcc $cudart with torch $version's CUDA libraries in $root" \
  "($(du -sh "$root" | cut -f1) unpacked)" >&2
echo "$root"
