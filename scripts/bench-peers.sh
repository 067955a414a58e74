#!/usr/bin/env bash
# Ours against the Python PyTorch peers, in the same rounds: our training step (the Debian 12 build: LibTorch
# 1.13, the fused CPU LSTM; and with pytorch215, the same code built against PyTorch 2.15's LibTorch) next to
# Python PyTorch 1.13 (Debian 12's python3-torch, this machine), PyTorch 2.6 (Debian 13's python3-torch, in
# scripts/debian13.sh's root) and PyTorch 2.15 (PyPI, scripts/pytorch-venv.sh), for every preset at 1 and 2
# threads, in fp32 and bf16 (ours: the AVX512_BF16 kernels; the peers: CPU autocast). Each peer is searched
# for its best setting: OpenMP and BLAS threads (pinned to torch's, or unset: their defaults) x oneDNN on/off
# (torch.backends.mkldnn.enabled: PyTorch 2.x trains a CPU LSTM through oneDNN by default), and records the
# oneDNN implementations it ran (ONEDNN_VERBOSE). Within a round the order of the sides rotates. The raw JSON
# goes to PEERS_DIR, the table into its section of docs/benchmarks.md (bench/write_peers_table.py).
#
# Usage: sudo scripts/bench-peers.sh   (env: BUILD_DIR=build, ROUNDS=2, STEPS=20, POEMS_STEPS=8)
# PEERS picks the peers (default "pytorch113 pytorch26 pytorch215"; pytorch215ftz is PyTorch 2.15 with subnormals
# flushed, torch.set_flush_denormal, as ours computes); PEERS_DIR (default docs/benchmarks/peers)
# and SECTION (default: the folder's name) where they go; OURS215=0 measures ours on the Debian 12 build only.
# A part of the grid: PRESETS="poems" THREADS="2" PRECISIONS="bf16" MKLDNN="on" (the peers' oneDNN settings
# searched), FIRST_ROUND=N, and KEEP=1 to add to the last run's JSON instead of starting afresh. commands.txt
# beside the JSON says which commands made them.
# The numbers of docs/benchmarks.md's round three (three runs, so that oneDNN off and bf16 do not take hours;
# then the same three again with KEEP=1 FIRST_ROUND=3 ROUNDS=4 and KEEP=1 FIRST_ROUND=5 ROUNDS=6, for 6
# rounds on a noisy day):
#   PRECISIONS=fp32 THREADS=1 MKLDNN="on off" sudo -E env -u OPENBLAS_CORETYPE scripts/bench-peers.sh
#   KEEP=1 PRECISIONS=fp32 THREADS=2 MKLDNN=on sudo -E env -u OPENBLAS_CORETYPE scripts/bench-peers.sh
#   KEEP=1 PRECISIONS=bf16 THREADS="1 2" MKLDNN=on sudo -E env -u OPENBLAS_CORETYPE scripts/bench-peers.sh
# On a second machine (another CPU generation), a folder and headings of their own, as for session 25's Zen 4:
#   PEERS_DIR=docs/benchmarks/peers-zen4 HEADING_SUFFIX="on AMD Zen 4" ... (the same three commands)
# pytorch26 needs root for the Debian 13 root (it re-runs itself under scripts/debian13.sh --host).
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=${PEERS:-pytorch113 pytorch26 pytorch215}
has_peer() { [[ " $PEERS " == *" $1 "* ]]; }
if has_peer pytorch26 && [ -z "${DEBIAN13_ROOT:-}" ]; then
  exec scripts/debian13.sh --host -- "$0" "$@"
fi

# The peers are benchmark dependencies, not build or test ones: installed here when missing.
export DEBIAN_FRONTEND=noninteractive
if has_peer pytorch113 && ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
in_root() {
  chroot "$DEBIAN13_ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-}" "$@"
}
if has_peer pytorch26 && ! in_root /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  in_root apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
venv_python=""
{ has_peer pytorch215 || has_peer pytorch215ftz; } && venv_python=$(scripts/pytorch-venv.sh 2.15.0)

