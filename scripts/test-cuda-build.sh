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
#   scripts/test-cuda-build.sh [VERSION]        WORKBENCH_CUDA_UNITY_BATCH: sources a unit (default 5; 1 = each alone)
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
# FOLDER/PATH. The sources of one target are compiled a few to a translation unit, as the release and
# sanitizer builds compile the engine (cmake/WorkbenchUnity.cmake): LibTorch's CUDA headers, most of each
# compile, are then parsed once a unit instead of once a source (112 s and 196 CPU-s -> 43 s and 66 on a Zen 5,
# without ccache). A unit's errors name their source's file.
mapfile -t sources < <(python3 scripts/cuda-sources.py)
python3 - "$build_dir" "${WORKBENCH_CUDA_UNITY_BATCH:-5}" "${sources[@]}" <<'PY'
import concurrent.futures, os, re, subprocess, sys
build, batch, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
targets = subprocess.run(["ninja", "-C", build, "-t", "targets", "all"], capture_output=True, text=True,
                         check=True).stdout
objects = {}
for obj in re.findall(r"^(\S+\.cpp\.o): CXX_COMPILER", targets, re.M):
    folder, _, rest = obj.partition("CMakeFiles/")
    objects.setdefault(folder + rest.split(".dir/", 1)[1][:-2], obj)
missing = [s for s in sources if s not in objects]
if missing:
    sys.exit(f"test-cuda-build: {', '.join(missing)} differ under CUDA, but no target here compiles them")
# The units: each target's sources in order, at most `batch` to a unit (the target is the object's
# FOLDER/CMakeFiles/TARGET.dir).
by_target = {}
for source in sources:
    by_target.setdefault(objects[source].split(".dir/", 1)[0], []).append(source)
units = [group[i:i + batch] for group in by_target.values() for i in range(0, len(group), batch)]
unity_dir = os.path.abspath(os.path.join(build, "cuda-unity"))
os.makedirs(unity_dir, exist_ok=True)
def compile(numbered):
    n, unit = numbered
    command = subprocess.run(["ninja", "-C", build, "-t", "commands", "-s", objects[unit[0]]],
                             capture_output=True, text=True, check=True).stdout
    if len(unit) > 1:  # the first source's command, compiling a unit that includes them all
        first = os.path.abspath(unit[0])
        if command.count(" " + first) != 1:
            sys.exit(f"test-cuda-build: the command for {unit[0]} does not name it once: {command}")
        unity = os.path.join(unity_dir, f"unit_{n}.cpp")
        with open(unity, "w") as f:
            # Relative to the unit's folder: the same text in every clone, so that ccache shares it.
            f.write("".join(f'#include "{os.path.relpath(os.path.abspath(s), unity_dir)}"\n' for s in unit))
        command = command.replace(" " + first, " " + unity)
    return unit, subprocess.run(command, shell=True, cwd=build, capture_output=True, text=True)
failed = 0
with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
    for unit, done in pool.map(compile, enumerate(units)):
        if done.returncode == 0:
            for source in unit:
                print(f"test-cuda-build: compiled {source}", flush=True)
        else:
            print(f"test-cuda-build: FAILED   the unit of {', '.join(unit)} (the errors below name the file)",
                  flush=True)
        sys.stderr.write(done.stdout + done.stderr)
        failed += done.returncode != 0
sys.exit(1 if failed else 0)
PY
echo "test-cuda-build: ${#sources[@]} sources that differ under CUDA compiled against LibTorch $version with" \
  "CUDA $(basename "$toolkit" | sed 's/^cuda-//')"
phase "cuda compile check"
