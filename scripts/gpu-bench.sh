#!/usr/bin/env bash
# The CUDA path in one call on the device machine (docs/performance.md), against the LibTorch inside that
# machine's Python PyTorch (no Qt there: WORKBENCH_BUILD_GUI=OFF):
#   build   the CLI, the core and the end-to-end tests
#   test    the core suite, then every Cuda test of the end-to-end suite (they skip by name without a GPU)
#   gputests the CUDA graph and cuDNN LSTM core tests and every Cuda end-to-end test, each with the LSTM on
#           at::lstm and on cuDNN's RNN API called directly (LSTM_WORKBENCH_CUDNN_RNN=auto, model/CudnnLstm.h)
#   bench   issue #48's shapes (SHAPES) in PRECISIONS (default fp32 bf16) on cuda:0: ours with CUDA graph steps,
#           the same with the LSTM on cuDNN's RNN API (each shape's algorithm timed: the "cuDNN LSTM:" lines),
#           ours with TF32 (fp32), and PyTorch eager (bench/pytorch_peer.py) on the same GPU, in turn, round
#           after round (ROUNDS, default 3); bench/write_gpu_table.py renders the table
#   profile where a step's time goes: ours phase by phase (bench --profile), PyTorch's kernels (torch.profiler),
#           and Nsight Systems where the machine has it; bench/write_gpu_profile.py renders it
#   run     what a user does: train the poems on cuda:0, generate a quatrain, and sweep cpu against cuda
# The device tool brings back at most 8 files from $OUT: this writes gpu-bench.log (everything printed),
# gpu.md (the table), gpu-profile.md, devices.json, and gpu-bench.tar.gz (every log and JSON, packed after each
# stage, so a call cut off by its limit still brings back the stages it finished). When OUT is unset they go to
# $BUILD_DIR/gpu-bench.
#
#   here:        scripts/gpu-deps.sh          (headers, GoogleTest and the poems corpus into .deps/root)
#   device tool: run(command="bash scripts/gpu-bench.sh", carry=[".deps/root"], timeout_s=480)
#   the call prepared in session 46 (the cuDNN LSTM's first run on a card; no GPU was lent after all):
#     run(command="ROUNDS=2 STEPS=20 PRECISIONS='fp32 bf16 fp16' bash scripts/gpu-bench.sh build gputests bench run",
#         carry=[".deps/root"], timeout_s=570)
#
# Stages can be named (default: build bench profile test run: the numbers first, as GPU time is scarce). The dry run, on a machine without a GPU, builds against
# PyTorch's wheel from PyPI (scripts/pytorch-libtorch.sh) and times the peer in a Python with that torch:
#   GPU_BENCH_DEVICE=cpu GPU_BENCH_PYTHON=.deps/venv-pytorch-2.15.0/bin/python scripts/gpu-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DEVICE=${GPU_BENCH_DEVICE:-cuda:0}
BUILD_DIR=${BUILD_DIR:-build-gpu}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-30}
OUT=${OUT:-$BUILD_DIR/gpu-bench}
work="$(realpath -m "$BUILD_DIR")/gpu-bench-work"  # all but the 4 files above, packed into gpu-bench.tar.gz
rm -rf "$work"
mkdir -p "$OUT" "$work"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build bench profile test run)
python=${GPU_BENCH_PYTHON:-python3}
cli="$BUILD_DIR/bin/lstm-workbench-cli"
started=$SECONDS
step() { echo "gpu-bench: [$((SECONDS - started)) s] $*"; }

if [ "$DEVICE" = cpu ]; then
  prefix=$(scripts/pytorch-libtorch.sh)  # PyTorch's own LibTorch, its CPU half (no CUDA toolkit here)
else
  prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')"
fi
# The Debian packages gpu-deps.sh unpacked (CMake finds their config files under these; the multiarch folder
# is not searched by default on every distribution), and its prepared corpora.
deps=""
if [ -d .deps/root ]; then
  deps="$PWD/.deps/root"
  prefix="$prefix;$deps/usr;$deps/usr/lib/x86_64-linux-gnu/cmake"
fi
corpora="$PWD/.deps/root/corpora"

