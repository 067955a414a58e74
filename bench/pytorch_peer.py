#!/usr/bin/python3
"""The PyTorch peer of `lstm-workbench-cli bench`: the identical model (Embedding -> LSTM -> Dropout ->
Linear, last-step pooling for the classifier), synthetic batch, loss, gradient clipping and optimizer (Adam,
betas 0.9/0.999, eps 1e-8, the preset's learning rate, as core/engine/src/train/Optimizer.cpp) at the same thread
count, in Python PyTorch (Debian's python3-torch: run it with /usr/bin/python3; on the GPU machine its own
python3). Prints the median time per training step after warm-up, as one JSON object, so
scripts/bench-report.sh (CPU) and scripts/gpu-bench.sh (CUDA) can put it next to ours. On CUDA it times
as our bench does: synchronize before each clock read, bf16/fp16 through autocast."""
import argparse
import json
import os
import statistics
import sys
import time

# Shapes and hyper-parameters of the reference models (docs/performance.md; Config.cpp's presetConfig).
PRESETS = {
    "imdb": dict(task="classify", vocab=15000, emb=32, hidden=100, layers=1, seq=250, batch=64, classes=2,
                 lr=1e-3),
    "charrnn": dict(task="lm", vocab=65, emb=128, hidden=128, layers=2, seq=50, batch=64, classes=0, lr=2e-3),
    "poems": dict(task="lm", vocab=4379, emb=512, hidden=512, layers=2, seq=73, batch=32, classes=0, lr=1e-3),
}
NUM_SPECIAL = 4  # <pad>, <unk>, <bos>, <eos>: synthetic tokens avoid them, as the C++ bench does
GRAD_CLIP = 5.0


def onednn_implementations(train_step):
    """Which oneDNN implementation ran each kind of primitive in one more step (after the timed ones, so the
    verbose output costs them nothing): {"rnn": ["ref"], "inner_product": [...], "version": ["oneDNN v3.13.3"],
    "isa": [...]}. An implementation named ref is oneDNN's reference code: slow for most primitives (a oneDNN
    built without the CPU's kernels), but also the name of its RNN driver, whose products are jitted GEMMs.
    oneDNN writes its verbose lines to the process's stdout, which is redirected to a file meanwhile."""
    import tempfile
    import torch

    found = {}
    with tempfile.TemporaryFile(mode="w+") as capture:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(capture.fileno(), 1)
        try:
            with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
                train_step()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        for line in capture:
            fields = line.strip().split(",")
            # onednn_verbose[,v1][,primitive],exec,cpu,KIND,IMPLEMENTATION,... (oneDNN 2.x and 3.x alike)
            if fields[0] in ("onednn_verbose", "dnnl_verbose") and "info" in fields[:3]:
                text = fields[-1]
                if text.startswith("oneDNN v"):
                    found.setdefault("version", set()).add(text.split(" (")[0])
                elif text.startswith("isa:"):
                    found.setdefault("isa", set()).add(text[4:])
            elif fields[0] in ("onednn_verbose", "dnnl_verbose") and "exec" in fields:
                i = fields.index("exec")
                if len(fields) > i + 3:
                    found.setdefault(fields[i + 2], set()).add(fields[i + 3])
    return {kind: sorted(impls) for kind, impls in sorted(found.items())}


def tune_allocator():
    """glibc's mallopt, as core/engine/src/device/Allocator.cpp calls it: the same effect as the environment
    MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=2147483647 MALLOC_ARENA_MAX=1, but made by the script itself, so
    that running it by hand measures what scripts/bench-peers.sh measures."""
    import ctypes
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return  # not glibc: nothing to tune
    M_TRIM_THRESHOLD, M_MMAP_MAX, M_ARENA_MAX = -1, -4, -8
    libc.mallopt(M_MMAP_MAX, 0)
    libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1)
    libc.mallopt(M_ARENA_MAX, 1)


