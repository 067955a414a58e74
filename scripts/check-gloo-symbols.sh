#!/usr/bin/env bash
# The engine's code depends on no Gloo header's contents, only on LibTorch's: it calls no Gloo function,
# makes, copies or destroys no Gloo object, and instantiates no class derived from one (ProcessGroupGloo's
# GlooStore). ProcessGroupGloo's header includes Gloo's, which LibTorch's packages lack (Debian's libgloo-dev
# supplies them, from another Gloo commit than the one compiled into PyTorch's wheels); this check is why
# any Gloo headers that compile are safe to build with (core/engine/CMakeLists.txt). Symbols that only name a
# Gloo type inside std::shared_ptr<...> (ProcessGroupGloo::Options::devices) are allowed: a shared_ptr's
# code does not depend on what it points to.
#
#   scripts/check-gloo-symbols.sh LIBRARY...     (the ctest gloo_symbols_check: libworkbench_engine.a)
# Prints each offending symbol and exits 1.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 LIBRARY..." >&2; exit 2; }
offending=$(nm -C "$@" 2>/dev/null | sed -E 's/^[0-9a-f]* *[A-Za-z] //' | sort -u |
  sed -E 's/std::shared_ptr<gloo::[A-Za-z0-9_:]+>//g' | grep -E 'gloo::|GlooStore' || true)
if [ -n "$offending" ]; then
  echo "check-gloo-symbols: the engine depends on Gloo's headers (their commit must then match LibTorch's):" >&2
  echo "$offending" | head -20 >&2
  exit 1
fi
echo "check-gloo-symbols: no Gloo function, object or GlooStore in $*"
