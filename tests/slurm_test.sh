#!/usr/bin/env bash
# The tests that need a real Slurm (tests/e2e/SlurmTest.cpp, tests/ui/sweep/SweepOnSlurmTest.cpp): starts a
# two-node cluster of this machine's own (scripts/slurm-cluster.sh: each node a network namespace), runs them
# where the cluster's programs run, and stops it on every exit path. Skips (exit 77, which ctest reports as
# skipped) where the cluster cannot run, saying why. The ctests SlurmCluster and SweepTabOnSlurm.
#   tests/slurm_test.sh GTEST_BINARY GTEST_FILTER
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../scripts/slurm-cluster.sh"
why=$(slurm_cluster_unavailable)
if [ -n "$why" ]; then
  echo "SlurmCluster skipped: $why"
  exit 77
fi
trap slurm_cluster_stop EXIT
trap 'exit 130' INT TERM
slurm_cluster_start
status=0
slurm_cluster_run "$1" --gtest_filter="$2" || status=$?
if [ $status != 0 ]; then
  # What the daemons said, for a failure that is the cluster's (the folder goes with the cluster).
  for log in "$SLURM_CLUSTER_DIR"/slurm*.log; do
    echo "--- the end of $(basename "$log")"
    tail -n 15 "$log"
  done
fi
exit $status
