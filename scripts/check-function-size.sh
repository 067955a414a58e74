#!/usr/bin/env bash
# No function of the product (tests and fuzz targets aside) longer than 120 lines, so that each reads as a
# few named steps (docs/architecture.md, "Where a new X goes"). A declarative table, one row a line, is
# exempt when the line above its definition says "// Declarative table". Functions are found as clang-format
# lays them out: a definition starts at column 0 and ends at the next "}" at column 0.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-120}
git ls-files '*.cpp' '*.h' | grep -v -e '^tests/' -e '^fuzz/' | python3 -c '
import re, sys
limit = int(sys.argv[1])
too_long = []
for name in sys.stdin.read().split():
    lines = open(name, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        starts = (line and not line[0].isspace() and line.rstrip().endswith("{") and not line.startswith("#")
                  and "(" in "".join(lines[max(0, i - 3):i + 1])
                  and not re.match(r"(namespace|struct|class|enum|union|extern)\b", line)
                  and not re.match(r"^[\w:<>,\s]+ \w+(\[\])? = ", line))
        if not starts:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        length = end - i + 1
        exempt = any("// Declarative table" in l for l in lines[max(0, i - 3):i])
        if length > limit and not exempt:
            too_long.append(f"{name}:{i + 1}: {length} lines: {line.strip()[:80]}")
        i = end + 1
if too_long:
    print(f"functions longer than {limit} lines (split them into named steps):", *too_long, sep="\n  ",
          file=sys.stderr)
    sys.exit(1)
print(f"check-function-size: no function over {limit} lines")
' "$limit"
