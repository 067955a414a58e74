"""The Brown corpus's detokenizer (workbench_corpora.brown)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "datasets"))
from workbench_corpora.brown import brown_detokenize  # noqa: E402


class BrownTest(unittest.TestCase):
    def test_brown_detokenize(self):
        tagged = "\n\n\tThe/at jury/nn said/vbd ``/`` no/at ''/'' ,/, it/pps did/dod n't/* ./.\n\n\n\tNext/ap ./.\n"
        self.assertEqual(brown_detokenize(tagged), "The jury said \u201cno\u201d, it didn't.\nNext.")


if __name__ == "__main__":
    unittest.main()