build() {
  step "configure against $("$python" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo "$prefix")"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWORKBENCH_BUILD_GUI=OFF \
    -DCMAKE_PREFIX_PATH="$prefix" ${deps:+-DCMAKE_INCLUDE_PATH="$deps/usr/include"} >"$work/configure.log" 2>&1 ||
    { tail -n 30 "$work/configure.log"; return 1; }
  grep -E "^-- (LibTorch|No Gloo)" "$work/configure.log"
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target lstm-workbench-cli core_tests e2e_tests >"$work/build.log" 2>&1 ||
    { grep -E "error|Error" "$work/build.log" | head -n 20; return 1; }
  echo "gpu-bench: compiler warnings: $(grep -c "warning:" "$work/build.log" || true)"
  "$cli" devices --json >"$OUT/devices.json"
  "$cli" devices
}

run_tests() {
  # The core suite: the CUDA-only tests run where a GPU is; the rest must pass on any LibTorch. A failing test's
  # own output is printed, and a crash's backtrace where gdb is.
  step "core tests"
  (cd "$BUILD_DIR" && ctest -L core -j"$(nproc)" --output-on-failure >"$work/core-tests.log" 2>&1) ||
    echo "gpu-bench: core tests FAILED"
  tail -n 3 "$work/core-tests.log"
  grep -A 25 -E "^[0-9]+/[0-9]+ Test +#[0-9]+: .*(SEGFAULT|Failed|Exception)" "$work/core-tests.log" | head -n 80 || true
  "$BUILD_DIR/bin/core_tests" --gtest_filter='CudnnLstm.*:CudaGraph*:OptimizerDeviceScalars*' 2>&1 | tail -n 24 || true
  step "Cuda tests"
  local code=0
  "$BUILD_DIR/bin/e2e_tests" --gtest_filter='Cuda.*' >"$work/cuda-tests.log" 2>&1 || code=$?
  grep -E "^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|tests ran" "$work/cuda-tests.log" || true
  if [ "$code" -ne 0 ]; then
    echo "gpu-bench: Cuda tests FAILED (exit $code)"
    tail -n 40 "$work/cuda-tests.log"
    if command -v gdb >/dev/null; then
      timeout 120 gdb -batch -ex run -ex bt --args "$BUILD_DIR/bin/e2e_tests" --gtest_filter='Cuda.*' 2>&1 | tail -n 40
    fi
  fi
}

# The GPU's own tests alone, for a short call: the CUDA graph tests of the core suite, every Cuda test of the
# end-to-end suite, and one suite that writes files (with its stack, should it crash).
gpu_tests() {
  # Which libstdc++ the programs load and where their std::filesystem calls bind (PyTorch's libtorch exports
  # a copy whose remove_all needs a libstdc++ newer than GCC 12's; README, "Building against PyTorch's LibTorch").
  step "libstdc++ and std::filesystem bindings"
  readelf -d "$BUILD_DIR/bin/core_tests" | grep NEEDED | head -n 3 || true
  ldd "$BUILD_DIR/bin/core_tests" | grep -E "libstdc|libtorch.so" || true
  nm -D --undefined-only "$BUILD_DIR/bin/core_tests" | grep -c "_ZNSt10filesystem" || true
  for program in core_tests e2e_tests; do
    scripts/check-libstdcxx-binding.sh "$BUILD_DIR/bin/$program" --gtest_list_tests 2>&1 | tail -n 6 || true
  done
  # Each with the LSTM on at::lstm (the default) and on cuDNN's RNN API called directly (model/CudnnLstm.h).
  for lstm in aten auto; do
    step "cuDNN LSTM and CudaGraph core tests, LSTM_WORKBENCH_CUDNN_RNN=$lstm"
    LSTM_WORKBENCH_CUDNN_RNN=$lstm "$BUILD_DIR/bin/core_tests" \
      --gtest_filter='CudnnLstm.*:CudaGraph*:OptimizerDeviceScalars*:AdamKernel.*:RemoveAll.*' \
      >"$work/core-gpu-tests-$lstm.log" 2>&1 || true
    grep -E "^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|Failure|Expected|Which is|SIG|value [0-9]|cuDNN LSTM:|->" \
      "$work/core-gpu-tests-$lstm.log" | head -n 60 || true
    step "Cuda tests, LSTM_WORKBENCH_CUDNN_RNN=$lstm"
    LSTM_WORKBENCH_CUDNN_RNN=$lstm "$BUILD_DIR/bin/e2e_tests" --gtest_filter='Cuda.*' >"$work/cuda-tests-$lstm.log" 2>&1 ||
      true
    grep -E "^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|Failure|Expected|Which is|SIG|^build|^/|cuDNN LSTM" \
      "$work/cuda-tests-$lstm.log" | head -n 60 || true
  done
  step "a suite that writes files"
  "$BUILD_DIR/bin/core_tests" --gtest_filter='Safetensors.*' 2>&1 | tail -n 30 || true
}