def cpu_description():
    """The CPU as /proc/cpuinfo names it: model, family, model number and the flags that decide which kernels
    run. Empty when /proc is not mounted (a chroot without it), which is itself a slow sign."""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return {}
    first = text.split("\n\n")[0]
    fields = {}
    for line in first.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    flags = set(fields.get("flags", "").split())
    wanted = ["avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_vnni", "amx_bf16"]
    return {"model_name": fields.get("model name", ""), "vendor": fields.get("vendor_id", ""),
            "family": int(fields.get("cpu family", "0") or 0), "model": int(fields.get("model", "0") or 0),
            "flags": [f for f in wanted if f in flags], "cpus": text.count("processor\t:")}


def page_fault_us(megabytes=64, tries=3):
    """What one page fault costs this machine, in microseconds: fresh anonymous pages touched once each (the
    kernel zeroes and maps each one; in a virtual machine the host may have to back it again first). Best of a
    few tries. A step that faults its tensors in anew pays this times page_faults_per_step."""
    import mmap
    size = megabytes << 20
    pages = size // mmap.PAGESIZE
    best = float("inf")
    for _ in range(tries):
        m = mmap.mmap(-1, size)
        t0 = time.perf_counter()
        m[0:size:mmap.PAGESIZE] = b"\x01" * pages  # one write per page, in C
        best = min(best, time.perf_counter() - t0)
        m.close()
    return best / pages * 1e6


def slow_signs(result, cpu, capability):
    """What makes a peer's number several times slower than it should be on this CPU, as sentences; empty when
    nothing is seen. Each was seen on a real machine (docs/performance.md)."""
    signs = []
    if not cpu:
        signs.append("/proc/cpuinfo is unreadable (a chroot without /proc?): PyTorch's cpuinfo then falls back "
                     "to its kernels without AVX")
    elif "avx512f" in cpu["flags"] and capability not in ("AVX512", "AVX512_BF16", "AMX", "unknown"):
        signs.append(f"the CPU has AVX-512 but torch reports capability {capability}")
    elif "avx512f" not in cpu["flags"]:
        signs.append("this CPU has no AVX-512: every product runs at AVX2 width at most")
    if result["precision"] == "bf16" and cpu and "avx512_bf16" not in cpu["flags"]:
        signs.append("no AVX512_BF16: bf16 autocast converts and computes in fp32")
    for kind, impls in result.get("onednn_implementations", {}).items():
        if kind in ("version", "isa"):
            continue
        slow = [i for i in impls if i.startswith("ref") or i.startswith("gemm:ref")]
        # oneDNN's RNN driver is also called ref and does its products with jitted GEMMs: only bf16 there.
        if slow and (kind != "rnn" or result["precision"] == "bf16"):
            signs.append(f"oneDNN ran its reference code for {kind} ({', '.join(slow)})")
    # Faults that cost more than 5 % of the step: a thousand a step is nothing on poems (600 ms a step), and
    # 15,000 at 2 us were half of imdb's step.
    fault_ms = result["page_faults_per_step"] * result["page_fault_us"] / 1e3
    if fault_ms > 0.05 * result["median_step_ms"]:
        signs.append(f"{result['page_faults_per_step']:.0f} page faults a step at "
                     f"{result['page_fault_us']:.1f} us each: the allocator hands large tensors back to the "
                     "kernel and faults them in again every step (--allocator tuned avoids it)")
    if result["system_share"] > 0.10:
        signs.append(f"{100 * result['system_share']:.0f} % of the step in the kernel")
    return signs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="imdb", choices=sorted(PRESETS))
    ap.add_argument("--threads", type=int, default=1, help="torch's intra-op threads")
    ap.add_argument("--blas-threads", default="same",
                    help="OpenBLAS threads: a number, 'same' (as --threads) or 'default' (OpenBLAS's own "
                         "choice, one per core: what a user who sets nothing gets)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", default="cpu", help="cpu or cuda[:N]")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "fp16"])
    ap.add_argument("--batch-size", type=int, default=0, help="override the preset's batch size")
    ap.add_argument("--cases", default="",
                    help="several presets in one process, each PRESET[:BATCH], comma-separated (one JSON "
                         "object a line); overrides --preset")
    ap.add_argument("--tf32", action="store_true", help="CUDA: fp32 matrix products in TF32")
    ap.add_argument("--profile", action="store_true",
                    help="CUDA: also profile a few steps (torch.profiler): kernels per step and their time")
    ap.add_argument("--mkldnn", default="on", choices=["on", "off"],
                    help="torch.backends.mkldnn.enabled: PyTorch 2.x trains a CPU LSTM through oneDNN when on "
                         "(its default), through its own matrix products and BLAS when off")
    ap.add_argument("--allocator", default="tuned", choices=["tuned", "default"],
                    help="glibc malloc: tuned as our programs tune it (wb::tuneAllocatorForTraining: no mmap "
                         "per large block, no trimming, one arena), set here before torch loads; default "
                         "leaves glibc's, where every large tensor is a fresh mmap whose pages fault in each "
                         "step (docs/performance.md, 'Why the same peer runs 5-10x slower elsewhere')")
    ap.add_argument("--flush-denormal", default="off", choices=["on", "off"],
                    help="torch.set_flush_denormal: subnormal floats read and written as zero, as our CPU "
                         "jobs compute (DeviceSetup.h); off is PyTorch's default. Set before the first "
                         "parallel region, so that the intra-op threads, started from this one, copy it")
    args = ap.parse_args()
    if args.allocator == "tuned":
        tune_allocator()

    # OpenBLAS reads its thread count when it is loaded (with torch). The C++ side sets both; the search for
    # PyTorch's best setting (scripts/bench-report.sh) also leaves OpenBLAS at its default.
    # OpenBLAS falls back to OMP_NUM_THREADS when OPENBLAS_NUM_THREADS is unset, so its default means neither
    # is set (torch.set_num_threads below sets torch's own count either way).
    if args.blas_threads == "default":
        os.environ.pop("OPENBLAS_NUM_THREADS", None)
        os.environ.pop("OMP_NUM_THREADS", None)
    else:
        blas = args.threads if args.blas_threads == "same" else int(args.blas_threads)
        os.environ["OPENBLAS_NUM_THREADS"] = str(blas)
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch

    if args.flush_denormal == "on" and not torch.set_flush_denormal(True):
        ap.error("--flush-denormal on: this CPU has no flush-to-zero mode that torch can set")
    torch.set_num_threads(args.threads)
    torch.backends.mkldnn.enabled = args.mkldnn == "on"
    if args.tf32:
        torch.backends.cuda.matmul.allow_tf32 = True
    cases = [c for c in args.cases.split(",") if c] if args.cases else [args.preset]
    for case in cases:
        preset, _, batch = case.partition(":")
        if preset not in PRESETS:
            ap.error(f"unknown preset {preset!r} in {case!r} (expected {', '.join(sorted(PRESETS))})")
        json.dump(run_case(args, preset, int(batch) if batch else args.batch_size), sys.stdout)
        sys.stdout.write("\n")
        sys.stdout.flush()


