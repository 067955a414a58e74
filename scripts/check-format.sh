#!/usr/bin/env bash
# The C++ sources as .clang-format says (Google style, 4 spaces, 110 columns): clang-format 14 (Debian 12's)
# must have nothing to change, and no line may be longer than 110 characters (clang-format leaves long string
# literals alone). Fix with: clang-format -i $(git ls-files '*.cpp' '*.h')
set -euo pipefail
cd "$(dirname "$0")/.."
# The tracked sources; a copy without .git (an exported tree) checks the source folders instead.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find app bench core fuzz tests ui -name '*.cpp' -o -name '*.h' | sort)
fi
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