# The shapes issue #48 measures: each preset at its own batch, and the two language models at 1024.
SHAPES=${SHAPES:-imdb:64,charrnn:64,poems:32,charrnn:1024,poems:1024}

bench() {
  "$python" -c 'import torch,json; print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()}))' \
    >"$work/versions.json" || true
  local shapes=$SHAPES
  [ "$DEVICE" = cpu ] && shapes=${SHAPES_CPU:-imdb:8,charrnn:8}
  for round in $(seq 1 "$ROUNDS"); do
    for precision in ${PRECISIONS:-fp32 bf16}; do
      # Ours with CUDA graph steps, the same with the LSTM on cuDNN's RNN API (LSTM_WORKBENCH_CUDNN_RNN=auto:
      # each shape's algorithm timed; model/CudnnLstm.h), (fp32) ours with TF32, and PyTorch eager, in turn.
      # VARIANTS adds others: eager (op by op), graphtensors (Adam tensor by tensor).
      local variants=(graph graphcudnn ${VARIANTS:-})
      [ "$precision" = fp32 ] && variants+=(graphtf32)
      for variant in "${variants[@]}"; do
        local flags=() fused=on lstm=aten
        [ "$variant" = eager ] && flags+=(--cuda-graph off)
        [ "$variant" = graphtf32 ] && flags+=(--tf32)
        [ "$variant" = graphtensors ] && fused=off
        [ "$variant" = graphcudnn ] && lstm=auto
        tag="$variant-$precision-$round"
        step "bench round $round ours $variant $precision"
        # A failing configuration is reported and skipped: the others still get their numbers.
        LSTM_WORKBENCH_FUSED_ADAM=$fused LSTM_WORKBENCH_CUDNN_RNN=$lstm "$cli" bench --preset "$shapes" \
          --device "$DEVICE" --precision "$precision" --steps "$STEPS" "${flags[@]}" --json \
          >"$work/ours-$tag.json" 2>"$work/ours-$tag.err" ||
          echo "gpu-bench: ours failed: $(tail -n 1 "$work/ours-$tag.err")"
        grep -h "^cuDNN LSTM:" "$work/ours-$tag.err" || true
      done
      step "bench round $round PyTorch $precision"
      "$python" bench/pytorch_peer.py --cases "$shapes" --device "${DEVICE%%:*}" --precision "$precision" \
        --steps "$STEPS" >"$work/peer-$precision-$round.jsonl" 2>"$work/peer-$precision-$round.err" ||
        echo "gpu-bench: PyTorch failed: $(tail -n 1 "$work/peer-$precision-$round.err")"
    done
  done
  "$python" bench/write_gpu_table.py "$work" | tee "$OUT/gpu.md"
  grep -h '"cuda_graph"' "$work"/ours-graph-*-1.json | sort | uniq -c | head -n 5 || true
}