def run_case(args, preset, batch_size):
    """One preset at one batch size: the median step, and with --profile where a step's GPU time goes."""
    import torch
    from torch import nn

    p = dict(PRESETS[preset])
    if batch_size > 0:
        p["batch"] = batch_size
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)

    def sync():
        if cuda:
            torch.cuda.synchronize(device)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(p["vocab"], p["emb"])
            self.lstm = nn.LSTM(p["emb"], p["hidden"], num_layers=p["layers"], batch_first=True)
            self.dropout = nn.Dropout(0.0)
            self.head = nn.Linear(p["hidden"], p["classes"] if p["task"] == "classify" else p["vocab"])

        def forward(self, x):
            out, _ = self.lstm(self.embedding(x))
            if p["task"] == "classify":
                out = out[:, -1]  # every synthetic sequence has the full length: "last" pooling
            return self.head(self.dropout(out))

    torch.manual_seed(42)
    model = Model().to(device)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=p["lr"], betas=(0.9, 0.999), eps=1e-8)
    torch.manual_seed(1234)
    b, t, v = p["batch"], p["seq"], p["vocab"]
    inputs = torch.randint(NUM_SPECIAL, v, (b, t)).to(device)
    if p["task"] == "lm":
        targets = torch.randint(NUM_SPECIAL, v, (b, t)).reshape(-1).to(device)
    else:
        targets = torch.randint(0, p["classes"], (b,)).to(device)

    def train_step():
        opt.zero_grad(set_to_none=False)
        with torch.autocast(device_type=device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            logits = model(inputs)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), targets)
        # As core/engine/src/train/TrainingStep.cpp: autocast around the forward and the loss, no loss scaling.
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
        opt.step()

    import resource
    times = []
    for i in range(args.warmup + args.steps):
        if i == args.warmup:
            usage0 = resource.getrusage(resource.RUSAGE_SELF)
            wall0 = time.perf_counter()
        sync()
        t0 = time.perf_counter()
        train_step()
        sync()
        dt = time.perf_counter() - t0
        if i >= args.warmup:
            times.append(dt)
    usage1 = resource.getrusage(resource.RUSAGE_SELF)
    wall = time.perf_counter() - wall0
    faults = (usage1.ru_minflt - usage0.ru_minflt + usage1.ru_majflt - usage0.ru_majflt) / args.steps
    system = usage1.ru_stime - usage0.ru_stime
    user = usage1.ru_utime - usage0.ru_utime
    onednn = onednn_implementations(train_step) if args.mkldnn == "on" and not cuda else {}
    step_ms = statistics.median(times) * 1e3
    us = step_ms * 1e3 / b
    result = {"preset": preset, "device": str(device), "precision": args.precision,
              "device_name": torch.cuda.get_device_name(device) if cuda else "CPU",
              "threads": torch.get_num_threads(), "torch": torch.__version__,
              "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"), "mkldnn": args.mkldnn,
              "flush_denormal": args.flush_denormal,
              "tf32": bool(args.tf32), "batch_size": b, "seq_len": t, "median_step_ms": step_ms,
              "us_per_sample": us, "tokens_per_s": 1e6 / us * t, "step_ms": [x * 1e3 for x in times],
              "onednn_implementations": onednn, "allocator": args.allocator,
              "page_faults_per_step": faults, "system_ms_per_step": system * 1e3 / args.steps,
              "user_ms_per_step": user * 1e3 / args.steps,
              "system_share": system / (system + user) if system + user > 0 else 0.0,
              "wall_ms_per_step": wall * 1e3 / args.steps}
    if not cuda:
        cpu = cpu_description()
        capability = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else "unknown"
        result["cpu"] = cpu
        result["page_fault_us"] = page_fault_us()
        result["torch_cpu_capability"] = capability
        result["slow_signs"] = slow_signs(result, cpu, capability)
        for sign in result["slow_signs"]:
            print(f"pytorch_peer: slow sign ({preset} x{args.threads} {args.precision}): {sign}", file=sys.stderr)
    if args.profile and cuda:
        try:
            result["profile"] = kernel_profile(train_step, sync)
        except Exception as e:  # the timing stands without it
            result["profile"] = {"error": f"{type(e).__name__}: {e}"}
    return result


