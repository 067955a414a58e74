# Sourced by test.sh, test-sanitized.sh, fuzz.sh and debian13.sh: `phase NAME` prints how long the step
# that just ended took, so that a CI log says where its time went (docs/benchmarks.md, "Build and CI time").
# On stderr, so that a command's own output (debian13.sh -- COMMAND) stays clean.
phase_started=$SECONDS
phase() {
  echo "phase: $1 took $((SECONDS - phase_started)) s (ended $(date -u +%H:%M:%S) UTC)" >&2
  phase_started=$SECONDS
}
