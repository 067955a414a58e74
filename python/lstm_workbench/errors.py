"""RunError, the one exception for a run folder that cannot be read, and the readers of a run's files that
raise it with the file named, as lstm-workbench-cli words its errors (workbench/domain/Errors.h)."""

import json
import os

# lstm-workbench-cli's exit codes (app/cli/Commands.h): 1 a runtime failure, 2 bad usage or bad input. Every
# RunError is bad input: the CLI exits 2 on the same folder.
EXIT_RUNTIME_FAILURE = 1
EXIT_BAD_INPUT = 2


class RunError(ValueError):
    """A run folder, or one of its files, that cannot be read: missing, truncated, not valid JSON or
    safetensors, or disagreeing with the rest of the run (a vocabulary of another size than the weights).

    str(error) is one line, "FILE: reason" or "FILE:LINE: reason", as the CLI prints after
    "lstm-workbench-cli: error: ". .path is the file or folder, .line its line (0: not applicable),
    .reason the message without them, and .exit_code the CLI's exit code for the same input (2, bad input).
    A ValueError, as json's and the other parse errors are: bad arguments (a length out of range) raise a
    plain ValueError, so `except ValueError` catches both and `except RunError` only the folder's faults."""

    def __init__(self, path, reason, line=0, exit_code=EXIT_BAD_INPUT):
        self.path = None if path is None else os.fspath(path)
        self.line = int(line)
        # One line, as the CLI's: a reason quoted from another library may span several.
        self.reason = " ".join(str(reason).split("\n")).strip()
        self.exit_code = exit_code
        where = "" if self.path is None else (f"{self.path}:{self.line}: " if self.line else f"{self.path}: ")
        super().__init__(where + self.reason)

    def __reduce__(self):
        # ValueError's pickling passes only the message; this rebuilds the fields (multiprocessing, pickle).
        return type(self), (self.path, self.reason, self.line, self.exit_code)


def check_file(path, missing="no such file"):
    """A RunError unless path is a regular file; `missing` says why its absence matters."""
    if not os.path.exists(path):
        raise RunError(path, missing)
    if not os.path.isfile(path):
        raise RunError(path, "not a regular file")


def json_type(value):
    # nlohmann's names, as the CLI's messages give them (detail::jsonTypeName).
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"), (int, "an integer")):
        if isinstance(value, kind):
            return name
    return "a number"


def read_json(path, expect=None):
    """The parsed JSON of a run file, with RunError naming the file (and the line of a syntax error). With
    `expect` (what the object is, e.g. "an experiment config"), anything but a JSON object is refused."""
    check_file(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RunError(path, f"cannot read: {e.strerror or e}") from e
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RunError(path, f"invalid JSON: invalid UTF-8 at byte {e.start}") from e
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise RunError(path, f"invalid JSON: {e.msg} (column {e.colno})", line=e.lineno) from e
    except RecursionError as e:
        raise RunError(path, "invalid JSON: nested too deeply") from e
    if expect is not None and not isinstance(value, dict):
        raise RunError(path, f"expected a JSON object ({expect}), found {json_type(value)}")
    return value
