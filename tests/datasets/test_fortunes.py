"""The fortune corpora (workbench_corpora.fortunes) from fortune .debs built with dpkg-deb."""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

# prepare_fixtures first: importing it puts datasets/ on sys.path for workbench_corpora.
from prepare_fixtures import FORTUNES, Fixture, fortune_deb



@unittest.skipUnless(shutil.which("dpkg-deb"), "dpkg-deb is not installed")
class FortunesTest(Fixture):
    def make_debs(self, packages=FORTUNES):
        for package, categories in packages.items():
            fortune_deb(self.source, package, categories)

    def test_folder_per_category(self):
        self.make_debs()
        manifest = self.prepare("fortunes")
        folder = self.dest / "fortunes" / "fortunes"
        self.assertEqual(manifest["classes"], {"computers": 3, "literature": 1, "riddles": 2})
        self.assertEqual(manifest["source_package"], "deb:fortunes-min,deb:fortunes")
        self.assertEqual(manifest["source_version"], "1:0.1-1")
        self.assertEqual(len(manifest["sources"]), 2)
        self.assertEqual((folder / "computers" / "0001.txt").read_text(), "Real programmers use butterflies.\n")
        self.assertEqual((folder / "computers" / "0002.txt").read_text(), "There is no place like 127.0.0.1\n")
        self.assertEqual((folder / "riddles" / "0002.txt").read_text(), "Why?\n\n\tBecause.\n")
        self.assertFalse(any(p.name.endswith((".dat", ".u8")) for p in folder.rglob("*")))

    def test_text_with_blank_lines_between_quotes(self):
        self.make_debs()
        manifest = self.prepare("fortunes-text")
        text = (self.dest / "fortunes-text" / "fortunes.txt").read_text(encoding="utf-8")
        self.assertEqual(manifest["format"], "text")
        self.assertEqual(manifest["documents"], 6)
        self.assertEqual(len(text.strip("\n").split("\n\n")), 6)
        self.assertIn("Why?\n\tBecause.", text)  # the quote's own blank line would have split it
        self.assertTrue(text.endswith("Two\n\nA classic is something everyone wants to have read.\n\t\t-- Mark Twain"
                                      "\n\nQ: What is purple?\nA: A grape.\n\nWhy?\n\tBecause.\n"))

    def test_empty_category(self):
        broken = {k: dict(v) for k, v in FORTUNES.items()}
        broken["fortunes"]["empty"] = "%\n\n%\n"
        self.make_debs(broken)
        self.assertPrepareError("fortunes", "category 'empty' has no quotes")
        self.assertPrepareError("fortunes-text", "category 'empty' has no quotes")

    def test_not_utf8(self):
        broken = {k: dict(v) for k, v in FORTUNES.items()}
        broken["fortunes"]["latin"] = b"ok\n%\ncaf\xe9\n"
        self.make_debs(broken)
        self.assertPrepareError("fortunes", "/usr/share/games/fortunes/latin:3: not UTF-8")

    def test_truncated_deb(self):
        self.make_debs()
        deb = next(self.source.glob("fortunes_*.deb"))
        deb.write_bytes(deb.read_bytes()[:300])
        self.assertPrepareError("fortunes", "not a valid Debian package")

    def test_md5sums_mismatch(self):
        self.make_debs()
        with tempfile.TemporaryDirectory() as tmp:
            deb = next(self.source.glob("fortunes_*.deb"))
            subprocess.run(["dpkg-deb", "-R", str(deb), tmp], check=True)
            (Path(tmp) / "usr/share/games/fortunes/computers").write_text("tampered\n%\nx\n")
            subprocess.run(["dpkg-deb", "--root-owner-group", "--build", tmp, str(deb)], check=True,
                           capture_output=True)
        self.assertPrepareError("fortunes", "does not match the package's md5sums")


if __name__ == "__main__":
    unittest.main()
