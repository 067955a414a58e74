"""The rules this package shares with LSTM Workbench, read from rules.json: `lstm-workbench-cli rules` writes
that file from the C++ (workbench/domain/PackageRules.h), so a default, a range or a config key changed there
reaches this package without an edit to its code. Nothing here imports torch."""

import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules.json"), encoding="utf-8") as _f:
    RULES = json.load(_f)

# Each: section, key, type, initial, label, shapes_model, min, max (null: none), min_open, max_open, and a
# choice's choices.
FIELDS = RULES["config_fields"]


def initial(section, key):
    """A config field's initial value (what a config.json of format 1 that lacks it means)."""
    return field(section, key)["initial"]


# The model section's initial values, for a config.json of format 1 from before a field existed.
MODEL_DEFAULTS = {f["key"]: f["initial"] for f in FIELDS if f["section"] == "model" and f["key"] != "backend"}

# Every key of a config.json the app writes, by section ("" the top level, which also holds the sections).
CONFIG_KEYS = {"": tuple(f["key"] for f in FIELDS if f["section"] == "")
               + tuple(dict.fromkeys(f["section"] for f in FIELDS if f["section"]))}
for _f in FIELDS:
    if _f["section"]:
        CONFIG_KEYS[_f["section"]] = CONFIG_KEYS.get(_f["section"], ()) + (_f["key"],)

# The fields that change what a trained model computes from a text.
MODEL_SHAPING_FIELDS = tuple((f"{f['section']}." if f["section"] else "") + f["key"] for f in FIELDS
                             if f["shapes_model"])

# Validation batches: the training batch size, but never fewer rows than this.
VALIDATION_BATCH_AT_LEAST = RULES["validation_batch_at_least"]
SPECIALS = tuple(RULES["special_tokens"])
FORMAT_VERSION = tuple(RULES["format_version"])  # what the app writes now, and the newest major read here


def field(section, key):
    """A config field's row."""
    for f in FIELDS:
        if f["section"] == section and f["key"] == key:
            return f
    raise KeyError(f"{section}.{key}")
