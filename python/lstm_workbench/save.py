"""save_run(): a module fine-tuned in PyTorch written back as a new run folder that the app and the CLI open;
optimizer_state_dict() and optimizer_tensors(): a run's optimizer.safetensors in torch.optim's form and back.

The app keeps Adam's moments in optimizer.safetensors under its own names ("head.weight.exp_avg",
"head.weight.exp_avg_sq"), one step count for all of them in the file's metadata ("optimizer_steps"), beside
the progress a resume needs (ProgressState::toMetadata in core/domain/src/run/RunState.cpp)."""

import contextlib
import copy
import datetime
import json
import math
import os
import shutil
import socket
import tempfile
import time
import warnings

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from . import rules
from .errors import RunError, check_file
from .formats import FORMAT_VERSION, check_config
from .model import model_from_config
from .run import Run, _not_safetensors, SafetensorError

# The app's Adam (core/engine/src/train/Optimizer.cpp): fixed betas and eps; its weight decay is decoupled
# (AdamW's) and shrinks only the weight matrices, not the biases.
APP_BETAS = (0.9, 0.999)
APP_EPS = 1e-8
# The app's initial values (rules.json), for a config.json of format 1 that lacks them.
_INITIAL = {"learning_rate": rules.initial("train", "learning_rate"),
            "weight_decay": rules.initial("train", "weight_decay"), "optimizer": rules.initial("train", "optimizer"),
            "tokens": rules.initial("data", "tokens"), "seq_len": rules.initial("data", "seq_len")}
# ProgressState::toMetadata's keys, in the order it writes them.
_PROGRESS_KEYS = ("step", "optimizer_steps", "epoch_index", "batch_in_epoch", "samples", "wall_seconds",
                  "measured_seconds", "measured_samples", "last_train_loss", "best_val_loss", "best_val_accuracy",
                  "final_val_loss", "final_val_accuracy", "bad_validations", "open_loss_sum", "open_loss_count",
                  "validation_owed")
_METRICS_HEADER = "run_id,step,epoch,samples,wall_s,split,metric,value\n"


def _written_by():
    from . import __version__  # here: the package imports this module before it sets its version
    return f"lstm_workbench {__version__}"


def _stamp(obj):
    obj["format_version"] = f"{FORMAT_VERSION[0]}.{FORMAT_VERSION[1]}"
    obj["written_by"] = _written_by()
    return obj


def _read_optimizer_file(run):
    file = os.path.join(run.path, "optimizer.safetensors")
    check_file(file, "missing: this run has no optimizer state (the app writes it with every checkpoint)")
    try:
        with safe_open(file, framework="pt") as f:
            return file, dict(f.metadata() or {}), {k: f.get_tensor(k) for k in f.keys()}
    except (SafetensorError, OSError, ValueError) as e:
        raise _not_safetensors(file, e) from e


def _metadata_integer(meta, key, file):
    value = meta.get(key)
    if value is None:
        raise RunError(file, f"checkpoint metadata lacks '{key}'")
    if not (isinstance(value, str) and value.isascii() and value.isdigit()):
        raise RunError(file, f"checkpoint metadata '{key}' is not a non-negative integer")
    return int(value)


