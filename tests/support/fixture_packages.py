#!/usr/bin/python3
"""Writes a local stand-in for the corpus packages into a folder, for tests that prepare a corpus without the
network (prepare.py --offline-source DIR, or $LSTM_WORKBENCH_OFFLINE_SOURCE for the app's Prepare button).

  fixture_packages.py DIR     writes DIR/chinese-poetry-0.0.1.tgz: 48 distinct 7-character quatrains and
                              their tone patterns (the package's dist/strains/json shape)

The quatrains are made up here from a small character set: enough documents for a training and a
validation split, small enough to prepare and train on in a second. They do not scan; the patterns give
each character its real tone so that the preparer's tones.json has something true to count."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "datasets"))
import prepare_fixtures  # noqa: E402  (the npm tarball writer of the preparer's own tests)

QUATRAINS = 48
CHARS = "山水風月花雲春秋江天人日夜高明清長"
# The tone of each of CHARS (平 level, 仄 oblique, ○ either: 長 is cháng or zhǎng).
TONES = "平仄平仄平平平平平平平仄仄平平平○"


def fixture_quatrains(count=QUATRAINS):
    chars = CHARS
    poems = []
    for i in range(count):
        def line(k):
            return "".join(chars[(i * 7 + k * 3 + j * (i % 5 + 1)) % len(chars)] for j in range(7))
        poems.append({"author": "佚名", "title": f"題{i}", "id": str(i),
                      "paragraphs": [f"{line(0)}，{line(1)}。", f"{line(2)}，{line(3)}。"]})
    return poems


def fixture_strains(poems):
    tone = dict(zip(CHARS, TONES))
    return [{"id": p["id"], "strains": ["".join(tone.get(c, c) for c in t) for t in p["paragraphs"]]}
            for p in poems]


def write_fixture_packages(folder):
    poems = fixture_quatrains()
    return prepare_fixtures.poetry_tgz(Path(folder), poems=poems, strains=fixture_strains(poems))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
    print(write_fixture_packages(sys.argv[1]))
