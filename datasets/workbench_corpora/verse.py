"""Verse tables: tones.json and rhymes.json beside a Tang corpus, for the verse checker (workbench/domain/Verse.h):
level/oblique counts per character from the package's tone patterns, and rhyme groups learned from real
regulated poems."""

import hashlib
import json
import random
import re
from pathlib import Path

from .common import PrepareError, sha256_file
from .text import IDEOGRAPH_RE


# The package marks every character of every Tang poem 平 (level), 仄 (oblique) or ○ (either reading);
# '？' (the package knows no tone, or the text has punctuation there) and rarer marks are not counted.

TONE_MARKS = {"平": 0, "仄": 1, "○": 2}
VERSE_LINE_BREAKS = "，。？！；"

# Rhyme groups are learned from the rhyme feet (line-final characters of the even lines) of real poems of
# regulated shape: two characters are joined when they end rhyming lines of at least RHYME_MIN_PAIR
# distinct poems and those poems are at least RHYME_MIN_SHARE of the rarer character's poems, so that a
# few odd poems (or one frequent character's few stray pairings) do not merge two whole groups. A
# character with no such pair joins the group its pairings point to when RHYME_ATTACH_MIN of them do and
# they are at least RHYME_ATTACH_SHARE of its pairings. Values chosen on held-out poems (docs/verse.md).
RHYME_MIN_PAIR = 4
RHYME_MIN_SHARE = 0.1
RHYME_ATTACH_MIN = 2
RHYME_ATTACH_SHARE = 0.75
RHYME_SPLIT_MIN = 5
RHYME_HOLDOUT_MODULO = 5  # a poem whose md5(id) is 0 modulo this is held out to validate the groups
RHYME_SHUFFLES = 5
RHYME_SEED = 13


def load_strains(package, member, items, strains):
    """Adds {id: [pattern per paragraph]} of one strains file to `strains`."""
    if not isinstance(items, list):
        raise PrepareError(f"{package.path.name}: {member}: expected a JSON array of tone patterns")
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("strains"), list) \
                or not all(isinstance(p, str) for p in item["strains"]) or "id" not in item:
            raise PrepareError(f"{package.path.name}: {member}: pattern {index}: expected an object with an "
                               "'id' and a 'strains' array of strings")
        strains[str(item["id"])] = [re.sub(r"\s+", "", p) for p in item["strains"]]


def is_ideograph(char):
    return IDEOGRAPH_RE.fullmatch(char) is not None


def verse_lines(paragraphs, pattern):
    """[(line, line pattern)] of a poem of regulated shape (4 or 8 lines, all of 5 or all of 7 ideographs),
    or None. Lines end at any of VERSE_LINE_BREAKS; every paragraph must align with its pattern."""
    if pattern is None or any(p is None or len(p) != len(t) for t, p in zip(paragraphs, pattern)):
        return None
    text, marks = "".join(paragraphs), "".join(pattern)
    lines, start = [], 0
    for index, char in enumerate(text):
        if char in VERSE_LINE_BREAKS:
            lines.append((text[start:index], marks[start:index]))
            start = index + 1
    if start != len(text) or len(lines) not in (4, 8) or len({len(l) for l, _ in lines}) != 1 \
            or len(lines[0][0]) not in (5, 7) or not all(all(map(is_ideograph, l)) for l, _ in lines):
        return None
    return lines


def rhyme_feet(lines):
    """The line-final characters of the even lines when all of them are marked level (a regulated poem's
    rhyme), else None (an oblique rhyme, or a tone the package could not tell)."""
    feet = [lines[i] for i in range(1, len(lines), 2)]
    if any(marks[-1] != "平" for _, marks in feet):
        return None
    return [line[-1] for line, _ in feet]


