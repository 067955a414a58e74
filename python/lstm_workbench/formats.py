"""Format versions of a run folder's files, as the app reads them (workbench/domain/FormatVersion.h).

config.json, run.json and vocab.json say "format_version": "MAJOR.MINOR" and "written_by". A file of a newer
major version is refused (RunError naming both versions): it may mean something this package would compute
otherwise. A file without a version is format 1.0, written before versions existed: its missing fields take
the app's initial values. From format 2.0 on, every field that changes what the model computes is written,
and a config.json without one is refused. Fields this package does not know are named in a
RunFormatWarning and ignored."""

import json
import warnings

from . import rules
from .errors import RunError

# What the app writes now and the newest major version read here; the fields that change what a trained
# model computes from a text; every key of a config.json the app writes, by section ("" the top level). All
# three from the app's rules (rules.py); a test checks the keys against the config.json of runs the CLI
# trains.
FORMAT_VERSION = rules.FORMAT_VERSION
MODEL_SHAPING_FIELDS = rules.MODEL_SHAPING_FIELDS
CONFIG_KEYS = rules.CONFIG_KEYS
VOCAB_KEYS = ("level", "tokens", "classes")
_VERSION_KEYS = ("format_version", "written_by")


class RunFormatWarning(UserWarning):
    """A field of a run file that this package does not know (a newer minor format, or an edit by hand)."""


def _text(version):
    return f"{version[0]}.{version[1]}"


def format_version(obj, path):
    """The (major, minor) format of a run file's parsed JSON object: (1, 0) when it says none. RunError when
    the version is malformed or its major is newer than FORMAT_VERSION's, naming both and who wrote it."""
    value = obj.get("format_version") if isinstance(obj, dict) else None
    if value is None:
        return (1, 0)
    major, dot, minor = value.partition(".") if isinstance(value, str) else ("", "", "")
    if not (dot and major.isdigit() and minor.isdigit() and major.isascii() and minor.isascii()
            and len(value) <= 16):
        raise RunError(path, f'format_version: expected "MAJOR.MINOR" (such as "{_text(FORMAT_VERSION)}"), '
                             f"found {json.dumps(value)}")
    version = (int(major), int(minor))
    if version[0] > FORMAT_VERSION[0]:
        by = obj.get("written_by")
        by = by if isinstance(by, str) else "a newer program"
        from . import __version__  # here: the package imports this module before it sets its version
        raise RunError(path, f"written in format {_text(version)} by {by}; this program (lstm_workbench "
                             f"{__version__}) reads formats up to {FORMAT_VERSION[0]}.x: open it with a newer "
                             "lstm_workbench")
    return version


def warn_unknown(obj, known, where, path):
    """A RunFormatWarning for each key of obj outside `known` (at the top level, the version keys are known)."""
    if not isinstance(obj, dict):
        return
    for key in obj:
        if (not where and key in _VERSION_KEYS) or key in known:
            continue
        name = f"{where}.{key}" if where else key
        warnings.warn(RunFormatWarning(f"{path}: unknown field '{name}' (ignored: this program does not know "
                                       "what it means)"), stacklevel=3)


def check_config(config, path):
    """config.json's version, its unknown fields warned about, and from format 2 on its model-shaping fields
    required (RunError naming the field)."""
    version = format_version(config, path)
    for section, keys in CONFIG_KEYS.items():
        warn_unknown(config if not section else config.get(section), keys, section, path)
    if version[0] >= 2:
        for field in MODEL_SHAPING_FIELDS:
            section, _, key = field.rpartition(".")
            holder = config.get(section) if section else config
            if not isinstance(holder, dict) or holder.get(key) is None:
                raise RunError(path, f"{field}: missing; format {_text(version)} holds every field that changes "
                                     "what the model computes, and this one does (add it, or remove "
                                     "format_version to read the file as format 1.0, whose missing fields take "
                                     "their initial values)")
    return version
