#!/usr/bin/env bash
# The tests that need a real Slurm (tests/e2e/SlurmTest.cpp): starts a one-node cluster of this machine's
# own (scripts/slurm-cluster.sh), runs them in it, and stops it on every exit path. Skips (exit 77, which
# ctest reports as skipped) where the cluster cannot run, saying why. The ctest SlurmCluster.
#   tests/slurm_test.sh E2E_TESTS_BINARY
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
"$1" --gtest_filter='Slurm.*'
