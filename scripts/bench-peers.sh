#!/usr/bin/env bash
# Ours against both PyTorch peers, in the same rounds: our training step (the Debian 12 build: LibTorch 1.13,
# the fused CPU LSTM), Python PyTorch 1.13 (Debian 12's python3-torch, this machine) and PyTorch 2.6 (Debian
# 13's python3-torch, in scripts/debian13.sh's root), for every preset at 1 and 2 threads, in fp32 and bf16
# (ours: the AVX512_BF16 kernels; the peers: CPU autocast). Each peer is searched for its best setting:
# OpenBLAS threads (as torch's, or OpenBLAS's own default) x oneDNN on/off (torch.backends.mkldnn.enabled:
# PyTorch 2.x trains a CPU LSTM through oneDNN by default). Within a round the order of the three rotates.
# The raw JSON goes to docs/benchmarks/peers/, the table into docs/benchmarks.md (bench/write_peers_table.py).
#
# Usage: sudo scripts/bench-peers.sh   (env: BUILD_DIR=build, ROUNDS=2, STEPS=20, POEMS_STEPS=8)
# A part of the grid: PRESETS="poems" THREADS="2" PRECISIONS="bf16" MKLDNN="on" (the peers' oneDNN settings
# searched), FIRST_ROUND=N, and KEEP=1 to add to the last run's JSON instead of starting afresh. The page's
# docs/benchmarks/peers/commands.txt says which commands made the committed numbers.
# Needs root for the Debian 13 root (it re-runs itself under scripts/debian13.sh --host).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${DEBIAN13_ROOT:-}" ]; then
  exec scripts/debian13.sh --host -- "$0" "$@"
fi

# The peers are benchmark dependencies, not build or test ones: installed here when missing.
export DEBIAN_FRONTEND=noninteractive
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
in_root() {
  chroot "$DEBIAN13_ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-}" "$@"
}
if ! in_root /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  in_root apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
ROUNDS=${ROUNDS:-2}
STEPS=${STEPS:-20}
POEMS_STEPS=${POEMS_STEPS:-8}
WORKBENCH_BUILD_DIR=$BUILD_DIR ./scripts/build.sh --target lstm-workbench-cli >/dev/null
cli="$BUILD_DIR/bin/lstm-workbench-cli"
PRESETS=${PRESETS:-imdb charrnn poems}
THREADS=${THREADS:-1 2}
PRECISIONS=${PRECISIONS:-fp32 bf16}
MKLDNN=${MKLDNN:-on off}
FIRST_ROUND=${FIRST_ROUND:-1}
out="$BUILD_DIR/bench-peers"
[ "${KEEP:-0}" = 1 ] || rm -rf "$out"
mkdir -p "$out"
echo "$(date -u +%FT%TZ) PRESETS='$PRESETS' THREADS='$THREADS' PRECISIONS='$PRECISIONS' MKLDNN='$MKLDNN' rounds $FIRST_ROUND..$ROUNDS" >>"$out/commands.txt"
uptime >>"$out/load_before.txt"
echo "python3-torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') here, $(in_root /usr/bin/python3 -c 'import torch; print(torch.__version__)') in Debian 13" >"$out/peers.txt"

# The same glibc setting our programs make (wb::tuneAllocatorForTraining) for both peers.
malloc_env=(MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=2147483647 MALLOC_ARENA_MAX=1)
ours() {
  echo "bench-peers: round $round $preset x$threads $precision ours" >&2
  "$cli" bench --preset "$preset" --device "cpu:$threads" --precision "$precision" --steps "$steps" --json \
    >"$out/ours-$preset-$threads-$precision-$round.json"
}
peer() {  # NAME RUNNER...
  local name=$1
  shift
  for blas in same default; do
    for mkldnn in $MKLDNN; do
      echo "bench-peers: round $round $preset x$threads $precision $name (OpenBLAS $blas, oneDNN $mkldnn)" >&2
      "$@" env "${malloc_env[@]}" /usr/bin/python3 "$py_dir/bench/pytorch_peer.py" --preset "$preset" \
        --threads "$threads" --blas-threads "$blas" --mkldnn "$mkldnn" --precision "$precision" \
        --steps "$steps" >"$out/$name-$preset-$threads-$precision-$blas-$mkldnn-$round.json"
    done
  done
}
pytorch113() { py_dir=$PWD peer pytorch113; }
pytorch26() { py_dir=/src peer pytorch26 in_root; }
for round in $(seq "$FIRST_ROUND" "$ROUNDS"); do
  for preset in $PRESETS; do
    steps=$STEPS
    [ "$preset" = poems ] && steps=$POEMS_STEPS
    for threads in $THREADS; do
      for precision in $PRECISIONS; do
        case $((round % 3)) in
          1) ours; pytorch113; pytorch26 ;;
          2) pytorch26; ours; pytorch113 ;;
          0) pytorch113; pytorch26; ours ;;
        esac
      done
    done
  done
done
uptime >>"$out/load_after.txt"

# Only this script's own results are replaced: the folder also keeps bench/onednn_profile.py's profile.
mkdir -p docs/benchmarks/peers
rm -f docs/benchmarks/peers/ours-*.json docs/benchmarks/peers/pytorch*.json docs/benchmarks/peers/*.txt
cp "$out"/*.json "$out"/*.txt docs/benchmarks/peers/
/usr/bin/python3 bench/write_peers_table.py docs/benchmarks/peers >"$out/peers.md"
/usr/bin/python3 bench/put_section.py docs/benchmarks.md "$out/peers.md" "peers" scripts/bench-peers.sh
echo "bench-peers: wrote the peers section of docs/benchmarks.md" >&2
