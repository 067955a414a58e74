#!/usr/bin/python3
"""The corpus preparer's entry point: `python3 datasets/prepare.py NAME…` in a source tree, installed as
/usr/share/lstm-workbench/prepare.py with its package beside it. The code is in workbench_corpora/."""

import os
import sys

# The package lies beside this file wherever it is run from (and with python3 -P or -I, which leave the
# script's folder off sys.path).
HERE = os.path.dirname(os.path.realpath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
# As before the split, running the preparer writes no __pycache__ beside it (in /usr/share when root runs it).
sys.dont_write_bytecode = True

from workbench_corpora.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
