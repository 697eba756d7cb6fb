#!/usr/bin/env python3
"""The rows of miniapp-bench JSON: name (padded), time, rates and, with --miniapp-config, the
share of the ceiling the run attaches to the same case.

Usage: bench_rows.py BENCH_JSON WIDTH
"""
import json, sys
w = int(sys.argv[2])
for b in json.load(open(sys.argv[1])).get("benchmarks", []):
    name = b["name"].replace("/manual_time", "")
    if b.get("error_occurred"):
        print(f"{name:{w}s} ERROR {b.get('error_message', '')}")
        continue
    rates = " ".join(f"{k}={b[k] / 1e9:.2f}G" for k in ("FLOP/s", "bytes/s") if b.get(k))
    pct = ""
    if "pct_of_ceiling" in b:
        pct = f" {b['pct_of_ceiling']:.1f}% of {b.get('label', '').split('ceiling: ')[-1]}"
    print(f"{name:{w}s} {b['real_time']:10.4g} {b['time_unit']} {rates}{pct}")
