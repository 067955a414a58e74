"""The packaging test: the .deb alone is the whole product.

Builds the package with cpack, unpacks it into a temporary root with dpkg-deb -x (nothing is installed on the
machine), checks what it holds and what it declares, and then uses it from that root only, as a user of the
package would, with a fresh HOME and corpus cache: `devices`, `prepare --list`, a prepare of
tang-quatrains-7 from a local fixture package (no network), `train` for a few steps, `generate`, the app's
--help, and the man pages. Finally `apt-get install --simulate` checks that the declared dependencies
resolve on this machine.

  check_deb.py --build-dir BUILD --version X.Y.Z
"""

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
import fixture_packages  # noqa: E402


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, timeout=300, env=None, cwd=None, expect=0):
    started = time.monotonic()
    try:
        done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=cwd)
    except subprocess.TimeoutExpired:
        fail(f"{' '.join(map(str, argv[:3]))} … took over {timeout} s")
    print(f"$ {' '.join(map(str, argv))}  [{time.monotonic() - started:.1f} s, exit {done.returncode}]")
    if expect is not None and done.returncode != expect:
        fail(f"exit {done.returncode}, expected {expect}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}")
    return done


def build_package(build_dir):
    packages = build_dir / "packages"
    shutil.rmtree(packages, ignore_errors=True)
    run(["cpack", "-G", "DEB", "--config", build_dir / "CPackConfig.cmake"], cwd=build_dir, timeout=600)
    debs = sorted(packages.glob("*.deb"))
    if len(debs) != 1:
        fail(f"expected one .deb in {packages}, found {debs}")
    return debs[0]


def owning_package(binary, library):
    """The Debian package that ships the library `binary` loads whose name starts with `library`."""
    for line in run(["ldd", binary]).stdout.splitlines():
        parts = line.split()
        if parts and parts[0].startswith(library) and len(parts) >= 3 and parts[1] == "=>":
            owner = run(["dpkg", "-S", os.path.realpath(parts[2])], expect=None)
            if owner.returncode != 0:  # a merged-/usr path dpkg knows by its other name
                owner = run(["dpkg", "-S", parts[2]])
            return owner.stdout.split(":")[0].strip()
    fail(f"{binary} does not load {library}")


def check_control(deb, version, usr):
    fields = {f: run(["dpkg-deb", "-f", deb, f]).stdout.strip() for f in ("Version", "Depends", "Recommends")}
    if fields["Version"] != version:
        fail(f"package version {fields['Version']!r}, expected {version!r}")
    # The libraries' packages are this release's (dpkg-shlibdeps): LibTorch's is libtorch1.13 on Debian 12,
    # libtorch2.6 or libtorch-cuda-2.6 on Debian 13.
    app = usr / "bin" / "lstm-workbench"
    expected = [owning_package(app, lib) for lib in ("libtorch_cpu.so", "libQt6Widgets.so", "libQCustomPlotQt6.so")]
    for dep in expected + ["libopenblas0-pthread", "qt6-qpa-plugins", "python3"]:
        if dep not in [d.strip().split(" ")[0] for d in re.split(r"[,|]", fields["Depends"])]:
            fail(f"the package does not depend on {dep}: {fields['Depends']}")
    for rec in ("npm", "opencc"):
        if rec not in fields["Recommends"]:
            fail(f"the package does not recommend {rec}: {fields['Recommends']}")


