#!/usr/bin/env python3
"""Each row of config-mode bench JSON against the ceiling the run attaches (OpenBLAS), and (with a
run directory) each `miniapp run` row against its own ceiling and against the bench.

Usage: host_gemm_ratios.py BENCH_JSON [RUN_DIR]  (RUN_DIR may be '')
"""
import json, sys
bench = json.load(open(sys.argv[1]))["benchmarks"]
rate = {b["name"].replace("/manual_time", ""): b["FLOP/s"] / 1e9 for b in bench if "FLOP/s" in b}
for b in bench:
    name = b["name"].replace("/manual_time", "")
    if name not in rate: continue
    c = b.get("ceiling")
    ratio = f"{rate[name] / (c / 1e9):.2f} of {b.get('label', '').split('ceiling: ')[-1]} ({c / 1e9:.0f} GFLOP/s)" if c else "no ceiling"
    print(f"  bench {name:62s} {rate[name]:8.1f} GFLOP/s  {ratio}")
if sys.argv[2]:
    for r in json.load(open(sys.argv[2] + "/results.json"))["results"]:
        cid = r["case_id"]
        b = rate.get(cid)
        agree = f"bench {b:.1f}, run/bench {r['gflops'] / b:.3f}" if b else "no bench row"
        pct = r.get("pct_of_ceiling")
        pct = f"{float(pct):.1f}%" if pct is not None else "-"
        print(f"  run   {cid:62s} {r['gflops']:8.1f} GFLOP/s  {pct} of {r.get('ceiling')} "
              f"(valid: {r.get('valid')}); {agree}")
