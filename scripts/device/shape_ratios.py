#!/usr/bin/env python3
"""Each tile-128 shape row of default-mode bench JSON against the ceiling (the vendor GEMM) that
config-mode bench JSON attaches to the case of the same precision and size; with FASTEST, the
fastest shape at 4096 of each precision is written there (precision:shape ...).

Usage: shape_ratios.py SHAPES_JSON CEILINGS_JSON [FASTEST]  (FASTEST may be '')
"""
import json, sys
def rows(path):
    return [b for b in json.load(open(path)).get("benchmarks", [])
            if not b.get("error_occurred") and b.get("FLOP/s")]
ceiling = {}  # (precision, size) -> FLOP/s of the ceiling the run attaches
for b in rows(sys.argv[2]):
    part = b["name"].split("/")
    if b.get("ceiling"):
        ceiling[(part[2], part[3])] = b["ceiling"]
best = {}
for b in rows(sys.argv[1]):
    name = b["name"].replace("/manual_time", "")
    part = name.split("/")
    prec, size = part[2], part[3]
    shape = name.split("/shape=", 1)[1] if "/shape=" in name else ""
    c = ceiling.get((prec, size))
    share = f"{100 * b['FLOP/s'] / c:6.1f}% of {c / 1e9:.0f} GFLOP/s" if c else "no ceiling row"
    print(f"  {prec} {size:>16} {shape or '(default)':24s} {b['real_time']:9.3f} {b['time_unit']}"
          f" {b['FLOP/s'] / 1e9:8.1f} GFLOP/s {share}")
    if size.startswith("4096x") and (prec not in best or b["real_time"] < best[prec][1]):
        best[prec] = (shape, b["real_time"])
if sys.argv[3]:
    open(sys.argv[3], "w").write(" ".join(f"{p}:{s}" for p, (s, _) in best.items()))