def optimizer_state_dict(run):
    """The run's optimizer.safetensors (Adam's moments under the app's names) as torch.optim's state_dict,
    which torch.optim.Adam(run.model.parameters()) or AdamW(...) loads with load_state_dict: parameter i is
    the i-th of run.model.parameters(), each with "step" (the app's optimizer_steps), "exp_avg" and
    "exp_avg_sq"; one param group with the app's betas and eps and config.json's learning_rate (the
    schedule's peak, not the scheduled rate at the checkpoint) and weight_decay, decoupled as the app's is.
    The app decays only weight matrices; a torch group decays each of its parameters. A run trained with
    SGD or RMSprop is a RunError: only Adam's state is translated."""
    file, meta, tensors = _read_optimizer_file(run)
    kind = meta.get("optimizer", run.config["train"].get("optimizer", "adam"))
    if kind != "adam":
        raise RunError(file, f"optimizer '{kind}': only Adam's state has a torch.optim form here")
    steps = _metadata_integer(meta, "optimizer_steps", file)
    state = {}
    params = list(run.model.named_parameters())
    for i, (name, p) in enumerate(params):
        entry = {"step": torch.tensor(float(steps), dtype=torch.float32)}
        for key in ("exp_avg", "exp_avg_sq"):
            t = tensors.get(f"{name}.{key}")
            if t is None:
                raise RunError(file, f"tensor '{name}.{key}' is missing")
            if not t.is_floating_point():
                raise RunError(file, f"tensor '{name}.{key}': expected a floating dtype")
            if t.shape != p.shape:
                raise RunError(file, f"tensor '{name}.{key}': expected shape {list(p.shape)}, found {list(t.shape)}")
            entry[key] = t.to(device=p.device, dtype=p.dtype)
        state[i] = entry
    train = run.config["train"]
    group = {"lr": float(train.get("learning_rate", _INITIAL["learning_rate"])), "betas": APP_BETAS,
             "eps": APP_EPS, "weight_decay": float(train.get("weight_decay", _INITIAL["weight_decay"])),
             "decoupled_weight_decay": True, "amsgrad": False, "maximize": False, "foreach": None,
             "capturable": False, "differentiable": False, "fused": None, "params": list(range(len(params)))}
    return {"state": state, "param_groups": [group]}


def optimizer_tensors(module, optimizer):
    """The reverse of optimizer_state_dict: a torch.optim.Adam or AdamW over `module`'s parameters as the
    app's optimizer.safetensors holds it, ({"NAME.exp_avg": tensor, "NAME.exp_avg_sq": tensor, ...}, steps):
    float32 on the CPU, zeros for a parameter the optimizer has not stepped. ValueError for another optimizer,
    amsgrad or maximize (the app's Adam has neither), a parameter that is not the module's, or parameters at
    different step counts (the app keeps one for all)."""
    if not isinstance(optimizer, (torch.optim.Adam, torch.optim.AdamW)):
        raise ValueError(f"optimizer: expected torch.optim.Adam or AdamW, found {type(optimizer).__name__} "
                         "(the app's optimizer.safetensors holds Adam's moments)")
    named = list(module.named_parameters())
    mine = {id(p) for _, p in named}
    for group in optimizer.param_groups:
        for flag in ("amsgrad", "maximize"):
            if group.get(flag):
                raise ValueError(f"optimizer: {flag}=True has no counterpart in the app's Adam")
        if any(id(p) not in mine for p in group["params"]):
            raise ValueError("optimizer: it holds a parameter that is not the module's")
    out, steps = {}, set()
    for name, p in named:
        st = optimizer.state.get(p) or {}
        if "exp_avg" in st:
            steps.add(int(round(float(st["step"]))))
        for key in ("exp_avg", "exp_avg_sq"):
            t = st.get(key)
            t = torch.zeros(p.shape, dtype=torch.float32) if t is None else t.detach().to("cpu", torch.float32)
            out[f"{name}.{key}"] = t.contiguous()
    if len(steps) > 1:
        raise ValueError(f"optimizer: its parameters were stepped {sorted(steps)} times; the app keeps one step "
                         "count for all")
    return out, (steps.pop() if steps else 0)


def _weights(module, like):
    """The module's state_dict as the app writes it: float32, contiguous, on the CPU, the names and shapes of
    the model like's config and vocabulary make. ValueError naming a tensor that differs or is not finite."""
    outputs = len(like.classes) if like.task == "classify" else len(like.vocab)
    with torch.device("meta"):
        expected = model_from_config(like.config, len(like.vocab), outputs).state_dict()
    state = module.state_dict()
    if set(state) != set(expected):
        extra, missing = sorted(set(state) - set(expected)), sorted(set(expected) - set(state))
        raise ValueError(f"module: not the model of {like.path} (tensors missing: {missing}, not in it: {extra})")
    out = {}
    for name, target in expected.items():
        t = state[name].detach()
        if t.shape != target.shape:
            raise ValueError(f"module: tensor '{name}': expected shape {list(target.shape)}, found {list(t.shape)}")
        t = t.to("cpu", torch.float32).contiguous()
        if not bool(torch.isfinite(t).all()):
            # The app keeps no checkpoint of NaN or infinite weights either.
            raise ValueError(f"module: tensor '{name}' holds NaN or infinite values")
        out[name] = t
    return out