def kernel_profile(train_step, sync, steps=5):
    """Where the GPU's time goes in a step (torch.profiler, after the timed steps): kernels per step, the
    kernels' summed time per step against the step's wall time, and the kernels that take the most."""
    from torch.profiler import ProfilerActivity, profile

    sync()
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            train_step()
        sync()
    wall_ms = (time.perf_counter() - t0) * 1e3 / steps
    kernels = {}
    for e in prof.events():
        # The GPU timeline also holds the optimizer's annotations (Optimizer.step#Adam.step): ranges, not kernels.
        if getattr(e, "device_type", None) is not None and "CUDA" in str(e.device_type) and e.name and \
                not e.name.startswith("Optimizer."):
            k = kernels.setdefault(e.name, [0, 0.0])
            k[0] += 1
            k[1] += e.device_time if hasattr(e, "device_time") else e.cuda_time
    total_us = sum(k[1] for k in kernels.values())
    top = sorted(kernels.items(), key=lambda kv: -kv[1][1])[:10]
    return {"steps": steps, "wall_ms_per_step_profiled": wall_ms,
            "kernel_launches_per_step": sum(k[0] for k in kernels.values()) / steps,
            "kernel_ms_per_step": total_us / 1e3 / steps,
            "top_kernels": [{"name": name[:120], "calls_per_step": c / steps, "ms_per_step": us / 1e3 / steps}
                            for name, (c, us) in top]}


if __name__ == "__main__":
    main()
