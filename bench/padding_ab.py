#!/usr/bin/env python3
"""What making padding change nothing costs and changes (#60), measured side by side: two builds of
lstm-workbench-cli, BEFORE (a bidirectional LSTM's reverse direction reads each padded row from its padded end)
and AFTER (it starts at each row's last real token), train the same bidirectional classifiers on the
spam-assassin corpus with the same seed.

- Speed: `train` of the imdb preset made bidirectional, a few epochs, at 1 and 2 threads, the two builds
  alternating round after round; run.json's µs/sample (training steps only), median per build.
- Accuracy: the imdb preset made bidirectional and the app's default classifier (`--task classify`), trained
  to the end by each build. Each run's validation texts (validation.safetensors) are scored twice in PyTorch
  through lstm_workbench: padded in batches as BEFORE's validation ran them (the LSTM over the pads), and one
  text at a time (no pads: what `classify` answers). BEFORE's reported accuracy is the first; AFTER's two
  are equal by construction.

- With --short-texts instead: the accuracy part only, on a corpus of short texts against seq_len (a seeded
  3-class TSV of 1-20 words, seq_len 24, as python/tests/test_padding.py trains on), where most rows are
  padded: OUT/padding-short.json.

Writes OUT/padding.json (every measurement, the commands) and prints a Markdown summary.
Run with the Python of scripts/pytorch-venv.sh (torch and lstm_workbench installed):

    padding_ab.py BEFORE_CLI AFTER_CLI OUT [--rounds 3] [--speed-epochs 2] [--short-texts]
"""
import random
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import time

import torch
from safetensors import safe_open

import lstm_workbench as lw

torch.set_num_threads(1)


def cpu_name():
    fields = {}
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return f"{fields.get('Model name', '?')} (family {fields.get('CPU family', '?')} model {fields.get('Model', '?')})"


def short_texts(path):
    rng = random.Random(12)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(3000):
            label = rng.choice(["pos", "neg", "mixed"])
            words = {"pos": ["good", "great"], "neg": ["bad", "awful"], "mixed": ["good", "bad", "odd"]}[label]
            f.write(label + "\t" + " ".join(rng.choice(words + ["the", "film", "was"] * 2)
                                            for _ in range(rng.randint(1, 20))) + "\n")


def train(cli, out, args, corpus="spam-assassin"):
    shutil.rmtree(out, ignore_errors=True)
    command = [cli, "train", corpus, "--out", out, "--quiet", *args]
    subprocess.run(command, check=True, capture_output=True, text=True)
    with open(os.path.join(out, "run.json"), encoding="utf-8") as f:
        return json.load(f)["summary"], command


