#!/usr/bin/env bash
# The Python package's tests (python/tests): lstm_workbench opens runs that the CLI trains and must agree
# with it (validation loss, greedy generation, classification), under PyTorch from PyPI as users install it.
# Uses the environment of scripts/pytorch-venv.sh (torch 2.15.0) and adds what python/tests needs; the
# wheels are cached beside torch's, so a second run needs no network. The CLI must be built already
# (scripts/build.sh); LSTM_WORKBENCH_CLI names another one.
#
#   scripts/test-python.sh [unittest arguments, e.g. -k classifier]
#   scripts/test-python.sh --prepare     only the environment and the package (test.sh runs it beside the build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=$(./scripts/pytorch-venv.sh)
# The same cache folder as pytorch-venv.sh's, in a folder of its own: these wheels do not depend on torch.
cache=${WORKBENCH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lstm-workbench/wheels}/python-tests
# safetensors for the package; tensorboard, onnx and onnxruntime for the export tests beside ours.
wants=(safetensors tensorboard onnx onnxruntime)
if ! "$python" -c "import safetensors, tensorboard, onnx, onnxruntime" 2>/dev/null; then
  mkdir -p "$cache"
  # Offline first: a cache filled by an earlier run is enough; only a missing wheel needs the index.
  if ! "$python" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$cache" \
    "${wants[@]}" >&2 2>/dev/null; then
    "$python" -m pip download --quiet --disable-pip-version-check --dest "$cache" "${wants[@]}" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$cache" \
      "${wants[@]}" >&2
  fi
fi
# Installed as a user would (not editable), so that a file missing from the package fails here; its
# build backend (setuptools) is the environment's own, hence no build isolation and no network.
"$python" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall \
  ./python >&2
[ "${1:-}" = --prepare ] && exit 0
cli=${LSTM_WORKBENCH_CLI:-build/bin/lstm-workbench-cli}
case $cli in /*) ;; *) cli=$root/$cli ;; esac
if [ ! -x "$cli" ]; then
  echo "test-python: no CLI at $cli (build it with scripts/build.sh, or set LSTM_WORKBENCH_CLI)" >&2
  exit 1
fi
# One thread each: the tests compare numbers, and a shared machine runs them beside a build.
export LSTM_WORKBENCH_CLI=$cli OMP_NUM_THREADS=1
# From the repository's root, where `import lstm_workbench` finds the installed package (the source is in
# python/, not on the path), so the tests check what pip installed.
"$python" -m unittest discover -s python/tests -v "$@"
