#!/usr/bin/env bash
# The arrows between the libraries (docs/architecture.md, "Layers"), checked on the sources' #include lines:
#   core/formats  never includes an engine header (core/engine/include/workbench/*.h, or the engine's own
#                 folders), LibTorch or Qt: it builds and fuzzes without them;
#   core/engine   never includes Qt (its signals/slots macros break LibTorch's headers);
#   charts        never includes LibTorch or a header of the widget library (ui/): the CLI links it alone;
#   ui, app/gui   never include LibTorch (they reach the engine through its plain-C++ facade);
#   app/cli       never includes a header of the widget library, and app/CMakeLists.txt never links
#                 lstm-workbench-cli to workbench_ui (its charts come from workbench_charts);
#   everywhere    qcustomplot.h only through workbench/charts/QCustomPlot.h (it needs Qt's keywords).
# Prints each offending line as file:line and exits 1; run by scripts/test.sh and as the ctest layers_check.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import pathlib, re, sys

root = pathlib.Path(".")
engine_headers = {f"workbench/{p.name}" for p in (root / "core/engine/include/workbench").glob("*.h")}
engine_dirs = {p.name for p in (root / "core/engine/src").iterdir() if p.is_dir()}
formats_dirs = {p.name for p in (root / "core/formats/src").iterdir() if p.is_dir()}
ui_dirs = {p.name for p in (root / "ui").iterdir() if p.is_dir()}
ui_headers = {p.name for p in (root / "ui").glob("*.h")}
torch = re.compile(r"^(torch|ATen|c10|caffe2)/")
qt = re.compile(r"^Q[A-Za-z]*(/|$)|^qcustomplot\.h$")
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')

def sources(*folders):
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".h", ".cpp") and path.is_file():
                yield path

rules = [
    (("core/formats",), lambda h: h in engine_headers
        or (h.split("/")[0] in engine_dirs and h.split("/")[0] not in formats_dirs)
        or torch.match(h) or qt.match(h), "an engine, LibTorch or Qt header in the formats"),
    (("core/engine",), lambda h: qt.match(h), "a Qt header in the engine"),
    (("ui", "app/gui"), lambda h: torch.match(h), "a LibTorch header in the Qt front end"),
    (("charts",), lambda h: torch.match(h) or h.split("/")[0] in ui_dirs or h in ui_headers,
        "a LibTorch or widget-library header in the charts library"),
    (("app/cli",), lambda h: h.split("/")[0] in ui_dirs or h in ui_headers or h.startswith("Q"),
        "a widget-library or Qt header in the CLI"),
]
problems = []
for folders, forbidden, what in rules:
    for path in sources(*folders):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = include.match(line)
            if m and forbidden(m.group(1)):
                problems.append(f"{path}:{number}: {what}: {m.group(1)}")
# The CLI's link line: the widget library would pull every panel into a program that draws two charts.
cli_links = re.findall(r"target_link_libraries\(\s*lstm-workbench-cli\b([^)]*)\)",
                       (root / "app/CMakeLists.txt").read_text(encoding="utf-8"))
if any("workbench_ui" in links.split() for links in cli_links):
    problems.append("app/CMakeLists.txt: lstm-workbench-cli links workbench_ui (use workbench_charts)")
# qcustomplot.h is written with Qt's keywords, which our Qt targets turn off (QT_NO_KEYWORDS): one wrapper
# defines them for it, and everything else includes the wrapper.
wrapper = root / "charts/include/workbench/charts/QCustomPlot.h"
for path in sources("charts", "ui", "app", "tests", "bench"):
    if path == wrapper:
        continue
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = include.match(line)
        if m and m.group(1) == "qcustomplot.h":
            problems.append(f"{path}:{number}: include workbench/charts/QCustomPlot.h, not qcustomplot.h")
if problems:
    print("check-layers: includes that cross a layer the wrong way:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"check-layers: formats → nothing, engine → formats, charts → engine facade, ui → charts, cli ↛ ui; "
      f"{len(engine_headers)} engine headers")
PY
