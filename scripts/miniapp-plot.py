#!/usr/bin/python3
"""miniapp-plot: plots of miniapp runs (matplotlib; Debian's python3-matplotlib).

  miniapp-plot INPUT... [-o DIR] [--kind rate|speedup|roofline|all] [--baseline N|RUN]
               [--with-transfers] [--x size|tile|variant|run] [--format png,svg,pdf] [--dpi N]

INPUT is a run directory (results.json or results.csv inside), either file, or the JSON of
`miniapp-bench --benchmark_format=json` (Google Benchmark's format). Writes, per kernel family,
rate-<family>.<fmt> (one panel per precision; colour = run, marker = variant or size; error bars
from the fastest to the slowest repetition), speedup-<family>.<fmt> (rate / rate of the baseline run
on the same case, log axis) and roofline.<fmt> (achieved GFLOP/s at the arithmetic intensity
flops/bytes under the measured ceilings: one bandwidth slope per memory level measured, labelled
with the level, and the compute roofs, each labelled with its precision; with --with-transfers
the roof is the best measured host<->device transfer rate). Legends sit outside the axes, one
entry per run and one per series. Each plot's title is also stored in the file's Title metadata.
Rates: each family's own, as in `miniapp compare`: GFLOP/s for the compute-bound families, GB/s for
the others (the family table's, which the program hands this script with the runs).
Prints the files it wrote, one a line. Exit codes: 0 ok, 2 unusable input or usage (one sentence),
3 resource error (disk, permissions, memory).
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import sys

NUMERIC = {
    "m", "n", "k", "tile", "tile_cols", "team_size", "alpha", "beta", "seed", "warmup",
    "repetitions", "time_min_s", "time_median_s", "time_max_s", "total_median_s", "flops",
    "bytes", "gflops", "gbs", "ceiling_value", "h2d_median_s", "d2h_median_s", "ranks",
}
MAX_INPUT_BYTES = 256 << 20  # a results.json of a million rows is far smaller

# What the family table says of each family: the rate it is judged by and whether its cases read
# k. The program hands it to this script (--families, from `miniapp plot`, `report` and
# `history --plot`; "miniapp_families" in miniapp-bench's context). Run alone without it, a
# family is judged by GFLOP/s where its rows' ceiling is in GFLOP/s (the vendor GEMM), and its
# cases read k where its rows have one.
FAMILIES = {}  # name -> {"rate": "gflops" | "gbs", "reads_k": bool}, in the table's order
ROW_FACTS = {}  # the same, read off results rows where the program handed none
MARKERS = ["o", "s", "^", "D", "x", "v", "P", "*"]  # roofline markers, one per family in order


class InputError(Exception):
    """An input that is not a miniapp run or benchmark file: exit 2 with one sentence."""


def number(v, what):
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        if math.isfinite(v):
            return float(v)
        raise InputError(f"{what} is not a finite number")
    if v is None or v == "":
        return 0.0
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError(f"{what} is not a number: {str(v)[:40]!r}") from None
    if not math.isfinite(x):
        raise InputError(f"{what} is not a finite number")
    return x


def clean_row(r, where):
    if not isinstance(r, dict):
        raise InputError(f"{where}: a results row is not an object")
    out = {}
    for k, v in r.items():
        out[k] = number(v, f"{where}: {k}") if k in NUMERIC else ("" if v is None else str(v))
    for k in ("family", "variant", "precision"):
        out.setdefault(k, "?")
    for k in NUMERIC:
        out.setdefault(k, 0.0)
    return out


def read_json(path):
    if os.path.getsize(path) > MAX_INPUT_BYTES:
        raise InputError(f"{path}: larger than {MAX_INPUT_BYTES >> 20} MiB; not a results file")
    with open(path, "rb") as f:
        data = f.read()
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError(f"{path}: not valid JSON ({str(e)[:80]})") from None


def shape_of(meta):
    ranks = int(number(meta.get("mpi_ranks", 0), "mpi_ranks"))
    threads = int(number(meta.get("threads_per_rank", 0), "threads_per_rank"))
    if not threads and meta.get("backend") in ("serial", "openmp", "threads"):
        threads = int(number(meta.get("concurrency", 0), "concurrency"))
    if not ranks and not threads:
        return ""
    return f"{ranks or '?'}x{threads or '?'}"


HOST_BACKENDS = ("serial", "openmp", "threads", "hpx")  # as compare::host_backend


def learn_families(facts, where):
    """Take the family facts the program handed (a list of {"name", "rate", "reads_k"})."""
    if isinstance(facts, str):
        try:
            facts = json.loads(facts)
        except ValueError:
            raise InputError(f"{where}: the family facts are not JSON") from None
    if not isinstance(facts, list):
        return
    for f in facts:
        if isinstance(f, dict) and isinstance(f.get("name"), str):
            FAMILIES[f["name"]] = {"rate": "gflops" if f.get("rate") == "gflops" else "gbs",
                                   "reads_k": f.get("reads_k") is True}


def learn_from_rows(rows):
    """Facts of the families the program did not describe, read off their rows."""
    for r in rows:
        facts = ROW_FACTS.setdefault(r["family"], {"rate": "gbs", "reads_k": False})
        if r.get("ceiling_unit") == "GFLOP/s":
            facts["rate"] = "gflops"
        if r["k"] > 0:
            facts["reads_k"] = True


def facts_of(family):
    return FAMILIES.get(family) or ROW_FACTS.get(family) or {"rate": "gbs", "reads_k": False}


def make_run(meta, rows, path):
    if not isinstance(meta, dict):
        meta = {}
    backend = str(meta.get("backend") or (rows[0].get("backend") if rows else "") or "?")
    device, host = str(meta.get("device_name", "")), str(meta.get("host_name", ""))
    shape = shape_of(meta)
    label = str(meta.get("label") or "")
    if not label:
        if backend not in HOST_BACKENDS and shape:  # a device backend: its host threads idle
            ranks = shape.split("x")[0]
            shape = f"{ranks} rank" + ("" if ranks in ("1", "?") else "s")
        label = backend + (f" {shape}" if shape else "") + (f" on {device}" if device else "") + \
            (f" ({host})" if host else "")
    elif shape and shape not in label and backend in HOST_BACKENDS:
        label += f" [{shape}]"
    return {"label": label, "backend": backend, "rows": rows, "source": path}


# miniapp-bench names each kernel benchmark by its case id ("matmul/tiled/float32/512x512x512/
# tile=16/manual_time"); OLD_BENCH_NAME reads the names of earlier builds ("matmul/tiled16/
# float32/512/manual_time", "tile_average/leader/float32/S16/1024/...").
BENCH_NAME = re.compile(r"^(?P<family>[a-z_]+)/(?P<variant>[a-z_]+)/(?P<precision>float32|float64|int32)/"
                        r"(?P<m>\d+)x(?P<n>\d+)(?:x(?P<k>\d+))?(?:/tile=(?P<tile>\d+))?(/|$)")
OLD_BENCH_NAME = re.compile(r"^(?P<family>[a-z_]+)/(?P<variant>[A-Za-z_]+?)(?P<vtile>\d*)/"
                            r"(?P<precision>float32|float64|int32)/(?:S(?P<tile>\d+)/)?(?P<n>\d+)(/|$)")
TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def bench_run(doc, path):
    """Google Benchmark JSON (miniapp-bench) as miniapp rows: one per benchmark, median time."""
    ctx = doc.get("context", {}) if isinstance(doc.get("context"), dict) else {}
    learn_families(ctx.get("miniapp_families"), path)
    times, rates, ceilings = {}, {}, []
    for b in doc["benchmarks"]:
        if not isinstance(b, dict):
            raise InputError(f"{path}: a benchmark entry is not an object")
        name = str(b.get("run_name") or b.get("name") or "")
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        unit = TIME_UNIT.get(str(b.get("time_unit", "ns")), 1e-9)
        t = number(b.get("real_time", 0), f"{path}: {name}: real_time") * unit
        if name.startswith("ceiling/copy"):
            ceilings.append(number(b.get("bytes/s", 0), f"{path}: {name}: bytes/s") / 1e9)
            continue
        m = BENCH_NAME.match(name) or OLD_BENCH_NAME.match(name)
        if not m or t <= 0:
            continue
        key = name
        times.setdefault(key, []).append(t)
        rates.setdefault(key, (m, number(b.get("FLOP/s", 0), f"{path}: {name}: FLOP/s"),
                               number(b.get("bytes/s", 0), f"{path}: {name}: bytes/s")))
    rows = []
    for key, ts in times.items():
        m, flops_s, bytes_s = rates[key]
        t = statistics.median(ts)
        g = m.groupdict()
        n = int(g["n"])
        tile = int(g["tile"] or g.get("vtile") or 0)
        rows_m = int(g.get("m") or n)
        k = int(g.get("k") or 0) if "m" in g else (n if facts_of(g["family"])["reads_k"] else 0)
        row = {"family": g["family"], "variant": g["variant"], "precision": g["precision"],
               "m": rows_m, "n": n, "k": k, "tile": tile,
               "time_min_s": min(ts), "time_median_s": t, "time_max_s": max(ts),
               "total_median_s": t, "flops": flops_s * t, "bytes": bytes_s * t,
               "gflops": flops_s / 1e9, "gbs": bytes_s / 1e9, "transfers": "none"}
        if ceilings:
            row.update({"ceiling": "copy bandwidth", "ceiling_value": max(ceilings),
                        "ceiling_unit": "GB/s"})
        rows.append(clean_row(row, path))
    meta = {"backend": ctx.get("miniapp_backend", ""), "device_name": ctx.get("miniapp_device", ""),
            "host_name": ctx.get("host_name", ""), "concurrency": ctx.get("miniapp_concurrency", 0),
            "mpi_ranks": 1}  # miniapp-bench is one process
    if not rows:
        raise InputError(f"{path}: no miniapp kernel benchmarks in this Google Benchmark JSON")
    return make_run(meta, rows, path)


def load_run(path):
    """Return {"label", "backend", "rows", "source"} for a run directory, results file or bench JSON."""
    json_path = csv_path = None
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "results.json")):
            json_path = os.path.join(path, "results.json")
        elif os.path.isfile(os.path.join(path, "results.csv")):
            csv_path = os.path.join(path, "results.csv")
        else:
            raise InputError(f"{path}: no results.json or results.csv in this directory")
    elif os.path.isfile(path):
        if path.endswith(".csv"):
            csv_path = path
        else:
            json_path = path
    else:
        raise InputError(f"{path}: no such run directory or results file")

    if json_path is not None:
        doc = read_json(json_path)
        if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list):
            return bench_run(doc, path)
        if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
            raise InputError(f"{path}: not a miniapp results.json (no \"results\" array) "
                             "nor miniapp-bench JSON (no \"benchmarks\" array)")
        rows = [clean_row(r, path) for r in doc["results"]]
        learn_from_rows(rows)
        return make_run(doc.get("metadata", {}), rows, path)
    meta = {}
    sibling = os.path.join(os.path.dirname(csv_path) or ".", "results.json")
    if os.path.isfile(sibling):
        try:
            doc = read_json(sibling)
            meta = doc.get("metadata", {}) if isinstance(doc, dict) else {}
        except InputError:
            meta = {}  # the rows alone are enough
    if os.path.getsize(csv_path) > MAX_INPUT_BYTES:
        raise InputError(f"{csv_path}: larger than {MAX_INPUT_BYTES >> 20} MiB")
    try:
        with open(csv_path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if not reader.fieldnames or "family" not in reader.fieldnames:
                raise InputError(f"{csv_path}: not a miniapp results.csv (no \"family\" column)")
            rows = [clean_row(r, csv_path) for r in reader]
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{csv_path}: not a readable CSV ({str(e)[:80]})") from None
    learn_from_rows(rows)
    return make_run(meta, rows, path)


def primary(family):
    return ("gflops", "GFLOP/s") if facts_of(family)["rate"] == "gflops" else ("gbs", "GB/s")


def rate(row, with_transfers):
    key, _ = primary(row["family"])
    if not with_transfers:
        return row[key]
    total = row["total_median_s"]
    work = row["flops"] if key == "gflops" else row["bytes"]
    return work / total / 1e9 if total > 0 else 0.0


def spread(row, y, with_transfers):
    """Error bar (below, above) of rate y: the rates at the slowest and fastest repetition."""
    tmed, tmin, tmax = row["time_median_s"], row["time_min_s"], row["time_max_s"]
    if with_transfers:  # only the median total is recorded: shift by the median transfer time
        shift = max(0.0, row["total_median_s"] - tmed)
        tmed, tmin, tmax = tmed + shift, tmin + shift, tmax + shift
    if tmed <= 0 or tmin <= 0 or tmax <= 0:
        return 0.0, 0.0
    return max(0.0, y - y * tmed / tmax), max(0.0, y * tmed / tmin - y)


def size_text(r):
    m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
    if m == n and k in (0, n):
        return f"N={n}"
    return f"{m}x{n}" + (f"x{k}" if k else "")


def size_value(r):
    m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
    return n if m == n and k in (0, n) else m * n * max(1, k)


def tile_text(r):
    t = int(r["tile"])
    return f"tile {t}" if t > 0 else ""


# What a point's x is, and what tells its series apart from the others in the same panel.
X_AXES = {
    "size": ("N (or m*n*k when not square)", lambda r, run: size_value(r),
             lambda r, run: " ".join(x for x in (r["variant"], tile_text(r)) if x)),
    "tile": ("tile size", lambda r, run: int(r["tile"]),
             lambda r, run: f"{r['variant']} {size_text(r)}"),
    "variant": ("variant", lambda r, run: r["variant"],
                lambda r, run: " ".join(x for x in (size_text(r), tile_text(r)) if x)),
    "run": ("run", lambda r, run: run["label"],
            lambda r, run: " ".join(x for x in (r["variant"], size_text(r), tile_text(r)) if x)),
}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]
LINESTYLES = ["-", "--", ":", "-."]


def palette(n):
    import matplotlib
    name = "tab10" if n <= 10 else "tab20"
    if n <= 20:
        cmap = matplotlib.colormaps[name]
        return [cmap(i) for i in range(n)]
    cmap = matplotlib.colormaps["turbo"]  # more runs than a qualitative map holds: spread them
    return [cmap(i / max(1, n - 1)) for i in range(n)]


def safe_name(text):
    """A file name part from data (a family name): letters, digits, '_', '-', '.'; never a path."""
    s = re.sub(r"[^A-Za-z0-9_.-]", "_", text).strip(".") or "unnamed"
    return s[:64]


class Writer:
    def __init__(self, outdir, formats, dpi):
        self.given, self.formats, self.dpi = outdir, formats, dpi
        self.outdir = os.path.realpath(outdir)
        self.written = []

    def save(self, fig, title, stem, legend_handles=None, legend_ax=None):
        import matplotlib.pyplot as plt
        fig.suptitle(title)
        legend_text = ""
        if legend_handles:
            # Beside the last panel, outside the axes: constrained layout makes room for it.
            handles, labels = legend_handles
            legend_ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                             borderaxespad=0, fontsize=8, frameon=False)
            legend_text = "legend: " + " | ".join(labels)
        for fmt in self.formats:
            path = os.path.join(self.given, f"{safe_name(stem)}.{fmt}")
            if os.path.dirname(os.path.realpath(path)) != self.outdir:
                raise InputError(f"{stem}: would be written outside {self.outdir}")
            # The legend's entries go in the file too: tests (and readers) check them there.
            meta = {"Title": title, ("Subject" if fmt == "pdf" else "Description"): legend_text}
            fig.savefig(path, dpi=self.dpi, metadata=meta)
            self.written.append(path)
            print(path)
        plt.close(fig)


def families(runs):
    out = []
    for run in runs:
        for r in run["rows"]:
            if r["family"] not in out:
                out.append(r["family"])
    return out


def precisions(runs, fam):
    out = []
    for run in runs:
        for r in run["rows"]:
            if r["family"] == fam and r["precision"] not in out:
                out.append(r["precision"])
    return out


def measure(with_transfers):
    """The measure a time stands for, as compare names it (docs/compare.md, "Measures")."""
    return "end-to-end" if with_transfers else "kernel"


def suffix(with_transfers):
    return f" ({measure(with_transfers)})"


def legend(run_labels, colors, series, styles):
    """Deduplicated proxy entries: one per run (colour), one per series (marker and line)."""
    from matplotlib.lines import Line2D
    handles, labels = [], []
    for label, c in zip(run_labels, colors):
        handles.append(Line2D([], [], color=c, linewidth=6))
        labels.append(label)
    for s in series:
        mk, ls = styles[s]
        handles.append(Line2D([], [], color="0.3", marker=mk, linestyle=ls))
        labels.append(s)
    return handles, labels


def faceted(n):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, n, figsize=(5.0 * n + 3.0, 4.4), squeeze=False, sharey=False,
                             layout="constrained")
    return fig, list(axes[0])


def series_styles(names):
    return {s: (MARKERS[i % len(MARKERS)], LINESTYLES[(i // len(MARKERS)) % len(LINESTYLES)])
            for i, s in enumerate(names)}


def draw(ax, points, xaxis, categories, color, style, yerr=None):
    mk, ls = style
    points.sort(key=lambda p: categories.index(p[0]) if categories else p[0])
    xs = [categories.index(p[0]) if categories else p[0] for p in points]
    ys = [p[1] for p in points]
    if yerr is not None:
        ax.errorbar(xs, ys, yerr=yerr, color=color, marker=mk, linestyle=ls, capsize=3)
    else:
        ax.plot(xs, ys, color=color, marker=mk, linestyle=ls)


def plain_ticks(axis, unit=""):
    """Log-axis ticks at 1, 2, 5 x 10^k (more over short ranges), written 128, 0.25, 4096
    rather than 2^7 or 6x10^1."""
    import matplotlib.ticker as ticker
    if axis.axis_name == "y":
        lo, hi = sorted(axis.get_view_interval())  # the data are drawn: limits are known
        decades = math.log10(hi / lo) if lo > 0 else 9
        subs = (1.0, 1.5, 2.0, 3.0, 5.0) if decades < 1.5 else (1.0, 2.0, 5.0) if decades < 4 \
            else (1.0,)
        axis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
    elif axis.get_scale() == "log" and axis.get_transform().base == 2:
        axis.set_major_locator(ticker.LogLocator(base=2, numticks=MAX_TICKS))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}{unit}"))
    axis.set_minor_formatter(ticker.NullFormatter())


MAX_TICKS = 8  # tick labels per axis: more overlap on a slide


def thinned(items):
    """At most MAX_TICKS of items, evenly spread, the first and last kept."""
    if len(items) <= MAX_TICKS:
        return list(items)
    step = (len(items) - 1) / (MAX_TICKS - 1)
    return [items[round(i * step)] for i in range(MAX_TICKS)]


def x_setup(ax, xaxis, categories, values, square, sizes):
    """sizes: {x value: the family's size text ("N=512", "512x256", "512x512x64")}."""
    xlabel = X_AXES[xaxis][0]
    if xaxis == "size":
        three = any(t.count("x") == 2 for t in sizes.values())
        xlabel = "N (N x N problems)" if square else \
            ("m x n x k, placed at m*n*k" if three else "m x n, placed at m*n")
    if categories:
        ticks = thinned(list(range(len(categories))))
        ax.set_xticks(ticks)
        ax.set_xticklabels([categories[i] for i in ticks], rotation=30, ha="right", fontsize=8)
    elif values and min(values) > 0:
        ax.set_xscale("log", base=2)
        if xaxis == "size" and not square:  # the real sizes at their places, not powers of 2
            from matplotlib import ticker
            ticks = thinned(sorted(sizes))
            ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
            ax.xaxis.set_major_formatter(ticker.FixedFormatter([sizes[t] for t in ticks]))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
            ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        else:
            plain_ticks(ax.xaxis)
    ax.set_xlabel(xlabel)


def panel_data(runs, fam, prec, xaxis, value_of):
    """{(run index, series): [(x, y, row)]} for one family and precision."""
    _, xof, sof = X_AXES[xaxis]
    data = {}
    for i, run in enumerate(runs):
        for r in run["rows"]:
            if r["family"] != fam or r["precision"] != prec:
                continue
            if xaxis == "tile" and int(r["tile"]) <= 0:
                continue
            y = value_of(i, r)
            if y is None or y <= 0:
                continue
            data.setdefault((i, sof(r, run)), []).append((xof(r, run), y, r))
    return data


def plot_family(runs, fam, xaxis, writer, title, stem, ylabel, value_of, errors, logy_ratio=False):
    precs = precisions(runs, fam)
    panels = [(p, panel_data(runs, fam, p, xaxis, value_of)) for p in precs]
    panels = [(p, d) for p, d in panels if d]
    if not panels:
        return False
    # each run keeps its colour (given when loaded) in every plot, the speedup's included
    colors = [run["color"] for run in runs] if xaxis != "run" else ["0.2"] * len(runs)
    series = []
    for _, d in panels:
        for (_, s) in d:
            if s not in series:
                series.append(s)
    styles = series_styles(series)
    if xaxis == "run":  # the x axis names the runs: colour the series instead
        colors = palette(len(series))
    fig, axes = faceted(len(panels))
    for ax, (prec, d) in zip(axes, panels):
        categories = None
        if xaxis in ("variant", "run"):
            categories = []
            for pts in d.values():
                for x, _, _ in pts:
                    if x not in categories:
                        categories.append(x)
        values, sizes = [], {}
        for (i, s), pts in d.items():
            color = colors[series.index(s)] if xaxis == "run" else colors[i]
            yerr = None
            if errors:
                lo_hi = [errors(p[2], p[1]) for p in sorted(
                    pts, key=lambda p: categories.index(p[0]) if categories else p[0])]
                yerr = [[a for a, _ in lo_hi], [b for _, b in lo_hi]]
            draw(ax, [(p[0], p[1]) for p in pts], xaxis, categories, color, styles[s], yerr)
            values += [p[0] for p in pts if not categories]
            sizes.update({p[0]: size_text(p[2]) for p in pts if not categories})
        square = all(size_text(p[2]).startswith("N=") for pts in d.values() for p in pts)
        x_setup(ax, xaxis, categories, values, square, sizes)
        ax.set_yscale("log")
        plain_ticks(ax.yaxis, "x" if logy_ratio else "")
        if logy_ratio:
            ax.axhline(1.0, color="grey", linewidth=1)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{fam} {prec}", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    from matplotlib.lines import Line2D
    if xaxis == "run":
        handles = ([Line2D([], [], color=c, marker=styles[s][0], linestyle=styles[s][1])
                    for s, c in zip(series, colors)], series)
    else:
        shown = sorted({i for _, d in panels for (i, _) in d})  # runs with a point drawn
        handles = legend([runs[i]["label"] for i in shown], [colors[i] for i in shown], series,
                         styles)
        if errors:  # say what the bars are
            handles[0].append(Line2D([], [], color="0.3", marker="|", markersize=12, linestyle=""))
            handles[1].append("error bars: slowest to fastest repetition")
    writer.save(fig, title, stem, handles, axes[-1])
    return True


def plot_rate(runs, writer, with_transfers, xaxis):
    wrote = False
    for fam in families(runs):
        _, unit = primary(fam)
        wrote |= plot_family(
            runs, fam, xaxis, writer,
            f"miniapp {fam}: rate vs {xaxis}{suffix(with_transfers)}", f"rate-{fam}",
            f"{unit}{suffix(with_transfers)}", lambda i, r: rate(r, with_transfers),
            lambda r, y: spread(r, y, with_transfers))
    return wrote


def case_key(r):
    return (r["family"], r["variant"], r["precision"], int(r["m"]), int(r["n"]), int(r["k"]),
            int(r["tile"]))


def plot_speedup(runs, base, writer, with_transfers, xaxis):
    base_rate = {case_key(r): rate(r, with_transfers) for r in runs[base]["rows"]}
    others = [run for i, run in enumerate(runs) if i != base]

    def ratio(i, r):
        b = base_rate.get(case_key(r), 0)
        return rate(r, with_transfers) / b if b > 0 else None

    wrote = False
    for fam in families(others):
        if plot_family(others, fam, xaxis, writer,
                       f"miniapp {fam}: speedup vs {runs[base]['backend']}{suffix(with_transfers)}",
                       f"speedup-{fam}", f"{measure(with_transfers)} speedup vs {runs[base]['label']}",
                       ratio, None,
                       logy_ratio=True):
            wrote = True
        else:
            print(f"miniapp-plot: no {fam} cases shared with the baseline; no speedup plot",
                  file=sys.stderr)
    return wrote


def transfer_roof(run):
    """The best measured host<->device rate: bytes / (h2d + d2h), over rows that copy."""
    best = 0.0
    for r in run["rows"]:
        t = r["h2d_median_s"] + r["d2h_median_s"]
        if r.get("transfers") == "copies" and t > 0 and r["bytes"] > 0:
            best = max(best, r["bytes"] / t / 1e9)
    return best


def plot_roofline(runs, writer, with_transfers):
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
    colors = [run["color"] for run in runs]
    order = list(FAMILIES) + [f for r in runs for f in [row["family"] for row in r["rows"]]]
    order = list(dict.fromkeys(order))  # the table's order first, then as the rows name them
    markers = {f: MARKERS[i % len(MARKERS)] for i, f in enumerate(order)}
    xs, ys, fams = [], [], []
    for i, run in enumerate(runs):
        for r in run["rows"]:
            if r["flops"] <= 0 or r["bytes"] <= 0:
                continue
            g = r["gflops"]
            if with_transfers and r["total_median_s"] > 0:
                g = r["flops"] / r["total_median_s"] / 1e9
            if g <= 0:
                continue
            ai = r["flops"] / r["bytes"]
            xs.append(ai)
            ys.append(g)
            if r["family"] not in fams:
                fams.append(r["family"])
            ax.scatter([ai], [g], color=colors[i], marker=markers.get(r["family"], "x"), zorder=3)
    if not xs:
        plt.close(fig)
        print("miniapp-plot: no rows with flops and bytes; no roofline", file=sys.stderr)
        return False
    lo, hi = min(xs) / 4, max(xs) * 4
    handles = [Line2D([], [], color=c, linewidth=6) for c in colors]
    labels = [run["label"] for run in runs]
    for f in fams:
        handles.append(Line2D([], [], color="0.3", marker=markers.get(f, "x"), linestyle=""))
        labels.append(f)
    for i, run in enumerate(runs):
        roofs = set()
        if with_transfers:
            bw = transfer_roof(run)
            if bw > 0:
                roofs.add(("host<->device transfers", bw, "GB/s"))
        for r in run["rows"]:
            if r["ceiling_value"] > 0 and not (with_transfers and r.get("ceiling_unit") == "GB/s"
                                               and r.get("transfers") == "copies"):
                # A compute ceiling holds for its precision (and, for vendor GEMM, its size); a
                # bandwidth ceiling for its memory level (one slope per level measured).
                name = r.get("ceiling", "")
                if r.get("ceiling_level"):
                    name = f"{r['ceiling_level']} {name}"
                if r.get("ceiling_unit") == "GFLOP/s":
                    name += f" {r['precision']} {size_text(r)}"
                roofs.add((name, r["ceiling_value"], r.get("ceiling_unit", "")))
        for j, (name, value, unit) in enumerate(sorted(roofs)):
            ls = ["--", ":", "-.", (0, (5, 1))][j % 4]
            text = f"{name}: {value:.3g} {unit}"
            if unit == "GB/s":  # a memory or transfer roof: GFLOP/s = GB/s * FLOP/byte
                ax.plot([lo, hi], [value * lo, value * hi], linestyle=ls, color=colors[i])
            elif unit == "GFLOP/s":
                ax.axhline(value, linestyle=ls, color=colors[i])
                ys.append(value)
            else:
                continue
            handles.append(Line2D([], [], color=colors[i], linestyle=ls))
            labels.append(f"{run['label']}: {text}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(ys) / 3, max(ys) * 3)  # the points and flat roofs, not the sloped roofs' ends
    plain_ticks(ax.xaxis)
    plain_ticks(ax.yaxis)
    ax.set_xlabel("arithmetic intensity (FLOP/byte = flops / bytes moved)")
    ax.set_ylabel(f"achieved GFLOP/s{suffix(with_transfers)}")
    ax.grid(True, which="both", alpha=0.3)
    roof = "transfer roof" if with_transfers else "measured ceilings"
    writer.save(fig, f"miniapp roofline: {roof}{suffix(with_transfers)}", "roofline",
                (handles, labels), ax)
    return True


def name_runs(p, runs, paths, names):
    """--name RUN=LABEL, then equal labels get their directory's name: the rule of
    compare::name_runs (report/compare.hpp), so a legend names runs as compare's table does."""
    for item in names:
        run, _, label = item.partition("=")
        if not run or not label:
            p.error(f"--name {item}: expected RUN=LABEL (RUN a run as given, or its number from 1)")
        if run in paths:
            i = paths.index(run)
        elif run.isdigit() and 1 <= int(run) <= len(runs):
            i = int(run) - 1
        else:
            p.error(f"--name {item}: {run} is not one of the runs (give it as on the command line, "
                    "or its number from 1)")
        runs[i]["label"] = label
    labels = [r["label"] for r in runs]
    for r in runs:
        if labels.count(r["label"]) > 1:
            where = r["source"].rstrip("/")
            if where.endswith(("/results.json", "/results.csv")):
                where = os.path.dirname(where)
            r["label"] += f" [{os.path.basename(where)}]"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="run directories, results.json/.csv, miniapp-bench JSON")
    p.add_argument("-o", "--output-dir", default=".", help="directory for the plot files")
    p.add_argument("--kind", choices=["rate", "speedup", "roofline", "all"], default="all")
    p.add_argument("--baseline", default="1", help="run number (from 1) or run path; default 1")
    p.add_argument("--with-transfers", action="store_true",
                   help="rates from total time (host-to-device + compute + device-to-host)")
    p.add_argument("--x", choices=sorted(X_AXES), default="size", help="x axis (default size)")
    p.add_argument("--format", default="png",
                   help="comma-separated file formats: png, svg, pdf (default png)")
    p.add_argument("--dpi", type=int, default=200, help="PNG resolution (default 200)")
    p.add_argument("--families", default="",
                   help="the family table's facts as JSON, as miniapp hands them (each family's "
                        "rate and whether it reads k)")
    p.add_argument("--name", action="append", default=[], metavar="RUN=LABEL",
                   help="name a run in legends: RUN as given or its number from 1 (repeatable)")
    a = p.parse_args(argv)
    a.formats = [f.strip().lower() for f in a.format.split(",") if f.strip()]
    bad = [f for f in a.formats if f not in ("png", "svg", "pdf")]
    if bad or not a.formats:
        p.error(f"--format {a.format}: choose from png, svg, pdf")
    if not 30 <= a.dpi <= 1200:
        p.error("--dpi must be between 30 and 1200")
    return p, a


def run(argv):
    p, a = parse_args(argv)
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
    if a.families:
        learn_families(a.families, "--families")
    runs = [load_run(x) for x in paths]
    name_runs(p, runs, paths, a.name)
    if a.kind == "speedup" and len(runs) < 2:
        p.error("a speedup plot needs two or more runs")

    import matplotlib
    matplotlib.use("Agg")
    # Labels, family and variant names come from the inputs: "$" is text, never TeX math (an
    # unbalanced one would otherwise stop the plot).
    matplotlib.rcParams["text.parse_math"] = False
    for r, c in zip(runs, palette(len(runs))):  # one colour per run in every plot
        r["color"] = c
    os.makedirs(a.output_dir, exist_ok=True)
    writer = Writer(a.output_dir, a.formats, a.dpi)
    if a.kind in ("rate", "all"):
        plot_rate(runs, writer, a.with_transfers, a.x)
    if a.kind in ("speedup", "all"):
        if len(runs) < 2:
            print("miniapp-plot: one run; no speedup plot", file=sys.stderr)
        else:
            plot_speedup(runs, base, writer, a.with_transfers, a.x)
    if a.kind in ("roofline", "all"):
        plot_roofline(runs, writer, a.with_transfers)
    if not writer.written:
        raise InputError(f"nothing to plot: no rows of the inputs fit --kind {a.kind} --x {a.x}")
    return 0


def main(argv=None):
    try:
        return run(argv)
    except InputError as e:
        print(f"miniapp-plot: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"miniapp-plot: {e}; install Debian's python3-matplotlib and run /usr/bin/python3 "
              "(resource: matplotlib)", file=sys.stderr)
        return 3
    except MemoryError:
        print("miniapp-plot: out of memory (resource: memory)", file=sys.stderr)
        return 3
    except OSError as e:
        print(f"miniapp-plot: {e.filename or ''}: {e.strerror or e} (resource: file system)",
              file=sys.stderr)
        return 3
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as e:
        # Input shapes no check above foresaw: still one sentence, never a traceback.
        print(f"miniapp-plot: unusable input ({type(e).__name__}: {str(e)[:100]})", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