def accuracies(run_dir):
    """Validation accuracy padded in batches through the LSTM (as BEFORE validated) and one text at a time."""
    run = lw.load_run(run_dir)
    model = run.model.eval()
    with safe_open(os.path.join(run_dir, "validation.safetensors"), framework="pt") as f:
        inputs, lengths, targets = (f.get_tensor(k).long() for k in ("inputs", "lengths", "targets"))
    padded, alone = [], []
    with torch.no_grad():
        for first in range(0, inputs.shape[0], 64):
            x, n = inputs[first:first + 64], lengths[first:first + 64]
            outputs, _ = model.lstm(model.embedding(x))  # BEFORE: the reverse direction over the pads too
            padded.append(model.head(model._pool(outputs, n)).argmax(1))
        for row, length in zip(inputs, lengths):
            alone.append(model(row[: int(length)].unsqueeze(0)).argmax(1))
    padded, alone = torch.cat(padded), torch.cat(alone)
    rows = inputs.shape[0]
    return {"texts": rows, "padded_rows": int((lengths < inputs.shape[1]).sum()),
            "padded_accuracy": float((padded == targets).float().mean()),
            "one_at_a_time_accuracy": float((alone == targets).float().mean()),
            "predictions_that_differ": int((padded != alone).sum())}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("out")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--speed-epochs", type=int, default=2)
    p.add_argument("--short-texts", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    builds = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": cpu_name(),
              "cores": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__,
              "load_before": os.getloadavg()[0], "speed": [], "accuracy": []}
    imdb_bi = ["--preset", "imdb", "--bidirectional=true"]
    if a.short_texts:
        corpus = os.path.join(a.out, "short.tsv")
        short_texts(corpus)
        args = ["--task", "classify", "--tokens", "word", "--seq-len", "24", "--layers", "2", "--embedding", "12",
                "--hidden", "16", "--bidirectional=true", "--pooling", "mean", "--batch-size", "16", "--epochs",
                "2", "--lr", "0.01", "--precision", "fp32", "--device", "cpu:1"]
        for build, cli in builds.items():
            run_dir = os.path.join(a.out, "accuracy-run")
            s, command = train(cli, run_dir, args, corpus)
            result["accuracy"].append({"config": "short texts, bidirectional", "build": build,
                                       "reported_final_val_accuracy": s["final_val_accuracy"],
                                       **accuracies(run_dir), "command": command})
        shutil.rmtree(os.path.join(a.out, "accuracy-run"), ignore_errors=True)
        with open(os.path.join(a.out, "padding-short.json"), "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
        print_accuracy(result)
        return
    for threads in (1, 2):
        for r in range(a.rounds):
            for build, cli in (builds.items() if r % 2 == 0 else reversed(list(builds.items()))):
                s, command = train(cli, os.path.join(a.out, "speed-run"),
                                   [*imdb_bi, "--epochs", str(a.speed_epochs), "--device", f"cpu:{threads}"])
                result["speed"].append({"build": build, "threads": threads, "round": r,
                                        "us_per_sample": s["us_per_sample"], "command": command})
                print(f"speed {build} cpu:{threads} round {r}: {s['us_per_sample']:.1f} us/sample", flush=True)
    configs = {"imdb preset, bidirectional": [*imdb_bi, "--device", "cpu:2"],
               "default classifier": ["--task", "classify", "--device", "cpu:2"]}
    for name, args in configs.items():
        for build, cli in builds.items():
            run_dir = os.path.join(a.out, "accuracy-run")
            s, command = train(cli, run_dir, args)
            entry = {"config": name, "build": build, "reported_final_val_accuracy": s["final_val_accuracy"],
                     **accuracies(run_dir), "command": command}
            result["accuracy"].append(entry)
            print(f"accuracy {name} {build}: reported {entry['reported_final_val_accuracy']:.4f}, padded "
                  f"{entry['padded_accuracy']:.4f}, one at a time {entry['one_at_a_time_accuracy']:.4f}", flush=True)
    result["load_after"] = os.getloadavg()[0]
    shutil.rmtree(os.path.join(a.out, "speed-run"), ignore_errors=True)
    shutil.rmtree(os.path.join(a.out, "accuracy-run"), ignore_errors=True)
    with open(os.path.join(a.out, "padding.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)

    print(f"\nMeasured {result['date']} on {result['cpu']}, {result['cores']} cores, load average "
          f"{result['load_before']:.2f} before and {result['load_after']:.2f} after.\n")
    print("| threads | before µs/sample (median) | after µs/sample (median) | after ÷ before |")
    print("|---|---|---|---|")
    for threads in (1, 2):
        med = {b: statistics.median(e["us_per_sample"] for e in result["speed"]
                                    if e["build"] == b and e["threads"] == threads) for b in builds}
        print(f"| {threads} | {med['before']:.1f} | {med['after']:.1f} | {med['after'] / med['before']:.3f} |")
    print_accuracy(result)


def print_accuracy(result):
    print("\n| experiment | build | validation texts (padded) | reported validation accuracy | padded in batches, "
          "reverse over the pads | one text at a time | predictions that differ |")
    print("|---|---|---|---|---|---|---|")
    for e in result["accuracy"]:
        print(f"| {e['config']} | {e['build']} | {e['texts']} ({e['padded_rows']}) | "
              f"{100 * e['reported_final_val_accuracy']:.2f} % | {100 * e['padded_accuracy']:.2f} % | "
              f"{100 * e['one_at_a_time_accuracy']:.2f} % | {e['predictions_that_differ']} |")


if __name__ == "__main__":
    main()
