#!/usr/bin/env python3
"""Each row of a run directory: case, median time, rate, joules per launch, watts, rate per watt,
the window, and the note where energy is null.

Usage: energy_rows.py RUN_DIR
"""
import json, sys
doc = json.load(open(sys.argv[1] + "/results.json"))
for r in doc["results"]:
    rate = r["gflops"] if r.get("rate_per_watt_unit", "") and "GFLOP" in r["rate_per_watt_unit"] else r["gbs"]
    if r.get("energy_j") is None:
        print(f"  {r['case_id']:50s} energy null: {r.get('energy_note')}")
        continue
    print(f"  {r['case_id']:50s} {r['time_median_s']*1e3:9.3f} ms {rate:10.1f} "
          f"{r['energy_j']:9.4f} J/launch {r['power_w']:6.1f} W {r['rate_per_watt']:8.2f} "
          f"{r['rate_per_watt_unit']} window {r['energy_window_s']:.2f} s")
print("  counter:", doc["results"][0].get("energy_counter") if doc["results"] else "-")
