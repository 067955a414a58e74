#!/usr/bin/env bash
# Corpora larger than memory (issue #30; docs/benchmarks.md, "Corpora larger than memory"): a 2 GB plain-text
# corpus of made-up words made in /tmp, tokenized into a fresh cache, trained 100 steps of the default model
# beside a 20 MB one, and swept over data_fraction; prints the targets and writes
# docs/benchmarks/large-corpus/results.json (bench/large_corpus.py). Needs about 7 GB of free disk (the corpus
# and its token store); about 10 minutes here. SIZE_GB=0.2 REPEATS=1 OUT=/tmp/large.json checks the script.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh
out=${OUT:-docs/benchmarks/large-corpus/results.json}
mkdir -p "$(dirname "$out")"
python3 bench/large_corpus.py "$cli" "$out"