# Where a step's time goes: ours op by op, phase by phase (bench --profile), and PyTorch's kernels
# (torch.profiler: launches per step, kernel time against wall time, the heaviest kernels); with Nsight
# Systems where the machine has it, ours graph against op by op, kernel by kernel.
profile() {
  local shapes=$SHAPES
  [ "$DEVICE" = cpu ] && shapes=${SHAPES_CPU:-imdb:8,charrnn:8}
  for precision in fp32 bf16; do
    step "profile ours $precision"
    "$cli" bench --preset "$shapes" --device "$DEVICE" --precision "$precision" --steps 10 --profile --json \
      >"$work/profile-ours-$precision.json" 2>"$work/profile-ours-$precision.err" ||
      echo "gpu-bench: profile failed: $(tail -n 1 "$work/profile-ours-$precision.err")"
    step "profile PyTorch $precision"
    "$python" bench/pytorch_peer.py --cases "$shapes" --device "${DEVICE%%:*}" --precision "$precision" \
      --steps 10 --profile >"$work/profile-peer-$precision.jsonl" 2>"$work/profile-peer-$precision.err" ||
      echo "gpu-bench: PyTorch profile failed: $(tail -n 1 "$work/profile-peer-$precision.err")"
  done
  "$python" bench/write_gpu_profile.py "$work" | tee "$OUT/gpu-profile.md"
  local nsys
  nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -n 1 || true)
  if [ -n "$nsys" ] && [ "$DEVICE" != cpu ]; then
    for graph in auto off; do
      step "nsys: ours charrnn:64 bf16, cuda-graph $graph"
      timeout 120 "$nsys" profile --stats=false -o "$work/nsys-$graph" --force-overwrite true \
        "$cli" bench --preset charrnn:64 --device "$DEVICE" --precision bf16 --steps 20 --cuda-graph "$graph" \
        >"$work/nsys-$graph.log" 2>&1 &&
        timeout 60 "$nsys" stats --report cuda_gpu_kern_sum,cuda_api_sum --format csv \
          "$work/nsys-$graph.nsys-rep" >"$work/nsys-$graph-stats.csv" 2>&1 || echo "gpu-bench: nsys ($graph) failed"
      rm -f "$work/nsys-$graph.nsys-rep" "$work/nsys-$graph.sqlite"
    done
  else
    echo "gpu-bench: no Nsight Systems (nsys) here: the profile is the phases and torch.profiler's kernels"
  fi
}

# Train, generate and sweep as a user would, on the poems gpu-deps.sh prepared (a generated text without).
user_run() {
  local corpus=tang-quatrains-7 steps=${RUN_STEPS:-300} other=cpu:$(nproc) form=(--form quatrain7)
  [ "$DEVICE" = cpu ] && other=cpu:1
  if [ -d "$corpora/$corpus" ]; then
    export LSTM_WORKBENCH_DATA="$corpora"
  else
    corpus="$work/text.txt"
    "$python" -c 'import random; r=random.Random(1); print("\n".join(" ".join(r.choice(["spring","river","moon","night","wind","boat"]) for _ in range(12)) for _ in range(4000)))' >"$corpus"
    form=()
  fi
  step "train $corpus on $DEVICE, $steps steps (LSTM_WORKBENCH_CUDNN_RNN=${LSTM_WORKBENCH_CUDNN_RNN:-aten})"
  "$cli" train "$corpus" --out "$work/run" --device "$DEVICE" --max-steps "$steps" --quiet || echo "gpu-bench: train FAILED"
  step "generate"
  "$cli" generate "$work/run" "${form[@]}" --samples 2 --rng-seed 7 || echo "gpu-bench: generate FAILED"
  step "sweep device=$other,$DEVICE"
  "$cli" sweep "$corpus" --out "$work/sweep" --grid "device=$other,$DEVICE" --max-steps "${SWEEP_STEPS:-40}" \
    >"$work/sweep.log" 2>&1 || echo "gpu-bench: sweep FAILED"
  tail -n 4 "$work/sweep.log"
}

# Everything else in one file: weights and token stores stay behind.
pack() {
  tar -czf "$OUT/gpu-bench.tar.gz" --exclude='*.safetensors' --exclude='*.pt' --exclude='*.bin' -C "$work" . \
    2>/dev/null || true
}

main() {
  for stage in "${stages[@]}"; do
    case "$stage" in
      build) build ;;
      test) run_tests ;;
      gputests) gpu_tests ;;
      bench) bench ;;
      profile) profile ;;
      run) user_run ;;
      *)
        echo "gpu-bench: unknown stage '$stage' (build, test, bench, profile, run)" >&2
        return 2
        ;;
    esac
    pack  # after every stage: a call cut off by its time limit still brings back what was done
  done
  step "done; $(ls "$OUT" | wc -l) files in $OUT"
}
main 2>&1 | tee "$OUT/gpu-bench.log"
