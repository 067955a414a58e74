"""RegistrySources (workbench_corpora.sources) against a stand-in npm on PATH."""

import contextlib
import io
import os
import stat
import sys
import textwrap
import unittest
from unittest import mock

# prepare_fixtures first: importing it puts datasets/ on sys.path for workbench_corpora.
from prepare_fixtures import ROOT, Fixture, looks_prepared, poetry_tgz
from workbench_corpora.cli import EXIT_UNREACHABLE, main
from workbench_corpora.common import PrepareError, sri_sha512
from workbench_corpora.sources import PINNED, RegistrySources


class FakeNpmTest(Fixture):
    """RegistrySources against a stand-in `npm` on PATH: downloads are verified, reused, and refetched when
    the cached copy is damaged; an unreachable registry is one clear line and exit code 3."""

    def setUp(self):
        super().setUp()
        self.fixture = poetry_tgz(self.tmp, version="9.9.9")
        self.calls = self.tmp / "npm-calls.log"
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        fake = bin_dir / "npm"
        fake.write_text(textwrap.dedent(f"""\
            #!{sys.executable}
            import json, os, shutil, sys
            from pathlib import Path
            sys.path.insert(0, {str(ROOT / 'datasets')!r})
            from workbench_corpora.common import sri_sha512
            args = [a for a in sys.argv[1:] if not a.startswith("--") or a in ("--pack-destination", "--json")]
            open({str(self.calls)!r}, "a").write(" ".join(args) + "\\n")
            if os.environ.get("FAKE_NPM_OFFLINE"):
                print("npm error code ENOTFOUND", file=sys.stderr)
                print("npm error network request to https://registry.npmjs.org/x failed", file=sys.stderr)
                sys.exit(1)
            fixture = Path({str(self.fixture)!r})
            if args[:1] == ["view"] and args[-1] == "version":
                print("9.9.9")
            elif args[:1] == ["view"]:
                print(sri_sha512(fixture))
            elif args[:1] == ["pack"]:
                dest = Path(args[args.index("--pack-destination") + 1])
                shutil.copy(fixture, dest / fixture.name)
                print(json.dumps([{{"filename": fixture.name, "integrity": sri_sha512(fixture)}}]))
            """))
        fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
        patcher = mock.patch.dict(os.environ, {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
        patcher.start()
        self.addCleanup(patcher.stop)

    def sources(self):
        return RegistrySources(self.dest / ".downloads", latest=True)

    def npm_calls(self):
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def test_fetch_then_reuse_then_refetch_when_corrupt(self):
        killed = self.dest / ".downloads" / ".fetch-chinese-poetry-9.9.9.tgz-killed"
        killed.mkdir(parents=True)
        (killed / "chinese-poetry-9.9.9.tgz").write_bytes(b"partial")
        package = self.sources().npm("chinese-poetry")
        self.assertFalse(killed.exists(), "a killed fetch's folder was left behind")
        self.assertEqual(package.version, "9.9.9")
        self.assertTrue(any(c.startswith("pack chinese-poetry@9.9.9") for c in self.npm_calls()))
        cached = self.dest / ".downloads" / "chinese-poetry-9.9.9.tgz"
        self.assertEqual(cached.read_bytes(), self.fixture.read_bytes())

        self.calls.unlink()
        self.sources().npm("chinese-poetry")
        self.assertFalse(any(c.startswith("pack") for c in self.npm_calls()), "a verified download was refetched")

        cached.write_bytes(cached.read_bytes()[:100])  # a partial download
        self.calls.unlink()
        self.sources().npm("chinese-poetry")
        self.assertTrue(any(c.startswith("pack") for c in self.npm_calls()))
        self.assertEqual(cached.read_bytes(), self.fixture.read_bytes())
        self.assertIn("does not match its recorded digest", self.stderr.getvalue())

    def test_prepare_through_the_registry(self):
        manifest = self.prepare("tang-quatrains-7", sources=self.sources())
        self.assertEqual(manifest["source_version"], "9.9.9")
        self.assertEqual(manifest["sources"][0]["digest"], sri_sha512(self.fixture))

    def test_pinned_integrity_mismatch_is_refused(self):
        with mock.patch.dict(PINNED, {"npm:chinese-poetry": {"version": "9.9.9",
                                                                      "integrity": "sha512-AAAA"}}):
            with self.assertRaisesRegex(PrepareError, "differs from the pinned"):
                RegistrySources(self.dest / ".downloads").npm("chinese-poetry")
        self.assertEqual(list((self.dest / ".downloads").glob("*.tgz")), [])

    def test_unreachable_registry_exits_3_with_one_line(self):
        with mock.patch.dict(os.environ, {"FAKE_NPM_OFFLINE": "1"}):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = main(["tang-quatrains-7", "--dest", str(self.dest), "--latest"])
        self.assertEqual(code, EXIT_UNREACHABLE)
        lines = err.getvalue().strip().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("registry unreachable", lines[0])
        self.assertEqual(looks_prepared(self.dest), [])


if __name__ == "__main__":
    unittest.main()
