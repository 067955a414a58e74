"""TensorBoard event files of runs trained by lstm-workbench-cli, read with TensorBoard's own reader
(tensorboard.backend.event_processing): every record of metrics.csv is there as a scalar at its step, with
the validation samples as text, the n-gram baseline beside val/bpc and the settings on the HParams page;
a resumed run adds a file that starts where it resumed; --tensorboard=false writes none.

The CLI is LSTM_WORKBENCH_CLI (default build/bin/lstm-workbench-cli). Run with scripts/test-python.sh."""

import csv
import glob
import os
import random
import shutil
import tempfile
import unittest

from tensorboard.backend.event_processing import event_accumulator
from tensorboard.plugins.hparams import plugin_data_pb2

from cli_runner import cli  # noqa: E402  (python/tests is on the path under unittest discover)


def read_events(run_dir):
    # size_guidance 0: every event, not TensorBoard's default reservoir sample of 1,000 a tag.
    acc = event_accumulator.EventAccumulator(run_dir, size_guidance={"scalars": 0, "tensors": 0})
    acc.Reload()
    return acc


def csv_rows(run_dir):
    with open(os.path.join(run_dir, "metrics.csv"), newline="") as f:
        return [(r["split"] + "/" + r["metric"], int(r["step"]), float(r["value"])) for r in csv.DictReader(f)]


