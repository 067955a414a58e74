"""load_run(): a run folder of the app or CLI as a PyTorch model, its vocabulary, metrics and validation."""

import contextlib
import csv
import math
import os
from typing import NamedTuple

import torch
import torch.nn.functional as F
from safetensors import safe_open
from safetensors.torch import load_file

from . import rules
from .errors import RunError, check_file, json_type, read_json
from .formats import check_config, format_version
from .model import model_from_config
from .vocab import Vocabulary

try:
    from safetensors import SafetensorError
except ImportError:  # a safetensors older than its exported error type
    SafetensorError = Exception

_CHECKPOINTS = {"last": "model.safetensors", "best": "best-model.safetensors"}
# The config.json fields this package reads, by section, checked as the app checks them (their types, ranges
# and labels are the app's, from rules.json), so that a config the app refuses is refused here in the same
# words.
_READ = {"model": ("embedding", "hidden", "layers", "dropout", "bidirectional", "pooling"), "data": ("seq_len",),
         "train": ("batch_size",)}
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
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for k, row in enumerate(csv.DictReader(f), start=2):
                try:
                    for c in _INTEGER_COLUMNS:
                        row[c] = int(row[c])
                    # float() reads the "nan" and "inf" a diverged run records, as the app does.
                    for c in _NUMBER_COLUMNS:
                        row[c] = float(row[c])
                except (TypeError, ValueError) as e:
                    # A short row has None where its last columns should be: name the first one missing.
                    missing = [c for c in _INTEGER_COLUMNS + _NUMBER_COLUMNS if row.get(c) is None]
                    raise RunError(path, f"column {missing[0]} missing" if missing else str(e), line=k) from e
                rows.append(row)
    except UnicodeDecodeError as e:
        raise RunError(path, f"invalid UTF-8 at byte {e.start}") from e
    except (OSError, csv.Error) as e:
        raise RunError(path, f"cannot read: {getattr(e, 'strerror', None) or e}") from e
    return rows


def _section(config, name, file, defaults=None):
    """One section of config.json (model, data, train) with `defaults` for the fields it lacks (a null is
    lacking, as in the app), each field this package reads checked as the app checks it: a RunError names
    config.json and the field."""
    section = config.get(name)
    if section is None:
        section = {}
    if not isinstance(section, dict):
        raise RunError(file, f"{name}: expected an object")
    values = {**(defaults or {}), **{k: v for k, v in section.items() if v is not None}}
    for key in _READ[name]:
        if key not in values:
            continue
        v = values[key]
        where = f"{name}.{key}"
        field = rules.field(name, key)
        kind, least, most, label = field["type"], field["min"], field["max"], field["label"]
        if kind == "integer":
            # 64.0 written by another tool is 64, as the app reads it.
            if isinstance(v, float) and v.is_integer():
                v = values[key] = int(v)
            if isinstance(v, bool) or not isinstance(v, int):
                raise RunError(file, f"{where}: expected an integer")
            if not least <= v <= most:
                raise RunError(file, f"{label} must be " + (f"at least {least}" if v < least else f"at most {most}")
                               + f" (is {v})")
        elif kind == "number":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise RunError(file, f"{where}: expected a number")
            low_ok = v > least if field["min_open"] else v >= least
            high_ok = v < most if field["max_open"] else v <= most
            if not (low_ok and high_ok):
                raise RunError(file, f"{label} must be in {'(' if field['min_open'] else '['}{least:g}, {most:g}"
                               f"{')' if field['max_open'] else ']'} (is {v:g})")
        elif kind == "boolean" and not isinstance(v, bool):
            raise RunError(file, f"{where}: expected true or false")
        elif kind in ("choice", "text") and not isinstance(v, str):
            raise RunError(file, f"{where}: expected a string")
        elif kind == "choice" and v not in field["choices"]:
            choices = field["choices"]
            raise RunError(file, f"{where}: unknown {label} '{v}' (expected {', '.join(choices[:-1])} or {choices[-1]})")
    return values


