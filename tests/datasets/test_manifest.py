"""The corpus cache's manifest (workbench_corpora.manifest): the checksum's definition."""

import hashlib
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "datasets"))
from workbench_corpora.manifest import data_checksum  # noqa: E402


class ChecksumTest(unittest.TestCase):
    def test_definition(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "data"
            (folder / "b").mkdir(parents=True)
            (folder / "a.txt").write_bytes(b"hello")
            (folder / "b" / "c.txt").write_bytes(b"")
            expected = hashlib.sha256(b"a.txt\n5\nhello" + b"b/c.txt\n0\n").hexdigest()
            self.assertEqual(data_checksum(folder), "sha256:" + expected)
            single = hashlib.sha256(b"a.txt\n5\nhello").hexdigest()
            self.assertEqual(data_checksum(folder / "a.txt"), "sha256:" + single)


if __name__ == "__main__":
    unittest.main()