def _config(like, name):
    config = copy.deepcopy(like.config)
    for key in ("format_version", "written_by"):
        config.pop(key, None)
    # A format 1 config may lack a field that format 2 requires: the values the run was read with.
    config["task"] = like.task
    data = config.setdefault("data", {})
    data.setdefault("tokens", like.vocab.level)
    data.setdefault("seq_len", _INITIAL["seq_len"])
    config["name"] = name if name is not None else f"{config.get('name') or os.path.basename(like.path)} (fine-tuned)"
    if not isinstance(config["name"], str):
        raise ValueError("name: expected a string")
    return _stamp(config)


def _checkpoint_step(like):
    """The app's step the source's checkpoint stands at (the one its optimizer state was saved with)."""
    checkpoint = "model.safetensors" if like.checkpoint == "last" else "best-model.safetensors"
    for file in ("optimizer.safetensors", checkpoint):
        path = os.path.join(like.path, file)
        if not os.path.isfile(path):
            continue
        try:
            with safe_open(path, framework="pt") as f:
                step = (f.metadata() or {}).get("step")
        except (SafetensorError, OSError, ValueError):
            continue
        if isinstance(step, str) and step.isascii() and step.isdigit():
            return int(step)
    steps = (like.info.get("summary") or {}).get("steps")
    return steps if isinstance(steps, int) and steps >= 0 else 0


def _progress(like, step, optimizer_steps, validation):
    """optimizer.safetensors' metadata (ProgressState::toMetadata): where in the app's training the new run
    stands, taken from the source's checkpoint, with the optimizer's step count and the new weights'
    validation."""
    meta = {}
    path = os.path.join(like.path, "optimizer.safetensors")
    if os.path.isfile(path):
        with contextlib.suppress(SafetensorError, OSError, ValueError), safe_open(path, framework="pt") as f:
            meta = dict(f.metadata() or {})
    progress = {"format": "lstm-workbench", "optimizer": "adam"}
    for key in _PROGRESS_KEYS:
        progress[key] = str(meta.get(key, "0"))
    progress["step"] = str(step)
    progress["optimizer_steps"] = str(optimizer_steps)
    loss, accuracy = (validation.loss, validation.accuracy) if validation else (0.0, 0.0)
    for kind in ("best", "final"):
        progress[f"{kind}_val_loss"] = repr(float(loss))
        progress[f"{kind}_val_accuracy"] = repr(float(accuracy))
    progress["bad_validations"] = "0"
    # Weights saved here end no train-loss window half-way and owe no validation (ProgressState).
    for key in ("open_loss_sum", "open_loss_count", "validation_owed"):
        progress[key] = "0"
    return progress


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _finite(v):
    return float(v) if v is not None and math.isfinite(v) else None


