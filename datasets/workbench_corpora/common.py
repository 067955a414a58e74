"""What every part of the preparer shares: its errors, logging and --progress lines, the locks and atomic
writes that keep the cache consistent, file digests, and running an outside tool (npm, apt, dpkg-deb)."""

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


# Words in a failing tool's output that put the blame on the network, not on the package (run_tool).
NETWORK_ERROR_HINTS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH",
                       "network", "Could not resolve", "Temporary failure resolving", "Failed to fetch",
                       "Unable to connect", "Connection failed", "timed out")


class PrepareError(Exception):
    """Bad download or bad package content: one line, naming the file and what was expected."""


class RegistryUnreachable(PrepareError):
    """The registry could not be reached; the caller exits with EXIT_UNREACHABLE."""


# --progress: one JSON object per line on stdout, for the app's progress bar (see report_progress). cli.main
# sets it; other modules read it as common.PROGRESS (a from-import would copy the value at import time).
PROGRESS = False


def log(message):
    print(message, file=sys.stderr, flush=True)


def report_progress(stage, done=None, total=None):
    """{"stage": "…", "done": n, "total": m} on stdout with --progress; done/total are null while the length
    of a stage is unknown (a download, opencc)."""
    if PROGRESS:
        print(json.dumps({"stage": stage, "done": done, "total": total}, ensure_ascii=False), flush=True)


@contextlib.contextmanager
def file_lock(path):
    """Serialises two runs that prepare the same corpus or fetch the same package."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another preparation holding {path} …")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path, data):
    """Temp file in the same folder, flushed and fsynced, then renamed over the target."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.tmp-")
    try:
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp makes it private; the cache is shared like ~/.cache
        with os.fdopen(fd, "wb") as handle:
            handle.write(data if isinstance(data, bytes) else data.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def sri_sha512(path):
    digest = hashlib.sha512()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_tool(argv, what, cwd=None, timeout=900):
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise PrepareError(f"{what}: '{argv[0]}' is not installed")
    except subprocess.TimeoutExpired:
        raise RegistryUnreachable(f"{what}: no answer after {timeout} s (is the registry reachable?)")
    if done.returncode != 0:
        # npm prints a stack trace and a log path around the one line that says what happened.
        output = done.stderr + "\n" + done.stdout
        lines = [re.sub(r"^npm (error|ERR!|warn)\s*", "", l.strip()) for l in output.splitlines()]
        lines = [l for l in lines if l and not re.match(r"(at |[{}]|A complete log|Unknown user config|code |"
                                                         r"syscall |errno |.*will stop working)", l)]
        telling = r"FetchError|Not Found|^E: |error:|failed|not found"
        preferred = [l for l in lines if re.search(telling, l, re.I)]
        detail = (preferred or lines or [f"exit code {done.returncode}"])[0]
        if any(hint.lower() in (done.stderr + done.stdout).lower() for hint in NETWORK_ERROR_HINTS):
            raise RegistryUnreachable(f"{what}: registry unreachable ({detail})")
        raise PrepareError(f"{what}: {detail}")
    return done.stdout
