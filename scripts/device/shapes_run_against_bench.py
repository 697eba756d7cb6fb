#!/usr/bin/env python3
"""The shapes mode's `miniapp run` rows beside miniapp-bench's times for the same case ids.

Usage: shapes_run_against_bench.py RESULTS_JSON BENCH_JSON
"""
import json, sys
bench = {b["name"].replace("/manual_time", ""): b["real_time"] for b in json.load(open(sys.argv[2]))["benchmarks"]}
for r in json.load(open(sys.argv[1]))["results"]:
    run_ms, b = 1e3 * r["time_median_s"], bench.get(r["case_id"])
    d = f"{100 * (run_ms - b) / b:+.1f}%" if b else "no bench row"
    print(f"  run {r['case_id']} {r.get('shape')}: {run_ms:.3f} ms, bench {b} ms ({d})")
