#!/usr/bin/env bash
# Checks that a program's C++ standard library calls bind to libstdc++, not to a copy another library exports:
# PyTorch's libtorch_cpu.so exports its own std::filesystem, and a program that names libtorch before
# libstdc++ in its NEEDED list calls that copy (on the GPU machine its remove_all jumped to address 0).
# cmake/WorkbenchTorch.cmake names libstdc++ first; this starts the program once with every symbol bound at
# once (LD_BIND_NOW) and the bindings printed (LD_DEBUG=bindings), and fails on any std::filesystem symbol
# bound outside libstdc++.
#
#   scripts/check-libstdcxx-binding.sh PROGRAM [ARGS...]      (the ctest libstdcxx_binding_check)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM [ARGS...]" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$log" "$@" >/dev/null 2>&1 || true
# Lines: "binding file PROGRAM [0] to LIBRARY [0]: normal symbol `_ZNSt10filesystem...'" (LD_DEBUG_OUTPUT
# appends the process id to the file name).
bindings=$(cat "$log".* 2>/dev/null || true)
rm -f "$log".*
[ -n "$bindings" ] || { echo "check-libstdcxx-binding: no bindings recorded for $1" >&2; exit 1; }
program=$(basename "$1")
wrong=$(grep -E "binding file [^ ]*$program \[0\] to " <<<"$bindings" | grep -E "symbol \`_ZNSt10filesystem" |
  grep -v "libstdc++" || true)
if [ -n "$wrong" ]; then
  echo "check-libstdcxx-binding: $program binds std::filesystem outside libstdc++:" >&2
  sed -E 's/^ *[0-9]+:\s*//' <<<"$wrong" | head -n 5 >&2
  exit 1
fi
echo "check-libstdcxx-binding: $program's std::filesystem binds to libstdc++"
