#!/usr/bin/env bash
# The CUDA path in one script for the device machine (docs/performance.md): builds core, the CLI and the core
# tests against the LibTorch inside that machine's Python PyTorch (no Qt there: WORKBENCH_BUILD_GUI=OFF), runs the
# core tests, then times each preset in fp32 and bf16 with `lstm-workbench-cli bench --device cuda:0` next to
# bench/pytorch_peer.py on the same GPU, alternately, round after round. JSON and logs go to $OUT (the
# device tool's output folder; build-gpu/gpu-bench when unset); bench/write_gpu_table.py renders the table.
#
#   here:        scripts/gpu-deps.sh                     (header-only dependencies and GoogleTest into .deps/)
#   device tool: run(command="bash scripts/gpu-bench.sh build test", carry=[".deps"])
#                run(command="bash scripts/gpu-bench.sh bench",      carry=[".deps"])   (while still warm)
#
# Stages: build, test, bench (default: all three). A dry run on a machine without a GPU uses Debian's
# LibTorch and python3-torch: GPU_BENCH_DEVICE=cpu scripts/gpu-bench.sh build bench
set -euo pipefail
cd "$(dirname "$0")/.."

DEVICE=${GPU_BENCH_DEVICE:-cuda:0}
BUILD_DIR=${BUILD_DIR:-build-gpu}
ROUNDS=${ROUNDS:-2}
STEPS=${STEPS:-30}
OUT=${OUT:-$BUILD_DIR/gpu-bench}
mkdir -p "$OUT"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build test bench)
python=${GPU_BENCH_PYTHON:-python3}
[ "$DEVICE" = cpu ] && python=/usr/bin/python3

prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')"
# CMake finds the unpacked packages' config files under these (the multiarch folder is not searched by default
# on every distribution).
deps=""
if [ -d .deps/root ]; then
  deps="$PWD/.deps/root"
  prefix="$prefix;$deps/usr;$deps/usr/lib/x86_64-linux-gnu/cmake"
fi

for stage in "${stages[@]}"; do
  case "$stage" in
    build)
      echo "gpu-bench: configure against $("$python" -c 'import torch; print(torch.__version__)')"
      cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWORKBENCH_BUILD_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$prefix" ${deps:+-DCMAKE_INCLUDE_PATH="$deps/usr/include"} 2>&1 | tee "$OUT/configure.log" | tail -n 5
      cmake --build "$BUILD_DIR" -j"$(nproc)" --target lstm-workbench-cli core_tests 2>&1 | tee "$OUT/build.log" | tail -n 5
      "$BUILD_DIR/bin/lstm-workbench-cli" devices --json | tee "$OUT/devices.json"
      ;;
    test)
      # The core suite: the CUDA-only tests run where a GPU is; the rest must pass on any LibTorch.
      (cd "$BUILD_DIR" && ctest -L core -j"$(nproc)" --output-on-failure 2>&1) |
        tee "$OUT/test.log" | tail -n 15
      ;;
    bench)
      "$python" -c 'import torch,json; print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()}))' \
        >"$OUT/versions.json" || true
      for round in $(seq 1 "$ROUNDS"); do
        for preset in imdb charrnn poems; do
          batch=0
          [ "$preset" = poems ] && [ "$DEVICE" != cpu ] && batch=1024  # poems trains at 1024 on a GPU
          for precision in fp32 bf16; do
            tag="$preset-$precision-$round"
            echo "gpu-bench: round $round $preset $precision"
            # A failing configuration is reported and skipped: the others still get their numbers.
            "$BUILD_DIR/bin/lstm-workbench-cli" bench --preset "$preset" --device "$DEVICE" --precision "$precision" \
              --steps "$STEPS" --batch-size "$batch" --json >"$OUT/ours-$tag.json" 2>"$OUT/ours-$tag.err" ||
              echo "gpu-bench: ours failed: $(cat "$OUT/ours-$tag.err")"
            "$python" bench/pytorch_peer.py --preset "$preset" --device "${DEVICE%%:*}" --precision "$precision" \
              --steps "$STEPS" --batch-size "$batch" >"$OUT/peer-$tag.json" 2>"$OUT/peer-$tag.err" ||
              echo "gpu-bench: PyTorch failed: $(tail -n 1 "$OUT/peer-$tag.err")"
          done
        done
      done
      "$python" bench/write_gpu_table.py "$OUT" | tee "$OUT/gpu.md"
      ;;
    *)
      echo "gpu-bench: unknown stage '$stage' (build, test, bench)" >&2
      exit 2
      ;;
  esac
done
