"""The run's vocabulary (vocab.json) and the app's tokenizers, rule for rule as the C++ (Vocabulary.cpp)."""

import operator
from typing import NamedTuple

import torch

from . import rules
from .errors import RunError, json_type, read_json
from .formats import VOCAB_KEYS, format_version, warn_unknown

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = rules.SPECIALS  # "<pad>", "<unk>", "<bos>", "<eos>": the app's, in id order


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


class EncodedBatch(NamedTuple):
    """Texts as one padded batch, what a classifier's forward takes (model(batch.ids, batch.lengths))."""
    ids: torch.Tensor  # int64 [B, T]: each text's ids, then <pad> (0) to the end of the row
    lengths: torch.Tensor  # int64 [B]: the tokens of each row before its padding, at least 1
    mask: torch.Tensor  # bool [B, T]: True on a token, False on padding


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
        """A run's vocab.json, checked as the app reads it: a RunError names the file and what is wrong."""
        j = read_json(path)
        if not isinstance(j, dict):
            raise RunError(path, 'expected a JSON object with "level" and "tokens"')
        format_version(j, path)  # every version so far holds level, tokens and classes
        warn_unknown(j, VOCAB_KEYS, "", path)
        classes = j.get("classes", [])
        if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
            raise RunError(path, '"classes" is not an array of strings')
        level = j.get("level")
        if level not in ("char", "word"):
            found = f', found "{level}"' if isinstance(level, str) else ""
            raise RunError(path, f'level: expected "char" or "word"{found}')
        tokens = j.get("tokens")
        if not isinstance(tokens, list):
            raise RunError(path, "tokens: expected an array of strings")
        if len(tokens) < len(SPECIALS):
            raise RunError(path, f"tokens: expected at least the {len(SPECIALS)} special tokens")
        seen = set()
        for k, t in enumerate(tokens):
            if not isinstance(t, str):
                raise RunError(path, f"tokens[{k}]: expected a string, found {json_type(t)}")
            if k < len(SPECIALS) and t != SPECIALS[k]:
                raise RunError(path, f'tokens[{k}]: expected "{SPECIALS[k]}", found "{t}"')
            if t in seen:
                raise RunError(path, f'tokens[{k}]: duplicate token "{t}"')
            seen.add(t)
        return cls(tokens, level, classes)

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

    def encode_batch(self, texts, max_len=None):
        """Texts as one batch padded at the end with <pad> (0), as the app batches a classifier's texts: an
        EncodedBatch of torch tensors (ids [B, T], lengths [B], mask [B, T]). Each text is cut to max_len
        tokens and every row is max_len wide (the app's seq_len); without max_len, T is the longest text.
        An empty text is one <unk>, as the app trains and classifies it, so no row has length 0."""
        if isinstance(texts, str):
            raise TypeError("texts: expected a list of texts, found one str (wrap it: [text])")
        if max_len is not None:
            try:
                max_len = operator.index(max_len)
            except TypeError:
                max_len = 0
            if max_len < 1:
                raise ValueError("max_len: expected an integer of at least 1, or None")
        rows = [self.encode(t)[:max_len] or [UNK] for t in texts]
        width = max_len if max_len is not None else max((len(r) for r in rows), default=0)
        ids = torch.full((len(rows), width), PAD, dtype=torch.long)
        for b, r in enumerate(rows):
            ids[b, :len(r)] = torch.tensor(r, dtype=torch.long)
        lengths = torch.tensor([len(r) for r in rows], dtype=torch.long)
        mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)
        return EncodedBatch(ids, lengths, mask)

    def decode(self, ids):
        """Characters concatenated or words joined by spaces. <pad>, <bos> and <eos> are skipped; an unknown
        token shows as <unk>, where the app's decode drops it, so that text gone through encode() shows
        what the vocabulary lacks ("a slow <unk> film", not "a slow film")."""
        out = ""
        for i in ids:
            i = int(i)
            if 0 <= i < len(SPECIALS) and i != UNK:
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
