#!/usr/bin/env bash
# A Python with PyTorch from PyPI (2.15.0, or the version given), as a user would install it, for the
# benchmarks that time Python PyTorch beside us (scripts/bench-peers.sh, the dry run of scripts/gpu-bench.sh)
# and the Python tests: a virtual environment in .deps/venv-pytorch-VERSION/ that sees torch, its nvidia-*
# wheels (5 GB installed, which `import torch` loads even on a CPU) and numpy. Those are installed once per
# machine, in a shared environment in the cache folder (~/.cache/lstm-workbench/venvs/, made under a lock),
# and the clone's own environment reads them through a .pth file: what the clone installs itself (the
# lstm_workbench package, the Python tests' extras) stays its own, ahead of the shared ones on sys.path. A
# clone used to install the 5 GB itself, about 55 s of one core beside test.sh's release build. The wheels are
# cached (WORKBENCH_WHEEL_CACHE, default ~/.cache/lstm-workbench/wheels). Prints the environment's python.
#
#   scripts/pytorch-venv.sh [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2.15.0}
cache=${WORKBENCH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lstm-workbench/wheels}/venv-$version
venv="$PWD/.deps/venv-pytorch-$version"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import torch; assert torch.__version__.startswith('$version')" 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi
# The shared environment, keyed by torch's version and the Python's, made whole or not at all.
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
shared=${WORKBENCH_VENV_CACHE:-$(dirname "$(dirname "$cache")")/venvs}/pytorch-$version-py$pyver
mkdir -p "$cache" "$(dirname "$shared")"
(
  flock 9
  if [ ! -f "$shared/.complete" ]; then
    python3 -m pip download --quiet --disable-pip-version-check --dest "$cache" "torch==$version" numpy >&2
    rm -rf "$shared"
    python3 -m venv "$shared"
    # --no-compile: Python compiles what it imports when it first imports it; compiling all of torch's 3 GB
    # up front slowed the release build that test.sh runs beside it (354 s instead of 311 in one cold run).
    "$shared/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile --no-index \
      --find-links "$cache" "torch==$version" numpy >&2
    touch "$shared/.complete"
  fi
) 9>"$shared.lock"
purelib() { "$1" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
rm -rf "$venv"
# Without pip of its own: the shared environment's is on its path, and installs into this one.
python3 -m venv --without-pip "$venv"
purelib "$shared/bin/python" >"$(purelib "$venv/bin/python")/lstm-workbench-shared-torch.pth"
echo "pytorch-venv: $("$venv/bin/python" -c 'import torch; print("torch", torch.__version__)') in $venv" \
  "(installed in $shared)" >&2
echo "$venv/bin/python"
