"""generate() and classify() with a loaded run, step for step as the app's GenerationSession and
TrainedModel::classify, so that greedy text and class probabilities equal the CLI's."""

import math
from typing import List, NamedTuple, Tuple

import torch

from . import rules
from .errors import RunError
from .run import evaluating
from .vocab import BOS, EOS, PAD, UNK


class Classification(NamedTuple):
    label: str
    top: List[Tuple[str, float]]  # (label, probability), most probable first


def _check_options(length, temperature, top_k, top_p):
    if not 0 <= length <= 100000:
        raise ValueError("length must be between 0 and 100000")
    if not (temperature >= 0 and 0 < top_p <= 1 and top_k >= 0):
        raise ValueError("expected temperature >= 0, 0 < top-p <= 1 and top-k >= 0")


def _pick(logits, temperature, top_k, top_p, generator):
    """A token from fp32 logits [V]: never <pad>, <unk> or <bos>. Greedy takes the first of the highest
    (the app's min_element with >); sampling follows the app's top-k, top-p and inverse-CDF draw, with
    torch's generator instead of the app's mt19937_64."""
    masked = logits.clone()
    masked[[PAD, UNK, BOS]] = float("-inf")
    best = int(torch.argmax(masked))  # the first maximal index, as torch documents
    if temperature <= 0:
        return best
    ids = [i for i in range(logits.numel()) if i not in (PAD, UNK, BOS)]
    v = logits.tolist()
    if 0 < top_k < len(ids):
        ids = sorted(ids, key=lambda i: -v[i])[:top_k]
    elif top_p < 1.0:
        ids = sorted(ids, key=lambda i: -v[i])
    top = v[best]
    p = [math.exp((v[i] - top) / temperature) for i in ids]
    total = sum(p)
    if top_p < 1.0:
        cumulative, keep = 0.0, 0
        while keep < len(ids) and cumulative < top_p * total:
            cumulative += p[keep]
            keep += 1
        keep = max(keep, 1)
        ids, p, total = ids[:keep], p[:keep], cumulative
    u = float(torch.rand((), dtype=torch.float64, generator=generator)) * total
    for i, q in zip(ids, p):
        if u < q:
            return i
        u -= q
    return ids[-1]


class _Cursor:
    """The model's LSTM state after the tokens fed so far: each token is one single-step forward, the
    prefix is never run again (as the app generates)."""

    def __init__(self, model, device):
        self.model, self.device, self.state, self.logits = model, device, None, None

    def feed(self, token):
        x = torch.tensor([[token]], dtype=torch.long, device=self.device)
        logits, self.state = self.model.step(x, self.state)
        self.logits = logits[0, -1].float().cpu()


def generate(run, seed_text="", length=100, temperature=0.0, top_k=0, top_p=1.0, stop_at_end=False,
             seed=None, form="free"):
    """Free text from a language-model run: the seed text (part of the result), then `length` tokens.
    Where the model ends a document (<eos>) the text stops when stop_at_end is set, or else a blank line
    follows (two of the `length` tokens) and the model goes on with the next document.

    temperature 0 is greedy and equals `lstm-workbench-cli generate RUN --temperature 0 --full-precision`
    exactly; sampling draws with torch's generator (seeded by `seed`), so it cannot repeat the CLI's draws.
    The model runs in eval mode (no dropout) and is left in the mode it was in, train() or eval()."""
    if form != "free":
        raise NotImplementedError(f"form {form!r}: poem forms (quatrains, regulated verse) are only in the "
                                  "app and the CLI; this package generates free text")
    if run.task != "lm":
        raise RunError(run.path, "this run is a classifier: it classifies text, it does not generate")
    _check_options(length, temperature, top_k, top_p)
    vocab = run.vocab
    seed_ids = []
    for t in vocab.tokenize(seed_text):
        if t not in vocab:
            raise ValueError(f"'{t}' is not in the model's vocabulary (seed text)")
        seed_ids.append(vocab.id(t))
    generator = torch.Generator()
    if seed is None:
        generator.seed()
    else:
        generator.manual_seed(seed)

    text, produced = "", []
    with torch.no_grad(), evaluating(run.model):
        cursor = _Cursor(run.model, run.device)
        # Every sample starts as a new document would in training: after <eos>.
        cursor.feed(EOS)
        for i in seed_ids:
            produced.append(i)
            cursor.feed(i)
        k = 0
        while k < length:
            token = _pick(cursor.logits, temperature, top_k, top_p, generator)
            if token == EOS:
                # The blank line is two of the `length` tokens.
                if stop_at_end or k + 2 > length:
                    break
                cursor.feed(token)
                text += vocab.decode(produced) + "\n\n"
                produced = []
                k += 2
                continue
            produced.append(token)
            cursor.feed(token)
            k += 1
    return text + vocab.decode(produced)


def classify(run, text, top_k=5):
    """The predicted label and the top_k (label, probability) pairs, most probable first, as
    `lstm-workbench-cli classify RUN --text TEXT` gives them: the text cut to the run's seq_len tokens,
    unknown tokens as <unk>, an empty text as one <unk>. The model runs in eval mode and is left in the
    mode it was in."""
    if run.task != "classify":
        raise RunError(run.path, "this run is a language model: it generates text, it does not classify")
    tokens = run.vocab.tokenize(text)[: run.config["data"].get("seq_len", rules.initial("data", "seq_len"))]
    ids = [run.vocab.id(t) for t in tokens] or [UNK]
    with torch.no_grad(), evaluating(run.model):
        x = torch.tensor([ids], dtype=torch.long, device=run.device)
        logits = run.model(x, torch.tensor([len(ids)], dtype=torch.long))
        # Softmax in float32, then float64: the app's order of operations, for the same last digits.
        probs = torch.softmax(logits.float(), 1)[0].double().cpu().tolist()
    order = sorted(range(len(probs)), key=lambda c: -probs[c])
    k = min(top_k, len(probs)) if top_k > 0 else len(probs)
    return Classification(run.classes[order[0]], [(run.classes[c], probs[c]) for c in order[:k]])
