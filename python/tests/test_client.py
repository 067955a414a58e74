"""What the package gives a user beyond the CLI's numbers: RunError for a broken run folder, naming the file as
the CLI does and with its exit code; generate/validate/classify in eval mode whatever mode the caller left
the model in, and that mode kept; Vocabulary.encode_batch and a decode that shows <unk>.

Two tiny runs trained by the CLI (a second or two in all). Run with scripts/test-python.sh -k test_client."""

import json
import os
import pickle
import random
import shutil
import subprocess
import tempfile
import unittest

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

import lstm_workbench as lw  # noqa: E402
from cli_runner import CLI, cli  # noqa: E402

torch.set_num_threads(1)

TMP = None
LM = CLS = None
CLI_ERROR = "lstm-workbench-cli: error: "


def setUpModule():
    global TMP, LM, CLS
    TMP = tempfile.mkdtemp(prefix="lstm-workbench-client-")
    rng = random.Random(5)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "slow", "film", "."]
    lm_text = "\n\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(300))
    cls_text = "\n".join(rng.choice(["pos", "neg"]) + "\t" + " ".join(rng.choice(words) for _ in range(4))
                         for _ in range(300))
    for name, text in (("lm.txt", lm_text), ("cls.tsv", cls_text)):
        with open(os.path.join(TMP, name), "w", encoding="utf-8") as f:
            f.write(text + "\n")
    # Dropout 0.5 in two layers: a model in train mode gives other logits than in eval mode.
    tiny = ["--tokens", "word", "--seq-len", "8", "--embedding", "8", "--hidden", "8", "--layers", "2",
            "--dropout", "0.5", "--batch-size", "8", "--max-steps", "20", "--validate-every", "10",
            "--precision", "fp32", "--threads", "1", "--quiet"]
    LM = os.path.join(TMP, "lm")
    CLS = os.path.join(TMP, "cls")
    cli("train", os.path.join(TMP, "lm.txt"), "--out", LM, *tiny)
    cli("train", os.path.join(TMP, "cls.tsv"), "--out", CLS, "--task", "classify", "--format", "tsv", *tiny)


def tearDownModule():
    if TMP and not os.environ.get("LSTM_WORKBENCH_KEEP_TEST_RUNS"):
        shutil.rmtree(TMP, ignore_errors=True)


