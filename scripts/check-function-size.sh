#!/usr/bin/env bash
# No function of the product (tests and fuzz targets aside) longer than 80 lines, so that each reads as a
# few named steps (docs/architecture.md, "Where to add…"). A declarative table, one row a line, is exempt
# when the line above its definition says "// Declarative table". Functions are found as clang-format lays
# them out: a definition starts on a line at column 0 and opens its body on that line or on one of the
# indented lines that continue it (a wrapped parameter list, a constructor's initializer list), with no ";"
# before the "{"; it ends at the next "}" at column 0. And no source file of core/, graphics/, ui/ or app/
# longer than 600 lines (the config table, ConfigFields.cpp, aside), so that each holds one idea.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-80}
git ls-files '*.cpp' '*.h' | grep -v -e '^tests/' -e '^fuzz/' | python3 -c '
import re, sys
limit = int(sys.argv[1])
too_long = []
names = sys.stdin.read().split()
for name in names:
    if name.split("/")[0] in ("core", "graphics", "ui", "app") and not name.endswith("config/ConfigFields.cpp"):
        count = open(name, encoding="utf-8").read().count("\n")
        if count > 600:
            too_long.append(f"{name}: the file has {count} lines (over 600: split it by idea)")
for name in names:
    lines = open(name, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        starts = (line and not line[0].isspace() and not line.startswith(("#", "//", "}"))
                  and not re.match(r"(namespace|struct|class|enum|union|extern|template\b.*>\s*$)\b", line)
                  and not re.match(r"(public|protected|private)\b.*:$", line)
                  and not re.match(r"^[\w:<>,\s]+ \w+(\[\])? = ", line))
        if not starts:
            i += 1
            continue
        # Follow the indented lines that continue the definition to the line that opens its body; a ";" first
        # means a declaration, and a line back at column 0 means it was not a function.
        opening = i
        while not lines[opening].rstrip().endswith("{"):
            if ";" in lines[opening] or opening + 1 >= len(lines) or not lines[opening + 1][:1].isspace():
                opening = -1
                break
            opening += 1
        if opening < 0 or ";" in lines[opening] or "(" not in "".join(lines[max(0, i - 3):opening + 1]):
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
file_limit = 600
if too_long:
    print(f"functions longer than {limit} lines or files over 600 (split them into named steps):", *too_long,
          sep="\n  ",
          file=sys.stderr)
    sys.exit(1)
print(f"check-function-size: no function over {limit} lines, no file over 600")
' "$limit"
