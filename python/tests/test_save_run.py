"""save_run: a run fine-tuned in PyTorch written back as a run folder that lstm-workbench-cli opens, generates,
classifies, compares and resumes; optimizer_state_dict: the app's optimizer.safetensors in torch.optim's form.

Tiny runs trained by the CLI (LSTM_WORKBENCH_CLI, default build/bin/lstm-workbench-cli), a few seconds in all.
Run with scripts/test-python.sh -k test_save_run."""

import json
import os
import random
import shutil
import tempfile
import unittest
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from safetensors import safe_open  # noqa: E402

import lstm_workbench as lw  # noqa: E402
from lstm_workbench.vocab import UNK  # noqa: E402
from cli_runner import ROOT, cli  # noqa: E402
from float32_bounds import classify_probability_tolerance  # noqa: E402


torch.set_num_threads(1)

TMP = None
LM = CLS = None  # the CLI's runs
LM_TEXT = None
CLS_ROWS = None


def lm_corpus(rng, docs=600):
    subjects = ["the cat", "the dog", "a bird", "my friend", "Mary"]
    verbs = ["sat on", "ran to", "looked at", "found"]
    objects = ["the mat", "the house", "a red ball", "it"]
    return "\n\n".join(" ".join([rng.choice(subjects), rng.choice(verbs), rng.choice(objects), rng.choice(".!?")])
                       for _ in range(docs)) + "\n"


def classifier_rows(rng, rows=600):
    cue = {"pos": ["good", "great", "lovely"], "neg": ["bad", "awful", "boring"], "meh": ["okay", "fine"]}
    filler = ["the", "movie", "was", "a", "film", "it", "plot"]
    out = []
    for _ in range(rows):
        label = rng.choice(sorted(cue))
        words = [rng.choice(filler) for _ in range(rng.randint(1, 6))] + [rng.choice(cue[label])]
        rng.shuffle(words)
        out.append((label, " ".join(words)))
    return out


def setUpModule():
    global TMP, LM, CLS, LM_TEXT, CLS_ROWS
    TMP = tempfile.mkdtemp(prefix="lstm-workbench-save-")
    rng = random.Random(11)
    LM_TEXT = lm_corpus(rng)
    CLS_ROWS = classifier_rows(rng)
    with open(os.path.join(TMP, "lm.txt"), "w", encoding="utf-8") as f:
        f.write(LM_TEXT)
    with open(os.path.join(TMP, "cls.tsv"), "w", encoding="utf-8") as f:
        f.write("".join(f"{label}\t{text}\n" for label, text in CLS_ROWS))
    common = ["--precision", "fp32", "--threads", "1", "--quiet", "--validation-samples", "0", "--embedding", "12",
              "--hidden", "16", "--lr-warmup", "0", "--val-fraction", "0.2", "--batch-size", "16"]
    # The runs live in a folder of their own, as the app's runs folder holds them: the new runs go beside.
    LM = os.path.join(TMP, "runs", "lm")
    cli("train", os.path.join(TMP, "lm.txt"), "--out", LM, "--tokens", "word", "--seq-len", "12", "--layers", "2",
        "--max-steps", "30", "--validate-every", "15", "--lr", "0.01", *common)
    CLS = os.path.join(TMP, "runs", "cls")
    cli("train", os.path.join(TMP, "cls.tsv"), "--out", CLS, "--task", "classify", "--format", "tsv", "--tokens",
        "word", "--seq-len", "6", "--layers", "1", "--bidirectional", "--pooling", "mean", "--max-steps", "20",
        "--validate-every", "10", "--lr", "0.02", *common)


def tearDownModule():
    if TMP and not os.environ.get("LSTM_WORKBENCH_KEEP_TEST_RUNS"):
        shutil.rmtree(TMP, ignore_errors=True)


def fine_tune(run, steps=6, lr=0.02):
    """A few AdamW steps in PyTorch, from the run's own optimizer state, in train mode; the optimizer."""
    optimizer = torch.optim.AdamW(run.model.parameters())
    optimizer.load_state_dict(lw.optimizer_state_dict(run))
    for group in optimizer.param_groups:
        group["lr"] = lr
    run.model.train()
    gen = torch.Generator().manual_seed(3)
    if run.task == "lm":
        ids = torch.tensor(run.vocab.encode(LM_TEXT.replace("\n\n", " ")), dtype=torch.long)
    for _ in range(steps):
        optimizer.zero_grad()
        if run.task == "lm":
            starts = torch.randint(0, ids.numel() - 13, (8,), generator=gen)
            x = torch.stack([ids[s:s + 12] for s in starts])
            y = torch.stack([ids[s + 1:s + 13] for s in starts])
            loss = F.cross_entropy(run.model(x).reshape(-1, len(run.vocab)), y.reshape(-1))
        else:
            rows = [CLS_ROWS[int(i)] for i in torch.randint(0, len(CLS_ROWS), (16,), generator=gen)]
            batch = run.vocab.encode_batch([t for _, t in rows], max_len=run.config["data"]["seq_len"])
            y = torch.tensor([run.classes.index(label) for label, _ in rows])
            loss = F.cross_entropy(run.model(batch.ids, batch.lengths), y)
        loss.backward()
        optimizer.step()
    return optimizer


