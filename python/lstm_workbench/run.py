"""load_run(): a run folder of the app or CLI as a PyTorch model, its vocabulary, metrics and validation."""

import csv
import json
import math
import os
from typing import NamedTuple

import torch
import torch.nn.functional as F
from safetensors import safe_open
from safetensors.torch import load_file

from .model import model_from_config
from .vocab import Vocabulary

# The app's initial values (ConfigFields.cpp), for a config.json from before a field existed.
_MODEL_DEFAULTS = {"embedding": 64, "hidden": 128, "layers": 2, "bidirectional": False, "dropout": 0.0,
                   "pooling": "last"}
_CHECKPOINTS = {"last": "model.safetensors", "best": "best-model.safetensors"}
_INTEGER_COLUMNS = ("step", "samples")
_NUMBER_COLUMNS = ("epoch", "wall_s", "value")


class Validation(NamedTuple):
    loss: float
    accuracy: float
    count: int  # tokens (language model) or texts (classifier) scored


class MetricsTable(list):
    """metrics.csv as a list of rows (dicts of run_id, step, epoch, samples, wall_s, split, metric, value)
    with the numbers as int and float."""

    def series(self, split, metric):
        """The rows of one curve in order, e.g. series("val", "loss")."""
        return [r for r in self if r["split"] == split and r["metric"] == metric]

    def to_pandas(self):
        """A pandas DataFrame of the rows; pandas is needed only here."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas (pip install pandas); the rows are a list of dicts "
                              "without it") from e
        return pandas.DataFrame(list(self), columns=["run_id", "step", "epoch", "samples", "wall_s", "split",
                                                     "metric", "value"])


def read_metrics(path):
    rows = MetricsTable()
    if not os.path.exists(path):
        return rows
    with open(path, newline="", encoding="utf-8") as f:
        for k, row in enumerate(csv.DictReader(f), start=2):
            try:
                for c in _INTEGER_COLUMNS:
                    row[c] = int(row[c])
                # float() reads the "nan" and "inf" a diverged run records, as the app does.
                for c in _NUMBER_COLUMNS:
                    row[c] = float(row[c])
            except (TypeError, ValueError) as e:
                raise ValueError(f"{path}:{k}: {e}") from e
            rows.append(row)
    return rows


class Run:
    """A trained run: .model (torch.nn.Module, eval mode), .config, .vocab, .classes, .info, .metrics."""

    def __init__(self, path, checkpoint="last", device="cpu"):
        if checkpoint not in _CHECKPOINTS:
            raise ValueError(f"checkpoint: expected 'last' or 'best', found {checkpoint!r}")
        if not os.path.isdir(path):
            raise FileNotFoundError(f"{path}: not a run folder (no such folder)")
        self.path = os.fspath(path)
        self.checkpoint = checkpoint
        self.device = torch.device(device)
        with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
            self.config = json.load(f)
        self.config["model"] = {**_MODEL_DEFAULTS, **self.config.get("model", {})}
        self.config.setdefault("task", "lm")
        run_json = os.path.join(path, "run.json")
        self.info = {}
        if os.path.exists(run_json):
            with open(run_json, encoding="utf-8") as f:
                self.info = json.load(f)
        self.vocab = Vocabulary.load(os.path.join(path, "vocab.json"))
        self.metrics = read_metrics(os.path.join(path, "metrics.csv"))
        self.task = self.config["task"]
        if self.task == "classify" and len(self.classes) < 2:
            raise ValueError(f"{path}/vocab.json: a classifier run needs at least two classes")
        outputs = len(self.classes) if self.task == "classify" else len(self.vocab)
        self.model = model_from_config(self.config, len(self.vocab), outputs)
        self.model.load_state_dict(self._weights(checkpoint), strict=True)
        self.model.to(self.device)
        # Dropout off, as the app's generation, classification and validation run.
        self.model.eval()

    def _weights(self, checkpoint):
        file = os.path.join(self.path, _CHECKPOINTS[checkpoint])
        if not os.path.exists(file):
            raise FileNotFoundError(
                f"{file}: missing: " + ("this run has no best checkpoint (never validated); use the last one"
                                        if checkpoint == "best" else "this run has no saved weights yet"))
        # float32 whatever the file holds: that is what the app computes in without autocast.
        return {k: v.float() for k, v in load_file(file).items()}

    @property
    def classes(self):
        return self.vocab.classes

    def metrics_frame(self):
        """metrics.csv as a pandas DataFrame (needs pandas; .metrics needs nothing)."""
        return self.metrics.to_pandas()

    def validate(self, batch_size=None):
        """The validation loss and accuracy recomputed from validation.safetensors as the app's validation
        computes them: batches in order, each batch's mean cross-entropy in float32 weighted by its tokens
        (language model) or texts (classifier), summed in float64. Equal to run.json's final_val_loss for the
        last checkpoint of an fp32 run (best_val_loss for the best); bf16/fp16 runs were scored under the
        app's autocast and are recomputed in fp32 here, so they agree only approximately."""
        file = os.path.join(self.path, "validation.safetensors")
        if not os.path.exists(file):
            raise FileNotFoundError(
                f"{file}: missing: the run was trained before the app kept its validation samples, or its "
                "validation split is larger than 64 MiB as ids (a smaller validation size keeps it)")
        with safe_open(file, framework="pt") as f:
            meta = f.metadata() or {}
            data = {k: f.get_tensor(k) for k in f.keys()}
        # The file says the batch size its validations used; a file without it had the app's rule.
        default_batch = max(self.config.get("train", {}).get("batch_size", 32), 64)
        eval_batch = batch_size or int(meta.get("eval_batch") or default_batch)
        inputs, targets = data["inputs"].long(), data["targets"].long()
        lengths = data["lengths"].long() if "lengths" in data else None
        n = inputs.size(0)
        world = int(self.info.get("world_size") or 1)
        total, correct, count = 0.0, 0, 0
        with torch.no_grad():
            # A data-parallel run validated each process's contiguous shard in its own batches.
            for rank in range(world):
                first, last = n * rank // world, n * (rank + 1) // world
                for b in range(first, last, eval_batch):
                    e = min(b + eval_batch, last)
                    x, y = inputs[b:e].to(self.device), targets[b:e].to(self.device)
                    if self.task == "lm":
                        logits = self.model(x).reshape(-1, len(self.vocab))
                        y = y.reshape(-1)
                    else:
                        logits = self.model(x, lengths[b:e].to(self.device))
                    loss = F.cross_entropy(logits.float(), y)
                    total += float(loss.double()) * y.numel()
                    correct += int((logits.argmax(1) == y).sum())
                    count += y.numel()
        if count == 0:
            return Validation(math.nan, math.nan, 0)
        return Validation(total / count, correct / count, count)

    def __repr__(self):
        m = self.config["model"]
        return (f"Run({self.path!r}, {self.task}, {m['layers']}x{m['hidden']}, {len(self.vocab)} tokens, "
                f"checkpoint={self.checkpoint!r})")


def load_run(path, checkpoint="last", device="cpu"):
    """Opens a run folder: checkpoint "last" (model.safetensors) or "best" (best-model.safetensors)."""
    return Run(path, checkpoint, device)
