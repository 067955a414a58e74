# Sourced by test.sh, test-sanitized.sh and fuzz.sh: `phase NAME` prints how long the step that just ended
# took, so that a CI log says where its time went (docs/benchmarks.md, "Build and CI time").
phase_started=$SECONDS
phase() {
  echo "phase: $1 took $((SECONDS - phase_started)) s (ended $(date -u +%H:%M:%S) UTC)"
  phase_started=$SECONDS
}
