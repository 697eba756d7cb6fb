#!/usr/bin/python3
"""End-to-end: marks that travel (issue 41).

The shipped paper_table1 runs (OpenMP and CUDA, docs/data) are copied with every row unmarked,
then one row of each kind is marked in its results.json: the OpenMP N = 256 row disturbed (its
ceiling moved when re-checked after the case), the CUDA N = 1024 row busy (1.5 CPUs of other
work beside it; the N = 4096 rows read a load of 1e6 but no other work, and are not busy), the OpenMP N = 2048 row uncertain (its ceiling never settled). Every output that shows a
row must show its mark (and a speedup or ratio computed from it must carry it), and no mark for
the rows left unmarked; the same outputs of the unmarked copies show no mark and no legend of
one:

- `compare` markdown and CSV (marks, ratio_marks), `compare --table paper1` and
  `--table portability`;
- `plot` (SVG: the legend, in the file's description, names the marks ringed);
- `report` (the comparison table, its legend, the plots, the portability heat map);
- `history` (table and CSV) of a database the runs were imported into.

No run is made, so nothing depends on this machine's speed or load. Run by ctest (label e2e) as
/usr/bin/python3 test_marks_cli.py with MINIAPP (the binary) and MINIAPP_SOURCE_DIR.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

MINIAPP = os.environ.get("MINIAPP", "build/openmp/bin/miniapp")
SRC = os.environ.get("MINIAPP_SOURCE_DIR",
                     os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MARKS = ("(busy)", "(disturbed)", "(uncertain ceiling)")
# Size of each marked row, its run (0 OpenMP, 1 CUDA) and its mark; the others are unmarked.
MARKED = {256: (0, "(disturbed)"), 1024: (1, "(busy)"), 2048: (0, "(uncertain ceiling)")}
UNMARKED = (128, 512, 4096)


def copy_run(name, dst, run_index, marked):
    """docs/data/<name> in dst, every row unmarked; with `marked`, this run's rows of MARKED
    marked."""
    os.makedirs(dst)
    with open(os.path.join(SRC, "docs", "data", name, "results.json")) as f:
        doc = json.load(f)
    doc["metadata"]["load_average"] = [0.0, 0.0, 0.0]  # no run-level busy warning
    for r in doc["results"]:
        # Busy is the other work measured beside the case where it was (host_others), whatever
        # the load average; the load rule only where it was not (rows of older runs).
        r["host_load"], r["host_others"] = (1e6, 0.0) if r["n"] == 4096 else (0.0, None)
        r["ceiling_low"] = r["ceiling_high"] = r["ceiling_recheck"] = None
        r["ceiling_disturbed"] = False
        run, mark = MARKED.get(r["n"], (None, None))
        if not marked or run != run_index:
            continue
        if mark == "(disturbed)":
            r["ceiling_disturbed"] = True
            r["ceiling_recheck"] = 1.0
        elif mark == "(busy)":
            r["host_others"] = 1.5  # CPUs of other work beside the case
        else:
            r["ceiling_low"], r["ceiling_high"] = 1.0, 2.0
    with open(os.path.join(dst, "results.json"), "w") as f:
        json.dump(doc, f)
    return dst


def size_lines(text, pattern):
    """{N: the lines of text that name N by pattern (formatted with N)}."""
    out = {}
    for n in list(MARKED) + list(UNMARKED):
        out[n] = [l for l in text.splitlines() if re.search(pattern.format(n=n), l)]
    return out


class MarksTravel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="miniapp-marks-")
        cls.marked = [copy_run("paper_table1-openmp", os.path.join(cls.tmp, "m-openmp"), 0, True),
                      copy_run("paper_table1-cuda", os.path.join(cls.tmp, "m-cuda"), 1, True)]
        cls.clean = [copy_run("paper_table1-openmp", os.path.join(cls.tmp, "c-openmp"), 0, False),
                     copy_run("paper_table1-cuda", os.path.join(cls.tmp, "c-cuda"), 1, False)]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def miniapp(self, *args):
        p = subprocess.run([MINIAPP, *args], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, f"{args}: {p.stdout[-2000:]}{p.stderr[-2000:]}")
        return p.stdout

    def assert_marked_lines(self, text, pattern, per_line):
        """Each marked size's lines carry its mark per_line(run) times in all, the unmarked
        sizes' none."""
        lines = size_lines(text, pattern)
        for n, (run, mark) in MARKED.items():
            self.assertTrue(lines[n], f"no line for N = {n}:\n{text}")
            self.assertEqual(sum(l.count(mark) for l in lines[n]), per_line(run),
                             f"N = {n} {mark}:\n" + "\n".join(lines[n]))
        for n in UNMARKED:
            self.assertTrue(lines[n], f"no line for N = {n}:\n{text}")
            for l in lines[n]:
                for m in MARKS:
                    self.assertNotIn(m, l, f"N = {n} is unmarked")

    def assert_no_marks(self, text, what):
        for m in MARKS + ("ringed", "marks-legend", "class=\"marked\""):
            self.assertNotIn(m, text, f"{what} of unmarked runs shows {m}")

    def test_compare_markdown_and_csv(self):
        md = self.miniapp("compare", *self.marked)
        # The rate of the marked run, and the ratio computed from it.
        self.assert_marked_lines(md, r"\| {n}x{n} \|", lambda run: 2)
        for m in MARKS:
            self.assertIn(m[:-1] + "): ", md, "the legend explains each mark shown")
        self.assert_no_marks(self.miniapp("compare", *self.clean), "compare")

        rows = list(csv.DictReader(io.StringIO(self.miniapp("compare", *self.marked,
                                                            "--format", "csv"))))
        for r in rows:
            n, run = int(r["n"]), int(r["run"]) - 1
            mark = MARKED.get(n, (None, None))
            want = mark[1][1:-1] if mark[0] == run else ""
            self.assertEqual(r["marks"], want, r)
            ratio_want = mark[1][1:-1] if run == 1 and mark[0] is not None else ""
            self.assertEqual(r["ratio_marks"], ratio_want, r)

    def test_paper_table1_and_portability(self):
        table = self.miniapp("compare", "--table", "paper1", *self.marked)
        # The marked run's GFLOPS and the speedup.
        self.assert_marked_lines(table, r"^\| {n} x {n} \|", lambda run: 2)
        self.assert_no_marks(self.miniapp("compare", "--table", "paper1", *self.clean), "paper1")

        pp = self.miniapp("compare", "--table", "portability", *self.marked)
        # Its cell and the PP of the architectural efficiencies (one application: the
        # application efficiency and its PP are n/a, computed from nothing).
        self.assert_marked_lines(pp, r"/{n}x{n} ", lambda run: 2)
        self.assert_no_marks(self.miniapp("compare", "--table", "portability", *self.clean),
                             "portability")

    def plots(self, runs, name):
        out = os.path.join(self.tmp, name)
        self.miniapp("plot", *runs, "-o", out, "--kind", "all", "--format", "svg")
        files = sorted(os.listdir(out))
        self.assertEqual(files, ["rate-axpby.svg", "roofline.svg", "speedup-axpby.svg"])
        texts = {}
        for f in files:
            with open(os.path.join(out, f)) as fh:
                texts[f] = fh.read()
        return texts

    def test_plot_rings_marked_points_and_names_them(self):
        for f, text in self.plots(self.marked, "plots-marked").items():
            # Every plot holds a point of each mark (the speedups carry the baseline's).
            self.assertIn("ringed: marked busy, disturbed, uncertain ceiling (see the tables)",
                          text, f)
        for f, text in self.plots(self.clean, "plots-clean").items():
            self.assertNotIn("ringed", text, f)

    def report(self, runs, name):
        out = os.path.join(self.tmp, name)
        self.miniapp("report", *runs, "-o", out)
        with open(os.path.join(out, "index.html")) as f:
            return f.read()

    def test_report_tables_legend_plots_and_heat_map(self):
        page = self.report(self.marked, "report-marked")
        rows = re.findall(r'<tr class="case">.*?</tr>', page, re.S)
        self.assert_marked_lines("\n".join(r.replace("\n", " ") for r in rows),
                                 r"<td>{n}x{n}</td>", lambda run: 2)
        self.assertIn('id="marks-legend"', page)
        self.assertIn("ringed: marked busy, disturbed, uncertain ceiling", page)  # the plots
        heat = re.search(r'<figure class="plot" id="pp-heat-map">.*?</figure>', page, re.S)
        self.assertIsNotNone(heat)
        self.assertIn("Outlined in red: marked busy, disturbed, uncertain ceiling", heat.group(0))
        self.assertIn('class="marked"', heat.group(0))
        self.assert_no_marks(self.report(self.clean, "report-clean"), "report")

    def test_history_table_and_csv(self):
        db = os.path.join(self.tmp, "history.db")
        self.miniapp("db", "import", "--db", db, *self.marked)
        rows = list(csv.DictReader(io.StringIO(self.miniapp("history", "--db", db,
                                                            "--format", "csv"))))
        self.assertEqual(len(rows), 12)
        for r in rows:
            n = int(re.search(r"/(\d+)x\1/", r["case"]).group(1))
            run = 0 if r["backend"] == "openmp" else 1
            mark = MARKED.get(n, (None, None))
            self.assertEqual(r["marks"], mark[1][1:-1] if mark[0] == run else "", r)
        table = self.miniapp("history", "--db", db)
        rows_part, _, legend = table.partition("\n\n(busy): ")
        for m in MARKS:
            self.assertEqual(rows_part.count(m), 1, table)  # its row's, then the legend's
            self.assertIn(m[:-1] + "): ", "(busy): " + legend, "the legend explains each mark")
        clean_db = os.path.join(self.tmp, "clean.db")
        self.miniapp("db", "import", "--db", clean_db, *self.clean)
        self.assert_no_marks(self.miniapp("history", "--db", clean_db), "history")


if __name__ == "__main__":
    unittest.main()