def check_contents(usr):
    expected = ["bin/lstm-workbench-cli", "bin/lstm-workbench", "share/lstm-workbench/prepare.py",
                "share/man/man1/lstm-workbench-cli.1.gz", "share/man/man1/lstm-workbench.1.gz",
                "share/doc/lstm-workbench/README.md", "share/doc/lstm-workbench/datasets/README.md",
                "share/doc/lstm-workbench/docs/architecture.md", "share/applications/lstm-workbench.desktop",
                "share/icons/hicolor/scalable/apps/lstm-workbench.svg"]
    missing = [f for f in expected if not (usr / f).is_file()]
    if missing:
        fail(f"missing from the package: {', '.join('/usr/' + f for f in missing)}")
    copyright_file = usr / "share/doc/lstm-workbench/copyright"
    if not copyright_file.is_file() or "License: GPL-3+" not in copyright_file.read_text(encoding="utf-8"):
        fail("/usr/share/doc/lstm-workbench/copyright is missing or does not name GPL-3+")
    if not os.access(usr / "share/lstm-workbench/prepare.py", os.X_OK):
        fail("/usr/share/lstm-workbench/prepare.py is not executable")
    # prepare.py imports its package from beside itself: every module of the source tree's, and no bytecode.
    package = usr / "share/lstm-workbench/workbench_corpora"
    modules = sorted(p.name for p in (ROOT / "datasets/workbench_corpora").glob("*.py"))
    missing = [m for m in modules if not (package / m).is_file()]
    if missing:
        fail(f"missing beside /usr/share/lstm-workbench/prepare.py: workbench_corpora/{', '.join(missing)}")
    if any(package.rglob("__pycache__")):
        fail("/usr/share/lstm-workbench/workbench_corpora holds a __pycache__ folder")
    # The benchmarks' raw data stays in the source tree (packaging/CMakeLists.txt).
    if (usr / "share/doc/lstm-workbench/docs/benchmarks").exists():
        fail("the package holds docs/benchmarks/, the benchmarks' raw data")
    # Every relative link of the installed README resolves inside the installed docs.
    readme = (usr / "share/doc/lstm-workbench/README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\((?!https?:|#)([^)#\s]+)", readme):
        if not (usr / "share/doc/lstm-workbench" / target).exists():
            fail(f"the installed README links to {target}, which the package does not hold")
    cli_page = gzip.decompress((usr / "share/man/man1/lstm-workbench-cli.1.gz").read_bytes()).decode()
    for fragment in ('.SH COMMANDS', '.SS prepare', '.SS train', 'lstm-workbench-cli prepare tang-quatrains-7',
                     '.SH ENVIRONMENT', 'LSTM_WORKBENCH_DATA'):
        if fragment not in cli_page:
            fail(f"the CLI's man page lacks {fragment!r}")
    if "build/bin" in cli_page or "/work/" in cli_page:
        fail("the CLI's man page names a build folder")
    app_page = gzip.decompress((usr / "share/man/man1/lstm-workbench.1.gz").read_bytes()).decode()
    if "PATH" not in app_page or ".SH ENVIRONMENT" not in app_page:
        fail("the app's man page lacks its arguments or ENVIRONMENT section")
    # Rendered as `man` would (groff's nroff, which install-deps.sh installs; man-db itself may be missing
    # from a minimal machine): a page that does not render fails here rather than being skipped.
    if not shutil.which("nroff"):
        fail("nroff is missing (Debian package groff-base): the man page cannot be rendered")
    page = subprocess.run(["nroff", "-man"], input=cli_page, capture_output=True, text=True,
                          env=dict(os.environ, MANWIDTH="100"), timeout=60)
    if page.returncode != 0 or "prepare" not in page.stdout:
        fail(f"nroff -man renders no prepare command: {page.stderr[-500:]}")


