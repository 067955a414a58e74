#!/usr/bin/env python3
"""Writes the fuzz targets' seed inputs into fuzz/seeds/<target>/ (the project's own small examples; no
third-party data). Re-run after changing it: python3 fuzz/seeds/make_seeds.py. Files are rewritten in
place; a seed removed here must be deleted from its folder by hand."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = b"\x01"  # the separator of the folder and runfolder targets' archives


def write(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def safetensors(tensors, metadata=None):
    """tensors: {name: (dtype, shape, bytes)}; the same layout as core/domain/src/io/Safetensors.cpp writes."""
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


# --- utf8 --------------------------------------------------------------------------------------------
write("utf8", "ascii.txt", "plain ASCII text\nsecond line\n")
write("utf8", "chinese.txt", "山中月色照清泉，\n风过林间鸟自眠。\n")
write("utf8", "bom.txt", b"\xef\xbb\xbfwith a byte order mark\n")
write("utf8", "mixed.txt", "caf\u00e9 \u00fcber \u03bb \U0001F600 \u2026 end\n")
write("utf8", "overlong.bin", b"ok \xc0\xaf then more\n")
write("utf8", "surrogate.bin", b"x\xed\xa0\x80y")
write("utf8", "truncated.bin", b"line one\nline two \xe6\x98")
write("utf8", "stray.bin", b"\x80\xbf\xf5\x80\x80\x80\xf4\x90\x80\x80")

# --- text --------------------------------------------------------------------------------------------
write("text", "paragraphs.txt", "First paragraph, one line.\n\nSecond paragraph\nspans two lines.\n\n\n   \nThird.\n")
write("text", "crlf.txt", b"windows line\r\nendings here\r\n\r\nand an old mac\rline\r")
write("text", "chinese.txt", "\ufeff青山不语水自流，\n白云无心出岫头。\n\n夜半钟声到客船。\n")
write("text", "blank.txt", " \n\t\n")
write("text", "nul.txt", b"text with a \x00 byte\n")

# --- poems -------------------------------------------------------------------------------------------
poems = [
    {"title": "山行", "author": "测试", "paragraphs": ["远山青处白云生，", "溪水无声绕石行。"]},
    {"author": "无名", "paragraphs": ["月照空林夜色深。"], "tags": ["test", {"nested": [1, 2.5, None, True]}]},
    {"title": None, "author": None, "paragraphs": ["一行。", "二行。", "三行。"], "id": 7},
]
write("poems", "poems.json", json.dumps(poems, ensure_ascii=False, indent=1))
write("poems", "escaped.json", json.dumps(poems[:1], ensure_ascii=True))
write("poems", "empty.json", "[]")
write("poems", "wrong_shape.json", '[{"title": "x", "paragraphs": "not an array"}]')
write("poems", "object.json", '{"paragraphs": ["a"]}')
write("poems", "unterminated.json", '[{"title": "x", "paragraphs": ["a", "b"')

# --- tsv / csv ---------------------------------------------------------------------------------------
write("tsv", "plain.tsv", "pos\ta fine, warm film\nneg\ta slow, dull film\npos\tloved it\n")
write("tsv", "header.tsv", "id\ttext\tlabel\n1\tgood\tpos\n2\tbad\tneg\n")
write("tsv", "quoted.tsv", 'label\ttext\npos\t"a ""quoted"" review\nover two lines"\nneg\t"tab\tinside"\n')
write("tsv", "one_class.tsv", "pos\tonly\npos\tone class\n")
write("tsv", "missing_column.tsv", "pos\tok\nneg\n")
write("csv", "plain.csv", "spam,win money now\nham,see you at lunch\nspam,\"free, really free\"\n")
write("csv", "header.csv", "Text,Label\r\n\"hello, world\",greeting\r\nbye,farewell\r\n")
write("csv", "quoted.csv", 'label,text\na,"multi\nline ""field"""  \nb,plain\n')
write("csv", "bad_quote.csv", 'label,text\na,"closed" then more\n')
write("csv", "unterminated.csv", 'label,text\na,"never closed\n')

# --- folder (entries "PATH\nCONTENT" separated by 0x01; "@PATH" is a symlink to CONTENT) -------------
def archive(*entries):
    return SEP.join(e.encode("utf-8") if isinstance(e, str) else e for e in entries)

