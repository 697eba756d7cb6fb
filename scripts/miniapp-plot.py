#!/usr/bin/python3
"""miniapp-plot: PNG plots of miniapp runs (matplotlib; Debian's python3-matplotlib).

  miniapp-plot RUN... [-o DIR] [--kind rate|speedup|roofline|all] [--baseline N|RUN]
               [--with-transfers]

RUN is a run directory (results.json or results.csv inside) or either file. Writes, per kernel
family, rate-<family>.png (rate vs size, one line per run and variant, error bars from the fastest to the slowest
repetition) and speedup-<family>.png
(rate / rate of the baseline run on the same case), and roofline.png (each case's achieved
GFLOP/s at its arithmetic intensity flops/bytes, under the ceilings the runs measured).
Rates: GFLOP/s for matmul, GB/s for the other families (the families' primary rates, as in
`miniapp compare`). --with-transfers uses the total time (host-to-device + compute +
device-to-host). Each plot's title is also stored in the PNG's Title metadata.
`miniapp plot` runs this script; it prints the files it wrote, one a line.
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NUMERIC = {
    "m", "n", "k", "tile", "tile_cols", "team_size", "alpha", "beta", "seed", "warmup",
    "repetitions", "time_min_s", "time_median_s", "time_max_s", "total_median_s", "flops",
    "bytes", "gflops", "gbs", "ceiling_value",
}


def load_run(path):
    """Return {"label", "backend", "device", "host", "rows"} for a run directory or file."""
    json_path = csv_path = None
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "results.json")):
            json_path = os.path.join(path, "results.json")
        elif os.path.isfile(os.path.join(path, "results.csv")):
            csv_path = os.path.join(path, "results.csv")
        else:
            raise SystemExit(f"miniapp-plot: {path}: no results.json or results.csv")
    elif os.path.isfile(path):
        if path.endswith(".csv"):
            csv_path = path
        else:
            json_path = path
    else:
        raise SystemExit(f"miniapp-plot: {path}: no such run directory or results file")

    meta = {}
    rows = []
    if json_path is None:
        sibling = os.path.join(os.path.dirname(csv_path) or ".", "results.json")
        if os.path.isfile(sibling):
            with open(sibling) as f:
                meta = json.load(f).get("metadata", {})
        with open(csv_path, newline="") as f:
            for r in csv.DictReader(f):
                rows.append({k: (float(v) if k in NUMERIC and v != "" else v) for k, v in r.items()})
    else:
        with open(json_path) as f:
            doc = json.load(f)
        meta = doc.get("metadata", {})
        rows = doc.get("results", [])
    backend = meta.get("backend") or (rows[0].get("backend", "?") if rows else "?")
    device = meta.get("device_name", "")
    host = meta.get("host_name", "")
    label = backend + (f" on {device}" if device else "") + (f" ({host})" if host else "")
    return {"label": label, "backend": backend, "device": device, "host": host, "rows": rows,
            "source": path}


def primary(family):
    return ("gflops", "GFLOP/s") if family == "matmul" else ("gbs", "GB/s")


def rate(row, with_transfers):
    key, _ = primary(row["family"])
    if not with_transfers:
        return float(row[key])
    total = float(row.get("total_median_s") or 0)
    work = float(row["flops"] if key == "gflops" else row["bytes"])
    return work / total / 1e9 if total > 0 else 0.0


def spread(row, y, with_transfers):
    """Error bar (below, above) of rate y: the rates at the slowest and fastest repetition."""
    tmed = float(row.get("time_median_s") or 0)
    tmin = float(row.get("time_min_s") or 0)
    tmax = float(row.get("time_max_s") or 0)
    if with_transfers:  # only the median total is recorded: shift by the median transfer time
        shift = max(0.0, float(row.get("total_median_s") or 0) - tmed)
        tmed, tmin, tmax = tmed + shift, tmin + shift, tmax + shift
    if tmed <= 0 or tmin <= 0 or tmax <= 0:
        return 0.0, 0.0
    return max(0.0, y - y * tmed / tmax), max(0.0, y * tmed / tmin - y)


def series_key(row):
    tile = int(row.get("tile") or 0)
    s = f"{row['variant']}/{row['precision']}"
    return s + (f"/tile {tile}" if tile > 0 else "")


def size_axis(rows):
    """x values and label: N for square problems, else the element count."""
    square = all(int(r["m"]) == int(r["n"]) and int(r.get("k") or 0) in (0, int(r["n"])) for r in rows)
    if square:
        has_k = any(int(r.get("k") or 0) > 0 for r in rows)
        return (lambda r: int(r["n"])), ("N (N x N x N problems)" if has_k else "N (N x N matrices)")
    return (lambda r: int(r["m"]) * int(r["n"]) * max(1, int(r.get("k") or 0))), "m*n*k (problem size)"


def save(fig, ax, title, path):
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Title": title})
    plt.close(fig)
    print(path)


def families(runs):
    out = []
    for run in runs:
        for r in run["rows"]:
            if r["family"] not in out:
                out.append(r["family"])
    return out


def suffix(with_transfers):
    return " (with transfers)" if with_transfers else ""


def plot_rate(runs, outdir, with_transfers):
    for fam in families(runs):
        rows_all = [r for run in runs for r in run["rows"] if r["family"] == fam]
        xof, xlabel = size_axis(rows_all)
        _, unit = primary(fam)
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for run in runs:
            groups = {}
            for r in run["rows"]:
                if r["family"] == fam:
                    groups.setdefault(series_key(r), []).append(r)
            for key, rows in groups.items():
                rows.sort(key=xof)
                ys = [rate(r, with_transfers) for r in rows]
                lo, hi = zip(*[spread(r, y, with_transfers) for r, y in zip(rows, ys)])
                ax.errorbar([xof(r) for r in rows], ys, yerr=[lo, hi], marker="o", capsize=3,
                            label=f"{run['label']}: {key}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"{unit}{suffix(with_transfers)}")
        ax.legend(fontsize=8)
        save(fig, ax, f"miniapp {fam}: rate vs size{suffix(with_transfers)}",
             os.path.join(outdir, f"rate-{fam}.png"))


def plot_speedup(runs, base, outdir, with_transfers):
    def key(r):
        return (series_key(r), int(r["m"]), int(r["n"]), int(r.get("k") or 0))

    for fam in families(runs):
        base_rows = {key(r): r for r in runs[base]["rows"] if r["family"] == fam}
        rows_all = [r for run in runs for r in run["rows"] if r["family"] == fam]
        xof, xlabel = size_axis(rows_all)
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        plotted = False
        for i, run in enumerate(runs):
            if i == base:
                continue
            groups = {}
            for r in run["rows"]:
                b = base_rows.get(key(r))
                if r["family"] == fam and b is not None and rate(b, with_transfers) > 0:
                    groups.setdefault(series_key(r), []).append((xof(r), rate(r, with_transfers) / rate(b, with_transfers)))
            for k, pts in groups.items():
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{run['label']}: {k}")
                plotted = True
        if not plotted:
            plt.close(fig)
            print(f"miniapp-plot: no {fam} cases shared with the baseline; no speedup plot", file=sys.stderr)
            continue
        ax.axhline(1.0, color="grey", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"speedup (x) vs {runs[base]['label']}")
        ax.legend(fontsize=8)
        save(fig, ax, f"miniapp {fam}: speedup vs {runs[base]['backend']}{suffix(with_transfers)}",
             os.path.join(outdir, f"speedup-{fam}.png"))


def plot_roofline(runs, outdir, with_transfers):
    fig, ax = plt.subplots(figsize=(7.5, 5.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = {"matmul": "o", "axpby": "s", "tile_average": "^", "tile_index": "D"}
    xs = []
    for i, run in enumerate(runs):
        color = colors[i % len(colors)]
        for fam in families([run]):
            pts = []
            for r in run["rows"]:
                if r["family"] != fam or float(r["flops"]) <= 0 or float(r["bytes"]) <= 0:
                    continue
                ai = float(r["flops"]) / float(r["bytes"])
                g = float(r["gflops"])
                if with_transfers and float(r.get("total_median_s") or 0) > 0:
                    g = float(r["flops"]) / float(r["total_median_s"]) / 1e9
                pts.append((ai, g))
            if pts:
                xs += [p[0] for p in pts]
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], color=color,
                           marker=markers.get(fam, "x"), label=f"{run['label']}: {fam}")
        run["_ceilings"] = sorted({(r.get("ceiling", ""), float(r.get("ceiling_value") or 0), r.get("ceiling_unit", ""))
                                   for r in run["rows"] if float(r.get("ceiling_value") or 0) > 0})
    if not xs:
        plt.close(fig)
        print("miniapp-plot: no rows with flops and bytes; no roofline", file=sys.stderr)
        return
    lo, hi = min(xs) / 4, max(xs) * 4
    for i, run in enumerate(runs):
        color = colors[i % len(colors)]
        for name, value, unit in run["_ceilings"]:
            if unit == "GB/s":  # a memory roof: GFLOP/s = GB/s * FLOP/byte
                ax.plot([lo, hi], [value * lo, value * hi], linestyle="--", color=color,
                        label=f"{run['label']}: {name} {value:.3g} GB/s")
            elif unit == "GFLOP/s":
                ax.axhline(value, linestyle=":", color=color,
                           label=f"{run['label']}: {name} {value:.3g} GFLOP/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP/byte = flops / bytes moved)")
    ax.set_ylabel(f"achieved GFLOP/s{suffix(with_transfers)}")
    ax.legend(fontsize=7)
    save(fig, ax, f"miniapp roofline: measured ceilings{suffix(with_transfers)}",
         os.path.join(outdir, "roofline.png"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="run directories or results.json/.csv files")
    p.add_argument("-o", "--output-dir", default=".", help="directory for the PNG files")
    p.add_argument("--kind", choices=["rate", "speedup", "roofline", "all"], default="all")
    p.add_argument("--baseline", default="1", help="run number (from 1) or run path; default 1")
    p.add_argument("--with-transfers", action="store_true",
                   help="rates from total time (host-to-device + compute + device-to-host)")
    a = p.parse_args(argv)

    paths = list(a.runs)
    if a.baseline.isdigit():
        base = int(a.baseline) - 1
        if not 0 <= base < len(paths):
            p.error(f"--baseline {a.baseline}: there are {len(paths)} run(s), numbered from 1")
    else:
        real = [os.path.realpath(x) for x in paths]
        if os.path.realpath(a.baseline) in real:
            base = real.index(os.path.realpath(a.baseline))
        else:
            paths.insert(0, a.baseline)
            base = 0
    runs = [load_run(x) for x in paths]
    os.makedirs(a.output_dir, exist_ok=True)

    if a.kind in ("rate", "all"):
        plot_rate(runs, a.output_dir, a.with_transfers)
    if a.kind in ("speedup", "all"):
        if len(runs) < 2:
            if a.kind == "speedup":
                p.error("a speedup plot needs two or more runs")
            print("miniapp-plot: one run; no speedup plot", file=sys.stderr)
        else:
            plot_speedup(runs, base, a.output_dir, a.with_transfers)
    if a.kind in ("roofline", "all"):
        plot_roofline(runs, a.output_dir, a.with_transfers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
