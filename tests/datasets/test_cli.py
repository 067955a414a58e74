"""The command line (workbench_corpora.cli): exit codes, one-line errors, --list, --json, --progress."""

import contextlib
import io
import json
import os
import unittest
from pathlib import Path
from unittest import mock

# prepare_fixtures first: importing it puts datasets/ on sys.path for workbench_corpora.
from prepare_fixtures import Fixture, poetry_tgz
from workbench_corpora.catalog import CORPORA
from workbench_corpora.cli import EXIT_FAILED, EXIT_USAGE, main
from workbench_corpora.manifest import default_cache_dir, is_prepared


class CommandLineTest(Fixture):
    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exit:
                code = exit.code
        return code, out.getvalue(), err.getvalue()

    def test_unknown_corpus_is_usage_error(self):
        code, _, err = self.run_main("tang-quatrains-9", "--dest", str(self.dest))
        self.assertEqual(code, EXIT_USAGE)
        self.assertIn("unknown corpus 'tang-quatrains-9'", err)

    def test_list_and_verify(self):
        poetry_tgz(self.source)
        code, out, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--offline-source",
                                       str(self.source), "--chinese", "traditional")
        self.assertEqual(code, 0, err)
        code, out, _ = self.run_main("--list", "--dest", str(self.dest))
        self.assertEqual(code, 0)
        self.assertRegex(out, r"tang-quatrains-7 .* prepared: 2 documents")
        self.assertRegex(out, r"tang-quatrains-5 .* not prepared")
        code, out, _ = self.run_main("--verify", "tang-quatrains-7", "--dest", str(self.dest))
        self.assertEqual(code, 0)
        self.assertIn("tang-quatrains-7: OK (sha256:", out)
        code, _, err = self.run_main("--verify", "tang-poems", "--dest", str(self.dest))
        self.assertEqual(code, EXIT_FAILED)
        self.assertIn("not prepared", err)

    def test_list_json_and_progress(self):
        code, out, _ = self.run_main("--list", "--json", "--dest", str(self.dest))
        self.assertEqual(code, 0)
        listing = json.loads(out)
        self.assertEqual(listing["cache"], str(self.dest))
        self.assertEqual([c["name"] for c in listing["corpora"]], list(CORPORA))
        self.assertFalse(any(c["prepared"] for c in listing["corpora"]))
        poetry_tgz(self.source)
        code, out, err = self.run_main("tang-quatrains-7", "--progress", "--dest", str(self.dest),
                                       "--offline-source", str(self.source), "--chinese", "traditional")
        self.assertEqual(code, 0, err)
        events = [json.loads(line) for line in out.splitlines()]  # every stdout line is one JSON object
        stages = [e["stage"] for e in events if "stage" in e]
        self.assertEqual(stages[0], "preparing tang-quatrains-7")
        reading = [e for e in events if e.get("stage", "").startswith("reading chinese-poetry-")]
        self.assertTrue(reading)
        self.assertTrue(all(0 <= e["done"] <= e["total"] for e in reading))
        self.assertEqual(events[-1], {"prepared": "tang-quatrains-7", "path": str(self.dest / "tang-quatrains-7")})
        code, out, _ = self.run_main("--list", "--json", "--dest", str(self.dest))
        entry = json.loads(out)["corpora"][0]
        self.assertEqual((entry["name"], entry["prepared"], entry["documents"]), ("tang-quatrains-7", True, 2))

    def test_offline_source_from_the_environment(self):
        poetry_tgz(self.source)
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_OFFLINE_SOURCE": str(self.source)}):
            code, _, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--chinese", "traditional")
        self.assertEqual(code, 0, err)
        self.assertTrue(is_prepared(self.dest, "tang-quatrains-7"))

    def test_messages_name_the_command_that_ran_the_script(self):
        with mock.patch("workbench_corpora.cli.PROG", "lstm-workbench-cli prepare"):
            code, _, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--offline-source",
                                         str(self.source))
        self.assertEqual(code, EXIT_FAILED)
        self.assertTrue(err.startswith("lstm-workbench-cli prepare: error: "), err)

    def test_failure_is_exit_1_and_one_line(self):
        code, _, err = self.run_main("tang-quatrains-7", "--dest", str(self.dest), "--offline-source",
                                     str(self.source))
        self.assertEqual(code, EXIT_FAILED)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_cache_dir_rule_matches_the_catalog(self):
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_DATA": "/x/data", "XDG_CACHE_HOME": "/x/xdg"}):
            self.assertEqual(default_cache_dir(), Path("/x/data"))
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_DATA": "", "XDG_CACHE_HOME": "/x/xdg"}):
            self.assertEqual(default_cache_dir(), Path("/x/xdg/lstm-workbench/corpora"))
        with mock.patch.dict(os.environ, {"LSTM_WORKBENCH_DATA": "", "XDG_CACHE_HOME": "rel", "HOME": "/h"}):
            self.assertEqual(default_cache_dir(), Path("/h/.cache/lstm-workbench/corpora"))


if __name__ == "__main__":
    unittest.main()
