#!/usr/bin/env python3
"""docs/gemm-sizes.svg from the `miniapp run` results of tests/gpu/gemm_sizes*.yaml: tiled_rb's
share of the vendor GEMM of each shape against the size (log scale: the cube root of m n k),
float32 and float64, squares joined by a line, odd and non-square sizes as open marks.
  gemm_sizes_plot.py OUT.svg TITLE RUN_DIR [RUN_DIR...]    (no dependencies beyond Python)"""
import json
import math
import sys

out, title, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = [r for d in dirs for r in json.load(open(d + "/results.json"))["results"]
        if r.get("pct_of_ceiling") is not None]
W, H, L, R, T, B = 720, 420, 60, 150, 40, 50
lo, hi = math.log2(200), math.log2(20000)
def x(size):
    return L + (math.log2(size) - lo) / (hi - lo) * (W - L - R)
# Up to 100%, or the next 20% above the highest point (the vendor GEMM is slower at some odd sizes)
top = max([100] + [20 * math.ceil(r["pct_of_ceiling"] / 20) for r in rows])
def y(pct):
    return T + (1 - pct / top) * (H - T - B)
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{L}" y="20" font-size="13">{title}</text>']
for p in range(0, top + 1, 20):
    svg.append(f'<line x1="{L}" x2="{W - R}" y1="{y(p)}" y2="{y(p)}" stroke="#ddd"/>'
               f'<text x="{L - 8}" y="{y(p) + 4}" text-anchor="end">{p}%</text>')
for s in (256, 512, 1024, 2048, 4096, 8192, 16384):
    svg.append(f'<line x1="{x(s)}" x2="{x(s)}" y1="{T}" y2="{H - B}" stroke="#eee"/>'
               f'<text x="{x(s)}" y="{H - B + 15}" text-anchor="middle">{s}</text>')
svg.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">size ((m n k)^(1/3), log scale)</text>')
colors = {"float32": "#1f77b4", "float64": "#d62728"}
for i, (prec, color) in enumerate(colors.items()):
    mine = [r for r in rows if r["precision"] == prec]
    sq = sorted((r["m"], r["pct_of_ceiling"]) for r in mine
                if r["m"] == r["n"] == r["k"] and r["m"] % 128 == 0)
    if sq:
        pts = " ".join(f"{x(s):.1f},{y(p):.1f}" for s, p in sq)
        svg.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    for r in mine:
        size, p = (r["m"] * r["n"] * r["k"]) ** (1 / 3), r["pct_of_ceiling"]
        whole = r["m"] == r["n"] == r["k"] and r["m"] % 128 == 0
        svg.append(f'<circle cx="{x(size):.1f}" cy="{y(p):.1f}" r="3.5" stroke="{color}" '
                   f'fill="{color if whole else "white"}"><title>{prec} {r["m"]}x{r["n"]}x{r["k"]}: '
                   f'{p:.1f}%</title></circle>')
    svg.append(f'<circle cx="{W - R + 20}" cy="{T + 20 + 18 * i}" r="4" fill="{color}"/>'
               f'<text x="{W - R + 30}" y="{T + 24 + 18 * i}">{prec}</text>')
svg.append(f'<circle cx="{W - R + 20}" cy="{T + 60}" r="4" fill="white" stroke="black"/>'
           f'<text x="{W - R + 30}" y="{T + 64}">odd / non-square</text>')
svg.append(f'<text x="{W - R + 10}" y="{T + 90}">% of the vendor</text>'
           f'<text x="{W - R + 10}" y="{T + 104}">GEMM, same shape,</text>'
           f'<text x="{W - R + 10}" y="{T + 118}">same run</text></svg>')
open(out, "w").write("\n".join(svg) + "\n")
