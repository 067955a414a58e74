"""Runs exported by `lstm-workbench-cli export RUN --onnx FILE`, run in ONNX Runtime as a user would: the model
passes onnx.checker; its logits for the check batch the export wrote beside it (the app's own logits, through
LibTorch) agree within 1e-4 for language models and for classifiers of every pooling, padded rows included;
and a generation stepped one token at a time through the state inputs and outputs is the CLI's greedy one.

The CLI is LSTM_WORKBENCH_CLI (default build/bin/lstm-workbench-cli). Run with scripts/test-python.sh."""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
import onnxruntime as ort

import lstm_workbench as lw
from cli_runner import cli  # noqa: E402  (python/tests is on the path under unittest discover)
from float32_bounds import classify_probability_tolerance

PAD, UNK, BOS, EOS = 0, 1, 2, 3


def session(path):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = 1
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def export(run_dir, onnx_path, checkpoint="last"):
    out = json.loads(cli("export", run_dir, "--onnx", onnx_path, "--checkpoint", checkpoint, "--json").stdout)
    with open(out["vocabulary"], encoding="utf-8") as f:
        return out, json.load(f)


def greedy(sess, vocab, seed_ids, length):
    """The CLI's free-form greedy generation, stepped through the ONNX model's state: <eos> first, then the
    seed; never <pad>, <unk> or <bos>; an <eos> the model chooses is a blank line (two of `length`) and the
    model goes on with the next document."""
    tokens = vocab["tokens"]
    sep = "" if vocab["level"] == "char" else " "

    def decode(ids):
        return sep.join(tokens[i] for i in ids if i >= 4)

    state = {}

    def feed(token):
        out = sess.run(None, {"input_ids": np.array([[token]], dtype=np.int64), **state})
        state["h0"], state["c0"] = out[1], out[2]
        return out[0][0, -1]

    logits = feed(EOS)
    produced = list(seed_ids)
    for t in seed_ids:
        logits = feed(t)
    text = ""
    k = 0
    while k < length:
        masked = logits.astype(np.float64).copy()
        masked[[PAD, UNK, BOS]] = -np.inf
        choice = int(np.argmax(masked))  # the first of equal maxima, as the CLI's
        if choice == EOS:
            if k + 2 > length:
                break
            logits = feed(EOS)
            text += decode(produced) + "\n\n"
            produced = []
            k += 2
            continue
        produced.append(choice)
        logits = feed(choice)
        k += 1
    return text + decode(produced)


class OnnxExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lw-onnx-")
        rng = random.Random(5)
        subjects, verbs, objects = ["the cat", "a dog", "Mary"], ["sat on", "saw", "ran to"], ["the mat", "it", "a tree"]
        lm = os.path.join(cls.tmp, "lm.txt")
        with open(lm, "w", encoding="utf-8") as f:
            f.write("\n\n".join(" ".join([rng.choice(subjects), rng.choice(verbs), rng.choice(objects), "."])
                                for _ in range(800)) + "\n")
        tsv = os.path.join(cls.tmp, "cls.tsv")
        with open(tsv, "w", encoding="utf-8") as f:
            for _ in range(400):
                label = rng.choice(["pos", "neg", "mixed"])
                words = {"pos": ["good", "great"], "neg": ["bad", "awful"], "mixed": ["good", "bad", "odd"]}[label]
                n = rng.randint(2, 9)  # shorter than seq_len too: padded rows
                f.write(label + "\t" + " ".join(rng.choice(words + ["the", "film"]) for _ in range(n)) + "\n")
        common = ["--embedding", "12", "--hidden", "16", "--batch-size", "16", "--precision", "fp32", "--quiet"]
        cls.runs = {}
        cls.runs["lm"] = os.path.join(cls.tmp, "lm-run")
        cli("train", lm, "--out", cls.runs["lm"], "--tokens", "word", "--seq-len", "16", "--layers", "2",
            "--max-steps", "120", "--validate-every", "40", "--lr", "0.01", *common)
        cls.runs["char"] = os.path.join(cls.tmp, "char-run")
        cli("train", lm, "--out", cls.runs["char"], "--tokens", "char", "--seq-len", "24", "--max-steps", "40",
            "--validate-every", "20", *common)
        for pooling, bidirectional in [("mean", "true"), ("last", "true"), ("max", "true"), ("last", "false")]:
            name = f"cls-{pooling}-{'bi' if bidirectional == 'true' else 'uni'}"
            cls.runs[name] = os.path.join(cls.tmp, name)
            cli("train", tsv, "--task", "classify", "--out", cls.runs[name], "--tokens", "word", "--seq-len", "8",
                "--layers", "2", "--pooling", pooling, f"--bidirectional={bidirectional}", "--max-steps", "30",
                "--validate-every", "15", *common)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def exported(self, name, checkpoint="last"):
        path = os.path.join(self.tmp, f"{name}-{checkpoint}.onnx")
        out, vocab = export(self.runs[name], path, checkpoint)
        self.assertEqual(out["model"], path)
        self.assertEqual(out["vocabulary"], os.path.join(self.tmp, f"{name}-{checkpoint}.vocab.json"))
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return path, vocab

    def assert_check_batch(self, name, checkpoint="last"):
        path, vocab = self.exported(name, checkpoint)
        sess = session(path)
        ids = np.array(vocab["check"]["input_ids"], dtype=np.int64)
        logits, h_n, c_n = sess.run(None, {"input_ids": ids})
        if vocab["task"] == "lm":
            self.assertEqual(logits.shape, (ids.shape[0], ids.shape[1], len(vocab["tokens"])))
            logits = logits[:, -1, :]
        else:
            self.assertEqual(logits.shape, (ids.shape[0], len(vocab["classes"])))
            self.assertIn(PAD, ids[1].tolist())  # a padded row among them
        np.testing.assert_allclose(logits, np.array(vocab["check"]["logits"]), rtol=0, atol=1e-4)
        # The state inputs are optional: zeros fed explicitly give the same.
        zeros = np.zeros((h_n.shape[0], ids.shape[0], h_n.shape[2]), dtype=np.float32)
        again = sess.run(["logits"], {"input_ids": ids, "h0": zeros, "c0": zeros})[0]
        if vocab["task"] == "lm":
            again = again[:, -1, :]
        np.testing.assert_allclose(again, logits, rtol=0, atol=1e-6)
        return sess, vocab

    def test_language_model_logits(self):
        self.assert_check_batch("lm")
        self.assert_check_batch("lm", "best")
        self.assert_check_batch("char")

    def test_classifier_logits_every_pooling(self):
        for name in ("cls-mean-bi", "cls-last-bi", "cls-max-bi", "cls-last-uni"):
            with self.subTest(name):
                self.assert_check_batch(name)

    def test_the_state_inputs_are_listed_optional_and_warn_of_nothing(self):
        for name in ("lm", "cls-last-bi"):
            path, _ = self.exported(name)
            sess = session(path)
            self.assertEqual([i.name for i in sess.get_inputs()], ["input_ids", "h0", "c0"])
            self.assertEqual(sess.get_inputs()[1].type, "optional(tensor(float))")
            # A session at ONNX Runtime's default log level, in a process of its own (its log goes to the
            # process's stderr): no warning about the model.
            p = subprocess.run([sys.executable, "-c", "import onnxruntime as ort, sys; ort.InferenceSession("
                                "sys.argv[1], providers=['CPUExecutionProvider'])", path],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr.strip(), "")

    def test_the_model_file_holds_its_vocabulary_and_format(self):
        for name in ("lm", "cls-mean-bi"):
            path, vocab = self.exported(name)
            meta = session(path).get_modelmeta().custom_metadata_map
            self.assertEqual(meta["format_version"], "%d.%d" % lw.FORMAT_VERSION)
            self.assertTrue(meta["written_by"].startswith("LSTM Workbench "))
            self.assertEqual(json.loads(meta["tokens"]), vocab["tokens"])
            self.assertEqual((meta["task"], meta["level"]), (vocab["task"], vocab["level"]))
            self.assertEqual(json.loads(meta.get("classes", "[]")), vocab.get("classes", []))
            self.assertEqual(vocab["format_version"], meta["format_version"])

    def test_classification_equals_the_clis(self):
        path, vocab = self.exported("cls-mean-bi")
        sess = session(path)
        index = {t: i for i, t in enumerate(vocab["tokens"])}
        model = lw.load_run(self.runs["cls-mean-bi"]).model
        for text in ["good great film", "the film was awful bad", "odd"]:
            ids = [index.get(w, UNK) for w in text.lower().split()][: vocab["seq_len"]]
            logits = sess.run(["logits"], {"input_ids": np.array([ids], dtype=np.int64)})[0][0]
            p = np.exp(logits - logits.max())
            p /= p.sum()
            got = json.loads(cli("classify", self.runs["cls-mean-bi"], "--text", text, "--top-k", "3", "--json").stdout)
            self.assertEqual(vocab["classes"][int(np.argmax(p))], got["predicted"])
            # ONNX Runtime and the CLI sum in other orders: the tolerance follows from the arithmetic and
            # the run's weights (float32_bounds.py).
            tolerance = classify_probability_tolerance(model, ids or [UNK])
            for entry in got["top"]:
                self.assertAlmostEqual(float(p[vocab["classes"].index(entry["label"])]), entry["probability"],
                                       delta=tolerance)

    def test_stepped_generation_equals_the_clis_greedy(self):
        for name, seeds in [("lm", ["", "the cat", "Mary saw"]), ("char", ["", "a d"])]:
            path, vocab = self.exported(name)
            sess = session(path)
            index = {t: i for i, t in enumerate(vocab["tokens"])}
            for seed in seeds:
                pieces = list(seed) if vocab["level"] == "char" else seed.lower().split()
                for length in (1, 9, 40):
                    with self.subTest(name=name, seed=seed, length=length):
                        args = ["generate", self.runs[name], "--temperature", "0", "--full-precision",
                                "--length", str(length), "--json"]
                        if seed:
                            args += ["--seed-text", seed]
                        expected = json.loads(cli(*args).stdout)["samples"][0]
                        text = greedy(sess, vocab, [index[p] for p in pieces], length)
                        self.assertEqual(text, expected)
                        if name == "lm" and length == 40:
                            self.assertIn("\n\n", text)  # the model ended a document: <eos> was fed too


if __name__ == "__main__":
    unittest.main()
