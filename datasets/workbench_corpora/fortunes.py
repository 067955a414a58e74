"""The fortunes corpora (a folder per category, and one text file) from Debian's fortunes-min and fortunes
packages."""

import re
import tempfile
from pathlib import Path

from .common import PrepareError
from .sources import extract_deb
from .text import characters_in_folder, clean_text


FORTUNE_PACKAGES = ("fortunes-min", "fortunes")
FORTUNE_DIR = "usr/share/games/fortunes"


def parse_fortune_file(path, label):
    """Quotes of one strfile source: entries separated by lines holding only '%'."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise PrepareError(f"{label}:{line}: not UTF-8 (byte {error.start})")
    quotes = []
    for chunk in re.split(r"^%[ \t]*$", text.replace("\r\n", "\n"), flags=re.M):
        quote = clean_text(chunk)
        if quote.strip():
            quotes.append(quote)
    return quotes


def load_fortunes(ctx):
    """{category: [quotes]} over the fortune packages, each checked against its md5sums."""
    categories = {}
    with tempfile.TemporaryDirectory(prefix="wb-fortunes-") as tmp:
        for name in FORTUNE_PACKAGES:
            package = ctx.deb(name)
            root = extract_deb(package, Path(tmp) / name)
            folder = root / FORTUNE_DIR
            if not folder.is_dir():
                raise PrepareError(f"{package.path.name}: no /{FORTUNE_DIR} folder in the package")
            for path in sorted(folder.iterdir()):
                # strfile's .dat indexes and .u8 markers are not text; 'off/' (offensive set) is not shipped
                if "." in path.name or not path.is_file() or path.is_symlink():
                    continue
                label = f"{package.path.name}: /{FORTUNE_DIR}/{path.name}"
                quotes = parse_fortune_file(path, label)
                if not quotes:
                    raise PrepareError(f"{label}: category '{path.name}' has no quotes (empty category)")
                if path.name in categories:
                    raise PrepareError(f"{label}: category '{path.name}' appears in two packages")
                categories[path.name] = quotes
    if len(categories) < 2:
        raise PrepareError("fortune packages hold fewer than two categories; cannot make a labelled corpus")
    return categories


def fortune_sources(ctx):
    packages = [ctx.deb(name) for name in FORTUNE_PACKAGES]
    versions = sorted({p.version for p in packages})
    return {"source_package": ",".join(p.id for p in packages), "source_version": ",".join(versions)}


def build_fortunes(ctx, out):
    categories = ctx.memo("fortunes", lambda: load_fortunes(ctx))
    folder = Path(out) / "fortunes"
    for category, quotes in categories.items():
        (folder / category).mkdir(parents=True)
        width = max(4, len(str(len(quotes))))
        for index, quote in enumerate(quotes, 1):
            (folder / category / f"{index:0{width}d}.txt").write_text(quote + "\n", encoding="utf-8")
    fields = {"data": "fortunes", "documents": sum(len(q) for q in categories.values()),
              "classes": {c: len(q) for c, q in sorted(categories.items())},
              "characters": characters_in_folder(folder)}
    fields.update(fortune_sources(ctx))
    return fields


def build_fortunes_text(ctx, out):
    categories = ctx.memo("fortunes", lambda: load_fortunes(ctx))
    # A blank line separates documents in a text corpus, so blank lines inside a quote are dropped.
    quotes = [re.sub(r"\n\s*\n", "\n", q) for _, qs in sorted(categories.items()) for q in qs]
    (Path(out) / "fortunes.txt").write_text("\n\n".join(quotes) + "\n", encoding="utf-8")
    fields = {"data": "fortunes.txt", "documents": len(quotes), "characters": sum(len(q) for q in quotes)}
    fields.update(fortune_sources(ctx))
    return fields