def use_the_package(usr, tmp):
    """The product from the unpacked tree only: a fresh HOME and corpus cache, no source tree on any path."""
    cli = usr / "bin" / "lstm-workbench-cli"
    home = tmp / "home"
    cache = tmp / "corpora"
    home.mkdir()
    env = {"PATH": f"{usr / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LSTM_WORKBENCH_DATA": str(cache),
           "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen"}

    done = run([cli, "devices", "--json"], env=env)
    if not json.loads(done.stdout).get("devices"):
        fail(f"devices --json lists no device: {done.stdout}")

    done = run([cli, "prepare", "--list"], env=env)
    if f"corpus cache: {cache}" not in done.stdout or "tang-quatrains-7" not in done.stdout:
        fail(f"prepare --list: {done.stdout}")

    # The message for a corpus not prepared names the command this installation has.
    done = run([cli, "inspect", "tang-quatrains-7"], env=env, expect=2)
    if "lstm-workbench-cli prepare tang-quatrains-7" not in done.stderr or "prepare.py" in done.stderr:
        fail(f"inspect of an unprepared corpus should name `lstm-workbench-cli prepare`: {done.stderr}")

    source = tmp / "packages"
    source.mkdir()
    fixture_packages.write_fixture_packages(source)
    done = run([cli, "prepare", "tang-quatrains-7", "--offline-source", source, "--chinese", "traditional"],
               env=env)
    manifest = json.loads((cache / "tang-quatrains-7" / "manifest.json").read_text(encoding="utf-8"))
    if manifest["documents"] != fixture_packages.QUATRAINS:
        fail(f"prepared {manifest['documents']} quatrains, expected {fixture_packages.QUATRAINS}")
    for key in ("tones", "rhymes"):  # the verse checker's tables, made from the package's tone patterns
        if not (cache / "tang-quatrains-7" / manifest.get(key, {}).get("file", f"{key}.json")).is_file():
            fail(f"the prepared corpus has no {key} table: {manifest.get(key)}")
    done = run([cli, "prepare", "--verify", "tang-quatrains-7"], env=env)
    done = run([cli, "prepare", "nonesuch"], env=env, expect=2)
    if not done.stderr.startswith("usage: lstm-workbench-cli prepare"):
        fail(f"the preparer's usage line should name the CLI's command: {done.stderr}")

    out = tmp / "run"
    run([cli, "train", "tang-quatrains-7", "--out", out, "--max-steps", "4", "--seq-len", "16", "--batch-size",
         "8", "--embedding", "16", "--hidden", "32", "--layers", "1", "--quiet"], env=env, timeout=300)
    done = run([cli, "generate", out, "--form", "quatrain7", "--samples", "2", "--rng-seed", "3", "--json"],
               env=env)
    generated = json.loads(done.stdout)
    samples = generated["samples"]
    shape = [[len(line) for line in sample.split("\n")] for sample in samples]
    if shape != [[8, 8, 8, 8]] * 2:  # four lines of seven characters and their punctuation
        fail(f"generate --form quatrain7 did not give two 4-line poems: {done.stdout}")
    # The installed preparer wrote the verse tables, and generate found them beside the corpus.
    if [v.get("form") for v in generated.get("verse", [])] != ["七绝", "七绝"]:
        fail(f"generate --form quatrain7 did not check the poems with the corpus's verse tables: {done.stdout}")
    if "baseline_bpc" not in generated:
        fail(f"generate --json has no baseline_bpc for a character model: {done.stdout}")

    for program in ("lstm-workbench", "lstm-workbench-cli"):
        done = run([usr / "bin" / program, "--version"], env=env)
        if not done.stdout.startswith(f"{program} "):
            fail(f"{program} --version: {done.stdout!r}")
    done = run([usr / "bin" / "lstm-workbench", "--help"], env={k: v for k, v in env.items() if k != "QT_QPA_PLATFORM"})
    if "PATH" not in done.stdout:
        fail(f"lstm-workbench --help without a display: {done.stdout!r} {done.stderr!r}")


def check_dependencies_resolve(deb):
    if not shutil.which("apt-get"):
        fail("apt-get is missing")
    done = run(["apt-get", "install", "--simulate", "--no-install-recommends", str(deb)], timeout=120,
               expect=None)
    if done.returncode != 0:
        fail(f"apt-get install --simulate {deb.name}: the dependencies do not resolve:\n{done.stdout[-1500:]}"
             f"\n{done.stderr[-1500:]}")
    if "lstm-workbench" not in done.stdout:
        fail(f"apt-get --simulate did not plan to install the package: {done.stdout[-1500:]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True, type=Path)
    parser.add_argument("--version", required=True)
    args = parser.parse_args()
    deb = build_package(args.build_dir.resolve())
    with tempfile.TemporaryDirectory(prefix="wb-package-test-") as tmp:
        tmp = Path(tmp)
        run(["dpkg-deb", "-x", deb, tmp / "root"])
        usr = tmp / "root" / "usr"
        check_control(deb, args.version, usr)
        check_contents(usr)
        use_the_package(usr, tmp)
    check_dependencies_resolve(deb)
    print(f"OK: {deb.name} holds the whole product and runs from an unpacked tree")


if __name__ == "__main__":
    main()
