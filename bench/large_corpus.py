"""Corpora larger than memory (issue #30), measured: a plain-text corpus of made-up words, SIZE_GB large (2 by
default), made here, and a 20 MB one cut from its head.

  tokenize   `lstm-workbench-cli tokenize` into a fresh cache: seconds and MB/s of the first tokenization
             (the corpus was just written, so it is read from the page cache), then the store reopened
  train      the default model, 100 steps, a validation every 50 (three in all, with the last), on each
             corpus after its tokenization, REPEATS times: the process's peak RSS (/usr/bin/time), run.json's
             startup_seconds (the job's making to its first step) and validation_seconds (the last one),
             baseline.json's fit
  sweep      `lstm-workbench-cli sweep BIG --grid data_fraction=0.01,0.1,1`, 20 steps a cell, a validation
             every 10: each cell's startup and validation seconds and peak RSS

Usage: large_corpus.py CLI OUT_JSON (SIZE_GB, REPEATS and WORK from the environment). Prints the table and
the targets; writes OUT_JSON with every measurement and the commands.
"""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

SIZE = int(float(os.environ.get("SIZE_GB", "2")) * 1e9)
SMALL = 20_000_000
REPEATS = int(os.environ.get("REPEATS", "3"))
TRAIN = ["--max-steps", "100", "--validate-every", "50", "--quiet", "--json"]


def make_corpus(path, size):
    """Paragraphs of made-up words: a 16 MiB block of random syllable words, then copies of it with the
    letters permuted (each copy its own permutation), so that the text does not repeat byte for byte."""
    rng = random.Random(30)
    syllables = [a + b for a in "bcdfghjklmnprstvwz" for b in "aeiou"] + ["qu", "th", "sh", "ch", "ng"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(20000)]
    cum, total = [], 0.0
    for k in range(len(words)):  # Zipf-like
        total += 1 / (k + 1)
        cum.append(total)
    lines, size_block = [], 0
    while size_block < 16 << 20:
        paragraph = []
        for _ in range(rng.randint(1, 6)):
            line = " ".join(rng.choices(words, cum_weights=cum, k=rng.randint(4, 14)))
            line = line[0].upper() + line[1:] + rng.choice([".", ".", ",", "?", "!"])
            paragraph.append(line)
        text = "\n".join(paragraph) + "\n\n"
        lines.append(text)
        size_block += len(text)
    block = "".join(lines).encode()
    letters = b"abcdefghijklmnopqrstuvwxyz"
    written = 0
    with open(path, "wb") as f:
        copy = 0
        while written < size:
            perm = bytearray(letters)
            random.Random(copy).shuffle(perm)
            chunk = block.translate(bytes.maketrans(letters, bytes(perm))) if copy else block
            chunk = chunk[: size - written]
            if written + len(chunk) >= size:  # end on a paragraph break
                chunk = chunk[: chunk.rfind(b"\n\n") + 2]
                written = size
            else:
                written += len(chunk)
            f.write(chunk)
            copy += 1


def timed(cli, args, env):
    """Runs the CLI under /usr/bin/time: (stdout, seconds, peak RSS in bytes)."""
    start = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", cli] + args, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    rss = int(r.stderr.strip().splitlines()[-1]) * 1024
    return r.stdout, seconds, rss


def run_facts(run_dir):
    info = json.load(open(os.path.join(run_dir, "run.json")))
    baseline_path = os.path.join(run_dir, "baseline.json")
    baseline = json.load(open(baseline_path)) if os.path.exists(baseline_path) else {}
    return {"startup_seconds": info["summary"]["startup_seconds"],
            "validation_seconds": info["summary"]["validation_seconds"],
            "us_per_sample": info["summary"]["us_per_sample"],
            "token_store_reused": info["token_store"]["reused"],
            "baseline_seconds": baseline.get("seconds"), "baseline_train_tokens": baseline.get("train_tokens"),
            "baseline_train_split_tokens": baseline.get("train_split_tokens"),
            "baseline_cached": baseline.get("cached")}


