#!/usr/bin/python3
"""miniapp-plot: plots of miniapp runs (matplotlib; Debian's python3-matplotlib).

  miniapp-plot TABLE [-o DIR] [--kind rate|speedup|roofline|all] [--x COLUMN]
               [--format png,svg,pdf] [--dpi N]

TABLE is the plot table `miniapp plot`, `miniapp report` and `miniapp history --plot` write for
this script (compare/plot_rows.hpp): the runs as `miniapp compare` reads and joins them, one row per
run and case, every results column typed, with the rate in its family's unit for the measure
chosen, its spread, the speedup over the baseline run, sizes, intensities and roofs computed
there. This script holds no schema of the results: it selects rows and draws them. Writes, per
family, rate-<family>.<fmt> (one panel per precision; colour = run, marker = series; error bars
from the slowest to the fastest repetition), speedup-<family>.<fmt> (log axis) and
roofline.<fmt>. Legends sit outside the axes; each title is also the file's Title metadata. A
point of a marked row (busy, disturbed, uncertain ceiling: the table's "marks", a speedup's
"speedup_marks") is ringed in red, and the legend names the marks ringed; a plot of unmarked rows
shows neither.
Prints the files it wrote, one a line. Exit codes: 0 ok, 2 unusable input or usage (one sentence),
3 resource error (disk, permissions, memory).
"""
import argparse
import json
import math
import os
import re
import sys

MAX_INPUT_BYTES = 1 << 30  # the table of runs a results file (256 MiB at most) holds, and more
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]
LINESTYLES = ["-", "--", ":", "-."]
# The marks miniapp gives a row (core/marks.hpp), in its order, and how a marked point is drawn.
MARK_NAMES = ("busy", "disturbed", "uncertain ceiling")
MARK_STYLE = {"marker": "o", "s": 170, "facecolors": "none", "edgecolors": "red",
              "linewidths": 1.6, "zorder": 4}
# Axis titles of the table's named x columns; any other column is titled by its name.
X_TITLES = {"size": "N (or m*n*k when not square)", "tile": "tile size", "run": "run"}
# What tells a series apart: these labels of the case, less the one on the x axis.
SERIES_PARTS = (("variant", "variant"), ("size", "size_label"), ("tile", "tile_label"))


class InputError(Exception):
    """A table that is not one miniapp wrote: exit 2 with one sentence."""


def number(v, what, optional=True):
    if v is None and optional:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    raise InputError(f"{what} is not a finite number: {str(v)[:40]!r}")


def text(v, what):
    if isinstance(v, str):
        return v
    raise InputError(f"{what} is not text: {str(v)[:40]!r}")


def checked_row(r, i, runs):
    """The values the plots read, checked once: a row that lacks one is not the program's."""
    where = f"row {i + 1}"
    if not isinstance(r, dict):
        raise InputError(f"{where} is not an object")
    run = r.get("run")
    if not isinstance(run, int) or isinstance(run, bool) or not 0 <= run < len(runs):
        raise InputError(f"{where}: run {str(run)[:20]!r} is not one of the {len(runs)} runs")
    for key in ("family", "variant", "precision", "rate_unit", "size_label", "tile_label"):
        r[key] = text(r.get(key), f"{where}: {key}")
    for key in ("rate", "rate_low", "rate_high", "size"):
        r[key] = number(r.get(key), f"{where}: {key}", optional=False)
    for key in ("speedup", "intensity", "achieved_gflops", "transfer_gbs"):
        r[key] = number(r.get(key), f"{where}: {key}")
    for key in ("marks", "speedup_marks"):
        m = r.get(key, [])
        if not isinstance(m, list) or any(x not in MARK_NAMES for x in m):
            raise InputError(f"{where}: {key} {str(m)[:40]!r} is not a list of {MARK_NAMES}")
        r[key] = m  # absent (a table written by hand): unmarked
    roof = r.get("roof")
    if roof is not None:
        if not isinstance(roof, dict) or not isinstance(roof.get("sloped"), bool):
            raise InputError(f"{where}: roof is not a roof")
        r["roof"] = (text(roof.get("name"), f"{where}: roof name"),
                     number(roof.get("value"), f"{where}: roof value", optional=False),
                     text(roof.get("unit"), f"{where}: roof unit"), roof["sloped"])
    return r


