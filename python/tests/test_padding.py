"""Padding changes no answer: the same texts with 0, 2 and 16 <pad> tokens after them, one at a time and in
padded batches, through the CLI (`classify --text` and `classify --lines`), the Python module (with and
without lengths) and ONNX Runtime (which infers lengths from the pad id), for bidirectional and
unidirectional classifiers with last, mean and max pooling: the same probabilities within 1e-5 inside each,
and across them within the tolerance float32_bounds.py derives from their arithmetic.

The CLI is LSTM_WORKBENCH_CLI (default build/bin/lstm-workbench-cli). Run with scripts/test-python.sh."""

import json
import os
import random
import shutil
import tempfile
import unittest

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402

import lstm_workbench as lw  # noqa: E402
from cli_runner import cli  # noqa: E402
from float32_bounds import classify_probability_tolerance  # noqa: E402
from lstm_workbench.vocab import UNK  # noqa: E402

torch.set_num_threads(1)

PAD = 0
SAME = 1e-5  # one implementation, another padding: only the order of a few sums may differ
TEXTS = ["good", "the film was awful", "great great film the good", "odd bad the film good great awful film",
         "bad"]
MODELS = [(pooling, bidirectional) for bidirectional in (True, False) for pooling in ("last", "mean", "max")]


def probabilities(logits):
    z = np.asarray(logits, dtype=np.float64)
    p = np.exp(z - z.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


class PaddingChangesNothing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lw-padding-")
        rng = random.Random(11)
        tsv = os.path.join(cls.tmp, "cls.tsv")
        with open(tsv, "w", encoding="utf-8") as f:
            for _ in range(300):
                label = rng.choice(["pos", "neg", "mixed"])
                words = {"pos": ["good", "great"], "neg": ["bad", "awful"], "mixed": ["good", "bad", "odd"]}[label]
                f.write(label + "\t" + " ".join(rng.choice(words + ["the", "film", "was"])
                                                 for _ in range(rng.randint(1, 12))) + "\n")
        cls.runs = {}
        for pooling, bidirectional in MODELS:
            name = f"{pooling}-{'bi' if bidirectional else 'uni'}"
            cls.runs[name] = os.path.join(cls.tmp, name)
            cli("train", tsv, "--task", "classify", "--out", cls.runs[name], "--tokens", "word", "--seq-len", "32",
                "--layers", "2", "--embedding", "12", "--hidden", "16", "--pooling", pooling,
                f"--bidirectional={'true' if bidirectional else 'false'}", "--batch-size", "16", "--max-steps",
                "30", "--validate-every", "30", "--lr", "0.01", "--precision", "fp32", "--quiet")
        # One text per line, each beside a text 2 and one 16 tokens longer in its batch of two.
        cls.lines = os.path.join(cls.tmp, "lines.txt")
        with open(cls.lines, "w", encoding="utf-8") as f:
            for text in TEXTS:
                for pads in (2, 16):
                    f.write(text + "\n" + " ".join(["film"] * (len(text.split()) + pads)) + "\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, name):
        run_dir = self.runs[name]
        run = lw.load_run(run_dir)
        model = run.model
        classes = run.classes
        onnx_path = os.path.join(self.tmp, name + ".onnx")
        cli("export", run_dir, "--onnx", onnx_path, "--json")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = 1
        sess = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])

        # The CLI: each text alone, then in batches of two beside a longer text (2 and 16 pads after it).
        alone = {}
        for text in TEXTS:
            out = json.loads(cli("classify", run_dir, "--text", text, "--top-k", "0", "--json").stdout)
            alone[text] = np.array([next(c["probability"] for c in out["top"] if c["label"] == k) for k in classes])
        batched = json.loads(cli("classify", run_dir, "--lines", self.lines, "--batch-size", "2", "--top-k", "0",
                                 "--json").stdout)
        self.assertEqual(len(batched), 4 * len(TEXTS))
        for i, entry in enumerate(batched[0::2]):
            text = TEXTS[i // 2]
            self.assertEqual(entry["text"], text)
            p = np.array([next(c["probability"] for c in entry["top"] if c["label"] == k) for k in classes])
            np.testing.assert_allclose(p, alone[text], rtol=0, atol=SAME, err_msg=f"CLI, {name}, {text!r} in a batch")

        ids = {text: [run.vocab.id(w) for w in text.split()] for text in TEXTS}
        width = max(len(i) for i in ids.values()) + 16

        def padded(rows, steps):
            return torch.tensor([r + [PAD] * (steps - len(r)) for r in rows], dtype=torch.long)

        with torch.no_grad():
            for text in TEXTS:
                row = ids[text]
                # The derived float32 bound, and never more than the 1e-5 the padding promise is stated in.
                tolerance = min(classify_probability_tolerance(model, row or [UNK]), SAME)
                want = alone[text]
                for pads in (0, 2, 16):
                    x = padded([row], len(row) + pads)
                    with self.subTest(model=name, text=text, pads=pads):
                        # Python, with lengths and with lengths inferred from the pad id.
                        for lengths in (torch.tensor([len(row)]), None):
                            got = probabilities(model(x, lengths).numpy())[0]
                            np.testing.assert_allclose(got, want, rtol=0, atol=tolerance)
                            if pads:
                                np.testing.assert_allclose(got, probabilities(model(padded([row], len(row)))
                                                                              .numpy())[0], rtol=0, atol=SAME)
                        # ONNX Runtime.
                        got = probabilities(sess.run(["logits"], {"input_ids": x.numpy()})[0])[0]
                        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance)
            # All texts in one padded batch, each row against its text alone.
            x = padded([ids[t] for t in TEXTS], width)
            python_batch = probabilities(model(x).numpy())
            onnx_batch = probabilities(sess.run(["logits"], {"input_ids": x.numpy()})[0])
            for r, text in enumerate(TEXTS):
                with self.subTest(model=name, text=text, batch=True):
                    tolerance = min(classify_probability_tolerance(model, ids[text]), SAME)
                    np.testing.assert_allclose(python_batch[r], alone[text], rtol=0, atol=tolerance)
                    np.testing.assert_allclose(onnx_batch[r], alone[text], rtol=0, atol=tolerance)

    def test_bidirectional_last(self):
        self.check("last-bi")

    def test_bidirectional_mean(self):
        self.check("mean-bi")

    def test_bidirectional_max(self):
        self.check("max-bi")

    def test_forward_last(self):
        self.check("last-uni")

    def test_forward_mean(self):
        self.check("mean-uni")

    def test_forward_max(self):
        self.check("max-uni")