write("folder", "two_classes.bin", archive("pos/a.txt\nloved it", "pos/b.txt\ngreat fun", "neg/c.txt\ndull"))
write("folder", "hidden_and_empty.bin", archive("pos/.hidden\nx", "pos/a\ntext", "neg/b\n  \n", ".git/x\ny"))
write("folder", "symlinks.bin", archive("pos/a\ntext a", "neg/b\ntext b", "@neg/link\npos/a", "@pos/loop\npos",
                                        "@neg/dangling\nnowhere", "@other\npos"))
write("folder", "one_class.bin", archive("only/a\none", "only/b\ntwo"))
write("folder", "chinese.bin", archive("诗/一.txt\n春来江水绿。", "文/二.txt\n秋去山色黄。", "empty/"))
write("folder", "binary.bin", archive("a/x\nok", b"b/y\nnul \x00 inside"))

# --- config ------------------------------------------------------------------------------------------
config = {
    "name": "seed", "task": "lm",
    "data": {"corpus": "corpus.txt", "format": "text", "tokens": "char", "vocab_size": 0, "min_count": 1,
             "seq_len": 64, "stride": 0, "val_fraction": 0.1},
    "model": {"embedding": 64, "hidden": 128, "layers": 2, "bidirectional": False, "dropout": 0.1,
              "pooling": "last", "backend": "auto"},
    "train": {"batch_size": 32, "learning_rate": 0.002, "optimizer": "adam", "epochs": 1, "max_steps": 0,
              "grad_clip": 5.0, "validate_every": 0, "early_stop_patience": 0, "seed": 42, "warmup_steps": 3,
              "log_every": 10},
    "device": {"device": "cpu", "threads": 1, "precision": "fp32"},
}
write("config", "full.json", json.dumps(config, indent=2))
classify = json.loads(json.dumps(config))
classify.update(task="classify")
classify["data"].update(format="folder", tokens="word", vocab_size=10000, seq_len=200)
classify["model"].update(bidirectional=True, pooling="mean")
write("config", "classify.json", json.dumps(classify))
write("config", "minimal.json", '{"data": {"corpus": "x"}}')
write("config", "floats.json", '{"data": {"corpus": "x", "seq_len": 64.0}, "train": {"seed": 18446744073709551615,'
                               ' "epochs": 1e3, "learning_rate": 1e-308}}')
write("config", "wrong_types.json", '{"model": {"hidden": "big"}, "task": "regress"}')
write("config", "not_object.json", "[1, 2, 3]")
write("config", "nulls.json", '{"name": null, "data": null, "model": {"dropout": null}}')

# --- safetensors -------------------------------------------------------------------------------------
progress = {"format": "lstm-workbench", "optimizer": "adam", "step": "10", "optimizer_steps": "10",
            "epoch_index": "0", "batch_in_epoch": "10", "samples": "320", "wall_seconds": "1.5",
            "measured_seconds": "1.25", "measured_samples": "224", "last_train_loss": "2.75",
            "best_val_loss": "0", "best_val_accuracy": "0", "final_val_loss": "0", "final_val_accuracy": "0",
            "bad_validations": "0"}
model = safetensors({"embedding.weight": ("F32", [3, 2], f32(1, 2, 3, 4, 5, 6)),
                     "head.bias": ("F32", [3], f32(0.5, -0.5, 0)),
                     "counts": ("I64", [2], struct.pack("<2q", 7, -7))}, {"format": "pt"})
optimizer = safetensors({"state.0.exp_avg": ("F32", [2, 2], f32(0, 0, 0, 0)),
                         "state.0.step": ("BF16", [1], b"\x80\x3f")}, progress)
write("safetensors", "model.safetensors", model)
write("safetensors", "optimizer.safetensors", optimizer)
write("safetensors", "empty_shape.safetensors", safetensors({"scalar": ("F64", [], struct.pack("<d", 3.5)),
                                                              "none": ("U8", [0, 5], b"")}))
write("safetensors", "only_metadata.safetensors", safetensors({}, {"a": "b"}))
write("safetensors", "short.safetensors", b"\x10\x00\x00\x00")
bad = bytearray(model)
bad[0] = 0xFF  # header length past the end of the file
write("safetensors", "bad_length.safetensors", bytes(bad))

