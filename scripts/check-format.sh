#!/usr/bin/env bash
# The C++ sources as .clang-format says (Google style, 4 spaces, 110 columns): clang-format 14 (Debian 12's)
# must have nothing to change, and no line may be longer than 110 characters (clang-format leaves long string
# literals alone). Fix with: clang-format -i $(git ls-files '*.cpp' '*.h')
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h')
clang-format --dry-run --Werror "${files[@]}"
python3 - "${files[@]}" <<'PY'
import sys
long_lines = [f"{name}:{number}: {len(line)} characters"
              for name in sys.argv[1:]
              for number, line in enumerate(open(name, encoding="utf-8").read().split("\n"), 1) if len(line) > 110]
if long_lines:
    print("lines longer than 110 characters:", *long_lines, sep="\n  ", file=sys.stderr)
    sys.exit(1)
PY
echo "check-format: ${#files[@]} files formatted as .clang-format says"
