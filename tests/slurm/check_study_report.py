#!/usr/bin/env python3
"""A study's report (miniapp study collect) as headless Chromium renders it: the scaling section
with its SVG plot (a line per system and case in each of its two panels, time and efficiency,
each with a point per rank count), laid out at a readable size, its table, and no script.
Usage: check_study_report.py INDEX.HTML SERIES POINTS_PER_SERIES  (CHROMIUM: the browser)."""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
from check_report import Chromium, Dom, check, measure  # noqa: E402  (the report test's harness)


def main():
    page, series, per_series = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium")
    check(exe, "chromium is not installed (Debian's chromium): the study report cannot be checked")
    check(os.path.isfile(page), f"no report at {page}")
    with tempfile.TemporaryDirectory(prefix="miniapp-study-report-") as tmp:
        chrome = Chromium(exe, tmp)
        dom = Dom(chrome.dom("file://" + page))
        plot = dom.find("svg", inside_id="scaling", id="scaling-plot")
        check(len(plot) == 1, f"{len(plot)} scaling plots, want 1")
        lines = dom.find("polyline", inside_id="scaling-plot", **{"class": "series"})
        check(len(lines) == 2 * series, f"{len(lines)} lines, want {series} in each of 2 panels")
        for line in lines:
            pts = line["attrs"]["points"].split()
            check(len(pts) == per_series, f"a line with {len(pts)} points, want {per_series}")
        rows = dom.find("tr", inside_id="scaling-table", **{"class": "scaling-row"})
        check(len(rows) == series * per_series, f"{len(rows)} table rows")
        check(any("efficiency" in e["text"] for e in dom.find("text", inside_id="scaling-plot")),
              "the efficiency panel's title")
        check(not dom.find("script"), "the report holds no script")
        w, h = measure(chrome, tmp, page, "box(d.getElementById('scaling-plot'))")
        check(w >= 500 and h >= 250, f"the scaling plot laid out at {w} x {h} px")
    print(f"ok: study report: scaling plot {w:.0f} x {h:.0f} px, {series} series x {per_series} "
          f"points in 2 panels, {len(rows)} table rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