def load_table(path):
    try:
        if os.path.getsize(path) > MAX_INPUT_BYTES:
            raise InputError(f"{path}: larger than {MAX_INPUT_BYTES >> 20} MiB; not a plot table")
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such plot table") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError(f"{path}: not valid JSON ({str(e)[:80]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list) or \
            not isinstance(doc.get("rows"), list):
        raise InputError(f"{path}: not a plot table (no \"runs\" and \"rows\"); "
                         "`miniapp plot RUN...` writes it")
    runs = []
    for i, run in enumerate(doc["runs"]):
        if not isinstance(run, dict):
            raise InputError(f"{path}: run {i + 1} is not an object")
        runs.append({"label": text(run.get("label"), f"run {i + 1}: label"),
                     "backend": text(run.get("backend"), f"run {i + 1}: backend")})
    base = doc.get("baseline", 0)
    if runs and (not isinstance(base, int) or not 0 <= base < len(runs)):
        raise InputError(f"{path}: baseline {str(base)[:20]!r} is not one of the runs")
    rows = [checked_row(r, i, runs) for i, r in enumerate(doc["rows"])]
    families = [f for f in doc.get("families", []) if isinstance(f, str)]
    measure = text(doc.get("measure", "kernel"), "measure")
    return runs, rows, base, families, measure


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


def families(rows):
    return list(dict.fromkeys(r["family"] for r in rows))


def precisions(rows, fam):
    return list(dict.fromkeys(r["precision"] for r in rows if r["family"] == fam))


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


def ring_marked(ax, points, marks_of):
    """Rings the points [(x, y, row)] whose row marks_of(row) marks; returns the marks ringed."""
    marked = [(x, y, marks_of(r)) for x, y, r in points if marks_of(r)]
    if marked:
        ax.scatter([x for x, _, _ in marked], [y for _, y, _ in marked], **MARK_STYLE)
    return {m for _, _, ms in marked for m in ms}


def marks_legend(handles, ringed):
    """The ring's legend entry, naming the marks it stands for; nothing when none was ringed."""
    if not ringed:
        return
    from matplotlib.lines import Line2D
    style = {k: v for k, v in MARK_STYLE.items() if k not in ("s", "facecolors", "edgecolors",
                                                               "linewidths", "zorder")}
    handles[0].append(Line2D([], [], linestyle="", markersize=12, markerfacecolor="none",
                             markeredgecolor="red", markeredgewidth=1.6, **style))
    handles[1].append("ringed: marked " + ", ".join(m for m in MARK_NAMES if m in ringed) +
                      " (see the tables)")


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
    xlabel = X_TITLES.get(xaxis, xaxis)
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


def x_of(r, xaxis, runs):
    """The row's place on the x axis: a number (> 0, on a log axis) or a category; None: left out."""
    if xaxis == "run":
        return runs[r["run"]]["label"]
    v = r.get(xaxis)
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)):
        return v if math.isfinite(v) and v > 0 else None
    return v if isinstance(v, str) and v else None


def series_of(r, xaxis):
    return " ".join(r[key] for part, key in SERIES_PARTS if part != xaxis and r[key])


def panel_data(rows, runs, fam, prec, xaxis, value_of):
    """{(run index, series): [(x, y, row)]} for one family and precision."""
    data = {}
    for r in rows:
        if r["family"] != fam or r["precision"] != prec:
            continue
        x, y = x_of(r, xaxis, runs), value_of(r)
        if x is None or y is None or y <= 0:
            continue
        data.setdefault((r["run"], series_of(r, xaxis)), []).append((x, y, r))
    if any(isinstance(x, str) for pts in data.values() for x, _, _ in pts):
        data = {k: [(str(x), y, r) for x, y, r in pts] for k, pts in data.items()}
    return data


