#!/usr/bin/env bash
# scripts/check-layers.sh refuses what it is there to refuse: on a copy of the sources with an engine file
# including a private header of the domain library, a widget file including a header without its library's
# prefix, and a public header left in a bare include/workbench/ folder, it exits 1 naming each; on the
# sources as they are, it passes. (The ctest layers_check_refuses.)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp -r "$repo/core" "$repo/graphics" "$repo/ui" "$repo/app" "$tree"/
mkdir -p "$tree/bench" "$tree/fuzz" "$tree/tests"
bash "$repo/scripts/check-layers.sh" "$tree" >/dev/null

echo '#include "io/JsonDocument.h"' >> "$tree/core/engine/src/train/TrainingJob.cpp"
echo '#include "workbench/Config.h"' >> "$tree/ui/MainWindow.cpp"
cp "$repo/core/domain/include/workbench/domain/Errors.h" "$tree/core/domain/include/workbench/Errors.h"
if bash "$repo/scripts/check-layers.sh" "$tree" 2> "$tree/errors.txt"; then
  echo "check-layers passed a tree it must refuse" >&2
  exit 1
fi
status=0
for expected in "core/engine/src/train/TrainingJob.cpp:.*a private header of workbench_domain: io/JsonDocument.h" \
                "ui/MainWindow.cpp:.*an include without its library's prefix .*: workbench/Config.h" \
                "core/domain/include/workbench/Errors.h: a public header outside its library's prefix"; do
  if ! grep -q "$expected" "$tree/errors.txt"; then
    echo "check-layers did not say: $expected" >&2
    status=1
  fi
done
[ $status = 0 ] || cat "$tree/errors.txt" >&2
exit $status