def new_dir(name):
    return os.path.join(TMP, "runs", name)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tensors(path):
    with safe_open(path, framework="pt") as f:
        return f.metadata() or {}, {k: f.get_tensor(k) for k in f.keys()}


class SaveRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lm = lw.load_run(LM)
        cls.lm_source_weights = {k: v.clone() for k, v in cls.lm.model.state_dict().items()}
        cls.lm_optimizer = fine_tune(cls.lm)
        cls.lm_new = new_dir("lm-tuned")
        cls.lm_saved = lw.save_run(cls.lm.model, like=cls.lm, out=cls.lm_new, optimizer=cls.lm_optimizer)
        cls.cls = lw.load_run(CLS)
        cls.cls_optimizer = fine_tune(cls.cls)
        cls.cls_new = new_dir("cls-tuned")
        lw.save_run(cls.cls.model, like=cls.cls, out=cls.cls_new, optimizer=cls.cls_optimizer, name="tuned")

    def test_fine_tuning_changed_the_weights(self):
        # Else the tests below would compare the source run with itself.
        state = self.lm.model.state_dict()
        self.assertFalse(all(torch.equal(state[k], v) for k, v in self.lm_source_weights.items()))
        self.assertTrue(self.lm.model.training)  # save_run left the mode alone

    def test_cli_generates_the_modules_text(self):
        cli_text = json.loads(cli("generate", self.lm_new, "--temperature", "0", "--full-precision", "--length",
                                  "30", "--json").stdout)["samples"][0]
        self.assertEqual(cli_text, lw.generate(lw.load_run(self.lm_new), length=30))
        # The fine-tuned module's own greedy text (the source Run now holds it), in train mode or not.
        self.assertEqual(cli_text, lw.generate(self.lm, length=30))
        best = json.loads(cli("generate", self.lm_new, "--temperature", "0", "--full-precision", "--length", "30",
                              "--checkpoint", "best", "--json").stdout)["samples"][0]
        self.assertEqual(best, cli_text)

    def test_cli_classifies_as_the_module(self):
        new = lw.load_run(self.cls_new)
        for text in ["good movie", "the plot was awful", "it was okay", "   ", "zebra"]:
            with self.subTest(text=text):
                expected = json.loads(cli("classify", self.cls_new, "--text", text, "--json").stdout)
                got = lw.classify(new, text)
                mine = lw.classify(self.cls, text)  # the fine-tuned module itself
                self.assertEqual(got, mine)
                self.assertEqual(got.label, expected["predicted"])
                tokens = new.vocab.tokenize(text)[: new.config["data"]["seq_len"]]
                bound = classify_probability_tolerance(new.model, [new.vocab.id(t) for t in tokens] or [UNK])
                self.assertLess(bound, 1e-3)
                for (label, p), c in zip(got.top, expected["top"]):
                    self.assertEqual(label, c["label"])
                    self.assertAlmostEqual(p, c["probability"], delta=bound)

    def test_compare_lists_both(self):
        for new, old in ((self.lm_new, LM), (self.cls_new, CLS)):
            p = cli("compare", new, old, "--json")
            ids = [r["run_id"] for r in json.loads(p.stdout)["runs"]]
            self.assertEqual(sorted(ids), sorted([os.path.basename(new), os.path.basename(old)]))
            self.assertNotIn("warning", p.stderr.lower())

    def test_run_json_says_where_it_came_from(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error", lw.RunFormatWarning)
            new = lw.load_run(self.lm_new)
        info = new.info
        self.assertEqual(info["status"], "completed")
        self.assertEqual(info["id"], "lm-tuned")
        self.assertEqual(info["format_version"], "%d.%d" % lw.FORMAT_VERSION)
        source = read_json(os.path.join(LM, "run.json"))
        self.assertGreater(info["number"], source["number"])
        origin = info["fine_tuned_from"]
        self.assertEqual(origin["path"], os.path.abspath(LM))
        self.assertEqual(origin["id"], source["id"])
        self.assertEqual(origin["checkpoint"], "last")
        self.assertEqual(origin["step"], source["summary"]["steps"])
        self.assertEqual(origin["optimizer_steps"], source["summary"]["steps"] + 6)
        # The summary's validation is the new weights', on the source's split.
        v = new.validate()
        self.assertAlmostEqual(info["summary"]["final_val_loss"], v.loss, places=12)
        self.assertAlmostEqual(info["summary"]["best_val_loss"], lw.load_run(self.lm_new, "best").validate().loss,
                               places=12)
        self.assertEqual(list(new.metrics), [])
        self.assertEqual(lw.load_run(self.cls_new).config["name"], "tuned")
        self.assertEqual(new.config["name"], read_json(os.path.join(LM, "config.json"))["name"] + " (fine-tuned)")

    def test_files_are_the_apps(self):
        for new, old in ((self.lm_new, LM), (self.cls_new, CLS)):
            for file in ("model.safetensors", "best-model.safetensors", "optimizer.safetensors"):
                with self.subTest(run=old, file=file):
                    meta, got = tensors(os.path.join(new, file))
                    old_meta, want = tensors(os.path.join(old, file))
                    self.assertEqual(set(meta), set(old_meta))
                    self.assertEqual({k: (t.dtype, t.shape) for k, t in got.items()},
                                     {k: (t.dtype, t.shape) for k, t in want.items()})
                    self.assertEqual(meta["step"], old_meta["step"])
            for file in ("config.json", "vocab.json", "run.json"):
                j = read_json(os.path.join(new, file))
                self.assertEqual((j["format_version"], j["written_by"].split()[0]),
                                 ("%d.%d" % lw.FORMAT_VERSION, "lstm_workbench"))
            for file in ("vocab.json",):
                drop = lambda j: {k: v for k, v in j.items() if k != "written_by"}  # noqa: E731
                self.assertEqual(drop(read_json(os.path.join(new, file))),
                                 drop(read_json(os.path.join(old, file))))

    def test_cli_resumes_it(self):
        # A copy (resume rewrites the folder), named as the folder it came from: the run's id is its name.
        copy = os.path.join(TMP, "resumed", "lm-tuned")
        shutil.copytree(self.lm_new, copy)
        step = read_json(os.path.join(copy, "run.json"))["summary"]["steps"]
        cli("resume", copy, "--max-steps", str(step + 5), "--quiet")
        self.assertEqual(read_json(os.path.join(copy, "run.json"))["summary"]["steps"], step + 5)
        meta, _ = tensors(os.path.join(copy, "optimizer.safetensors"))
        self.assertEqual(int(meta["optimizer_steps"]), int(tensors(os.path.join(self.lm_new, "optimizer.safetensors"))
                                                           [0]["optimizer_steps"]) + 5)

    def test_resuming_an_unchanged_save_is_resuming_the_source(self):
        # The weights and Adam state through torch.optim and back, and the progress metadata: the app then
        # trains on exactly as it would have from the source's own checkpoint, bit for bit.
        source = os.path.join(TMP, "same", "cls")  # a copy under the source's name, whose run id that is
        shutil.copytree(CLS, source)
        run = lw.load_run(CLS)
        adam = torch.optim.Adam(run.model.parameters())
        adam.load_state_dict(lw.optimizer_state_dict(run))
        saved = os.path.join(TMP, "same", "cls-saved")
        lw.save_run(run.model, like=run, out=saved, optimizer=adam)
        step = read_json(os.path.join(CLS, "run.json"))["summary"]["steps"]
        for folder in (source, saved):
            cli("resume", folder, "--max-steps", str(step + 7), "--quiet")
        a, b = lw.load_run(source).model.state_dict(), lw.load_run(saved).model.state_dict()
        for name in a:
            self.assertTrue(torch.equal(a[name], b[name]), name)
        self.assertFalse(torch.equal(a["head.weight"], run.model.state_dict()["head.weight"]))  # it trained

    def test_refuses_a_folder_that_is_not_empty(self):
        out = new_dir("occupied")
        os.makedirs(out)
        with open(os.path.join(out, "notes.txt"), "w") as f:
            f.write("mine")
        before = sorted(os.listdir(os.path.dirname(out)))
        with self.assertRaisesRegex(lw.RunError, "already exists and is not empty"):
            lw.save_run(self.lm.model, like=self.lm, out=out)
        self.assertEqual(os.listdir(out), ["notes.txt"])
        self.assertEqual(sorted(os.listdir(os.path.dirname(out))), before)  # no temporary left behind
        with self.assertRaises(ValueError):
            lw.save_run(self.lm.model, like=self.lm, out=self.lm_new)
        # An empty folder is taken, as the CLI's train takes one.
        empty = new_dir("empty")
        os.makedirs(empty)
        lw.save_run(self.lm.model, like=self.lm, out=empty)
        self.assertFalse(os.path.exists(os.path.join(empty, "optimizer.safetensors")))

    def test_refuses_what_the_app_cannot_hold(self):
        with self.assertRaises(ValueError):
            lw.save_run(self.lm.model, like=self.lm, out=new_dir("sgd"),
                        optimizer=torch.optim.SGD(self.lm.model.parameters(), lr=0.1))
        with self.assertRaises(ValueError):  # another model's weights
            lw.save_run(self.cls.model, like=self.lm, out=new_dir("other"))
        self.assertFalse(os.path.exists(new_dir("sgd")) or os.path.exists(new_dir("other")))


class OptimizerStateTest(unittest.TestCase):
    def test_round_trip_through_torch_optim(self):
        run = lw.load_run(CLS)
        state = lw.optimizer_state_dict(run)
        _, app = tensors(os.path.join(CLS, "optimizer.safetensors"))
        names = [n for n, _ in run.model.named_parameters()]
        self.assertEqual(len(state["state"]), len(names))
        for i, name in enumerate(names):
            self.assertTrue(torch.equal(state["state"][i]["exp_avg"], app[name + ".exp_avg"]))
        adam = torch.optim.Adam(run.model.parameters())
        adam.load_state_dict(state)
        group, train = adam.param_groups[0], run.config["train"]
        self.assertEqual((group["lr"], group["betas"], group["eps"], group["weight_decay"]),
                         (train["learning_rate"], (0.9, 0.999), 1e-8, train["weight_decay"]))
        run.model.train()
        batch = run.vocab.encode_batch(["good film", "bad plot"], max_len=6)
        F.cross_entropy(run.model(batch.ids, batch.lengths), torch.tensor([run.classes.index("pos"),
                                                                          run.classes.index("neg")])).backward()
        adam.step()
        out = os.path.join(TMP, "runs", "round-trip")
        lw.save_run(run.model, like=run, out=out, optimizer=adam)
        back = lw.optimizer_state_dict(lw.load_run(out))
        want = adam.state_dict()
        self.assertEqual(set(back["state"]), set(want["state"]))
        for i, entry in want["state"].items():
            for key in ("exp_avg", "exp_avg_sq", "step"):
                self.assertTrue(torch.equal(back["state"][i][key], entry[key]), (i, key))
        self.assertEqual(float(want["state"][0]["step"]), lw.load_run(CLS).info["summary"]["steps"] + 1)
        # And torch takes it back.
        torch.optim.Adam(lw.load_run(out).model.parameters()).load_state_dict(back)

    def test_a_fresh_optimizer_starts_at_its_own_steps(self):
        run = lw.load_run(CLS)
        adam = torch.optim.AdamW(run.model.parameters(), lr=1e-3)
        moments, steps = lw.optimizer_tensors(run.model, adam)
        self.assertEqual(steps, 0)
        self.assertTrue(all(float(t.abs().sum()) == 0 for t in moments.values()))


class CommittedFixture(unittest.TestCase):
    """tests/fixtures/run-formats/fine-tuned-in-python is what the app's Runs list is tested on (an offscreen
    test in tests/ui/runs/RunStateUiTest.cpp); it must stay what save_run writes: the same files, the same
    fields in each JSON file, the same tensors."""

    def test_the_fixture_is_what_save_run_writes(self):
        fixtures = os.path.join(ROOT, "tests", "fixtures", "run-formats")
        committed = os.path.join(fixtures, "fine-tuned-in-python")
        tmp = tempfile.mkdtemp(prefix="lw-fixture-")
        self.addCleanup(shutil.rmtree, tmp, True)
        source = lw.load_run(os.path.join(fixtures, "format-2"))
        fresh = os.path.join(tmp, "fine-tuned")
        lw.save_run(source.model, like=source, out=fresh, name="format 2 fixture, fine-tuned in PyTorch")
        self.assertEqual(sorted(os.listdir(fresh)), sorted(os.listdir(committed)))

        def keys(value, prefix=""):
            if not isinstance(value, dict):
                return {prefix}
            return {k for name, v in value.items() for k in keys(v, f"{prefix}.{name}" if prefix else name)}

        for name in os.listdir(committed):
            if name.endswith(".json"):
                with open(os.path.join(fresh, name), encoding="utf-8") as a, \
                        open(os.path.join(committed, name), encoding="utf-8") as b:
                    self.assertEqual(keys(json.load(a)), keys(json.load(b)), name)
            elif name.endswith(".safetensors"):
                with safe_open(os.path.join(fresh, name), framework="pt") as a, \
                        safe_open(os.path.join(committed, name), framework="pt") as b:
                    self.assertEqual(set(a.keys()), set(b.keys()), name)
                    self.assertEqual(set(a.metadata()), set(b.metadata()), name)


if __name__ == "__main__":
    unittest.main()