def _run_info(like, run_id, number, step, module, validation, validation_seconds, optimizer_steps, started):
    source = like.info or {}
    summary = source.get("summary") or {}
    device = next((p.device for p in module.parameters()), torch.device("cpu"))
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    loss = _finite(validation.loss) if validation else None
    accuracy = _finite(validation.accuracy) if validation else None
    info = {
        "id": run_id, "number": number, "status": "completed", "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU",
        "threads": torch.get_num_threads(), "precision": "fp32", "precision_choice": "",
        # The torch that fine-tuned it, in the field that names the app's LibTorch.
        "libtorch_version": torch.__version__, "blas": "", "blas_threads": 0,
        "host": socket.gethostname(), "load_average": load, "host_cpus": os.cpu_count() or 0,
        "started_at": started, "ended_at": _now(),
        "timing_method": "not timed: fine-tuned in PyTorch and written by lstm_workbench.save_run",
        "error": "", "warnings": [], "world_size": 1, "backend": "", "hosts": [], "slurm_job": "",
        "gradient_bytes_per_step": 0,
        "peak_gpu_memory_bytes": 0, "cuda_graph": "", "tf32": False,
        # The corpus the vocabulary was made from: the source's.
        "token_store": source.get("token_store") or {"path": "", "reused": False, "seconds": 0.0,
                                                     "corpus_bytes": 0, "corpus_checksum": ""},
        "summary": {
            # The app's step counter stands where the source's checkpoint left it; the PyTorch steps are
            # fine_tuned_from.optimizer_steps' difference, and were not timed by the app.
            "steps": step, "epochs": summary.get("epochs"), "samples": summary.get("samples") or 0,
            "train_seconds": 0.0, "samples_per_second": 0.0, "us_per_sample": 0.0, "tokens_per_second": 0.0,
            "final_train_loss": None, "best_val_loss": loss, "best_val_accuracy": accuracy,
            "final_val_loss": loss, "final_val_accuracy": accuracy, "startup_seconds": 0.0,
            "validation_seconds": validation_seconds,
            "parameters": sum(p.numel() for p in module.parameters())},
        "fine_tuned_from": {
            "path": os.path.abspath(like.path),
            "id": source.get("id") or os.path.basename(os.path.normpath(like.path)),
            "checkpoint": like.checkpoint, "step": step, "optimizer_steps": optimizer_steps,
            "val_loss": _finite(summary.get("final_val_loss" if like.checkpoint == "last" else "best_val_loss"))},
    }
    return _stamp(info)


def _json(obj, indent):
    # As the app's nlohmann::json writes it: keys sorted, UTF-8 as it is.
    return json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False)


def _write(path, data, mode="w"):
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _save_tensors(path, tensors, metadata):
    save_file(tensors, path, metadata=metadata)
    os.chmod(path, 0o644)  # safetensors creates it 0600; the app's files are 0644
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _next_number(parent):
    """One more than the highest "number" of the run folders beside it, as the app numbers a new run."""
    highest = 0
    for entry in os.scandir(parent):
        run_json = os.path.join(entry.path, "run.json")
        with contextlib.suppress(OSError, ValueError):
            with open(run_json, encoding="utf-8") as f:
                number = json.load(f).get("number")
            if isinstance(number, int) and not isinstance(number, bool):
                highest = max(highest, number)
    return highest + 1


