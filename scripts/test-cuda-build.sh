#!/usr/bin/env bash
# The CUDA half compiled without a GPU: every source whose code differs where LibTorch has CUDA
# (scripts/cuda-sources.py: CUDA graph steps, the CUDA device list, NCCL's process group, the CUDA end-to-end
# tests and what includes them) compiled against PyTorch's CUDA wheel (2.15.0, or the version given) with nvcc,
# the CUDA runtime's, cuBLAS', cuDNN's and NCCL's headers from PyPI (scripts/cuda-toolkit.sh), configured by
# LibTorch's own CMake package as on a GPU machine. A changed c10d or ATen signature in a CUDA-only call fails
# here, on every change, instead of on the next machine with a GPU. Compile only: the programs are linked and
# the CUDA tests run on a GPU (scripts/gpu-bench.sh); the rest of the code is compiled and tested against the
# same LibTorch by scripts/test-sanitized.sh. At -O0, as what is checked is that the code compiles; with
# cuDNN's headers on the include path (CAFFE2_USE_CUDNN, which LibTorch's package leaves off unless asked),
# for code that calls cuDNN itself.
#
#   scripts/test-cuda-build.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-phase-times.sh
version=${1:-2.15.0}
python=$(./scripts/pytorch-venv.sh "$version")
toolkit=$(./scripts/cuda-toolkit.sh "$version")
# The site-packages that holds torch (and the nvidia-* wheels beside it): the shared environment's.
site=$("$python" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
build_dir=${WORKBENCH_CUDA_BUILD_DIR:-build-cuda}
mkdir -p "$build_dir"
if ! CUDA_HOME="$toolkit" PATH="$toolkit/bin:$PATH" cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DWORKBENCH_BUILD_GUI=OFF -DWORKBENCH_PACKAGING=OFF \
  -DWORKBENCH_UNITY=OFF -DWORKBENCH_PCH=OFF -DWORKBENCH_BENCHMARKS=ON \
  -DCMAKE_PREFIX_PATH="$site/torch/share/cmake" -DCMAKE_CUDA_ARCHITECTURES=90 -DCAFFE2_USE_CUDNN=ON \
  >"$build_dir/configure.log" 2>&1; then
  cat "$build_dir/configure.log" >&2
  exit 1
fi
# A CUDA build of LibTorch whose CUDA half was left out (cmake/WorkbenchTorch.cmake, when no toolkit is
# found) would compile the CPU code again and check nothing.
grep -E "^-- LibTorch .*CUDA devices ON" "$build_dir/configure.log" || {
  grep -E "^-- (LibTorch|PyTorch)" "$build_dir/configure.log" >&2
  echo "test-cuda-build: LibTorch $version was not configured with CUDA devices" >&2
  exit 1
}
# Each source compiled with the command Ninja would run for its object (`ninja -t commands -s`: the flags,
# defines and include folders of the target that compiles it, through ccache), and nothing else: building the
# object through Ninja would first build what its target is ordered after (the engine, and the CLI that the
# end-to-end tests run). CMake names an object FOLDER/CMakeFiles/TARGET.dir/PATH.o for the source
# FOLDER/PATH.
mapfile -t sources < <(python3 scripts/cuda-sources.py)
python3 - "$build_dir" "${sources[@]}" <<'PY'
import concurrent.futures, os, re, subprocess, sys
build, sources = sys.argv[1], sys.argv[2:]
targets = subprocess.run(["ninja", "-C", build, "-t", "targets", "all"], capture_output=True, text=True,
                         check=True).stdout
objects = {}
for obj in re.findall(r"^(\S+\.cpp\.o): CXX_COMPILER", targets, re.M):
    folder, _, rest = obj.partition("CMakeFiles/")
    objects.setdefault(folder + rest.split(".dir/", 1)[1][:-2], obj)
missing = [s for s in sources if s not in objects]
if missing:
    sys.exit(f"test-cuda-build: {', '.join(missing)} differ under CUDA, but no target here compiles them")
def compile(source):
    command = subprocess.run(["ninja", "-C", build, "-t", "commands", "-s", objects[source]],
                             capture_output=True, text=True, check=True).stdout
    return source, subprocess.run(command, shell=True, cwd=build, capture_output=True, text=True)
failed = 0
with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
    for source, done in pool.map(compile, sources):
        print(f"test-cuda-build: {'compiled' if done.returncode == 0 else 'FAILED  '} {source}", flush=True)
        sys.stderr.write(done.stdout + done.stderr)
        failed += done.returncode != 0
sys.exit(1 if failed else 0)
PY
echo "test-cuda-build: ${#sources[@]} sources that differ under CUDA compiled against LibTorch $version with" \
  "CUDA $(basename "$toolkit" | sed 's/^cuda-//')"
phase "cuda compile check"
