"""The verse tables beside the Tang corpora (workbench_corpora.verse): tones.json and rhymes.json."""

import json
import os
import shutil
import subprocess
import sys
import unittest
from pathlib import Path
from unittest import mock

# prepare_fixtures first: importing it puts datasets/ on sys.path for workbench_corpora.
from prepare_fixtures import POEMS, Fixture, poems_strains, poetry_tgz
from workbench_corpora.common import PrepareError, sha256_file
from workbench_corpora.manifest import verify
from workbench_corpora.verse import VerseTables


class VerseTablesTest(Fixture):
    def read(self, corpus, name):
        return json.loads((self.dest / corpus / name).read_text(encoding="utf-8"))

    def test_tones_counted_per_character_across_all_tang_poems(self):
        poetry_tgz(self.source)
        manifest = self.prepare("tang-quatrains-7")
        tones = self.read("tang-quatrains-7", "tones.json")
        self.assertEqual(tones["format"], "lstm-workbench tones")
        self.assertEqual(tones["counts"], ["level", "oblique", "either"])
        # Every Tang poem counts, not only the corpus's quatrains: 山 is in 早發白帝城, 登鸛雀樓, both copies
        # of 出塞, 春望 and twice in 殘句; 白 in four poems; 長 is marked either (both copies of 出塞);
        # '□' and punctuation are not counted.
        self.assertEqual(tones["traditional"]["山"], [7, 0, 0])
        self.assertEqual(tones["traditional"]["白"], [0, 4, 0])
        self.assertEqual(tones["traditional"]["長"], [0, 0, 2])
        self.assertNotIn("□", tones["traditional"])
        self.assertNotIn("，", tones["traditional"])
        self.assertNotIn("simplified", tones)
        self.assertEqual(tones["paragraphs_aligned"], 14)
        self.assertEqual(tones["paragraphs_skipped"], 0)
        entry = manifest["tones"]
        self.assertEqual(entry["file"], "tones.json")
        self.assertEqual(entry["sha256"], sha256_file(self.dest / "tang-quatrains-7" / "tones.json"))
        self.assertEqual(entry["characters"], len(tones["traditional"]))
        self.assertEqual((entry["paragraphs_aligned"], entry["paragraphs_skipped"]), (14, 0))
        self.assertEqual(verify("tang-quatrains-7", self.dest)["tones"], entry)

    def test_a_paragraph_whose_pattern_does_not_align_is_skipped_and_counted(self):
        patterns = poems_strains(POEMS)
        patterns[0]["strains"][1] = patterns[0]["strains"][1][:-2] + "。"  # one mark short
        del patterns[1]  # a poem with no pattern at all: nothing to skip, nothing counted
        poetry_tgz(self.source, strains=patterns)
        manifest = self.prepare("tang-poems")
        tones = self.read("tang-poems", "tones.json")
        self.assertEqual((tones["paragraphs_aligned"], tones["paragraphs_skipped"]), (11, 1))
        self.assertEqual(manifest["tones"]["paragraphs_skipped"], 1)
        # 登鸛雀樓 has no pattern, and 早發白帝城's 山 was in the skipped paragraph
        self.assertEqual(tones["traditional"]["山"], [5, 0, 0])

    def test_every_tang_corpus_gets_the_same_tables(self):
        poetry_tgz(self.source)
        for name in ("tang-quatrains-7", "tang-quatrains-5", "tang-poems"):
            self.prepare(name)
        for name in ("tones.json", "rhymes.json"):
            texts = {(self.dest / corpus / name).read_bytes() for corpus in
                     ("tang-quatrains-7", "tang-quatrains-5", "tang-poems")}
            self.assertEqual(len(texts), 1, name)

    def test_the_tables_are_kept_once_in_the_cache_for_every_chinese_poem_corpus(self):
        poetry_tgz(self.source)
        self.prepare("tang-quatrains-5")
        shared = self.dest / "verse-tables"
        for name in ("tones.json", "rhymes.json"):
            self.assertEqual((shared / name).read_bytes(), (self.dest / "tang-quatrains-5" / name).read_bytes())
        manifest = json.loads((shared / "tables.json").read_text(encoding="utf-8"))
        self.assertEqual(manifest["built_with"], "tang-quatrains-5")
        self.assertEqual(manifest["tones"]["sha256"], sha256_file(shared / "tones.json"))
        self.assertEqual(sorted(p.name for p in self.dest.iterdir() if p.name.startswith(".verse-tables")), [])
        # A cache whose Tang corpus was prepared before the shared copy existed gets it at the next prepare.
        shutil.rmtree(shared)
        self.prepare("tang-quatrains-5")
        self.assertTrue((shared / "tables.json").is_file())
        # The next Tang corpus prepared refreshes it.
        before = (shared / "tables.json").read_bytes()
        self.prepare("tang-quatrains-7")
        self.assertEqual(json.loads((shared / "tables.json").read_text(encoding="utf-8"))["built_with"],
                         "tang-quatrains-7")
        self.assertNotEqual(before, (shared / "tables.json").read_bytes())

    @unittest.skipUnless(shutil.which("opencc"), "opencc is not installed")
    def test_simplified_counts_add_up_the_traditional_characters(self):
        poems = POEMS + [{"author": "佚名", "title": "後", "id": "8", "paragraphs": ["後后"]}]
        patterns = poems_strains(POEMS) + [{"id": "8", "strains": ["仄平"]}]  # made-up marks, to add up
        poetry_tgz(self.source, poems=poems, strains=patterns)
        manifest = self.prepare("tang-poems", chinese="auto")
        tones = self.read("tang-poems", "tones.json")
        self.assertEqual(tones["traditional"]["後"], [0, 1, 0])
        self.assertEqual(tones["traditional"]["后"], [1, 0, 0])
        self.assertEqual(tones["simplified"]["后"], [1, 1, 0])
        self.assertEqual(tones["simplified"]["辞"], tones["traditional"]["辭"])
        self.assertNotIn("辭", tones["simplified"])
        self.assertEqual(manifest["tones"]["simplified_characters"], len(tones["simplified"]))

    def test_rhyme_groups_from_even_lines(self):
        poetry_tgz(self.source)
        with mock.patch.multiple("workbench_corpora.verse", RHYME_MIN_PAIR=1, RHYME_MIN_SHARE=0.0):
            manifest = self.prepare("tang-quatrains-7")
        rhymes = self.read("tang-quatrains-7", "rhymes.json")
        self.assertEqual(rhymes["format"], "lstm-workbench rhymes")
        groups = ["".join(sorted(g["traditional"])) for g in rhymes["groups"]]
        # 早發白帝城 and 出塞 rhyme 還 with 山 (出塞 twice, counted once); 登鸛雀樓 流/樓. 春望's rhyme feet
        # 深/心/金/簪: 深 and 金 are marked oblique here, so its rhyme is not a level one and is not used.
        self.assertIn("".join(sorted("山還")), groups)
        self.assertIn("".join(sorted("流樓")), groups)
        self.assertFalse(any("心" in g for g in groups))
        self.assertEqual(rhymes["poems_used"], 3)
        self.assertEqual(manifest["rhymes"]["groups"], len(groups))
        self.assertEqual(manifest["rhymes"]["sha256"],
                         sha256_file(self.dest / "tang-quatrains-7" / "rhymes.json"))
        self.assertIn("held_out_quatrains", manifest["rhymes"]["validation"])

    def test_learning_needs_several_poems_per_pair_and_splits_at_a_two_reading_character(self):
        feet = [["山", "還"]] * 3 + [["間", "還"]] * 4 + [["山", "間"]] * 4
        groups = VerseTables._learn(feet)
        self.assertEqual(sorted("".join(sorted(g)) for g in groups), ["山還間"])  # 山–還 rides on the others
        with mock.patch.multiple("workbench_corpora.verse", RHYME_MIN_PAIR=4):
            self.assertEqual(VerseTables._learn([["山", "還"]] * 3), [])
        # 行 rhymes with 庚 (xíng) and with 陽 (háng): two groups joined only through it stay two, 行 in each.
        geng, yang = "明城名清成", "長香陽鄉光"
        feet = [[a, b] for part in (geng, yang) for a in part for b in part if a < b for _ in range(4)]
        feet += [["行", c] for c in geng + yang for _ in range(4)]
        with mock.patch.multiple("workbench_corpora.verse", RHYME_SPLIT_MIN=5):
            groups = sorted("".join(sorted(g)) for g in VerseTables._learn(feet))
        self.assertEqual(groups, sorted(["".join(sorted(geng + "行")), "".join(sorted(yang + "行"))]))

    def test_verify_detects_a_changed_tone_table(self):
        poetry_tgz(self.source)
        self.prepare("tang-quatrains-7")
        path = self.dest / "tang-quatrains-7" / "tones.json"
        path.write_text(path.read_text(encoding="utf-8").replace("[7, 0, 0]", "[0, 7, 0]"), encoding="utf-8")
        with self.assertRaisesRegex(PrepareError, "tones.json: sha256 .* does not match"):
            verify("tang-quatrains-7", self.dest)
        path.unlink()
        with self.assertRaisesRegex(PrepareError, "'tones.json' is missing"):
            verify("tang-quatrains-7", self.dest)

    def test_a_package_without_tone_patterns_still_prepares(self):
        poetry_tgz(self.source, strains=False)
        manifest = self.prepare("tang-quatrains-7")
        self.assertNotIn("tones", manifest)
        self.assertFalse((self.dest / "tang-quatrains-7" / "tones.json").exists())
        self.assertIn("no tone patterns", self.stderr.getvalue())

    def test_bad_strains_file_is_one_line_naming_the_member(self):
        poetry_tgz(self.source, strains=[{"id": "1", "strains": "平仄"}])
        self.assertPrepareError("tang-quatrains-7", "strains/json/poet.tang.0.json", "pattern 0")