@contextlib.contextmanager
def _numbering_lock(parent):
    # The app's lock for numbering the runs of one folder (runNumberLockPath, a flock).
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as no app shares the folder there
        yield
        return
    fd = os.open(os.path.join(parent, ".run-numbers.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def save_run(module, like, out, optimizer=None, name=None, validate=True):
    """Writes `module` (the SequenceModel of `like`, the Run it was loaded from, fine-tuned or not) as a new
    run folder `out` that the app, the CLI and load_run open, and returns it loaded (lw.Run).

    The folder holds model.safetensors and best-model.safetensors (the module's weights in float32 under
    the app's names), like's config.json (name: `name`, or like's with " (fine-tuned)", also the Runs list's
    name in annotations.json, with a note of where it came from) and vocab.json, a
    completed run.json whose "fine_tuned_from" names the source run's folder, id, checkpoint and step, a
    metrics.csv of the header alone (the app measured no step of the fine-tuning), and like's
    validation.safetensors. With validate (and a validation.safetensors in like) the module's validation
    loss and accuracy on the source's split go into run.json's summary as its final and best. With
    `optimizer` (the torch.optim.Adam or AdamW that fine-tuned it) an optimizer.safetensors in the app's
    names makes the run one `lstm-workbench-cli resume` continues, from the source checkpoint's step and
    place in the corpus, with these weights and moments.

    An `out` that exists and is not an empty folder is a RunError, and nothing is written. The run is
    written in a hidden folder beside `out` and renamed to it whole: a crash leaves no half run at `out`."""
    if not isinstance(like, Run):
        raise TypeError(f"like: expected the lstm_workbench.Run the module came from, found {type(like).__name__}")
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module: expected a torch.nn.Module, found {type(module).__name__}")
    out = os.path.abspath(os.fspath(out))
    if os.path.lexists(out) and not (os.path.isdir(out) and not os.listdir(out)):
        raise RunError(out, "the run folder already exists and is not empty (choose another)")
    started = _now()
    weights = _weights(module, like)
    config = _config(like, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # like's own fields; a missing model-shaping one is the error here
        check_config(config, os.path.join(out, "config.json"))
    moments, optimizer_steps = (None, None) if optimizer is None else optimizer_tensors(module, optimizer)
    if optimizer is not None and config["train"].get("optimizer", _INITIAL["optimizer"]) != "adam":
        raise ValueError(f"optimizer: config.json trains with {config['train']['optimizer']}, whose state is not "
                         "Adam's: the app could not resume from it")
    step = _checkpoint_step(like)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.tmp-", dir=parent)
    try:
        checkpoint = {"format": "lstm-workbench", "step": str(step), "task": like.task}
        _save_tensors(os.path.join(tmp, "model.safetensors"), weights, checkpoint)
        _write(os.path.join(tmp, "config.json"), _json(config, 2) + "\n")
        vocab = _stamp({"level": like.vocab.level, "tokens": list(like.vocab.tokens), "classes": list(like.classes)})
        _write(os.path.join(tmp, "vocab.json"), _json(vocab, 1))  # the app's indent for vocab.json
        _write(os.path.join(tmp, "metrics.csv"), _METRICS_HEADER)
        # The name and a note in the Runs list, as `lstm-workbench-cli train --name` leaves them.
        source_id = like.info.get("id") or os.path.basename(like.path)
        annotations = {"name": config.get("name", ""), "tags": [],
                       "notes": f"Fine-tuned in PyTorch (lstm_workbench.save_run) from run {source_id}, "
                                f"{like.checkpoint} checkpoint at step {step}."}
        _write(os.path.join(tmp, "annotations.json"), _json(annotations, 2) + "\n")
        validation, validation_seconds = None, 0.0
        source_validation = os.path.join(like.path, "validation.safetensors")
        if os.path.isfile(source_validation):
            shutil.copyfile(source_validation, os.path.join(tmp, "validation.safetensors"))
            if validate:
                t0 = time.perf_counter()
                validation = Run(tmp, device=next((p.device for p in module.parameters()), "cpu")).validate()
                validation_seconds = time.perf_counter() - t0
                if validation.count == 0:
                    validation = None
        best = dict(checkpoint)
        if validation is not None:
            best["val_loss"] = f"{validation.loss:.6f}"  # std::to_string's digits, as the app writes it
        _save_tensors(os.path.join(tmp, "best-model.safetensors"), weights, best)
        if moments is not None:
            _save_tensors(os.path.join(tmp, "optimizer.safetensors"), moments,
                          _progress(like, step, optimizer_steps, validation))
        with _numbering_lock(parent):
            run_id = os.path.basename(out)  # the app's run id is its folder's name
            info = _run_info(like, run_id, _next_number(parent), step, module, validation, validation_seconds,
                             optimizer_steps, started)
            _write(os.path.join(tmp, "run.json"), _json(info, 2) + "\n")
            os.chmod(tmp, 0o755)  # mkdtemp's 0700: a run folder is shared like any other
            try:
                os.replace(tmp, out)  # atomic; refused if `out` appeared meanwhile and is not empty
            except OSError as e:
                if os.path.isdir(out) and os.listdir(out):
                    raise RunError(out, "the run folder already exists and is not empty (choose another)") from e
                raise
        with contextlib.suppress(OSError):
            fd = os.open(parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Run(out, device=next((p.device for p in module.parameters()), "cpu"))
