#!/usr/bin/env bash
# A Python with PyTorch from PyPI (2.15.0, or the version given), as a user would install it, for the
# benchmarks that time Python PyTorch beside us (scripts/bench-peers.sh, the dry run of scripts/gpu-bench.sh):
# a virtual environment in .deps/venv-pytorch-VERSION/ with torch and its nvidia-* wheels (about 3 GB, which
# `import torch` loads even on a CPU) and numpy. The wheels are cached (WORKBENCH_WHEEL_CACHE, default
# ~/.cache/lstm-workbench/wheels). Prints the environment's python.
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
mkdir -p "$cache"
python3 -m pip download --quiet --disable-pip-version-check --dest "$cache" "torch==$version" numpy >&2
rm -rf "$venv"
python3 -m venv "$venv"
# --no-compile: Python compiles what it imports when it first imports it; compiling all of torch's 3 GB up
# front slowed the release build that test.sh runs beside it (354 s instead of 311 in one cold run).
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile --no-index \
  --find-links "$cache" "torch==$version" numpy >&2
echo "pytorch-venv: $("$venv/bin/python" -c 'import torch; print("torch", torch.__version__)') in $venv" >&2
echo "$venv/bin/python"