BUILD_DIR=${BUILD_DIR:-build}
ROUNDS=${ROUNDS:-2}
STEPS=${STEPS:-20}
POEMS_STEPS=${POEMS_STEPS:-8}
# The builds' progress stays out of the way, but a failed build says why (ninja prints its errors on stdout).
quiet_build() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log"; then
    echo "bench-peers: the build failed ($*):" >&2
    tail -n 40 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
}
WORKBENCH_BUILD_DIR=$BUILD_DIR quiet_build ./scripts/build.sh --target lstm-workbench-cli
ours_clis=(ours "$BUILD_DIR/bin/lstm-workbench-cli")
# OURS215=0 leaves out ours on PyTorch 2.15's LibTorch (its own build, about ten minutes cold on 2 cores):
# the verdicts judge the Debian 12 build, the column beside it is for LibTorch's drift.
if has_peer pytorch215 && [ "${OURS215:-1}" != 0 ]; then
  # Ours on the same LibTorch as the peer (its CPU half; scripts/test-pytorch.sh builds the same).
  PYTORCH_BUILD_DIR=${PYTORCH_BUILD_DIR:-build-pytorch}
  WORKBENCH_BUILD_DIR=$PYTORCH_BUILD_DIR quiet_build ./scripts/build.sh --target lstm-workbench-cli \
    -DCMAKE_PREFIX_PATH="$(scripts/pytorch-libtorch.sh 2.15.0)" -DWORKBENCH_PACKAGING=OFF
  ours_clis+=(ours215 "$PYTORCH_BUILD_DIR/bin/lstm-workbench-cli")
fi
PRESETS=${PRESETS:-imdb charrnn poems}
THREADS=${THREADS:-1 2}
PRECISIONS=${PRECISIONS:-fp32 bf16}
MKLDNN=${MKLDNN:-on off}
FIRST_ROUND=${FIRST_ROUND:-1}
PEERS_DIR=${PEERS_DIR:-docs/benchmarks/peers}
SECTION=${SECTION:-$(basename "$PEERS_DIR")}
out="$BUILD_DIR/bench-$(basename "$PEERS_DIR")"
[ "${KEEP:-0}" = 1 ] || rm -rf "$out"
mkdir -p "$out"
echo "$(date -u +%FT%TZ) PEERS='$PEERS' PRESETS='$PRESETS' THREADS='$THREADS' PRECISIONS='$PRECISIONS' MKLDNN='$MKLDNN' rounds $FIRST_ROUND..$ROUNDS" >>"$out/commands.txt"
uptime >>"$out/load_before.txt"
{
  has_peer pytorch113 && echo "python3-torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)') (Debian 12)"
  has_peer pytorch26 && echo "python3-torch $(in_root /usr/bin/python3 -c 'import torch; print(torch.__version__)') (Debian 13)"
  [ -n "$venv_python" ] && echo "torch $("$venv_python" -c 'import torch; print(torch.__version__)') (PyPI, $venv_python)"
} >"$out/peers.txt"

