#!/usr/bin/env bash
# python/lstm_workbench/rules.json is what `lstm-workbench-cli rules` prints (workbench/domain/PackageRules.h): the
# config fields' defaults, ranges and labels, the validation batch and the special tokens, which the Python
# package reads instead of copying them. Checks that it is (the ctest python_rules_check), or with --write
# writes it, after a change to the C++ table.
#   scripts/python-rules.sh [--write] [CLI]     (CLI: default build/bin/lstm-workbench-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
write=0
if [ "${1:-}" = --write ]; then write=1; shift; fi
cli=${1:-build/bin/lstm-workbench-cli}
file=python/lstm_workbench/rules.json
if [ $write = 1 ]; then
  "$cli" rules > "$file.tmp" && mv "$file.tmp" "$file"
  echo "python-rules: wrote $file"
  exit 0
fi
if ! diff -u "$file" <("$cli" rules) > /tmp/python-rules-$$.diff; then
  cat /tmp/python-rules-$$.diff >&2
  rm -f /tmp/python-rules-$$.diff
  echo "python-rules: $file is not what \`lstm-workbench-cli rules\` prints: run scripts/python-rules.sh --write" >&2
  exit 1
fi
rm -f /tmp/python-rules-$$.diff
echo "python-rules: $file is the CLI's rules"