class ValidationIsOneTextAtATime(unittest.TestCase):
    """A bidirectional classifier's validation accuracy (its texts padded in batches) is the accuracy of
    classifying the same texts one at a time: before padding changed nothing they were 96.6 % against 94.0 %
    on one corpus."""

    def test_bidirectional_classifier(self):
        tmp = tempfile.mkdtemp(prefix="lw-validation-")
        self.addCleanup(shutil.rmtree, tmp, True)
        rng = random.Random(12)
        tsv = os.path.join(tmp, "cls.tsv")
        with open(tsv, "w", encoding="utf-8") as f:
            for _ in range(600):
                label = rng.choice(["pos", "neg", "mixed"])
                words = {"pos": ["good", "great"], "neg": ["bad", "awful"], "mixed": ["good", "bad", "odd"]}[label]
                f.write(label + "\t" + " ".join(rng.choice(words + ["the", "film", "was"] * 2)
                                                 for _ in range(rng.randint(1, 20))) + "\n")
        run_dir = os.path.join(tmp, "run")
        cli("train", tsv, "--task", "classify", "--out", run_dir, "--tokens", "word", "--seq-len", "24",
            "--layers", "2", "--embedding", "12", "--hidden", "16", "--bidirectional=true", "--pooling", "mean",
            "--batch-size", "16", "--max-steps", "60", "--validate-every", "60", "--lr", "0.01", "--precision",
            "fp32", "--quiet")
        run = lw.load_run(run_dir)
        with safe_open(os.path.join(run_dir, "validation.safetensors"), framework="pt") as f:
            inputs, lengths, targets = (f.get_tensor(k).long() for k in ("inputs", "lengths", "targets"))
        self.assertGreater(inputs.shape[0], 50)
        self.assertLess(int(lengths.min()), inputs.shape[1])  # padded rows among them
        # The texts again from their ids: every word of this corpus is in the vocabulary, so the round trip
        # through text is exact.
        self.assertFalse(bool((inputs == UNK).any()))
        texts = [" ".join(run.vocab.tokens[int(i)] for i in row[: int(n)]) for row, n in zip(inputs, lengths)]
        labels = [run.classes[int(t)] for t in targets]
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            accuracy = json.load(f)["summary"]["final_val_accuracy"]
        lines = os.path.join(tmp, "texts.txt")
        with open(lines, "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in texts))
        # The CLI, one text to a batch; and the Python package, one text at a time.
        one_at_a_time = json.loads(cli("classify", run_dir, "--lines", lines, "--batch-size", "1", "--json").stdout)
        cli_correct = sum(e["predicted"] == label for e, label in zip(one_at_a_time, labels))
        self.assertEqual(cli_correct, round(accuracy * len(texts)), f"{cli_correct} of {len(texts)} vs {accuracy}")
        python_correct = sum(lw.classify(run, t).label == label for t, label in zip(texts, labels))
        self.assertEqual(python_correct, cli_correct)


if __name__ == "__main__":
    unittest.main()
