#!/usr/bin/env bash
# Peak memory of `lstm-workbench-cli inspect` on 300 MB of plain text in three shapes — many paragraphs, one
# paragraph of many lines, one line — (issue #46: the overview reads text in pieces, so a file with no blank
# line costs what one with many does); writes docs/benchmarks/inspect-memory/results.json
# (bench/inspect_memory.py). Needs about 1 GB free in SCRATCH (default /tmp), where the files stay for the
# next run; about a minute here. SIZE_MB=20 OUT=/tmp/inspect.json checks the script.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
out=${OUT:-docs/benchmarks/inspect-memory/results.json}
mkdir -p "$(dirname "$out")"
python3 bench/inspect_memory.py "$cli" "$out" --size-mb "${SIZE_MB:-300}" --scratch "${SCRATCH:-/tmp}"