# --- runfolder: config.json, run.json, metrics.csv, vocab.json, optimizer, model, optimizer.next, model.next
run = {"id": "seed-run", "status": "completed", "device": "cpu", "device_name": "CPU", "threads": 1,
       "precision": "fp32", "libtorch_version": "1.13", "blas": "openblas", "host": "h",
       "started_at": "2024-01-01T00:00:00Z", "ended_at": "2024-01-01T00:01:00Z", "timing_method": "wall",
       "error": "", "summary": {"steps": 10, "epochs": 1.0, "samples": 320, "train_seconds": 1.5,
                                "samples_per_second": 179.2, "us_per_sample": 5580.3, "tokens_per_second": 0,
                                "final_train_loss": 2.75, "best_val_loss": None, "best_val_accuracy": 0,
                                "final_val_loss": 0, "final_val_accuracy": 0, "parameters": 1234}}
metrics = ("run_id,step,epoch,samples,wall_s,split,metric,value\n"
           "seed-run,5,0.5,160,0.7,train,loss,3.1\n"
           "seed-run,10,1,320,1.5,train,loss,2.75\n"
           "seed-run,10,1,320,1.6,val,loss,nan\n"
           "seed-run,10,1,320,1.6,speed,samples_per_s,inf\n")
vocab = {"level": "char", "tokens": ["<pad>", "<unk>", "<bos>", "<eos>", "a", "b", " ", "春"],
         "classes": ["neg", "pos"]}


def runfolder(*parts):
    return SEP.join(p.encode("utf-8") if isinstance(p, str) else p for p in parts)


write("runfolder", "complete.bin", runfolder(json.dumps(config), json.dumps(run, indent=1), metrics,
                                             json.dumps(vocab), optimizer, model))
write("runfolder", "minimal.bin", runfolder("{}", "{}"))
write("runfolder", "interrupted_commit.bin", runfolder(json.dumps(config), json.dumps(run), "", json.dumps(vocab),
                                                       optimizer, model, optimizer, model))
write("runfolder", "half_commit.bin", runfolder(json.dumps(config), json.dumps(run), metrics, "", optimizer,
                                                model, optimizer))
write("runfolder", "mismatched_id.bin", runfolder(json.dumps(config), '{"id": "other"}', metrics))
write("runfolder", "bad_metrics.bin", runfolder(json.dumps(config), json.dumps(run),
                                                metrics.replace("0.7", "soon") + "x,1\n"))
write("runfolder", "word_vocab.bin", runfolder("{}", '{"status": "running", "summary": {"steps": 3}}', "",
                                               '{"level": "word", "tokens": ["<pad>", "<unk>", "<bos>", "<eos>",'
                                               ' "the", "film"]}'))

# --- verse: a first byte for the reader (0 tones, 1 rhymes, 2 baseline, 3 strict meter, 4 and up a poem) ----
write("verse", "tones.bin", b"\x00" + json.dumps({"format": "lstm-workbench tones", "version": 1,
                                                  "traditional": {"山": [9, 0, 0], "白": [0, 9, 0]},
                                                  "simplified": {"楼": [9, 0, 0]}}, ensure_ascii=False).encode())
write("verse", "rhymes.bin", b"\x01" + json.dumps({"format": "lstm-workbench rhymes", "version": 1, "groups": [
    {"name": "尤", "traditional": "流樓", "simplified": "流楼"}]}, ensure_ascii=False).encode())
write("verse", "baseline.bin", b"\x02" + json.dumps({"method": "interpolated Kneser-Ney", "order": 5,
                                                     "bits_per_token": 7.36, "bits_per_token_by_order": [9.2, 7.7],
                                                     "train_tokens": 100, "validation_targets": 10,
                                                     "vocabulary": 50}).encode())
write("verse", "poem.bin", b"\x04" + "白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。".encode())
write("verse", "ragged.bin", b"\x04" + "白日，，\n\n山 流\u3000樓。看".encode())


