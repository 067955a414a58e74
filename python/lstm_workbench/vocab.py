"""The run's vocabulary (vocab.json) and the app's tokenizers, rule for rule as the C++ (Vocabulary.cpp)."""

import json

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>")


# The sets below are the C++ tokenizer's, code point by code point: a token that split differently would
# become <unk> here but not in the app, and every score would drift.
def _is_space(c):
    return (c in (0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F,
                  0x3000, 0xFEFF)
            or 0x2000 <= c <= 0x200B)


def is_han_character(c):
    return 0x3400 <= c <= 0x4DBF or 0x4E00 <= c <= 0x9FFF or 0xF900 <= c <= 0xFAFF or 0x20000 <= c <= 0x3FFFF


def _is_cjk(c):
    return 0x3040 <= c <= 0x30FF or is_han_character(c)


def _is_non_ascii_punctuation(c):
    return (0xA1 <= c <= 0xBF or c == 0xD7 or c == 0xF7 or 0x2010 <= c <= 0x206F or 0x2190 <= c <= 0x2BFF
            or 0x3000 <= c <= 0x303F or 0xFE30 <= c <= 0xFE4F or 0xFF00 <= c <= 0xFF0F
            or 0xFF1A <= c <= 0xFF20 or 0xFF3B <= c <= 0xFF40 or 0xFF5B <= c <= 0xFF65)


def _is_apostrophe(c):
    return c == 0x27 or c == 0x2019


def _is_word_char(c):
    if c < 0x80:
        return 0x61 <= c <= 0x7A or 0x41 <= c <= 0x5A or 0x30 <= c <= 0x39
    # Any other non-ASCII code point (é, ß, ж, emoji, combining marks) continues a word, as in the app.
    return not (_is_space(c) or _is_cjk(c) or _is_non_ascii_punctuation(c) or _is_apostrophe(c))


def tokenize_words(text):
    """Word tokens: ASCII letters lower-cased (only those: 'NAÏVE' -> 'naÏve'), digits and non-ASCII
    letters kept, each punctuation mark and each CJK character alone, an apostrophe inside a word only
    between word characters ("don't"), whitespace dropped."""
    out = []
    word = []
    n = len(text)
    for i, ch in enumerate(text):
        c = ord(ch)
        if _is_word_char(c):
            word.append(chr(c + 32) if 0x41 <= c <= 0x5A else ch)
        elif _is_apostrophe(c) and word and i + 1 < n:
            if _is_word_char(ord(text[i + 1])):
                word.append(ch)
            else:
                out.append("".join(word))
                word = []
                out.append(ch)
        else:
            if word:
                out.append("".join(word))
                word = []
            if not _is_space(c):
                out.append(ch)
    if word:
        out.append("".join(word))
    return out


def tokenize_chars(text):
    """One token per Unicode code point (what a Python str iterates over)."""
    return list(text)


class Vocabulary:
    """Tokens by id (ids 0..3 are <pad>, <unk>, <bos>, <eos>), the token level, and a classifier's classes."""

    def __init__(self, tokens, level="char", classes=()):
        if level not in ("char", "word"):
            raise ValueError(f"level: expected 'char' or 'word', found {level!r}")
        tokens = list(tokens)
        if tuple(tokens[:4]) != SPECIALS:
            raise ValueError(f"tokens: expected the special tokens {SPECIALS} first")
        self.tokens = tokens
        self.level = level
        self.classes = list(classes)
        self._index = {t: i for i, t in enumerate(tokens)}
        if len(self._index) != len(tokens):
            raise ValueError("tokens: a token appears twice")

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            j = json.load(f)
        return cls(j["tokens"], j["level"], j.get("classes", []))

    def __len__(self):
        return len(self.tokens)

    def __contains__(self, token):
        return token in self._index

    def id(self, token):
        return self._index.get(token, UNK)

    def tokenize(self, text):
        return tokenize_chars(text) if self.level == "char" else tokenize_words(text)

    def encode(self, text):
        """Ids of the text's tokens; a token outside the vocabulary is <unk> (1)."""
        return [self._index.get(t, UNK) for t in self.tokenize(text)]

    def decode(self, ids):
        """Characters concatenated or words joined by spaces; the special tokens are skipped."""
        out = ""
        for i in ids:
            i = int(i)
            if 0 <= i < len(SPECIALS):
                continue
            if i < 0 or i >= len(self.tokens):
                raise IndexError(f"token id {i} outside the vocabulary of {len(self.tokens)}")
            # The app puts a space only after text already written, not before each word.
            if self.level == "word" and out:
                out += " "
            out += self.tokens[i]
        return out

    def __repr__(self):
        return f"Vocabulary({len(self.tokens)} {self.level} tokens, {len(self.classes)} classes)"
