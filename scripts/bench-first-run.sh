#!/usr/bin/env bash
# The first run fitted to the machine (issue #63): the default experiment as the app's first launch plans it
# — a few steps timed here and max steps cut to what fits 10 minutes (`train --fit-minutes 10`: the engine's
# fitToSeconds on the same time model the app's estimate uses) — then trained on every core, timed from the
# fit to its end as a user waits for it. Checks the estimate against the real time (within 20 %), the real
# time (about 10 minutes) and the model against its 5-gram baseline (below it at the end).
# CAP=avx2 runs it as on an AVX2-only CPU: our kernels capped (LSTM_WORKBENCH_CPU_CAPABILITY) and LibTorch's
# (ATEN_CPU_CAPABILITY) and OpenBLAS's (OPENBLAS_CORETYPE=Haswell); without AVX512_BF16, `--precision auto` trains in fp32. Run it on an idle machine.
# STEPS=N trains N steps instead of fitting (what another machine's fit gives it, to check that length's
# quality here: the learning depends on the steps, not on how fast the machine takes them), with SCHEDULE=M
# its learning rates decaying over M steps as a fit from M steps sets them (--lr-schedule-steps).
# Writes docs/benchmarks/first-run/STAMP-CAP/ (the run's config.json, run.json, metrics.csv, baseline.json, the
# log with a clock at each line, lscpu) and STAMP-CAP.json (the numbers and the command).
#   CAP=avx2 scripts/bench-first-run.sh
#   (env: CAP=native|avx2, MINUTES=10, STEPS, SCHEDULE, PRECISION, BUILD_DIR=build-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib-bench-cli.sh  # BUILD_DIR, and cli: the release CLI, built up to date
cap=${CAP:-native}
minutes=${MINUTES:-10}
env_cap=()
if [ "$cap" = avx2 ]; then
  env_cap=(LSTM_WORKBENCH_CPU_CAPABILITY=avx2 ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2
    MKL_ENABLE_INSTRUCTIONS=AVX2 OPENBLAS_CORETYPE=Haswell)
fi
length=(--fit-minutes "$minutes")
[ -n "${STEPS:-}" ] && length=(--max-steps "$STEPS" ${SCHEDULE:+--lr-schedule-steps "$SCHEDULE"})
stamp=$(date -u +%Y%m%d-%H%M)-$cap${STEPS:+-$STEPS-steps}${SCHEDULE:+-of-$SCHEDULE}
out_dir=docs/benchmarks/first-run/$stamp
mkdir -p "$out_dir"
work=$(mktemp -d /tmp/lstm-workbench-first-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$cli" prepare tang-quatrains-7 >/dev/null
lscpu >"$out_dir/lscpu.txt"
command=(env "${env_cap[@]}" "$cli" train tang-quatrains-7 --out "$work/run" "${length[@]}"
  ${PRECISION:+--precision "$PRECISION"})
load_before=$(cut -d' ' -f1 /proc/loadavg)
# Each line of the log with the seconds since the start: the fit's line says when training begins.
start=$(date +%s.%N)
"${command[@]}" 2>&1 | while IFS= read -r line; do
  printf '%.1f %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$line"
done >"$out_dir/log.txt"
end=$(date +%s.%N)
load_after=$(cut -d' ' -f1 /proc/loadavg)
cp "$work/run/config.json" "$work/run/run.json" "$work/run/metrics.csv" "$work/run/baseline.json" "$out_dir/"
python3 - "$out_dir" "$start" "$end" "$load_before" "$load_after" "$cap" "$(git describe --always --dirty)" \
  "${command[*]}" <<'PY'
import csv, json, math, os, sys
out, start, end, lb, la, cap, commit, command = sys.argv[1:]
log = [l.split(" ", 1) for l in open(f"{out}/log.txt").read().splitlines()]
# Training begins after the fit's line (or, unfitted, the line that says what it trains).
fit_line = next((float(t) for t, text in log if "steps asked, to fit" in text or text.startswith("training ")), None)
run = json.load(open(f"{out}/run.json"))
lscpu = dict((k.strip(), v.strip()) for k, _, v in (l.partition(":") for l in open(f"{out}/lscpu.txt")))
plan = run["plan"]
base = json.load(open(f"{out}/baseline.json"))["bits_per_token"]
total = float(end) - float(start)
trained = total - fit_line if fit_line is not None else None
vals = [(int(r["step"]), float(r["wall_s"]), float(r["value"])) for r in csv.DictReader(open(f"{out}/metrics.csv"))
        if r["split"] == "val" and r["metric"] == "loss" and r["value"] not in ("", "nan")]
bpc = [(s, w, v / math.log(2)) for s, w, v in vals]
first_below = next(((s, w) for s, w, b in bpc if b < base), None)
doc = {"command": "scripts/bench-first-run.sh (CAP=%s)" % cap, "train_command": command, "commit": commit,
       "cpu": "{} (lscpu family {} model {})".format(*(lscpu.get(k, "?") for k in ("Model name", "CPU family", "Model"))),
       "cap": cap, "precision": run["precision"], "threads": run["threads"], "plan": plan,
       "calibration_and_fit_seconds": fit_line, "trained_seconds": round(trained, 1) if trained else None,
       "estimate_over_real": round(plan["estimated_seconds"] / trained, 3) if plan and trained else None,
       "val_bpc_by_step": [[s, round(w, 1), round(b, 4)] for s, w, b in bpc],
       "steps": run["summary"]["steps"], "baseline_bpc": base,
       "final_val_bpc": bpc[-1][2] if bpc else None, "best_val_bpc": min(b for _, _, b in bpc) if bpc else None,
       "first_below_baseline": {"step": first_below[0], "wall_seconds": first_below[1]} if first_below else None,
       "load_before": float(lb), "load_after": float(la)}
json.dump(doc, open(out + ".json", "w"), indent=2)
print(json.dumps(doc, indent=2))
PY
