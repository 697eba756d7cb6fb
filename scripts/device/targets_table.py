#!/usr/bin/env python3
"""The targets mode's table: each `miniapp run` row (% of its same-run ceiling), the bench row of
the same case (% of the bench's ceiling), run against bench, and the references file's target.

Usage: targets_table.py RESULTS_JSON BENCH_JSON MEMCPY_TXT
"""
import json, re, sys
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# The bench rows of the same cases (miniapp-bench --miniapp-config), each with the ceiling the run
# attaches; the targets are the references file's (tests/gpu/references/targets.yaml).
rows = [b for b in json.load(open(sys.argv[2]))["benchmarks"] if not b.get("error_occurred")]
medians = [b for b in rows if b.get("aggregate_name") == "median"]
bench = {b.get("run_name", b["name"]).replace("/manual_time", ""): b for b in (medians or rows)}
m = re.search(r"([0-9.]+) GB/s", open(sys.argv[3]).read())
memcpy = float(m.group(1)) if m else None
print(f"  raw cudaMemcpy D2D {memcpy} GB/s")
print("  | case | run | % of same-run ceiling | bench | bench % | run/bench | target |")
for r in json.load(open(sys.argv[1]))["results"]:
    cid, t = r["case_id"], r["time_median_s"]
    bb = bench.get(cid)
    b = bb["real_time"] * scale[bb.get("time_unit", "ns")] if bb else None
    bpct = bb.get("pct_of_ceiling") if bb else None
    if r.get("ceiling_unit") == "GFLOP/s":
        rate = f"{r['gflops'] / 1e3:.2f} TFLOP/s"
    else:
        rate = f"{r['gbs']:.0f} GB/s" + (f" ({100 * r['gbs'] / memcpy:.1f}% of memcpy)" if memcpy else "")
    goal, met = r.get("reference"), r.get("reference_status") or "-"
    pct = r.get("pct_of_ceiling")
    agree = f"{100 * (t - b) / b:+.1f}%" if b else "no bench row"
    print(f"  | {cid} | {rate} | {pct:.1f}% of {r.get('ceiling')} (valid: {r.get('valid')}) | "
          f"{b * 1e3 if b else float('nan'):.4f} ms | {bpct if bpct else float('nan'):.1f}% | {agree} | "
          f"{goal if goal else '-'}% {met} |")
