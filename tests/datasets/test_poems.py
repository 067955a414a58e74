"""The Tang corpora (workbench_corpora.poems): shapes, manifests, re-runs, opencc, and broken
chinese-poetry packages, each a one-line error that leaves nothing that looks prepared."""

import base64
import json
import shutil
import unittest
from pathlib import Path
from unittest import mock

# prepare_fixtures first: importing it puts datasets/ on sys.path for workbench_corpora.
from prepare_fixtures import POEMS, Fixture, looks_prepared, npm_tgz, poetry_tgz
from workbench_corpora.common import PrepareError
from workbench_corpora.manifest import data_checksum, verify
from workbench_corpora.poems import quatrain_lines


class TangTest(Fixture):
    def setUp(self):
        super().setUp()
        poetry_tgz(self.source)

    def test_quatrains_7_shape_and_manifest(self):
        manifest = self.prepare("tang-quatrains-7")
        corpus = self.dest / "tang-quatrains-7"
        poems = json.loads((corpus / "tang-quatrains-7.json").read_text(encoding="utf-8"))
        self.assertEqual([p["title"] for p in poems], ["早發白帝城", "出塞"])
        self.assertEqual(poems[0]["paragraphs"], ["朝辭白帝彩雲間，千里江陵一日還。", "兩岸猿聲啼不住，輕舟已過萬重山。"])
        self.assertEqual(set(poems[0]), {"title", "author", "paragraphs"})
        on_disk = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        self.assertEqual(on_disk, manifest)
        for key in ("name", "description", "format", "data", "source_package", "source_version", "license",
                    "documents", "characters", "checksum", "simplified", "prepared_at"):
            self.assertIn(key, manifest)
        self.assertEqual(manifest["format"], "poems")
        self.assertEqual(manifest["data"], "tang-quatrains-7.json")
        self.assertEqual(manifest["source_package"], "npm:chinese-poetry")
        self.assertEqual(manifest["source_version"], "0.0.1")
        self.assertEqual(manifest["documents"], 2)
        self.assertEqual(manifest["characters"], 2 * (32 + 1))  # 28 ideographs, 4 marks, one '\n'
        self.assertFalse(manifest["simplified"])
        self.assertEqual(manifest["duplicates_removed"], 1)
        self.assertNotIn("classes", manifest)
        self.assertEqual(manifest["checksum"], data_checksum(corpus / "tang-quatrains-7.json"))
        self.assertEqual(verify("tang-quatrains-7", self.dest)["name"], "tang-quatrains-7")

    def test_quatrains_5_and_all_poems(self):
        self.assertEqual(self.prepare("tang-quatrains-5")["documents"], 1)
        manifest = self.prepare("tang-poems")
        self.assertEqual(manifest["documents"], 6)  # the empty one is dropped, Song poems are not Tang
        poems = json.loads((self.dest / "tang-poems" / "tang-poems.json").read_text(encoding="utf-8"))
        self.assertEqual(len(poems[5]["paragraphs"]), 4)

    @unittest.skipUnless(shutil.which("opencc"), "opencc is not installed")
    def test_simplified_with_opencc(self):
        manifest = self.prepare("tang-quatrains-7", chinese="auto")
        self.assertTrue(manifest["simplified"])
        self.assertIn("opencc", manifest["converter"])
        poems = json.loads((self.dest / "tang-quatrains-7" / "tang-quatrains-7.json").read_text(encoding="utf-8"))
        self.assertEqual(poems[0]["title"], "早发白帝城")
        self.assertEqual(poems[0]["paragraphs"][0], "朝辞白帝彩云间，千里江陵一日还。")

    def test_without_opencc_auto_keeps_traditional_and_says_so(self):
        with mock.patch("workbench_corpora.poems.opencc_command", return_value=None):
            self.assertFalse(self.prepare("tang-quatrains-7", chinese="auto")["simplified"])
        self.assertIn("opencc not found", self.stderr.getvalue())

    def test_without_opencc_simplified_is_an_error(self):
        with mock.patch("workbench_corpora.poems.opencc_command", return_value=None):
            self.assertPrepareError("tang-quatrains-7", "apt-get install opencc", chinese="simplified")

    def test_rerun_does_not_rebuild_or_need_the_source(self):
        first = self.prepare("tang-quatrains-7")
        shutil.rmtree(self.source)
        self.source.mkdir()
        again = self.prepare("tang-quatrains-7")
        self.assertEqual(first["prepared_at"], again["prepared_at"])
        self.assertIn("already prepared", self.stderr.getvalue())

    def test_a_corpus_prepared_before_the_verse_tables_is_rebuilt_with_them(self):
        self.prepare("tang-quatrains-7")
        corpus = self.dest / "tang-quatrains-7"
        # As an older version left it: no tables, and a manifest that does not mention them.
        manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        for key in ("verse_tables", "tones", "rhymes"):
            manifest.pop(key)
        (corpus / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        for name in ("tones.json", "rhymes.json"):
            (corpus / name).unlink()
        again = self.prepare("tang-quatrains-7")
        self.assertIn("prepared before the verse tables", self.stderr.getvalue())
        self.assertTrue(again["verse_tables"])
        self.assertTrue((corpus / "tones.json").is_file())
        self.assertTrue((corpus / "rhymes.json").is_file())
        # Once rebuilt it is prepared like any other.
        self.prepare("tang-quatrains-7")
        self.assertIn("already prepared", self.stderr.getvalue())

    def test_force_rebuilds_in_place(self):
        self.prepare("tang-quatrains-7")
        marker = self.dest / "tang-quatrains-7" / "stale.txt"
        marker.write_text("old")
        self.prepare("tang-quatrains-7", force=True)
        self.assertFalse(marker.exists())
        self.assertEqual(sorted(p.name for p in self.dest.iterdir() if not p.name.startswith(".")),
                         ["tang-quatrains-7", "verse-tables"])
        self.assertEqual([p for p in self.dest.iterdir() if ".tmp-" in p.name or ".old-" in p.name], [])

    def test_verify_detects_a_changed_file(self):
        self.prepare("tang-quatrains-7")
        data = self.dest / "tang-quatrains-7" / "tang-quatrains-7.json"
        data.write_text(data.read_text(encoding="utf-8").replace("白帝", "黃帝"), encoding="utf-8")
        with self.assertRaisesRegex(PrepareError, "checksum .* does not match"):
            verify("tang-quatrains-7", self.dest)

    def test_verify_of_unprepared_corpus(self):
        with self.assertRaisesRegex(PrepareError, "not prepared"):
            verify("tang-quatrains-7", self.dest)


class BrokenPoetryTest(Fixture):
    def test_bad_json_names_the_member_and_line(self):
        poetry_tgz(self.source, raw=b'[\n  {"author": "x",\n   "paragraphs": ["a",]\n}')
        self.assertPrepareError("tang-quatrains-7", "poet.tang.0.json:3: bad JSON")

    def test_wrong_shape(self):
        poetry_tgz(self.source, raw=json.dumps([{"author": "x", "paragraphs": "not a list"}]).encode())
        self.assertPrepareError("tang-poems", "poem 0", "'paragraphs' array of strings")

    def test_truncated_archive(self):
        path = poetry_tgz(self.source)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        self.assertPrepareError("tang-quatrains-7", "truncated or corrupt")

    def test_not_an_archive(self):
        (self.source / "chinese-poetry-0.0.1.tgz").write_bytes(b"<html>502 Bad Gateway</html>")
        self.assertPrepareError("tang-quatrains-7", "truncated or corrupt")

    def test_integrity_mismatch_is_refused_before_reading(self):
        path = poetry_tgz(self.source)
        Path(str(path) + ".integrity").write_text("sha512-" + base64.b64encode(b"x" * 64).decode())
        self.assertPrepareError("tang-quatrains-7", "does not match the expected", "corrupt or partial")

    def test_package_without_tang_poems(self):
        npm_tgz(self.source, "chinese-poetry", "0.0.1", {"package/README.md": b"hi"})
        self.assertPrepareError("tang-quatrains-7", "no Tang poem files")

    def test_no_quatrains(self):
        poetry_tgz(self.source, poems=POEMS[5:])
        self.assertPrepareError("tang-quatrains-7", "no poems qualify")

    def test_missing_source(self):
        self.assertPrepareError("tang-quatrains-7", "no npm tarball of chinese-poetry")

    def test_interrupted_build_leaves_nothing_and_leftovers_are_cleaned(self):
        poetry_tgz(self.source)
        with mock.patch("workbench_corpora.poems.write_poems_json", side_effect=KeyboardInterrupt):
            with self.assertRaises(KeyboardInterrupt):
                self.prepare("tang-quatrains-7")
        self.assertEqual(looks_prepared(self.dest), [])
        # a folder a SIGKILLed run left behind is removed by the next run
        (self.dest / ".tang-quatrains-7.tmp-killed").mkdir()
        (self.dest / ".tang-quatrains-7.tmp-killed" / "tang-quatrains-7.json").write_text("[")
        self.prepare("tang-quatrains-7")
        self.assertEqual(sorted(looks_prepared(self.dest)),
                         sorted(["tang-quatrains-7", str(self.dest / "tang-quatrains-7" / "manifest.json"),
                                 "verse-tables"]))

    def test_data_without_manifest_is_rebuilt(self):
        poetry_tgz(self.source)
        (self.dest / "tang-quatrains-7").mkdir(parents=True)
        (self.dest / "tang-quatrains-7" / "tang-quatrains-7.json").write_text("[")
        self.assertEqual(self.prepare("tang-quatrains-7")["documents"], 2)


class QuatrainLinesTest(unittest.TestCase):
    def test_quatrain_lines(self):
        self.assertEqual(quatrain_lines(["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"], 5),
                         ("白日依山盡", "黃河入海流", "欲窮千里目", "更上一層樓"))
        self.assertIsNone(quatrain_lines(["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"], 7))
        self.assertIsNone(quatrain_lines(["白日依山盡。黃河入海流，", "欲窮千里目，更上一層樓。"], 5))
        self.assertIsNone(quatrain_lines(["白日依山（盡），黃河入海流。", "欲窮千里目，更上一層樓。"], 5))


if __name__ == "__main__":
    unittest.main()
