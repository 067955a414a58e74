#!/usr/bin/env bash
# The arrows between the libraries (docs/architecture.md, "Layers"), checked on the sources' #include lines:
#   every library  has its public headers under a prefix of its own (workbench/domain/, workbench/engine/,
#                  workbench/graphics/): no header sits in a bare workbench/ folder, and no source includes
#                  "workbench/X.h" without its library's name; and it includes no other library's private
#                  header (a folder of that library's src/, such as the domain's io/ or run/);
#   core/domain    never includes an engine header, LibTorch or Qt: it builds and fuzzes without them;
#   core/engine    never includes Qt (its signals/slots macros break LibTorch's headers);
#   graphics       never includes LibTorch or a header of the widget library (ui/): the CLI links it alone;
#   ui, app/gui    never include LibTorch (they reach the engine through its plain-C++ facade);
#   app/cli        never includes a header of the widget library, and app/CMakeLists.txt never links
#                  lstm-workbench-cli or workbench_cli to workbench_ui (its charts come from workbench_graphics);
#   everywhere     qcustomplot.h only through workbench/graphics/QCustomPlot.h (it needs Qt's keywords).
# Tests may include any library's private headers (they test them). Prints each offending line as file:line
# and exits 1; run by scripts/test.sh and as the ctest layers_check. `check-layers.sh ROOT` checks another
# tree laid out alike (the ctest layers_check_refuses gives it one with bad includes).
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
python3 - <<'PY'
import pathlib, re, sys

root = pathlib.Path(".")
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
torch = re.compile(r"^(torch|ATen|c10|caffe2)/")
qt = re.compile(r"^Q[A-Za-z]*(/|$)|^qcustomplot\.h$")

# The libraries: their folder, their public prefix and their private source folders.
libraries = {
    "domain": (root / "core/domain", "workbench/domain/"),
    "engine": (root / "core/engine", "workbench/engine/"),
    "graphics": (root / "graphics", "workbench/graphics/"),
}
private_dirs = {name: {p.name for p in (folder / "src").iterdir() if p.is_dir()}
                for name, (folder, _) in libraries.items()}
ui_dirs = {p.name for p in (root / "ui").iterdir() if p.is_dir()}
ui_headers = {p.name for p in (root / "ui").glob("*.h")}

def sources(*folders):
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".h", ".cpp") and path.is_file():
                yield path

def includes(path):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = include.match(line)
        if m:
            yield number, m.group(1)

problems = []
# A prefix of its own for every library: nothing in a bare include/workbench/.
for name, (folder, prefix) in libraries.items():
    for header in sorted((folder / "include/workbench").glob("*.h")):
        problems.append(f"{header}: a public header outside its library's prefix ({prefix})")

# Whose folder a source is in, and so which private folders are its own.
def owner(path):
    for name, (folder, _) in libraries.items():
        if folder in path.parents:
            return name
    return None

shared_prefix = re.compile(r"^workbench/[A-Za-z0-9_]+\.h$")
# Benchmarks of one engine kernel time it through its private header, as its tests do (tests/ is not checked
# here); each is named, so that a program does not reach into the engine by accident.
kernel_benchmarks = {root / "bench/packed_kernels.cpp": "engine"}
for path in sources("core", "graphics", "ui", "app", "bench", "fuzz"):
    mine = owner(path) or kernel_benchmarks.get(path)
    own_src = libraries[mine][0] / "src" if mine else None
    for number, h in includes(path):
        if shared_prefix.match(h):
            problems.append(f"{path}:{number}: an include without its library's prefix "
                            f"(workbench/domain/, workbench/engine/ or workbench/graphics/): {h}")
            continue
        first = h.split("/")[0]
        if "/" not in h or (own_src and (own_src / h).exists()):
            continue
        for other, dirs in private_dirs.items():
            if other != mine and first in dirs and not (mine is None and first in ui_dirs):
                problems.append(f"{path}:{number}: a private header of workbench_{other}: {h}")

engine_public = libraries["engine"][1]
rules = [
    (("core/domain",), lambda h: h.startswith(engine_public) or torch.match(h) or qt.match(h),
        "an engine, LibTorch or Qt header in the domain"),
    (("core/engine",), lambda h: qt.match(h), "a Qt header in the engine"),
    (("ui", "app/gui"), lambda h: torch.match(h), "a LibTorch header in the Qt front end"),
    (("graphics",), lambda h: torch.match(h) or h.split("/")[0] in ui_dirs or h in ui_headers,
        "a LibTorch or widget-library header in the graphics library"),
    (("app/cli",), lambda h: h.split("/")[0] in ui_dirs or h in ui_headers or h.startswith("Q"),
        "a widget-library or Qt header in the CLI"),
]
for folders, forbidden, what in rules:
    for path in sources(*folders):
        for number, h in includes(path):
            if forbidden(h):
                problems.append(f"{path}:{number}: {what}: {h}")
# The CLI's link line: the widget library would pull every panel into a program that draws two charts.
cli_links = re.findall(r"target_link_libraries\(\s*(?:lstm-workbench-cli|workbench_cli)\b([^)]*)\)",
                       (root / "app/CMakeLists.txt").read_text(encoding="utf-8"))
if any("workbench_ui" in links.split() for links in cli_links):
    problems.append("app/CMakeLists.txt: the CLI links workbench_ui (use workbench_graphics)")
# qcustomplot.h is written with Qt's keywords, which our Qt targets turn off (QT_NO_KEYWORDS): one wrapper
# defines them for it, and everything else includes the wrapper.
wrapper = root / "graphics/include/workbench/graphics/QCustomPlot.h"
for path in sources("graphics", "ui", "app", "tests", "bench"):
    if path == wrapper:
        continue
    for number, h in includes(path):
        if h == "qcustomplot.h":
            problems.append(f"{path}:{number}: include workbench/graphics/QCustomPlot.h, not qcustomplot.h")
if problems:
    print("check-layers: includes that cross a layer the wrong way:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
counts = ", ".join(f"{name} {len(list((folder / 'include' / prefix).glob('*.h')))}"
                   for name, (folder, prefix) in libraries.items())
print(f"check-layers: domain → nothing, engine → domain, graphics → engine facade, ui → graphics, cli ↛ ui; "
      f"each library's public headers under its own prefix ({counts}), no private header of another")
PY
