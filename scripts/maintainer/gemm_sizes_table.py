#!/usr/bin/env python3
"""The curve of scripts/gpu-run.sh sizes: each `miniapp run` row of tests/gpu/gemm_sizes*.yaml
against the vendor GEMM of its own shape (same run), with what the defaults chose (shape, split-K
parts) and, given miniapp-bench JSON of the same cases, run against bench; then each odd size's
share against that of its nearest multiple of 128 in every dimension (issue 44: within 5 points
from 2048 up, square or not).
  gemm_sizes_table.py RUN_DIR [RUN_DIR...] [--bench BENCH.json]"""
import json
import sys

args = sys.argv[1:]
bench = {}
if "--bench" in args:
    i = args.index("--bench")
    for b in json.load(open(args[i + 1])).get("benchmarks", []):
        if not b.get("error_occurred"):
            scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ms")]
            bench[b["name"].replace("/manual_time", "")] = b["real_time"] * scale
    del args[i : i + 2]
rows = []
for d in args:
    rows += json.load(open(d + "/results.json"))["results"]
share = {}
print("| precision | m x n x k | TFLOP/s | % of vendor | vendor TFLOP/s | shape | split | padded | valid | run/bench |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    pct, c = r.get("pct_of_ceiling"), r.get("ceiling_value")
    b = bench.get(r["case_id"])
    agree = f"{100 * (r['time_median_s'] - b) / b:+.1f}%" if b else "-"
    size = (r["m"], r["n"], r["k"])
    share[(r["precision"], size)] = pct
    print(f"| {r['precision']} | {r['m']}x{r['n']}x{r['k']} | {r['gflops'] / 1e3:.2f} | "
          f"{pct:.1f}% | {c / 1e3 if c else float('nan'):.2f} | {r.get('shape') or '-'} | "
          f"{r.get('split_k') or '-'} | {r.get('padded')} | {r.get('valid')} | {agree} |")
print("odd sizes against their nearest multiple of 128 (each dimension rounded; all from 2048 up):")
for (prec, size), pct in sorted(share.items()):
    if min(size) < 2048 or all(d % 128 == 0 for d in size):
        continue
    near = tuple(round(d / 128) * 128 for d in size)
    ref = share.get((prec, near))
    if ref is None or pct is None:
        continue
    gap = ref - pct
    name = lambda s: "x".join(map(str, s)) if len(set(s)) > 1 else str(s[0])
    print(f"  {prec} {name(size)}: {pct:.1f}% against {ref:.1f}% at {name(near)}: {gap:+.1f} "
          f"points ({'within' if gap <= 5 else 'OUTSIDE'} 5)")
