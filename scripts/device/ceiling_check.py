#!/usr/bin/env python3
"""Every row of a run directory: case, level, % of its ceiling; rows above 105% are named.

Usage: ceiling_check.py RUN_DIR
"""
import json, sys
doc = json.load(open(sys.argv[1] + "/results.json"))
worst = 0.0
for r in doc["results"]:
    pct = r.get("pct_of_ceiling")
    pct = float(pct) if pct is not None else -1
    worst = max(worst, pct)
    flag = "  ABOVE 105%" if pct > 105 else ""
    print(f"  {r.get('case_id', '?'):58s} {str(r.get('ceiling_level')):7s} {pct:7.1f}%{flag}")
print(f"  largest share of a ceiling: {worst:.1f}%")