class VerseTables:
    """Counts per character and learns rhyme groups; writes tones.json and rhymes.json."""

    def __init__(self):
        self.traditional = {}  # char -> [level, oblique, either]
        self.simplified = {}
        self.aligned = self.skipped = 0
        self.simplified_skipped = 0
        self.conversions = set()  # (traditional char, the simplified char it became somewhere)
        self.groups = None
        self.validation = None

    @staticmethod
    def _count(table, text, marks):
        for char, mark in zip(text, marks):
            slot = TONE_MARKS.get(mark)
            if slot is None:
                continue
            row = table.get(char)
            if row is None:  # the regex only once per character: this loop sees 3.9 million of them
                if not is_ideograph(char):
                    continue
                row = table[char] = [0, 0, 0]
            row[slot] += 1

    def add_traditional(self, paragraphs, pattern):
        if pattern is None:
            return
        for text, marks in zip(paragraphs, pattern):
            # The package marks a character bracketed as an editor's correction ("[襟]") once: such a
            # paragraph is longer than its pattern and is skipped rather than guessed at.
            if marks is None or len(marks) != len(text):
                self.skipped += 1
                continue
            self.aligned += 1
            self._count(self.traditional, text, marks)

    def add_simplified(self, traditional, simplified, pattern):
        """Counts the converted text against the same pattern, so that a simplified character that stands
        for several traditional ones adds up their readings in the contexts the converter saw."""
        if pattern is None:
            return
        for old, new, marks in zip(traditional, simplified, pattern):
            if marks is None or len(marks) != len(old):
                continue
            if len(new) != len(old):  # opencc kept the length everywhere we looked; never guess
                self.simplified_skipped += 1
                continue
            self._count(self.simplified, new, marks)
            self.conversions.update(zip(old, new))

    @staticmethod
    def _poems_feet(poems):
        """(id, rhyme feet) of each poem of regulated shape with a level rhyme, each text once (the package
        has some poems twice, under two titles)."""
        seen, out = set(), []
        for poem_id, paragraphs, pattern in poems:
            lines = verse_lines(paragraphs, pattern)
            feet = rhyme_feet(lines) if lines else None
            key = "".join(paragraphs)
            if feet and key not in seen:
                seen.add(key)
                out.append((poem_id, feet))
        return out

    @staticmethod
    def _learn(feet_lists):
        """{char: group root} from rhyme-feet lists (see RHYME_MIN_PAIR)."""
        pairs, poems_of = {}, {}
        for feet in feet_lists:
            distinct = sorted(set(feet))
            for char in distinct:
                poems_of[char] = poems_of.get(char, 0) + 1
            for i, a in enumerate(distinct):
                for b in distinct[i + 1:]:
                    pairs[(a, b)] = pairs.get((a, b), 0) + 1
        parent = {}

        def find(x):
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        links = {}
        for (a, b), n in sorted(pairs.items()):
            if n >= RHYME_MIN_PAIR and n >= RHYME_MIN_SHARE * min(poems_of[a], poems_of[b]):
                parent[find(a)] = find(b)
                links.setdefault(a, set()).add(b)
                links.setdefault(b, set()).add(a)
        members = {}
        for char in sorted(parent):
            members.setdefault(find(char), set()).add(char)
        groups = [chars for chars in members.values()]
        groups = [part for chars in groups for part in VerseTables._split_at_bridges(chars, links)]
        group_of = {}
        for index, chars in enumerate(groups):
            for char in chars:
                group_of.setdefault(char, []).append(index)
        neighbours = {}
        for (a, b), n in pairs.items():
            for x, y in ((a, b), (b, a)):
                if x not in group_of and len(group_of.get(y, ())) == 1:
                    counts = neighbours.setdefault(x, {})
                    counts[group_of[y][0]] = counts.get(group_of[y][0], 0) + n
        for char, counts in sorted(neighbours.items()):
            index, n = max(sorted(counts.items()), key=lambda item: item[1])
            if n >= RHYME_ATTACH_MIN and n >= RHYME_ATTACH_SHARE * sum(counts.values()):
                groups[index].add(char)
        return groups

    @staticmethod
    def _split_at_bridges(chars, links):
        """A character with two readings in two rhymes (行 háng/xíng, 車 jū/chē) joins the two groups
        it rhymes in. Where taking one character out splits a group into parts of RHYME_SPLIT_MIN
        characters or more, the parts are separate groups and that character belongs to each."""
        def parts_without(removed):
            left, found = set(chars) - {removed}, []
            while left:
                # From the smallest character left, so that the parts come in one order whatever the
                # process's string hashing (a set's pop() order changes from run to run).
                first = min(left)
                left.discard(first)
                stack = [first]
                part = set(stack)
                while stack:
                    for other in links.get(stack.pop(), ()):
                        if other in left:
                            left.discard(other)
                            part.add(other)
                            stack.append(other)
                found.append(part)
            return found

        if len(chars) < 2 * RHYME_SPLIT_MIN + 1:
            return [chars]
        best = None
        for char in sorted(chars):
            big = [part for part in parts_without(char) if len(part) >= RHYME_SPLIT_MIN]
            if len(big) >= 2 and (best is None or min(map(len, big)) > min(map(len, best[1]))):
                best = (char, big)
        if best is None:
            return [chars]
        char, big = best
        rest = set(chars) - {char} - set().union(*big)  # small leftovers stay with the first part
        big[0] |= rest
        return [part for piece in big for part in VerseTables._split_at_bridges(piece | {char}, links)]

    @staticmethod
    def _measure(groups, held_out):
        """On held-out quatrains: the share whose lines 2 and 4 end in characters of one group, and the
        share of shuffled pairs (line 2 of one poem, line 4 of another) that do. Pairs of one character
        twice, and pairs with a character in no group, are not judged."""
        quatrains = [feet for _, feet in held_out if len(feet) == 2]

        group_of = {}
        for index, chars in enumerate(groups):
            for char in chars:
                group_of.setdefault(char, set()).add(index)

        def rate(pairs):
            judged = [(a, b) for a, b in pairs if a != b and a in group_of and b in group_of]
            same = sum(1 for a, b in judged if group_of[a] & group_of[b])
            return {"pairs": len(pairs), "judged": len(judged),
                    "rhyme_rate": round(same / len(judged), 4) if judged else None}

        real = rate([(a, b) for a, b in quatrains])
        rng = random.Random(RHYME_SEED)
        shuffled = []
        for _ in range(RHYME_SHUFFLES):
            order = list(range(len(quatrains)))
            rng.shuffle(order)
            shuffled += [(quatrains[i][0], quatrains[j][1]) for i, j in enumerate(order) if i != j]
        return {"held_out_quatrains": real, "shuffled_pairs": rate(shuffled)}

    def learn_rhymes(self, poems):
        poems_feet = self._poems_feet(poems)

        def held_out(poem_id):
            return int(hashlib.md5(poem_id.encode("utf-8")).hexdigest(), 16) % RHYME_HOLDOUT_MODULO == 0

        train = [feet for poem_id, feet in poems_feet if not held_out(poem_id)]
        test = [(poem_id, feet) for poem_id, feet in poems_feet if held_out(poem_id)]
        self.validation = self._measure(self._learn(train), test)
        self.validation["train_poems"] = len(train)
        groups = self._learn([feet for _, feet in poems_feet])
        frequency = {}
        for _, feet in poems_feet:
            for char in feet:
                frequency[char] = frequency.get(char, 0) + 1
        # Most frequent rhyme foot first inside a group, groups by their first character's frequency.
        order = [sorted(chars, key=lambda c: (-frequency.get(c, 0), c)) for chars in groups]
        self.groups = sorted(order, key=lambda chars: (-frequency.get(chars[0], 0), chars[0]))
        self.poems_used = len(poems_feet)

    def tones_json(self, source, simplified):
        doc = {"format": "lstm-workbench tones", "version": 1, "source": source,
               "counts": ["level", "oblique", "either"],
               "paragraphs_aligned": self.aligned, "paragraphs_skipped": self.skipped,
               "traditional": dict(sorted(self.traditional.items()))}
        if simplified:
            doc["simplified"] = dict(sorted(self.simplified.items()))
            doc["simplified_paragraphs_skipped"] = self.simplified_skipped
        return doc

    def rhymes_json(self, source, simplified):
        images = {}
        for old, new in self.conversions:
            images.setdefault(old, set()).add(new)
        groups = []
        for chars in self.groups:
            group = {"name": chars[0], "traditional": "".join(chars)}
            if simplified:
                converted = []
                for char in chars:
                    for new in sorted(images.get(char, {char})):
                        if new not in converted:
                            converted.append(new)
                group["simplified"] = "".join(converted)
            groups.append(group)
        return {"format": "lstm-workbench rhymes", "version": 1, "source": source,
                "method": "rhyme feet of real regulated poems joined (see docs/verse.md)",
                "min_pair_poems": RHYME_MIN_PAIR, "min_pair_share": RHYME_MIN_SHARE,
                "attach_min": RHYME_ATTACH_MIN, "attach_share": RHYME_ATTACH_SHARE,
                "poems_used": self.poems_used, "validation": self.validation, "groups": groups}

    def write(self, out, source, simplified):
        """Writes both files into `out`; returns their manifest entries."""
        tones = self.tones_json(source, simplified)
        rhymes = self.rhymes_json(source, simplified)
        entries = {}
        for key, name, doc in (("tones", "tones.json", tones), ("rhymes", "rhymes.json", rhymes)):
            path = Path(out) / name
            path.write_text(verse_json_text(doc), encoding="utf-8")
            entries[key] = {"file": name, "sha256": sha256_file(path)}
        entries["tones"].update(characters=len(tones["traditional"]), paragraphs_aligned=self.aligned,
                                paragraphs_skipped=self.skipped)
        if simplified:
            entries["tones"]["simplified_characters"] = len(tones["simplified"])
        entries["rhymes"].update(groups=len(rhymes["groups"]),
                                 characters=len({c for g in rhymes["groups"] for c in g["traditional"]}),
                                 validation=self.validation)
        return entries


def verse_json_text(doc):
    """JSON with one line per character of a tone table and per rhyme group: readable and diff-friendly."""
    lines = []
    for key, value in doc.items():
        if isinstance(value, dict) and key in ("traditional", "simplified"):
            rows = [f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v)}" for k, v in value.items()]
            text = "{\n" + ",\n".join(rows) + "\n }"
        elif isinstance(value, list) and key == "groups":
            text = "[\n" + ",\n".join("  " + json.dumps(g, ensure_ascii=False) for g in value) + "\n ]"
        else:
            text = json.dumps(value, ensure_ascii=False)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"
