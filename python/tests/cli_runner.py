"""lstm-workbench-cli for the Python tests: the program is LSTM_WORKBENCH_CLI (default
build/bin/lstm-workbench-cli from the repository's root), run with one thread, its failure an assertion that
says what it printed (unless check=False)."""

import os
import subprocess
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("LSTM_WORKBENCH_CLI", os.path.join(ROOT, "build", "bin", "lstm-workbench-cli"))
if not os.path.isabs(CLI):
    CLI = os.path.join(ROOT, CLI)


def cli(*args, check=True):
    # The CLI may be rebuilt while the tests run: a missing binary is waited for, not a failure.
    for _ in range(120):
        if os.path.exists(CLI):
            break
        time.sleep(1)
    p = subprocess.run([CLI, *args], capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join([CLI, *args])} failed ({p.returncode}):\n{p.stderr}{p.stdout}")
    return p
