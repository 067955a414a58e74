#!/usr/bin/env bash
# Why the same PyTorch peer, in the same root, runs several times slower on one machine than on another:
# each peer (PyTorch 1.13, 2.6 in scripts/debian13.sh's root, 2.15 from PyPI) with glibc's allocator tuned as
# our programs tune it (bench/pytorch_peer.py --allocator tuned, what scripts/bench-peers.sh measures) and
# left at glibc's default (what a user who runs the peer by hand gets), side by side in the same rounds, with
# the page faults and kernel time of each step and what one page fault costs this machine; ours beside them
# (our programs tune their allocator themselves). Also runs the 2.6 peer in the root without /proc mounted
# (PyTorch's cpuinfo then finds no AVX). The JSON and lscpu go to OUT_DIR, the table into docs/benchmarks.md.
#
# Usage: sudo scripts/bench-peer-allocator.sh   (env: PRESETS=imdb THREADS="1 2" PRECISIONS="fp32 bf16"
#        ROUNDS=2 STEPS=10 PEERS="pytorch113 pytorch26 pytorch215" OUT_DIR=docs/benchmarks/peer-allocator)
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=${PEERS:-pytorch113 pytorch26 pytorch215}
has_peer() { [[ " $PEERS " == *" $1 "* ]]; }
if has_peer pytorch26 && [ -z "${DEBIAN13_ROOT:-}" ]; then
  exec scripts/debian13.sh --host -- "$0" "$@"
fi
BUILD_DIR=${BUILD_DIR:-build}
PRESETS=${PRESETS:-imdb}
THREADS=${THREADS:-1 2}
PRECISIONS=${PRECISIONS:-fp32 bf16}
ROUNDS=${ROUNDS:-2}
STEPS=${STEPS:-10}
OUT_DIR=${OUT_DIR:-docs/benchmarks/peer-allocator}
out="$BUILD_DIR/bench-peer-allocator"
rm -rf "$out" && mkdir -p "$out"
WORKBENCH_BUILD_DIR=$BUILD_DIR ./scripts/build.sh --target lstm-workbench-cli >/dev/null
# The peers are benchmark dependencies, installed here when missing (as scripts/bench-peers.sh does).
export DEBIAN_FRONTEND=noninteractive
if has_peer pytorch113 && ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
venv_python=""
has_peer pytorch215 && venv_python=$(scripts/pytorch-venv.sh 2.15.0)
if has_peer pytorch26; then
  mkdir -p "$DEBIAN13_ROOT/tmp/peer"
  cp bench/pytorch_peer.py "$DEBIAN13_ROOT/tmp/peer/"
fi
in_root() {
  chroot "$DEBIAN13_ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-}" "$@"
}
if has_peer pytorch26 && ! in_root /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  in_root apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
echo "$(date -u +%FT%TZ) PEERS='$PEERS' PRESETS='$PRESETS' THREADS='$THREADS' PRECISIONS='$PRECISIONS' rounds $ROUNDS steps $STEPS: $0" >"$out/commands.txt"
lscpu >"$out/lscpu.txt"
uptime >"$out/load_before.txt"

ours() {
  "$BUILD_DIR/bin/lstm-workbench-cli" bench --preset "$preset" --device "cpu:$threads" --precision "$precision" \
    --steps "$STEPS" --json >"$out/ours-$preset-$threads-$precision-tuned-$round.json"
}
peer() {  # NAME ALLOCATOR
  local name=$1 allocator=$2
  local args=(--preset "$preset" --threads "$threads" --precision "$precision" --steps "$STEPS" --allocator "$allocator")
  local file="$out/$name-$preset-$threads-$precision-$allocator-$round.json"
  echo "bench-peer-allocator: round $round $preset x$threads $precision $name ($allocator allocator)" >&2
  case $name in
    pytorch113) /usr/bin/python3 bench/pytorch_peer.py "${args[@]}" >"$file" ;;
    pytorch215) "$venv_python" bench/pytorch_peer.py "${args[@]}" >"$file" ;;
    pytorch26) in_root /usr/bin/python3 /tmp/peer/pytorch_peer.py "${args[@]}" >"$file" ;;
    pytorch26-noproc)  # the same root with /proc unmounted for this one command (cpuinfo finds no AVX)
      umount "$DEBIAN13_ROOT/proc"
      in_root /usr/bin/python3 /tmp/peer/pytorch_peer.py "${args[@]}" | tail -n 1 >"$file" || true
      mount -t proc proc "$DEBIAN13_ROOT/proc" ;;
  esac
}
sides=()
for p in $PEERS; do sides+=("$p tuned" "$p default"); done
has_peer pytorch26 && sides+=("pytorch26-noproc tuned")
for round in $(seq 1 "$ROUNDS"); do
  for preset in $PRESETS; do
    for threads in $THREADS; do
      for precision in $PRECISIONS; do
        ours
        # The sides' order turns over every round, so that a neighbour's burst does not always hit one side.
        if ((round % 2)); then order=("${sides[@]}"); else order=(); for ((i = ${#sides[@]} - 1; i >= 0; i--)); do order+=("${sides[i]}"); done; fi
        for side in "${order[@]}"; do peer $side; done
      done
    done
  done
done
uptime >>"$out/load_after.txt"
mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR"/*.json "$OUT_DIR"/*.txt
cp "$out"/* "$OUT_DIR"/
python3 bench/write_allocator_table.py "$OUT_DIR" >"$out/table.md"
python3 bench/put_section.py docs/benchmarks.md "$out/table.md" peer-allocator scripts/bench-peer-allocator.sh
echo "bench-peer-allocator: wrote the peer-allocator section of docs/benchmarks.md" >&2
