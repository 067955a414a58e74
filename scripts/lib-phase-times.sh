# Sourced by test.sh, test-sanitized.sh, test-cuda-build.sh, test-pytorch.sh, fuzz.sh and debian13.sh:
# `phase NAME` prints how long the step that just ended took, in wall seconds and in CPU seconds (user + system
# of every process this script started and waited for: the compilers, the tests), so that a CI log says where
# its time went and a budget can be checked on a machine with other cores (docs/benchmarks.md, "Build and CI
# time").
# On stderr, so that a command's own output (debian13.sh -- COMMAND) stays clean.
phase_cpu_now() {  # CPU seconds of this shell's finished children (fields cutime + cstime of /proc/PID/stat)
  awk -v tick="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) / tick }' "/proc/$$/stat"
}
phase_started=$SECONDS
phase_cpu_started=$(phase_cpu_now)
# `phase_skip`: the next phase starts now (what ran since printed its own phases).
phase_skip() {
  phase_started=$SECONDS
  phase_cpu_started=$(phase_cpu_now)
}
phase() {
  local cpu
  cpu=$(phase_cpu_now)
  echo "phase: $1 took $((SECONDS - phase_started)) s, $((cpu - phase_cpu_started)) CPU-s" \
    "(ended $(date -u +%H:%M:%S) UTC)" >&2
  phase_started=$SECONDS
  phase_cpu_started=$cpu
}
# `slowest_tests CTEST_LOG`: the ten slowest ctest entries of a run whose output was saved, so that a CI log
# says which tests its test phases spent their time on.
slowest_tests() {
  # awk, not head, takes the first ten: head would leave sort writing to a closed pipe (SIGPIPE, and under
  # pipefail the caller's set -e ends the script).
  sed -nE 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' "$1" | sort -rn |
    awk 'NR <= 10 { printf "slowest: %7.1f s  %s\n", $1, $2 }' >&2
}