def broken_copy(name, source=None):
    """A copy of the language-model run to break."""
    out = os.path.join(TMP, name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(source or LM, out)
    return out


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def edit_json(path, change):
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    change(j)
    write(path, json.dumps(j))


class RunErrorTest(unittest.TestCase):
    def raises(self, load, file):
        """The RunError that load() raises: one line that starts with the file, exit code 2."""
        with self.assertRaises(lw.RunError) as caught:
            load()
        e = caught.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual(e.path, file)
        self.assertTrue(str(e).startswith(file + ":"), str(e))
        self.assertNotIn("\n", str(e))
        self.assertTrue(e.reason)
        self.assertEqual(e.exit_code, 2)
        return e

    def same_as_cli(self, run_dir, file, *args):
        """Python and `lstm-workbench-cli generate` fail on the folder alike: the file named, the exit code."""
        e = self.raises(lambda: lw.load_run(run_dir), file)
        p = subprocess.run([CLI, "generate", run_dir, "--length", "2", *args], capture_output=True, text=True,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
        self.assertEqual(p.returncode, e.exit_code, p.stderr)
        self.assertTrue(p.stderr.startswith(CLI_ERROR + file + ":"), p.stderr)
        return e, p.stderr[len(CLI_ERROR):].strip()

    def test_not_a_run_folder(self):
        missing = os.path.join(TMP, "no-such-run")
        e, cli_message = self.same_as_cli(missing, missing)
        self.assertEqual(str(e), cli_message)
        empty = os.path.join(TMP, "empty")
        os.makedirs(empty, exist_ok=True)
        e, cli_message = self.same_as_cli(empty, os.path.join(empty, "config.json"))
        self.assertEqual(str(e), cli_message)

    def test_truncated_weights(self):
        run = broken_copy("truncated")
        file = os.path.join(run, "model.safetensors")
        with open(file, "rb") as f:
            data = f.read()
        for size in (len(data) // 2, 100, 3):
            with self.subTest(size=size):
                with open(file, "wb") as f:
                    f.write(data[:size])
                e, _ = self.same_as_cli(run, file)
                self.assertIn("not a valid safetensors file", e.reason)

    def test_vocabulary_of_another_size(self):
        run = broken_copy("vocab-size")
        edit_json(os.path.join(run, "vocab.json"), lambda j: j["tokens"].append("zebra"))
        e, cli_message = self.same_as_cli(run, os.path.join(run, "model.safetensors"))
        self.assertIn("tensor 'embedding.weight': expected shape", e.reason)
        self.assertEqual(str(e), cli_message)

    def test_weights_of_another_type(self):
        run = broken_copy("int-weights")
        file = os.path.join(run, "model.safetensors")
        tensors = load_file(file)
        tensors["head.bias"] = tensors["head.bias"].int()
        save_file(tensors, file)
        e, cli_message = self.same_as_cli(run, file)
        self.assertEqual(str(e), cli_message)

    def test_broken_json(self):
        for name, text, line in (("config.json", '{"model": {\n', 2), ("vocab.json", '{"level":', 1)):
            with self.subTest(file=name):
                run = broken_copy("broken-" + name)
                file = os.path.join(run, name)
                write(file, text)
                e, _ = self.same_as_cli(run, file)
                self.assertEqual(e.line, line)
                self.assertTrue(str(e).startswith(f"{file}:{line}: invalid JSON: "), str(e))

    def test_config_the_app_refuses(self):
        cases = [(lambda j: j["model"].update(hidden="x"), "model.hidden: expected an integer"),
                 (lambda j: j["model"].update(hidden=-3), "hidden size must be at least 1 (is -3)"),
                 (lambda j: j["model"].update(layers=9), "number of layers must be at most 8 (is 9)"),
                 (lambda j: j["model"].update(dropout=1.5), "dropout must be in [0, 1) (is 1.5)"),
                 (lambda j: j["model"].update(pooling="sum"),
                  "model.pooling: unknown pooling 'sum' (expected last, mean or max)"),
                 (lambda j: j.update(task="gen"), "task: unknown task 'gen' (expected lm or classify)")]
        for k, (change, reason) in enumerate(cases):
            with self.subTest(reason=reason):
                run = broken_copy(f"config-{k}")
                file = os.path.join(run, "config.json")
                edit_json(file, change)
                e, cli_message = self.same_as_cli(run, file)
                self.assertEqual(e.reason, reason)
                self.assertEqual(str(e), cli_message)
        run = broken_copy("config-array")
        write(os.path.join(run, "config.json"), "[1]")
        e, cli_message = self.same_as_cli(run, os.path.join(run, "config.json"))
        self.assertEqual(str(e), cli_message)

    def test_vocabulary_the_app_refuses(self):
        for k, (change, reason) in enumerate([
                (lambda j: j.pop("tokens"), "tokens: expected an array of strings"),
                (lambda j: j.update(level="byte"), 'level: expected "char" or "word", found "byte"'),
                (lambda j: j["tokens"].__setitem__(5, j["tokens"][4]), "duplicate token"),
                (lambda j: j["tokens"].__setitem__(1, "<UNK>"), 'tokens[1]: expected "<unk>", found "<UNK>"')]):
            with self.subTest(reason=reason):
                run = broken_copy(f"vocab-{k}")
                file = os.path.join(run, "vocab.json")
                edit_json(file, change)
                e, _ = self.same_as_cli(run, file)
                self.assertIn(reason, e.reason)

    def test_missing_weights(self):
        run = broken_copy("no-weights")
        os.remove(os.path.join(run, "model.safetensors"))
        e, cli_message = self.same_as_cli(run, os.path.join(run, "model.safetensors"))
        self.assertEqual(str(e), cli_message)
        os.remove(os.path.join(run, "best-model.safetensors"))
        self.raises(lambda: lw.load_run(run, checkpoint="best"), os.path.join(run, "best-model.safetensors"))

    def test_run_json_and_metrics(self):
        # The CLI's generate does not read these; the package does, and names them when they break.
        run = broken_copy("run-json")
        write(os.path.join(run, "run.json"), "[")
        self.raises(lambda: lw.load_run(run), os.path.join(run, "run.json"))
        run = broken_copy("metrics")
        with open(os.path.join(run, "metrics.csv"), "a", encoding="utf-8") as f:
            f.write("id,x\n")
        e = self.raises(lambda: lw.load_run(run), os.path.join(run, "metrics.csv"))
        self.assertGreater(e.line, 1)

    def test_validation_file(self):
        run = broken_copy("validation")
        file = os.path.join(run, "validation.safetensors")
        with open(file, "r+b") as f:
            f.truncate(os.path.getsize(file) // 2)
        loaded = lw.load_run(run)
        e = self.raises(loaded.validate, file)
        self.assertIn("not a valid safetensors file", e.reason)
        os.remove(file)
        self.raises(loaded.validate, file)

    def test_wrong_task_names_the_run(self):
        e = self.raises(lambda: lw.generate(lw.load_run(CLS)), CLS)
        self.assertIn("this run is a classifier", e.reason)
        self.raises(lambda: lw.classify(lw.load_run(LM), "text"), LM)

    def test_pickles_with_its_fields(self):
        e = lw.RunError("/x/model.safetensors", "not a valid safetensors file: short", line=3)
        again = pickle.loads(pickle.dumps(e))
        self.assertEqual((str(again), again.path, again.line, again.reason, again.exit_code),
                         (str(e), e.path, 3, e.reason, 2))
        self.assertEqual(str(e), "/x/model.safetensors:3: not a valid safetensors file: short")


class ModeTest(unittest.TestCase):
    def test_train_mode_is_kept_and_does_not_change_results(self):
        run = lw.load_run(LM)
        greedy = lw.generate(run, seed_text="the", length=30)
        loss = run.validate()
        # The test means something only if train mode (dropout) changes what the model computes.
        x = torch.tensor([run.vocab.encode("the cat sat on a mat")])
        run.model.train()
        torch.manual_seed(0)
        self.assertFalse(torch.equal(run.model(x), run.model(x)))
        for _ in range(2):
            self.assertEqual(lw.generate(run, seed_text="the", length=30), greedy)
        self.assertEqual(run.validate(), loss)
        self.assertTrue(run.model.training)
        self.assertTrue(all(m.training for m in run.model.modules()))
        # A caller's mixed modes come back as they were.
        run.model.dropout.eval()
        lw.generate(run, length=5)
        self.assertTrue(run.model.training)
        self.assertTrue(run.model.lstm.training)
        self.assertFalse(run.model.dropout.training)
        run.model.eval()
        self.assertEqual(lw.generate(run, seed_text="the", length=30), greedy)
        self.assertFalse(any(m.training for m in run.model.modules()))

    def test_classify_in_train_mode(self):
        run = lw.load_run(CLS)
        expected = lw.classify(run, "the slow film")
        run.model.train()
        self.assertEqual(lw.classify(run, "the slow film"), expected)
        self.assertEqual(run.validate(), lw.load_run(CLS).validate())
        self.assertTrue(run.model.training)


class EncodeBatchTest(unittest.TestCase):
    V = lw.Vocabulary(["<pad>", "<unk>", "<bos>", "<eos>", "a", "slow", "film", "the"], "word")

    def test_padded_at_the_end_with_lengths_and_mask(self):
        batch = self.V.encode_batch(["a slow film", "the", "", "a zzz"])
        self.assertIsInstance(batch, lw.EncodedBatch)
        ids, lengths, mask = batch  # a NamedTuple: unpacks too
        self.assertEqual(ids.tolist(), [[4, 5, 6], [7, 0, 0], [1, 0, 0], [4, 1, 0]])
        self.assertEqual(lengths.tolist(), [3, 1, 1, 2])
        self.assertEqual(mask.tolist(), [[True, True, True], [True, False, False], [True, False, False],
                                         [True, True, False]])
        self.assertEqual((ids.dtype, lengths.dtype, mask.dtype), (torch.long, torch.long, torch.bool))
        self.assertTrue(torch.equal(mask, ids != 0))

    def test_max_len_cuts_and_fixes_the_width(self):
        batch = self.V.encode_batch(["a slow film the", "film"], max_len=2)
        self.assertEqual(batch.ids.tolist(), [[4, 5], [6, 0]])
        self.assertEqual(batch.lengths.tolist(), [2, 1])
        self.assertEqual(self.V.encode_batch(["film"], max_len=5).ids.tolist(), [[6, 0, 0, 0, 0]])
        self.assertEqual(tuple(self.V.encode_batch([]).ids.shape), (0, 0))
        with self.assertRaises(ValueError):
            self.V.encode_batch(["film"], max_len=0)
        with self.assertRaises(TypeError):
            self.V.encode_batch("a film")

    def test_a_batch_classifies_as_each_text_alone(self):
        run = lw.load_run(CLS)
        texts = ["the slow film", "a", "", "film film the cat sat on a mat ran"]
        batch = run.vocab.encode_batch(texts, max_len=run.config["data"]["seq_len"])
        with torch.no_grad():
            probs = torch.softmax(run.model(batch.ids, batch.lengths), 1)
        for text, row in zip(texts, probs):
            alone = dict(lw.classify(run, text).top)
            for c, label in enumerate(run.classes):
                self.assertAlmostEqual(float(row[c]), alone[label], delta=1e-5)

    def test_decode_shows_unknown_tokens(self):
        self.assertEqual(self.V.decode(self.V.encode("a slow zzz film")), "a slow <unk> film")
        self.assertEqual(self.V.decode([2, 4, 1, 3, 0]), "a <unk>")
        c = lw.Vocabulary(["<pad>", "<unk>", "<bos>", "<eos>", "a", "b"], "char")
        self.assertEqual(c.decode(c.encode("abxa")), "ab<unk>a")


if __name__ == "__main__":
    unittest.main()