def plot_family(rows, runs, fam, xaxis, writer, title, stem, ylabel, value_of, errors,
                logy_ratio=False, marks_of=lambda r: r["marks"]):
    panels = [(p, panel_data(rows, runs, fam, p, xaxis, value_of)) for p in precisions(rows, fam)]
    panels = [(p, d) for p, d in panels if d]
    if not panels:
        return False
    colors = [run["color"] for run in runs] if xaxis != "run" else ["0.2"] * len(runs)
    series = list(dict.fromkeys(s for _, d in panels for (_, s) in d))
    styles = series_styles(series)
    if xaxis == "run":  # the x axis names the runs: colour the series instead
        colors = palette(len(series))
    fig, axes = faceted(len(panels))
    ringed = set()
    for ax, (prec, d) in zip(axes, panels):
        categories = None
        if any(isinstance(x, str) for pts in d.values() for x, _, _ in pts):
            categories = list(dict.fromkeys(x for pts in d.values() for x, _, _ in pts))
        values, sizes = [], {}
        for (i, s), pts in d.items():
            color = colors[series.index(s)] if xaxis == "run" else colors[i]
            yerr = None
            if errors:
                lo_hi = [errors(p[2], p[1]) for p in sorted(
                    pts, key=lambda p: categories.index(p[0]) if categories else p[0])]
                yerr = [[a for a, _ in lo_hi], [b for _, b in lo_hi]]
            draw(ax, [(p[0], p[1]) for p in pts], xaxis, categories, color, styles[s], yerr)
            ringed |= ring_marked(ax, [(categories.index(p[0]) if categories else p[0], p[1], p[2])
                                       for p in pts], marks_of)
            values += [p[0] for p in pts if not categories]
            sizes.update({p[0]: p[2]["size_label"] for p in pts if not categories})
        square = all(p[2]["size_label"].startswith("N=") for pts in d.values() for p in pts)
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
    marks_legend(handles, ringed)
    writer.save(fig, title, stem, handles, axes[-1])
    return True


def plot_rate(rows, runs, writer, measure, xaxis):
    wrote = False
    for fam in families(rows):
        unit = next(r["rate_unit"] for r in rows if r["family"] == fam)
        wrote |= plot_family(
            rows, runs, fam, xaxis, writer, f"miniapp {fam}: rate vs {xaxis} ({measure})",
            f"rate-{fam}", f"{unit} ({measure})", lambda r: r["rate"],
            lambda r, y: (max(0.0, y - r["rate_low"]), max(0.0, r["rate_high"] - y)))
    return wrote


def plot_speedup(rows, runs, base, writer, measure, xaxis):
    others = [r for r in rows if r["run"] != base]
    wrote = False
    for fam in families(others):
        if plot_family(others, runs, fam, xaxis, writer,
                       f"miniapp {fam}: speedup vs {runs[base]['backend']} ({measure})",
                       f"speedup-{fam}", f"{measure} speedup vs {runs[base]['label']}",
                       lambda r: r["speedup"], None, logy_ratio=True,
                       marks_of=lambda r: r["speedup_marks"]):
            wrote = True
        else:
            print(f"miniapp-plot: no {fam} cases shared with the baseline; no speedup plot",
                  file=sys.stderr)
    return wrote


