#!/usr/bin/env bash
# How steady a training step is from run to run: RUNS runs of ours (`bench`) and of PyTorch 2.15 (PyPI,
# bench/pytorch_peer.py at its best setting on AVX2 machines: oneDNN on, its threads pinned to torch's),
# alternating, for one preset at one thread count, on an idle machine. Prints each side's median and its
# slowest run against the median (#62: ours' slowest within 10 % of its median, as steady as PyTorch's).
# JSON and the summary into OUT_DIR.
#
# Usage: env -u OPENBLAS_CORETYPE scripts/bench-steadiness.sh
#   (env: PRESET=poems THREADS=2 RUNS=7 STEPS=8 OUT_DIR=docs/benchmarks/steadiness BUILD_DIR=build
#    PEER_FLUSH=off: on gives the peer torch.set_flush_denormal, PyTorch's best setting on Intel cores, where a
#    subnormal float costs a microcode assist; ours flushes them by default)
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${PRESET:-poems}
THREADS=${THREADS:-2}
RUNS=${RUNS:-7}
STEPS=${STEPS:-8}
OUT_DIR=${OUT_DIR:-docs/benchmarks/steadiness}
PEER_FLUSH=${PEER_FLUSH:-off}
BUILD_DIR=${BUILD_DIR:-build}
cli="$BUILD_DIR/bin/lstm-workbench-cli"
[ -x "$cli" ] || { echo "bench-steadiness: build $cli first (scripts/build.sh --target lstm-workbench-cli)" >&2; exit 1; }
python=$(scripts/pytorch-venv.sh 2.15.0)
rm -rf "$OUT_DIR" && mkdir -p "$OUT_DIR"
{
  echo "$(date -u +%FT%TZ) PRESET=$PRESET THREADS=$THREADS RUNS=$RUNS STEPS=$STEPS PEER_FLUSH=$PEER_FLUSH OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}: $0"
  echo "ours: $("$cli" --version | head -n 1); peer: torch $("$python" -c 'import torch; print(torch.__version__)')"
} >"$OUT_DIR/commands.txt"
lscpu >"$OUT_DIR/lscpu.txt"
uptime >"$OUT_DIR/load_before.txt"
for run in $(seq 1 "$RUNS"); do
  echo "bench-steadiness: run $run of $RUNS" >&2
  # Which side goes first alternates, so that a slow stretch of the machine does not fall on one side only.
  for side in $([ $((run % 2)) = 1 ] && echo "ours pytorch215" || echo "pytorch215 ours"); do
    if [ "$side" = ours ]; then
      "$cli" bench --preset "$PRESET" --device "cpu:$THREADS" --steps "$STEPS" --json >"$OUT_DIR/ours-$run.json"
    else
      "$python" bench/pytorch_peer.py --preset "$PRESET" --threads "$THREADS" --blas-threads same --mkldnn on \
        --precision fp32 --flush-denormal "$PEER_FLUSH" --steps "$STEPS" >"$OUT_DIR/pytorch215-$run.json"
    fi
  done
done
uptime >"$OUT_DIR/load_after.txt"
python3 - "$OUT_DIR" <<'EOF' | tee "$OUT_DIR/summary.txt"
import glob, json, statistics, sys
out = sys.argv[1]
for side in ("ours", "pytorch215"):
    values = []
    for path in sorted(glob.glob(f"{out}/{side}-*.json"), key=lambda p: int(p.rsplit("-", 1)[1][:-5])):
        data = json.load(open(path))
        values.append((data[0] if isinstance(data, list) else data)["us_per_sample"])
    median = statistics.median(values)
    print(f"{side}: us/sample by run {', '.join(f'{v:,.0f}' for v in values)}; median {median:,.0f}; "
          f"fastest {min(values) / median - 1:+.1%}, slowest {max(values) / median - 1:+.1%} of the median")
EOF
