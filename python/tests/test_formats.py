"""Run folders of each format version (tests/fixtures/run-formats, workbench/domain/FormatVersion.h) opened by the
Python package and by the CLI alike: a folder without a version with format 1's defaults, format 2 as written,
a newer major version refused by both naming both versions, a format 2 config without a field that changes
the model refused by both, unknown fields of a newer minor version named in warnings by both; and no warning
for any config.json the CLI writes today (the package's table of fields follows the app's).

The CLI is LSTM_WORKBENCH_CLI (default build/bin/lstm-workbench-cli). Run with scripts/test-python.sh."""

import json
import os
import shutil
import tempfile
import unittest
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")

import lstm_workbench as lw  # noqa: E402
from cli_runner import ROOT, cli  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "run-formats")


def cli_failure(*args):
    p = cli(*args, check=False)
    return p.returncode, p.stderr


class FormatVersions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="lw-formats-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def edited(self, name, edit):
        """A copy of a fixture whose config.json is changed by edit(dict)."""
        path = os.path.join(self.tmp, name + "-edited")
        shutil.copytree(os.path.join(FIXTURES, name), path)
        with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        edit(config)
        with open(os.path.join(path, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=2)
        return path

    def test_a_folder_without_a_version_opens_with_format_ones_defaults(self):
        path = os.path.join(FIXTURES, "format-1")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            run = lw.load_run(path)
        self.assertEqual((run.config["model"]["pooling"], run.config["model"]["bidirectional"]), ("last", False))
        got = lw.classify(run, "good great film")
        expected = json.loads(cli("classify", path, "--text", "good great film", "--json").stdout)
        self.assertEqual(got.label, expected["predicted"])

    def test_format_two_opens_as_written(self):
        path = os.path.join(FIXTURES, "format-2")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            run = lw.load_run(path)
        self.assertEqual((run.config["model"]["pooling"], run.config["model"]["bidirectional"]), ("mean", True))
        expected = json.loads(cli("classify", path, "--text", "awful bad film", "--json").stdout)
        self.assertEqual(lw.classify(run, "awful bad film").label, expected["predicted"])

    def test_a_newer_major_version_is_refused_naming_both_versions(self):
        path = os.path.join(FIXTURES, "format-3")
        with self.assertRaises(lw.RunError) as caught:
            lw.load_run(path)
        self.assertEqual(caught.exception.path, os.path.join(path, "config.json"))
        for message in (str(caught.exception), cli_failure("classify", path, "--text", "good")[1]):
            self.assertIn("format 3.0 by LSTM Workbench 9.0.0", message)
            self.assertIn("reads formats up to 2.x", message)
        self.assertEqual(cli_failure("classify", path, "--text", "good")[0], caught.exception.exit_code)
        with self.assertRaises(lw.RunError):
            lw.Vocabulary.load(os.path.join(path, "vocab.json"))

    def test_a_missing_field_that_changes_the_model_is_an_error_in_format_two(self):
        path = self.edited("format-2", lambda c: c["model"].pop("pooling"))
        with self.assertRaises(lw.RunError) as caught:
            lw.load_run(path)
        code, stderr = cli_failure("classify", path, "--text", "good")
        for message in (str(caught.exception), stderr):
            self.assertIn("config.json", message)
            self.assertIn("model.pooling: missing", message)
        self.assertEqual(code, caught.exception.exit_code)

    def test_unknown_fields_of_a_newer_minor_version_are_warned_about(self):
        def newer(config):
            config["format_version"] = "2.7"
            config["model"]["attention"] = "additive"
        path = self.edited("format-2", newer)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lw.load_run(path)
        messages = [str(w.message) for w in caught if issubclass(w.category, lw.RunFormatWarning)]
        self.assertEqual(len(messages), 1, messages)
        self.assertIn("unknown field 'model.attention'", messages[0])
        stderr = cli("classify", path, "--text", "good").stderr
        self.assertIn("warning: ", stderr)
        self.assertIn("unknown field 'model.attention'", stderr)

    def test_the_clis_config_json_has_no_field_unknown_here(self):
        corpus = os.path.join(self.tmp, "texts.tsv")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("".join(f"{'pos' if i % 2 else 'neg'}\t{'good' if i % 2 else 'bad'} film\n" for i in range(40)))
        run_dir = os.path.join(self.tmp, "run")
        cli("train", corpus, "--task", "classify", "--out", run_dir, "--tokens", "word", "--embedding", "4",
            "--hidden", "3", "--max-steps", "2", "--quiet")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            run = lw.load_run(run_dir)
        self.assertEqual(run.config["format_version"], "%d.%d" % lw.FORMAT_VERSION)


if __name__ == "__main__":
    unittest.main()