if __name__ == "__main__":
    unittest.main()


class RhymeSplitOrderTest(unittest.TestCase):
    """rhymes.json must not depend on the process: Python salts string hashes per process, so a split that
    followed a set's pop() order wrote other groups (and another rhymes.sha256) from run to run."""

    SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
from workbench_corpora.verse import VerseTables
cliques = [[f"{name}{i}" for i in range(6)] for name in "abc"]
links = {}
def link(x, y):
    links.setdefault(x, set()).add(y)
    links.setdefault(y, set()).add(x)
for clique in cliques:
    for x in clique:
        for y in clique:
            if x < y:
                link(x, y)
    link("Z", clique[0])  # one character with a reading in each of three rhymes
chars = set(sum(cliques, [])) | {"Z"}
print([sorted(part) for part in VerseTables._split_at_bridges(chars, links)])
"""

    def test_same_groups_in_the_same_order_whatever_the_hash_seed(self):
        datasets = str(Path(__file__).resolve().parents[2] / "datasets")
        outputs = set()
        for seed in range(1, 7):
            env = dict(os.environ, PYTHONHASHSEED=str(seed))
            done = subprocess.run([sys.executable, "-c", self.SCRIPT, datasets], env=env, check=True,
                                  capture_output=True, text=True)
            outputs.add(done.stdout)
        self.assertEqual(len(outputs), 1, outputs)
        self.assertIn("'Z'", outputs.pop())  # the bridge belongs to every part
