#!/usr/bin/env python3
"""A run's power_w against nvidia-smi's power.draw and power.draw.instant sampled meanwhile
(the samples with utilization >= 90%), within 15% expected.

Usage: energy_against_smi.py RUN_DIR SMI_CSV
"""
import json, statistics, sys
r = json.load(open(sys.argv[1] + "/results.json"))["results"][0]
rows = []
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.split(",")]
    try: rows.append((float(f[1]), float(f[2]), float(f[3])))
    except (ValueError, IndexError): pass
busy = [x for x in rows if x[2] >= 90]
print(f"  nvidia-smi: {len(rows)} samples every 50 ms, {len(busy)} with utilization >= 90%")
if busy and r.get("power_w"):
    avg, inst = statistics.median(x[0] for x in busy), statistics.median(x[1] for x in busy)
    w = r["power_w"]
    for name, v in (("power.draw", avg), ("power.draw.instant", inst)):
        d = 100 * (w - v) / v
        print(f"  {name:18s} median {v:7.1f} W; miniapp {w:7.1f} W over {r['energy_window_s']:.2f} s: "
              f"{d:+.1f}% {'WITHIN' if abs(d) <= 15 else 'OUTSIDE'} 15%")