def strict_meter_seed(lines, line_chars, tones_and_groups, choices):
    """Strict meter's bytes, as fuzz_verse.cpp's strictMeterPasses reads them: the character count (4 + b % 40),
    the lines (b % 2: 8 or 4) and their length (b % 2: 7 or 5), then per character its tone (b % 4: 0 none,
    1 level, 2 oblique, 3 both) and its rhyme groups (bits 0-3), then the choices among the allowed
    characters (read cyclically from the start)."""
    out = bytes([3, len(tones_and_groups) - 4, 1 if lines == 8 else 0, 1 if line_chars == 7 else 0])
    for tone, groups in tones_and_groups:
        out += bytes([tone, groups])
    return out + bytes(choices)


# Tables PoemMeter accepts (the random bytes of the first seed made it refuse them, so the promise was never
# checked): 40 characters alternating level and oblique, the level ones in rhyme group 0, some in group 1
# as well; one of "both" tones and one outside the table. Every pattern of a 七绝 is then usable.
chars = [(1 if i % 2 == 0 else 2, (1 | (2 if i % 6 == 0 else 0)) if i % 2 == 0 else 0) for i in range(38)]
chars += [(3, 1), (0, 0)]
write("verse", "strict-meter.bin", strict_meter_seed(4, 7, chars, [7, 3, 11, 5, 2, 13, 1, 17]))
write("verse", "strict-meter-regulated5.bin", strict_meter_seed(8, 5, chars, [4, 9, 6, 1]))


# --- sweep: sweep.json as `lstm-workbench-cli sweep` writes it (a 2 x 2 grid, made here) --------------------
SWEEP = {'axes': [{'field': 'hidden', 'values': ['8', '12']}, {'field': 'batch_size', 'values': ['4', '8']}], 'base': {'data': {'corpus': '/data/corpus.txt', 'data_fraction': 1.0, 'format': 'auto', 'min_count': 1, 'seq_len': 8, 'stride': 0, 'tokens': 'char', 'val_fraction': 0.1, 'vocab_size': 0}, 'device': {'device': 'cpu', 'precision': 'auto', 'processes': 1, 'thread_split': 'batch', 'threads': 0}, 'model': {'backend': 'auto', 'bidirectional': False, 'dropout': 0.1, 'embedding': 8, 'hidden': 256, 'layers': 1, 'pooling': 'last'}, 'name': 'Tang quatrains (char LM)', 'task': 'lm', 'train': {'batch_size': 32, 'early_stop_patience': 0, 'epochs': 0, 'grad_clip': 5.0, 'learning_rate': 0.004, 'log_every': 10, 'lr_schedule': 'cosine', 'lr_warmup_steps': 100, 'max_steps': 1, 'optimizer': 'adam', 'seed': 42, 'validate_every': 0, 'validation_samples': 3, 'warmup_steps': 3, 'weight_decay': 0.01}}, 'cells': [{'error': '', 'index': 0, 'peak_rss_bytes': 192593920, 'repeat': 0, 'run_dir': 'runs/000-hidden-8-batch-size-4', 'setting': {'batch_size': '4', 'hidden': '8'}, 'state': 'done'}, {'error': '', 'index': 1, 'peak_rss_bytes': 192610304, 'repeat': 0, 'run_dir': 'runs/001-hidden-8-batch-size-8', 'setting': {'batch_size': '8', 'hidden': '8'}, 'state': 'done'}, {'error': '', 'index': 2, 'peak_rss_bytes': 192819200, 'repeat': 0, 'run_dir': 'runs/002-hidden-12-batch-size-4', 'setting': {'batch_size': '4', 'hidden': '12'}, 'state': 'done'}, {'error': '', 'index': 3, 'peak_rss_bytes': 193171456, 'repeat': 0, 'run_dir': 'runs/003-hidden-12-batch-size-8', 'setting': {'batch_size': '8', 'hidden': '12'}, 'state': 'done'}], 'format': 'lstm-workbench sweep', 'repeats': 1, 'target_loss': 2.5}

write("sweep", "sweep.json", json.dumps(SWEEP, indent=2))
states = dict(SWEEP, cells=[dict(c, state=s, error="cell failed: out of memory" if s == "failed" else "")
                            for c, s in zip(SWEEP["cells"], ["done", "running", "failed", "queued"])])
write("sweep", "states.json", json.dumps(states))
escape = dict(SWEEP, cells=[dict(SWEEP["cells"][0], run_dir="runs/../../outside")])
write("sweep", "run-dir-escape.json", json.dumps(escape))
write("sweep", "truncated.json", json.dumps(SWEEP)[:700])