@contextlib.contextmanager
def evaluating(module):
    """The module in eval mode (dropout off, as the app generates, classifies and validates) for the
    block, then every submodule back in the mode the caller left it in: generate() between training steps
    neither changes the texts nor ends the training mode."""
    modes = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        yield module
    finally:
        for m, training in modes:
            m.training = training


class Run:
    """A trained run: .model (torch.nn.Module, eval mode), .config, .vocab, .classes, .info, .metrics."""

    def __init__(self, path, checkpoint="last", device="cpu"):
        if checkpoint not in _CHECKPOINTS:
            raise ValueError(f"checkpoint: expected 'last' or 'best', found {checkpoint!r}")
        if not os.path.isdir(path):
            raise RunError(path, "not a run folder (no such folder)")
        self.path = os.fspath(path)
        self.checkpoint = checkpoint
        self.device = torch.device(device)
        config_file = os.path.join(self.path, "config.json")
        self.config = read_json(config_file, expect="an experiment config")
        check_config(self.config, config_file)
        self.config["model"] = _section(self.config, "model", config_file, rules.MODEL_DEFAULTS)
        self.config["data"] = _section(self.config, "data", config_file)
        self.config["train"] = _section(self.config, "train", config_file)
        if self.config.get("task") is None:
            self.config["task"] = "lm"
        self.task = self.config["task"]
        if self.task not in ("lm", "classify"):
            found = f"'{self.task}'" if isinstance(self.task, str) else json_type(self.task)
            raise RunError(config_file, f"task: unknown task {found} (expected lm or classify)")
        # run.json is optional here (a run being written has none yet); one that is there must be readable.
        run_json = os.path.join(self.path, "run.json")
        self.info = read_json(run_json, expect="a run record") if os.path.exists(run_json) else {}
        format_version(self.info, run_json)
        vocab_file = os.path.join(self.path, "vocab.json")
        self.vocab = Vocabulary.load(vocab_file)
        self.metrics = read_metrics(os.path.join(self.path, "metrics.csv"))
        if self.task == "classify" and len(self.classes) < 2:
            raise RunError(vocab_file, "a classifier run needs at least two classes")
        outputs = len(self.classes) if self.task == "classify" else len(self.vocab)
        self.model = model_from_config(self.config, len(self.vocab), outputs)
        self.model.load_state_dict(self._weights(checkpoint), strict=True)
        self.model.to(self.device)
        # Dropout off, as the app's generation, classification and validation run.
        self.model.eval()

    def _weights(self, checkpoint):
        """The checkpoint's tensors in float32, checked against the model the config and vocabulary make,
        as the app checks them: a file that disagrees (a vocab.json of another size, a truncated file) is a
        RunError naming it, not torch's size mismatch."""
        file = os.path.join(self.path, _CHECKPOINTS[checkpoint])
        check_file(file, "missing: " + (
            "this run has no best checkpoint (never validated, or trained before best checkpoints were kept); "
            "use the last one" if checkpoint == "best" else "this run has no saved weights yet"))
        tensors = _read_safetensors(file)
        expected = self.model.state_dict()
        for name, target in expected.items():
            if name not in tensors:
                raise RunError(file, f"tensor '{name}' is missing")
            t = tensors[name]
            if not t.is_floating_point():
                raise RunError(file, f"tensor '{name}': expected a floating dtype, found {_dtype_name(t)}")
            if t.shape != target.shape:
                raise RunError(file, f"tensor '{name}': expected shape {list(target.shape)}, found "
                                     f"{list(t.shape)}")
        for name in tensors:
            if name not in expected:
                raise RunError(file, f"tensor '{name}' is not in the model that config.json describes")
        # float32 whatever the file holds: that is what the app computes in without autocast.
        return {k: v.float() for k, v in tensors.items()}

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
        app's autocast and are recomputed in fp32 here, so they agree only approximately. The model runs in
        eval mode and is left in the mode it was in, train() or eval()."""
        file = os.path.join(self.path, "validation.safetensors")
        check_file(file, "missing: the run was trained before the app kept its validation samples, or its "
                         "validation split is larger than 64 MiB as ids (a smaller validation size keeps it)")
        try:
            with safe_open(file, framework="pt") as f:
                meta = f.metadata() or {}
                data = {k: f.get_tensor(k) for k in f.keys()}
        except (SafetensorError, OSError, ValueError) as e:
            raise _not_safetensors(file, e) from e
        inputs, targets, lengths = self._validation_tensors(file, data)
        # The file says the batch size its validations used; a file without it had the app's rule.
        default_batch = max(self.config["train"].get("batch_size", rules.initial("train", "batch_size")),
                            rules.VALIDATION_BATCH_AT_LEAST)
        try:
            eval_batch = batch_size or int(meta.get("eval_batch") or default_batch)
        except (TypeError, ValueError) as e:
            raise RunError(file, f"metadata eval_batch: expected an integer, found '{meta.get('eval_batch')}'") from e
        n = inputs.size(0)
        world = int(self.info.get("world_size") or 1)
        total, correct, count = 0.0, 0, 0
        with torch.no_grad(), evaluating(self.model):
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

    def _validation_tensors(self, file, data):
        """inputs, targets and (a classifier's) lengths as int64, checked against the run: ids outside the
        vocabulary, labels outside the classes or rows of other counts are a RunError naming the file."""
        names = ("inputs", "targets", "lengths") if self.task == "classify" else ("inputs", "targets")
        for name in names:
            if name not in data:
                raise RunError(file, f"tensor '{name}' is missing")
            if data[name].is_floating_point() or data[name].dtype == torch.bool:
                raise RunError(file, f"tensor '{name}': expected integer ids, found {_dtype_name(data[name])}")
        inputs, targets = data["inputs"].long(), data["targets"].long()
        lengths = data["lengths"].long() if self.task == "classify" else None
        n = inputs.size(0)
        if inputs.dim() != 2 or targets.size(0) != n or (lengths is not None and lengths.shape != (n,)):
            raise RunError(file, f"tensors of other shapes than a validation split's: inputs {list(inputs.shape)}, "
                                 f"targets {list(targets.shape)}")
        if inputs.numel() and not 0 <= int(inputs.min()) <= int(inputs.max()) < len(self.vocab):
            raise RunError(file, f"tensor 'inputs': ids outside the vocabulary of {len(self.vocab)} (vocab.json)")
        outputs = len(self.classes) if self.task == "classify" else len(self.vocab)
        if targets.numel() and not 0 <= int(targets.min()) <= int(targets.max()) < outputs:
            raise RunError(file, f"tensor 'targets': outside the model's {outputs} outputs")
        return inputs, targets, lengths

    def __repr__(self):
        m = self.config["model"]
        return (f"Run({self.path!r}, {self.task}, {m['layers']}x{m['hidden']}, {len(self.vocab)} tokens, "
                f"checkpoint={self.checkpoint!r})")


def _not_safetensors(file, error):
    # safetensors' own words (e.g. "incomplete metadata, file not fully covered"), with the file named.
    reason = str(error).replace("Error while deserializing header: ", "")
    return RunError(file, f"not a valid safetensors file: {reason}")


def _read_safetensors(file):
    try:
        return load_file(file)
    except (SafetensorError, OSError, ValueError) as e:
        raise _not_safetensors(file, e) from e


# The safetensors names of the dtypes a file may hold, as the app's messages give them.
_DTYPE_NAMES = {torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
                torch.bool: "BOOL"}


def _dtype_name(tensor):
    return _DTYPE_NAMES.get(tensor.dtype, str(tensor.dtype).replace("torch.", ""))


def load_run(path, checkpoint="last", device="cpu"):
    """Opens a run folder: checkpoint "last" (model.safetensors) or "best" (best-model.safetensors).
    Anything wrong with the folder or its files is a RunError that names the file and the reason."""
    return Run(path, checkpoint, device)
