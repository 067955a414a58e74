#!/usr/bin/env bash
# poems fp32 only, old vs new alternating, 5 rounds, 12 timed steps
set -euo pipefail
for r in 1 2 3 4 5; do for t in 1 2; do for side in old new; do
  env -u OPENBLAS_CORETYPE /tmp/ab/cli-$side bench --preset poems --device cpu:$t --precision fp32 --steps 12 --json > $side-$t-$r.json
done; done; done