def plot_roofline(rows, runs, writer, measure, table_families):
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    with_transfers = measure != "kernel"
    fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
    colors = [run["color"] for run in runs]
    order = list(dict.fromkeys(table_families + families(rows)))  # the table's order first
    markers = {f: MARKERS[i % len(MARKERS)] for i, f in enumerate(order)}
    points = [r for r in rows if r["intensity"] and r["achieved_gflops"]]
    if not points:
        plt.close(fig)
        print("miniapp-plot: no rows with flops and bytes; no roofline", file=sys.stderr)
        return False
    for r in points:
        ax.scatter([r["intensity"]], [r["achieved_gflops"]], color=colors[r["run"]],
                   marker=markers[r["family"]], zorder=3)
    ringed = ring_marked(ax, [(r["intensity"], r["achieved_gflops"], r) for r in points],
                         lambda r: r["marks"])
    xs = [r["intensity"] for r in points]
    ys = [r["achieved_gflops"] for r in points]
    lo, hi = min(xs) / 4, max(xs) * 4
    handles = [Line2D([], [], color=c, linewidth=6) for c in colors]
    labels = [run["label"] for run in runs]
    for f in families(points):
        handles.append(Line2D([], [], color="0.3", marker=markers[f], linestyle=""))
        labels.append(f)
    for i, run in enumerate(runs):
        mine = [r for r in rows if r["run"] == i]
        roofs = {r["roof"] for r in mine if r.get("roof")}
        bw = max([r["transfer_gbs"] or 0.0 for r in mine], default=0.0)
        if with_transfers and bw > 0:
            roofs.add(("host<->device transfers", bw, "GB/s", True))
        for j, (name, value, unit, sloped) in enumerate(sorted(roofs)):
            ls = ["--", ":", "-.", (0, (5, 1))][j % 4]
            if sloped:  # a memory or transfer roof: GFLOP/s = GB/s * FLOP/byte
                ax.plot([lo, hi], [value * lo, value * hi], linestyle=ls, color=colors[i])
            else:
                ax.axhline(value, linestyle=ls, color=colors[i])
                ys.append(value)
            handles.append(Line2D([], [], color=colors[i], linestyle=ls))
            labels.append(f"{run['label']}: {name}: {value:.3g} {unit}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(ys) / 3, max(ys) * 3)  # the points and flat roofs, not the sloped roofs' ends
    plain_ticks(ax.xaxis)
    plain_ticks(ax.yaxis)
    ax.set_xlabel("arithmetic intensity (FLOP/byte = flops / bytes moved)")
    ax.set_ylabel(f"achieved GFLOP/s ({measure})")
    ax.grid(True, which="both", alpha=0.3)
    roof = "transfer roof" if with_transfers else "measured ceilings"
    marks_legend((handles, labels), ringed)
    writer.save(fig, f"miniapp roofline: {roof} ({measure})", "roofline", (handles, labels), ax)
    return True


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("table", help="the plot table miniapp wrote (miniapp plot RUN...)")
    p.add_argument("-o", "--output-dir", default=".", help="directory for the plot files")
    p.add_argument("--kind", choices=["rate", "speedup", "roofline", "all"], default="all")
    p.add_argument("--x", default="size",
                   help="x axis: size, tile, variant, run or any other column (default size)")
    p.add_argument("--format", default="png",
                   help="comma-separated file formats: png, svg, pdf (default png)")
    p.add_argument("--dpi", type=int, default=200, help="PNG resolution (default 200)")
    a = p.parse_args(argv)
    a.formats = [f.strip().lower() for f in a.format.split(",") if f.strip()]
    bad = [f for f in a.formats if f not in ("png", "svg", "pdf")]
    if bad or not a.formats:
        p.error(f"--format {a.format}: choose from png, svg, pdf")
    if not 30 <= a.dpi <= 1200:
        p.error("--dpi must be between 30 and 1200")
    return a


def run(argv):
    a = parse_args(argv)
    runs, rows, base, table_families, measure = load_table(a.table)
    if a.x not in X_TITLES and not any(a.x in r for r in rows):
        raise InputError(f"--x {a.x}: no row has this column")

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
        plot_rate(rows, runs, writer, measure, a.x)
    if a.kind in ("speedup", "all"):
        if len(runs) < 2:
            print("miniapp-plot: one run; no speedup plot", file=sys.stderr)
        else:
            plot_speedup(rows, runs, base, writer, measure, a.x)
    if a.kind in ("roofline", "all"):
        plot_roofline(rows, runs, writer, measure, table_families)
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
