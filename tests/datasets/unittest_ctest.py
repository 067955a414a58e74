"""Runs the unittest tests of this folder one per ctest entry, so that ctest names every test it skipped.

  unittest_ctest.py --list     prints one test id per line (CMake reads them at configure time)
  unittest_ctest.py TEST_ID    runs that one test: exit 0 passed, 1 failed, 77 skipped (ctest's
                               SKIP_RETURN_CODE), 2 when no such test exists (a stale list: re-run cmake)
"""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIPPED = 77


def discover():
    return unittest.defaultTestLoader.discover(str(HERE), pattern="test_*.py", top_level_dir=str(HERE))


def flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def main(argv):
    if argv == ["--list"]:
        tests = list(flatten(discover()))
        # A module that does not import shows up as a _FailedTest: listing it would hide the error.
        broken = [t.id() for t in tests if t.__class__.__name__ == "_FailedTest"]
        if broken:
            print(f"cannot import {', '.join(broken)}", file=sys.stderr)
            return 1
        for test in tests:
            print(test.id())
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    suite = unittest.defaultTestLoader.loadTestsFromName(argv[0])
    tests = list(flatten(suite))
    if len(tests) != 1 or tests[0].__class__.__name__ == "_FailedTest":
        print(f"{argv[0]}: no such test (re-run cmake if the tests changed)", file=sys.stderr)
        return 2
    result = unittest.TextTestRunner(verbosity=2).run(tests[0])
    if not result.wasSuccessful():
        return 1
    if result.skipped:
        for _, reason in result.skipped:
            print(f"SKIP: {reason}")
        return SKIPPED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
