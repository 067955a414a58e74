#!/usr/bin/env python3
"""The project's sources whose compiled code differs where LibTorch has CUDA: those that name a CUDA-only
macro or header, and those that include, directly or through other headers of the project, a header that
does. scripts/test-cuda-build.sh compiles exactly these against a CUDA build of LibTorch.

    scripts/cuda-sources.py [ROOT]      prints one path a line, relative to ROOT (default: the repository)
"""
import pathlib
import re
import sys

# What only a CUDA build of LibTorch defines or ships: the project's own switches (core/engine/CMakeLists.txt,
# distributed/C10d.h) and LibTorch's CUDA and NCCL headers and macros.
CUDA_ONLY = re.compile(
    r"WORKBENCH_WITH_CUDA|WORKBENCH_WITH_NCCL|USE_C10D_NCCL|\bUSE_CUDA\b|"
    r"<(ATen/cuda|c10/cuda|ATen/cudnn|torch/csrc/cuda)/|<cuda_runtime|<cuda\.h>|<cudnn|<nccl|<cublas")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FOLDERS = ("core", "app", "tests", "bench", "fuzz")


def main() -> None:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
    files = [p for f in FOLDERS for p in (root / f).rglob("*") if p.suffix in (".h", ".hpp", ".cpp")]
    text = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    sensitive = {p for p in files if CUDA_ONLY.search(text[p])}
    # An include names a header by a path that ends the header's own path ("train/CudaGraphStep.h").
    changed = True
    while changed:
        changed = False
        headers = [h for h in sensitive if h.suffix != ".cpp"]
        for p in files:
            if p in sensitive:
                continue
            if any(str(h).endswith("/" + inc) for inc in INCLUDE.findall(text[p]) for h in headers):
                sensitive.add(p)
                changed = True
    for p in sorted(sensitive):
        if p.suffix == ".cpp":
            print(p.relative_to(root))


if __name__ == "__main__":
    main()
