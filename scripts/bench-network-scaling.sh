#!/usr/bin/env bash
# Scale-out over a network (docs/scaling.md, "Measured on shaped links"): two hosts made with network
# namespaces on a bridge (10.214.0.1 and .2, addresses nothing else here uses), one rank of 1 thread on
# each, for each reference preset (imdb, charrnn, poems), over links shaped with tc's token-bucket filter to
# 100 Mbit/s and 1 Gbit/s and unshaped, with fp32 and fp16 gradients; and each preset in one process of 1
# thread, the model's T(1). bench/network_scaling.py then sets each step time beside the cost model's
# prediction for the same link and gradient bytes (bench/scaling_model.py). Needs root and iproute2; removes
# its namespaces on every exit. Writes docs/benchmarks/network-scaling/scaling.json and prints the table.
# About 25 minutes here. A quick check of the script itself: STEPS_SCALE=0.2 OUT=/tmp/scaling.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench-network-scaling: needs root (network namespaces)" >&2; exit 2; }
command -v ip >/dev/null && command -v tc >/dev/null || { echo "bench-network-scaling: needs iproute2" >&2; exit 2; }
source scripts/lib-bench-cli.sh
out=${OUT:-docs/benchmarks/network-scaling/scaling.json}
scale=${STEPS_SCALE:-1}
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/lstm-workbench-scaling.XXXXXX)
pfx="wbscale$$"
cleanup() {
  for n in 0 1 sw; do
    ip netns pids "$pfx$n" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$pfx$n" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
for corpus in spam-assassin fortunes-text tang-quatrains-7; do
  "$cli" inspect "$corpus" >/dev/null 2>&1 || "$cli" prepare "$corpus" >&2
done

ip netns add "${pfx}sw"
ip -n "${pfx}sw" link add br0 type bridge
ip -n "${pfx}sw" link set br0 up
for h in 0 1; do
  ip netns add "$pfx$h"
  ip -n "$pfx$h" link add eth0 type veth peer name "p$h"
  ip -n "$pfx$h" link set "p$h" netns "${pfx}sw"
  ip -n "${pfx}sw" link set "p$h" master br0
  ip -n "${pfx}sw" link set "p$h" up
  ip -n "$pfx$h" addr add "10.214.0.$((h + 1))/24" dev eth0
  ip -n "$pfx$h" link set eth0 up
  ip -n "$pfx$h" link set lo up
done
shape() {  # rate, or "none": both directions of both links
  for h in 0 1; do
    for side in "$pfx$h eth0" "${pfx}sw p$h"; do
      set -- $side
      if [ "$rate" = none ]; then
        tc -n "$1" qdisc del dev "$2" root 2>/dev/null || true
      else
        tc -n "$1" qdisc replace dev "$2" root tbf rate "$rate" burst 256kb latency 50ms
      fi
    done
  done
}
steps_of() {  # a few seconds of training per preset, at least 10 steps
  local s
  case $1 in imdb) s=60 ;; charrnn) s=60 ;; poems) s=15 ;; esac
  python3 -c "print(max(10, int($s * $scale)))"
}
corpus_of() { case $1 in imdb) echo spam-assassin ;; charrnn) echo fortunes-text ;; poems) echo tang-quatrains-7 ;; esac; }
flags() {
  echo "$(corpus_of "$1") --preset $1 --max-steps $(steps_of "$1") --warmup 3 --threads 1 --validate-every 100000 --quiet --json"
}

entries=()
for preset in imdb charrnn poems; do
  # shellcheck disable=SC2046
  "$cli" train $(flags "$preset") --out "$work/$preset-single" > "$work/$preset-single.json"
  entries+=("{\"preset\": \"$preset\", \"link\": \"one process\", \"compression\": \"none\", \"command\": \"lstm-workbench-cli train $(flags "$preset")\", \"run\": $(cat "$work/$preset-single/run.json")}")
  for rate in none 1gbit 100mbit; do
    shape
    for compression in none fp16; do
      name="$preset-$rate-$compression"
      port=$((29600 + RANDOM % 1000))
      vars="WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 MASTER_ADDR=10.214.0.1 MASTER_PORT=$port GLOO_SOCKET_IFNAME=eth0 WORKBENCH_DIST_TIMEOUT=120"
      # shellcheck disable=SC2046,SC2086
      ip netns exec "${pfx}1" env RANK=1 $vars "$cli" train $(flags "$preset") --grad-compression "$compression" \
        --out "$work/$name-rank1" > /dev/null &
      rank1=$!
      # shellcheck disable=SC2046,SC2086
      ip netns exec "${pfx}0" env RANK=0 $vars "$cli" train $(flags "$preset") --grad-compression "$compression" \
        --out "$work/$name" > "$work/$name.json"
      wait "$rank1"
      entries+=("{\"preset\": \"$preset\", \"link\": \"$rate\", \"compression\": \"$compression\", \"command\": \"(2 hosts) lstm-workbench-cli train $(flags "$preset") --grad-compression $compression\", \"run\": $(cat "$work/$name/run.json")}")
      echo "$name: done" >&2
    done
  done
done
rate=none; shape
joined=$(IFS=,; echo "${entries[*]}")
python3 bench/network_scaling.py "$out" "$joined"