# The machine and the peers' packages beside the numbers: a peer's speed depends on both (docs/performance.md).
lscpu >"$out/lscpu.txt"
{
  has_peer pytorch113 && dpkg-query -W python3-torch libopenblas0-pthread libdnnl2 2>/dev/null | sed 's/^/debian12 /'
  has_peer pytorch26 && in_root dpkg-query -W python3-torch libopenblas0-pthread 'libdnnl*' 2>/dev/null | sed 's/^/debian13 /'
  [ -n "$venv_python" ] && "$venv_python" -m pip list 2>/dev/null | grep -Ei '^(torch|mkl|intel-openmp|nvidia-cudnn)' | sed 's/^/pypi /'
} >"$out/packages.txt" || true
ours() {
  local i
  for ((i = 0; i < ${#ours_clis[@]}; i += 2)); do
    echo "bench-peers: round $round $preset x$threads $precision ${ours_clis[i]}" >&2
    "${ours_clis[i + 1]}" bench --preset "$preset" --device "cpu:$threads" --precision "$precision" \
      --steps "$steps" --json >"$out/${ours_clis[i]}-$preset-$threads-$precision-$round.json"
  done
}
peer() {  # NAME PYTHON RUNNER...   (peer_args: more arguments of bench/pytorch_peer.py, split on spaces)
  local name=$1 python=$2
  shift 2
  for blas in same default; do
    for mkldnn in $MKLDNN; do
      echo "bench-peers: round $round $preset x$threads $precision $name (threads $blas, oneDNN $mkldnn)" >&2
      # The peer tunes glibc's allocator itself as our programs do (--allocator tuned, its default).
      # shellcheck disable=SC2086
      "$@" "$python" "$py_dir/bench/pytorch_peer.py" --preset "$preset" ${peer_args:-} \
        --threads "$threads" --blas-threads "$blas" --mkldnn "$mkldnn" --precision "$precision" \
        --steps "$steps" >"$out/$name-$preset-$threads-$precision-$blas-$mkldnn-$round.json"
    done
  done
}
pytorch113() { has_peer pytorch113 && py_dir=$PWD peer pytorch113 /usr/bin/python3 || true; }
pytorch26() { has_peer pytorch26 && py_dir=/src peer pytorch26 /usr/bin/python3 in_root || true; }
pytorch215() { has_peer pytorch215 && py_dir=$PWD peer pytorch215 "$venv_python" || true; }
# The same peer with subnormal floats flushed to zero (torch.set_flush_denormal), as our CPU jobs compute: on
# Intel cores, where an operation on a subnormal takes a microcode assist, it is the peer's best setting.
pytorch215ftz() {
  has_peer pytorch215ftz && py_dir=$PWD peer_args="--flush-denormal on" peer pytorch215ftz "$venv_python" || true
}
for round in $(seq "$FIRST_ROUND" "$ROUNDS"); do
  for preset in $PRESETS; do
    steps=$STEPS
    [ "$preset" = poems ] && steps=$POEMS_STEPS
    for threads in $THREADS; do
      for precision in $PRECISIONS; do
        case $((round % 3)) in
          1) ours; pytorch113; pytorch26; pytorch215; pytorch215ftz ;;
          2) pytorch215ftz; pytorch215; pytorch26; ours; pytorch113 ;;
          0) pytorch113; pytorch215; pytorch215ftz; pytorch26; ours ;;
        esac
      done
    done
  done
done
uptime >>"$out/load_after.txt"

# Only this script's own results are replaced: the folder also keeps bench/onednn_profile.py's profile.
mkdir -p "$PEERS_DIR"
rm -f "$PEERS_DIR"/ours*.json "$PEERS_DIR"/pytorch*.json "$PEERS_DIR"/*.txt
cp "$out"/*.json "$out"/*.txt "$PEERS_DIR"/
python3 bench/write_peers_table.py "$PEERS_DIR" "${HEADING_SUFFIX:-}" >"$out/peers.md"
python3 bench/put_section.py docs/benchmarks.md "$out/peers.md" "$SECTION" scripts/bench-peers.sh
# The round's verdicts (#49), from the same JSON: the main run's at the top of the page, another machine's
# (PEERS_DIR other than docs/benchmarks/peers) in a section of its own.
heading=$(head -1 "$out/peers.md" | sed 's/^### //')
targets="round three targets"
[ "$PEERS_DIR" = docs/benchmarks/peers ] || targets="round three targets ($SECTION)"
python3 bench/round_three_targets.py "$PEERS_DIR" "$heading" >"$out/round-three.md"
python3 bench/put_section.py docs/benchmarks.md "$out/round-three.md" "$targets" bench/round_three_targets.py
echo "bench-peers: wrote the $SECTION section of docs/benchmarks.md" >&2