class TensorBoardEvents(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lw-tensorboard-")
        rng = random.Random(3)
        lines = ["春眠不觉晓，处处闻啼鸟。", "夜来风雨声，花落知多少。", "the cat sat on the mat.", "a dog ran far."]
        lm = os.path.join(cls.tmp, "lm.txt")
        with open(lm, "w", encoding="utf-8") as f:
            f.write("\n".join(rng.choice(lines) for _ in range(400)) + "\n")
        tsv = os.path.join(cls.tmp, "cls.tsv")
        with open(tsv, "w", encoding="utf-8") as f:
            for _ in range(240):
                label = rng.choice(["pos", "neg"])
                words = ["good", "fine", "great"] if label == "pos" else ["bad", "poor", "awful"]
                f.write(label + "\t" + " ".join(rng.choice(words + ["the", "film", "was"]) for _ in range(6)) + "\n")
        small = ["--embedding", "16", "--hidden", "16", "--batch-size", "16", "--precision", "fp32", "--quiet"]
        cls.lm = os.path.join(cls.tmp, "lm-run")
        cli("train", lm, "--out", cls.lm, "--tokens", "char", "--seq-len", "16", "--max-steps", "30",
            "--validate-every", "10", "--log-every", "5", "--validation-samples", "2", *small)
        cls.classifier = os.path.join(cls.tmp, "cls-run")
        cli("train", tsv, "--task", "classify", "--out", cls.classifier, "--tokens", "word", "--seq-len", "8",
            "--max-steps", "20", "--validate-every", "10", *small)
        cls.resumed = os.path.join(cls.tmp, "resumed-run")
        cli("train", lm, "--out", cls.resumed, "--tokens", "char", "--seq-len", "16", "--max-steps", "10",
            "--validate-every", "10", *small)
        cli("resume", cls.resumed, "--max-steps", "20", "--quiet")
        cls.off = os.path.join(cls.tmp, "off-run")
        cli("train", lm, "--out", cls.off, "--tokens", "char", "--seq-len", "16", "--max-steps", "5",
            "--tensorboard=false", *small)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_every_csv_row_is_a_scalar(self, run_dir):
        acc = read_events(run_dir)
        rows = csv_rows(run_dir)
        self.assertGreater(len(rows), 10)
        tags = set(acc.Tags()["scalars"])
        for tag, step, value in rows:
            self.assertIn(tag, tags, f"{run_dir}: no scalar {tag}")
        # Step for step: each tag's events are the csv's rows of that metric, in order (simple_value is a
        # float, so the values agree to float precision).
        for tag in {t for t, _, _ in rows}:
            expected = [(s, v) for t, s, v in rows if t == tag]
            events = [(e.step, e.value) for e in acc.Scalars(tag)]
            self.assertEqual([s for s, _ in events], [s for s, _ in expected], f"{run_dir}: steps of {tag}")
            for (_, got), (_, want) in zip(events, expected):
                self.assertAlmostEqual(got, want, delta=abs(want) * 1e-6 + 1e-30, msg=f"{run_dir}: {tag}")
        return acc

    def test_language_model_metrics_samples_and_baseline(self):
        acc = self.assert_every_csv_row_is_a_scalar(self.lm)
        scalars = set(acc.Tags()["scalars"])
        for tag in ("train/loss", "train/lr", "train/bpc", "val/loss", "val/bpc", "speed/samples_per_s"):
            self.assertIn(tag, scalars)
        # The 5-gram line: baseline.json's bits per character at every validation.
        import json
        with open(os.path.join(self.lm, "baseline.json")) as f:
            baseline = json.load(f)
        bits = baseline.get("bits_per_token", baseline.get("bits_per_char"))
        line = acc.Scalars("val/bpc_5gram")
        self.assertEqual([e.step for e in line], [e.step for e in acc.Scalars("val/bpc")])
        for e in line:
            self.assertAlmostEqual(e.value, bits, places=5)
        # Validation samples: one text event a validation, each sample in it.
        texts = acc.Tensors("val/samples")
        self.assertEqual([t.step for t in texts], [e.step for e in acc.Scalars("val/loss")])
        with open(os.path.join(self.lm, "samples.jsonl"), encoding="utf-8") as f:
            last = json.loads(f.read().splitlines()[-1])
        markdown = texts[-1].tensor_proto.string_val[0].decode("utf-8")
        for sample in last["samples"]:
            self.assertIn(sample, markdown)

    def test_classifier_metrics(self):
        acc = self.assert_every_csv_row_is_a_scalar(self.classifier)
        scalars = set(acc.Tags()["scalars"])
        for tag in ("val/accuracy", "val/macro_f1", "val/loss", "train/loss"):
            self.assertIn(tag, scalars)

    def test_settings_are_hparams(self):
        acc = read_events(self.classifier)
        content = acc.PluginTagToContent("hparams")["_hparams_/session_start_info"]
        data = plugin_data_pb2.HParamsPluginData.FromString(content)
        hp = data.session_start_info.hparams
        self.assertEqual(hp["model.hidden"].number_value, 16)
        self.assertEqual(hp["train.batch_size"].number_value, 16)
        self.assertEqual(hp["data.tokens"].string_value, "word")
        self.assertEqual(hp["task"].string_value, "classify")
        self.assertTrue(hp["train.tensorboard"].bool_value)

    def test_a_finished_run_says_so_on_the_hparams_page(self):
        from tensorboard.plugins.hparams import api_pb2
        for run_dir in (self.classifier, self.lm, self.resumed):
            content = read_events(run_dir).PluginTagToContent("hparams")["_hparams_/session_end_info"]
            status = plugin_data_pb2.HParamsPluginData.FromString(content).session_end_info.status
            self.assertEqual(status, api_pb2.STATUS_SUCCESS, run_dir)

    def test_a_resumed_run_adds_a_file_and_keeps_every_step(self):
        files = glob.glob(os.path.join(self.resumed, "events.out.tfevents.*"))
        self.assertEqual(len(files), 2, files)
        acc = self.assert_every_csv_row_is_a_scalar(self.resumed)
        self.assertEqual(max(e.step for e in acc.Scalars("train/loss")), 20)

    def test_tensorboard_false_writes_no_event_file(self):
        self.assertTrue(os.path.exists(os.path.join(self.off, "metrics.csv")))
        self.assertEqual(glob.glob(os.path.join(self.off, "events.out.tfevents.*")), [])


if __name__ == "__main__":
    unittest.main()