def main(cli, out):
    work = os.environ.get("WORK", "/tmp/lstm-workbench-large-corpus")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, LSTM_WORKBENCH_DATA=os.path.join(work, "cache"),
               LSTM_WORKBENCH_BASELINE_CACHE=os.path.join(work, "baselines"))
    big, small = os.path.join(work, "big.txt"), os.path.join(work, "small.txt")
    t0 = time.monotonic()
    make_corpus(big, SIZE)
    with open(big, "rb") as f:
        head = f.read(SMALL)
    with open(small, "wb") as f:
        f.write(head[: head.rfind(b"\n\n") + 2])
    print(f"corpora made in {time.monotonic() - t0:.0f} s: {os.path.getsize(big):,} and "
          f"{os.path.getsize(small):,} bytes", file=sys.stderr)
    doc = {"date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), "script": "scripts/bench-large-corpus.sh",
           "host_cpus": os.cpu_count(), "corpus_bytes": {"big": os.path.getsize(big), "small": os.path.getsize(small)},
           "commands": {"tokenize": "lstm-workbench-cli tokenize CORPUS --json",
                        "train": "lstm-workbench-cli train CORPUS --out RUN " + " ".join(TRAIN),
                        "sweep": "lstm-workbench-cli sweep BIG --out SWEEP --grid data_fraction=0.01,0.1,1 "
                                 "--max-steps 20 --validate-every 10 --quiet"}}
    tokenize = {}
    for name, path in (("big", big), ("big (again)", big), ("small", small)):
        stdout, seconds, rss = timed(cli, ["tokenize", path, "--json"], env)
        tokenize[name] = dict(json.loads(stdout), wall_seconds=seconds, peak_rss_bytes=rss)
        print(f"tokenize {name}: {seconds:.1f} s", file=sys.stderr)
    doc["tokenize"] = tokenize
    train = {"big": [], "small": []}
    for r in range(REPEATS):
        for name, path in (("small", small), ("big", big)):
            run_dir = os.path.join(work, f"run-{name}-{r}")
            _, seconds, rss = timed(cli, ["train", path, "--out", run_dir] + TRAIN, env)
            train[name].append(dict(run_facts(run_dir), wall_seconds=seconds, peak_rss_bytes=rss))
            print(f"train {name} {r + 1}/{REPEATS}: {seconds:.1f} s, {rss / 2**30:.2f} GiB", file=sys.stderr)
    doc["train"] = train
    sweep_dir = os.path.join(work, "sweep")
    timed(cli, ["sweep", big, "--out", sweep_dir, "--grid", "data_fraction=0.01,0.1,1", "--max-steps", "20",
                "--validate-every", "10", "--quiet"], env)
    sweep = json.load(open(os.path.join(sweep_dir, "sweep.json")))
    doc["sweep"] = [dict(run_facts(os.path.join(sweep_dir, c["run_dir"])), data_fraction=c["setting"]["data_fraction"],
                         peak_rss_bytes=c["peak_rss_bytes"]) for c in sweep["cells"]]
    med = lambda name, key: statistics.median(x[key] for x in train[name])
    first = tokenize["big"]
    doc["targets"] = {
        "peak_rss_gib_big_train": max(x["peak_rss_bytes"] for x in train["big"]) / 2**30,
        "startup_seconds_big_median": med("big", "startup_seconds"),
        "tokenize_mb_per_second": first["source_bytes"] / first["seconds"] / 1e6,
        "validation_seconds_small_median": med("small", "validation_seconds"),
        "validation_seconds_big_median": med("big", "validation_seconds"),
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    t = doc["targets"]
    print(f"| measure | target | 20 MB | {SIZE / 1e9:g} GB |")
    print("| --- | --- | ---: | ---: |")
    print(f"| first tokenization | ≥ 50 MB/s | {tokenize['small']['source_bytes'] / tokenize['small']['seconds'] / 1e6:.0f} MB/s "
          f"| {t['tokenize_mb_per_second']:.0f} MB/s ({first['seconds']:.1f} s) |")
    print(f"| store reopened | | | {tokenize['big (again)']['seconds']:.3f} s |")
    print(f"| train to first step, tokenized (median) | < 10 s | {med('small', 'startup_seconds'):.2f} s "
          f"| {t['startup_seconds_big_median']:.2f} s |")
    print(f"| peak RSS, 100 steps (max) | < 1.5 GiB | {max(x['peak_rss_bytes'] for x in train['small']) / 2**30:.2f} GiB "
          f"| {t['peak_rss_gib_big_train']:.2f} GiB |")
    print(f"| one validation (median) | the same | {t['validation_seconds_small_median']:.2f} s "
          f"| {t['validation_seconds_big_median']:.2f} s |")
    print(f"| baseline fit (first run) | | {train['small'][0]['baseline_seconds']:.1f} s "
          f"| {train['big'][0]['baseline_seconds']:.1f} s |")
    print("\n| data_fraction | startup (s) | validation (s) | peak RSS (GiB) |")
    print("| ---: | ---: | ---: | ---: |")
    for c in doc["sweep"]:
        print(f"| {c['data_fraction']} | {c['startup_seconds']:.2f} | {c['validation_seconds']:.2f} | "
              f"{c['peak_rss_bytes'] / 2**30:.2f} |")
    print(f"raw: {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
