"""Tones read by a character's dominant reading, independently of the C++ checker (docs/verse.md, "Which
reading is a character's").

Two measurements over tones.json (the level/oblique/either mark counts of every character in chinese-poetry's
strains patterns):

- `thresholds`: for each candidate share T, the real Tang quatrains' pass rate under the tonal rules when a
  character's tone is the reading that at least T of its level and oblique marks have (else ambiguous), and
  the share of ambiguous characters at the judged positions (2, 4, 6 and every line's end). The checker's
  ToneTable::kDominantShare is chosen from it.
- `check`: poems (real ones, or generated ones from generation.json) under the "80 % rule": a character's
  tone is the reading at least 80 % of its marks have (RULES below say which marks count: of its level and
  oblique marks, the rule the checker adopted, and of all its marks); everything else is ambiguous and
  never a violation. The rules are those of regulated verse at the judged positions:
  二四六分明, 对, 粘, even lines end level, lines 3, 5, 7 end oblique.

- `tails`: the lines of real poems that end on three level tones (三平尾) under the 80 % rule, and which
  characters stand third from last in them (a character the marks misread shows up there).

Usage: verse_readings.py TONES_JSON (thresholds | tails) CORPUS_JSON...  |  check (CORPUS_JSON | GENERATION_JSON)...
Prints JSON on stdout.
"""

import json
import re
import sys

# Which marks a share is taken of: "level+oblique" ignores the ○ marks (the package left the place open),
# "all" counts them as a third reading, the stricter test of the two.
RULES = {"level+oblique": False, "all": True}
LINE_BREAK = re.compile("[，。？！；：、,.?!;:\n]")


def load_tones(path):
    tables = json.load(open(path, encoding="utf-8"))
    simplified, traditional = tables.get("simplified", {}), tables["traditional"]
    return lambda c: simplified.get(c) or traditional.get(c)


def tone_reader(counts, share, with_open_marks):
    def tone(c):
        k = counts(c)
        if not k:
            return "?"
        n = k[0] + k[1] + (k[2] if with_open_marks else 0)
        if n and k[0] >= share * n:
            return "L"
        if n and k[1] >= share * n:
            return "O"
        return "?"
    return tone


def poem_lines(text):
    return [line for line in LINE_BREAK.split(text) if line]


def regulated_shape(lines):
    return len(lines) in (4, 8) and len({len(l) for l in lines}) == 1 and len(lines[0]) in (5, 7)


def judge(lines, tone):
    """(violations, ambiguous judged positions, judged positions) of one poem of regulated shape."""
    n = len(lines[0])
    keys = [1, 3] if n == 5 else [1, 3, 5]
    tones = [[tone(c) for c in line] for line in lines]
    decided = lambda t: t in "LO"
    violations = 0
    for i, t in enumerate(tones):
        for a, b in zip(keys, keys[1:]):  # 二四六分明
            violations += decided(t[a]) and decided(t[b]) and t[a] == t[b]
        if i % 2 == 1:
            violations += sum(decided(tones[i - 1][p]) and decided(t[p]) and tones[i - 1][p] == t[p]
                              for p in keys)  # 对
            violations += t[-1] == "O"  # an even line ends on the rhyme, level
        elif i > 0:
            violations += decided(tones[i - 1][1]) and decided(t[1]) and tones[i - 1][1] != t[1]  # 粘
            violations += t[-1] == "L"  # lines 3, 5, 7 end oblique
    judged = [t[p] for t in tones for p in keys + [n - 1]]
    ambiguous = sum(not decided(x) for x in judged)
    return violations, ambiguous, len(judged)


def summarize(texts, tone):
    poems = passed = ambiguous = judged = 0
    for text in texts:
        lines = poem_lines(text)
        if not regulated_shape(lines):
            continue
        v, a, j = judge(lines, tone)
        poems += 1
        passed += v == 0
        ambiguous += a
        judged += j
    return {"poems": poems, "passed": passed, "pass_rate": round(passed / poems, 4) if poems else None,
            "ambiguous_share": round(ambiguous / judged, 4) if judged else None}


def texts_of(path):
    """[(label, [poem text])]: a corpus's poems, or each row of a generation.json."""
    doc = json.load(open(path, encoding="utf-8"))
    if isinstance(doc, list):
        return [(path, ["".join(p["paragraphs"]) for p in doc])]
    return [(f'{row["form"]} {row["meter"]}', [p["text"] for p in row["poems"]]) for row in doc["rows"]]


def main(argv):
    counts = load_tones(argv[1])
    mode, paths = argv[2], argv[3:]
    out = []
    for path in paths:
        for label, texts in texts_of(path):
            entry = {"poems_of": label}
            if mode == "tails":
                tone = tone_reader(counts, 0.8, False)
                thirds = {}
                for text in texts:
                    for line in poem_lines(text):
                        if len(line) >= 3 and all(tone(c) == "L" for c in line[-3:]):
                            thirds[line[-3]] = thirds.get(line[-3], 0) + 1
                entry["lines_ending_on_three_level_tones"] = sum(thirds.values())
                entry["third_from_last"] = dict(sorted(thirds.items(), key=lambda kv: -kv[1])[:20])
            elif mode == "thresholds":
                entry["by_share"] = [dict(share=t, **summarize(texts, tone_reader(counts, t, False)))
                                     for t in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)]
                entry["old_rule_90_percent_of_all_marks"] = summarize(texts, tone_reader(counts, 0.9, True))
            else:
                for rule, with_open_marks in RULES.items():
                    entry[f"80_percent_of_{rule}_marks"] = summarize(texts, tone_reader(counts, 0.8,
                                                                                        with_open_marks))
                # The lenient reading of the checker before issue #34: 90 % of all marks.
                entry["old_rule_90_percent_of_all_marks"] = summarize(texts, tone_reader(counts, 0.9, True))
            out.append(entry)
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv)
