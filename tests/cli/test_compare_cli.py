#!/usr/bin/python3
"""End-to-end: `miniapp compare` and `miniapp plot` on synthetic runs with known ratios.

Run by ctest (label e2e) as: /usr/bin/python3 test_compare_cli.py, with MINIAPP (the binary) and
MINIAPP_PLOT_PY (scripts/miniapp-plot.py) in the environment.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib

MINIAPP = os.environ.get("MINIAPP", "build/openmp/bin/miniapp")
# Each miniapp call may take this long before it counts as hung: a bound on a hang, not on this
# machine's speed (the test took 164 s at a load of 20 on 2 CPUs, past its old 300 s beside 4 busy
# loops more).
HANG_S = 900
PLOT_PY = os.environ.get("MINIAPP_PLOT_PY", "scripts/miniapp-plot.py")


def row(family, variant, n, tmin, tmed, tmax, alpha=2.0):
    mm = family == "matmul"
    flops = 2.0 * n**3 if mm else 3.0 * n * n
    nbytes = 12.0 * n * n
    return {"experiment": "t", "family": family, "variant": variant, "precision": "float32",
            "m": n, "n": n, "k": n if mm else 0, "tile": 0, "tile_cols": 0, "team_size": 0,
            "alpha": alpha, "beta": 0.5, "in_place": False, "pinned": False, "seed": 42,
            "backend": "x", "status": "ok", "valid": True, "warmup": 2, "repetitions": 10,
            "time_min_s": tmin, "time_median_s": tmed, "time_max_s": tmax,
            "total_median_s": tmed, "flops": flops, "bytes": nbytes,
            "gflops": flops / tmed / 1e9, "gbs": nbytes / tmed / 1e9,
            "ceiling": "copy bandwidth" if not mm else "vendor GEMM",
            "ceiling_value": 50.0 if not mm else 200.0,
            "ceiling_unit": "GB/s" if not mm else "GFLOP/s"}


def write_run(path, backend, device, config_hash, rows, schema_version=1):
    os.makedirs(path)
    doc = {"schema_version": schema_version, "complete": True, "status": "complete", "config": {"name": "t"},
           "metadata": {"backend": backend, "device_name": device, "host_name": "h",
                        "config_hash": config_hash},
           "results": rows}
    with open(os.path.join(path, "results.json"), "w") as f:
        json.dump(doc, f)


def png_text(path):
    """The PNG's tEXt/iTXt/zTXt chunks as {keyword: text}."""
    out = {}
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + " is not a PNG"
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt":
            key, _, text = body.partition(b"\0")
            out[key.decode("latin-1")] = text.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed = rest[0]
            rest = rest[2:]
            _lang, _, rest = rest.partition(b"\0")
            _tkey, _, text = rest.partition(b"\0")
            out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        pos += 12 + length
    return out


class RunIdentity(unittest.TestCase):
    """`miniapp run` records how it was launched; compare shows it."""

    def test_label_launch_metadata_and_repetition_times(self):
        tmp = tempfile.mkdtemp(prefix="miniapp-e2e-identity-")
        try:
            config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e_configs",
                                  "results_small.yaml")
            out = os.path.join(tmp, "nested", "myrun")
            env = dict(os.environ, KOKKOS_TEST_VAR="k", LOADEDMODULES="gcc/12:openmpi/4.1",
                       SLURM_FAKE="s\udcff",  # byte 0xff: not UTF-8
                       OMPI_MCA_btl="self,tcp", OMPI_MCA_orte_precondition_transports="1-2")
            p = subprocess.run([MINIAPP, "run", config, "--quiet", "--output-dir", out,
                                "--set", "repetitions=4", "--label", "my | run"],
                               capture_output=True, text=True, timeout=HANG_S, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
                doc = json.load(f)
            md = doc["metadata"]
            self.assertEqual(md["label"], "my | run")
            self.assertIn("--label", md["command_line"])
            self.assertEqual(md["overrides"], ["repetitions=4"])
            self.assertEqual(md["config_path"], os.path.realpath(config))
            self.assertEqual(md["environment"]["KOKKOS_TEST_VAR"], "k")
            self.assertIn("OMP_PROC_BIND", md["environment"])
            # Open MPI's transport selection is kept; the launcher's own settings are not.
            self.assertEqual(md["environment"]["OMPI_MCA_btl"], "self,tcp")
            self.assertNotIn("OMPI_MCA_orte_precondition_transports", md["environment"])
            self.assertEqual(md["loaded_modules"], ["gcc/12", "openmpi/4.1"])
            self.assertEqual(md["slurm"]["SLURM_FAKE"], "s\ufffd")
            topo = md["cpu_topology"]
            self.assertGreaterEqual(topo["pus"], topo["cores"])
            self.assertGreaterEqual(topo["cores"], 1)
            self.assertGreaterEqual(topo["numa_nodes"], 1)
            self.assertTrue(topo["process_binding"])
            self.assertGreaterEqual(md["threads_per_rank"], 1)
            self.assertEqual(doc["config"]["output"]["directory"], os.path.join(tmp, "nested"))
            self.assertEqual(doc["config"]["output"]["run_directory"], out)
            for r in doc["results"]:
                self.assertEqual(len(r["compute_times_s"]), 4)
                self.assertEqual(len(r["h2d_times_s"]), 4)
                self.assertAlmostEqual(sorted(r["compute_times_s"])[0], r["time_min_s"],
                                       delta=1e-6 + 1e-5 * r["time_min_s"])
            # Default label: backend, ranks x threads, device, host; Serial has one thread.
            out2 = os.path.join(tmp, "second")
            p = subprocess.run([MINIAPP, "run", config, "--quiet", "--output-dir", out2,
                                "--set", "repetitions=4", "backend=serial"], capture_output=True,
                               text=True, timeout=HANG_S)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(out2, "results.json")) as f:
                md2 = json.load(f)["metadata"]
            self.assertEqual(md2["threads_per_rank"], 1)
            self.assertTrue(md2["label"].startswith("serial 1x1 on "), md2["label"])
            q = subprocess.run([MINIAPP, "compare", out, out2], capture_output=True, text=True,
                               timeout=HANG_S)
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertIn("| my \\| run |", q.stdout)
            # The columns are named by the runs' labels (--label), with ranks x threads where the
            # label lacks them, not "run 1 (1x2)".
            self.assertRegex(q.stdout, r"\| my \\\| run \(1x\d+\) kernel rate \| my \\\| run "
                                       r"\(1x\d+\) kernel time ms \|")
            self.assertRegex(q.stdout, r"\| kernel ratio serial 1x1 on .* / my \\\| run \(1x\d+\) \|")
            self.assertNotIn("run 1 (1x", q.stdout)
            self.assertIn("(p ", q.stdout)  # repetition times: the significance test ran
            if md["threads_per_rank"] > 1:
                self.assertIn("threads per rank differ", q.stdout)
        finally:
            shutil.rmtree(tmp)


class CompareCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="miniapp-e2e-compare-")
        sizes = [128, 256, 512]
        # GPU medians are 4x shorter with disjoint [min, max] ranges: ratio 4, not noise.
        cls.cpu = os.path.join(cls.tmp, "cpu")
        write_run(cls.cpu, "openmp", "CPU X", "aaa",
                  [row("axpby", "flat", n, 0.9e-3 * n, 1e-3 * n, 1.1e-3 * n) for n in sizes]
                  + [row("matmul", "tiled", 256, 8e-3, 10e-3, 12e-3)])
        cls.gpu = os.path.join(cls.tmp, "gpu")
        write_run(cls.gpu, "cuda", "GPU Y", "aaa",
                  [row("axpby", "flat", n, 0.2e-3 * n, 0.25e-3 * n, 0.3e-3 * n) for n in sizes]
                  + [row("matmul", "tiled", 256, 2e-3, 2.5e-3, 3e-3)])
        cls.other = os.path.join(cls.tmp, "other")  # another config: different hash and alpha
        write_run(cls.other, "serial", "CPU X", "bbb",
                  [row("axpby", "flat", n, 0.9e-3 * n, 1e-3 * n, 1.1e-3 * n, alpha=1.0) for n in sizes])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def miniapp(self, *args):
        return subprocess.run([MINIAPP, *args], capture_output=True, text=True, timeout=HANG_S)

    def test_markdown_numbers_and_names(self):
        p = self.miniapp("compare", self.cpu, self.gpu)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| 1 (baseline) | openmp on CPU X (h) | ? | openmp | CPU X | h |", p.stdout)
        self.assertIn("| 2 | cuda on GPU Y (h) | ? | cuda | GPU Y | h |", p.stdout)
        self.assertEqual(p.stdout.count("| 4.00x |"), 4, p.stdout)  # 3 axpby + 1 matmul
        # One run a side: the only thing to say is that the run-to-run spread is unknown, once:
        # in the markdown's warnings, not again on stderr.
        self.assertNotIn("warning", p.stderr)
        warnings = [w for w in p.stdout.split("## Warnings\n")[1].splitlines()
                    if w.startswith("- ")]
        self.assertEqual(len(warnings), 1, p.stdout)
        self.assertIn("run-to-run spread unknown (1 round in run 1", warnings[0])
        self.assertEqual(p.stdout.count("run-to-run spread unknown"), 1, p.stdout)
        # Where the output does not show them (CSV), stderr does.
        p = self.miniapp("compare", self.cpu, self.gpu, "--format", "csv")
        self.assertIn("warning: run-to-run spread unknown (1 round in run 1", p.stderr)

    def test_baseline_by_path(self):
        p = self.miniapp("compare", self.cpu, self.gpu, "--baseline", self.gpu)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("| 0.25x |"), 4, p.stdout)

    def test_mismatched_configs_warn(self):
        p = self.miniapp("compare", self.cpu, self.other)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("- config differs", p.stdout)
        self.assertIn("alpha differs: 2 in run 1", p.stdout)
        self.assertIn("## Warnings", p.stdout)
        self.assertIn("missing from run 2", p.stdout)  # the matmul case
        self.assertEqual(p.stdout.count("| 1.00x ~ |"), 3, p.stdout)  # same times: noise

    def test_csv_to_file(self):
        out = os.path.join(self.tmp, "cmp.csv")
        p = self.miniapp("compare", self.cpu, self.gpu, "--format", "csv", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            lines = f.read().splitlines()
        self.assertTrue(lines[0].startswith("case,family,variant,precision,m,n,k,tile,run,"))
        self.assertEqual(len(lines), 1 + 4 * 2)
        self.assertEqual(sum(",4,false,,true," in x for x in lines), 4)

    def test_table_paper1_pending(self):
        p = self.miniapp("compare", "--table", "paper1", self.cpu)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("GPU: pending", p.stdout)
        self.assertIn("| 128 x 128 | 128 | 0.000384 | pending | pending | pending |", p.stdout)
        q = self.miniapp("compare", "--table", "paper1", self.cpu, self.gpu)
        self.assertIn("| 512 x 512 | 512 | 0.00154 | 128 | 0.00614 | 4.0 |", q.stdout)

    def test_missing_run_is_a_usage_error(self):
        p = self.miniapp("compare", os.path.join(self.tmp, "nope"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("no such run directory", p.stderr)

    def check_png(self, path, title):
        self.assertTrue(os.path.isfile(path), path)
        self.assertGreater(os.path.getsize(path), 5000, path)
        self.assertEqual(png_text(path).get("Title"), title)

    def test_plot_subcommand_all_kinds(self):
        out = os.path.join(self.tmp, "plots")
        p = self.miniapp("plot", self.cpu, self.gpu, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check_png(os.path.join(out, "rate-axpby.png"), "miniapp axpby: rate vs size (kernel)")
        self.check_png(os.path.join(out, "rate-matmul.png"), "miniapp matmul: rate vs size (kernel)")
        self.check_png(os.path.join(out, "speedup-axpby.png"), "miniapp axpby: speedup vs openmp (kernel)")
        self.check_png(os.path.join(out, "roofline.png"), "miniapp roofline: measured ceilings (kernel)")
        self.assertEqual(len(p.stdout.split()), 5, p.stdout)  # + speedup-matmul.png
        # One legend entry per run and one per variant, however many cases.
        self.assertEqual(png_text(os.path.join(out, "rate-axpby.png")).get("Description"),
                         "legend: openmp on CPU X (h) | cuda on GPU Y (h) | flat | "
                         "error bars: slowest to fastest repetition")

    def test_plot_with_transfers(self):
        out = os.path.join(self.tmp, "plots-transfers")
        p = self.plot(self.cpu, "-o", out, "--kind", "rate", "--with-transfers")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check_png(os.path.join(out, "rate-axpby.png"),
                       "miniapp axpby: rate vs size (end-to-end)")
        self.assertFalse(os.path.exists(os.path.join(out, "roofline.png")))

    def test_schema_2_nulls_against_schema_1(self):
        """A schema 2 run (integers, null where the variant does not use a parameter, case_id)
        compares with a schema 1 run (every number a float) without warnings, and both plot."""
        sizes = [128, 256, 512]
        v1 = os.path.join(self.tmp, "schema1")
        v1_rows = [row("axpby", "flat", n, 0.9e-3 * n, 1e-3 * n, 1.1e-3 * n) for n in sizes] + [
            row("matmul", "tiled", 256, 8e-3, 10e-3, 12e-3)]
        for r in v1_rows:
            for key, value in r.items():
                if type(value) is int:
                    r[key] = float(value)
        write_run(v1, "openmp", "CPU X", "aaa", v1_rows)
        v2 = os.path.join(self.tmp, "schema2")
        v2_rows = [row("axpby", "flat", n, 0.2e-3 * n, 0.25e-3 * n, 0.3e-3 * n) for n in sizes] + [
            row("matmul", "tiled", 256, 2e-3, 2.5e-3, 3e-3)]
        for r in v2_rows:
            axpby = r["family"] == "axpby"
            unused = ("k", "tile", "tile_cols", "team_size") if axpby else (
                "tile_cols", "alpha", "beta", "in_place")
            for key in unused:
                r[key] = None
            r["case_id"] = f"{r['family']}/{r['variant']}/float32/{r['m']}x{r['n']}"
        write_run(v2, "cuda", "GPU Y", "aaa", v2_rows, schema_version=2)
        p = self.miniapp("compare", v1, v2)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("| 4.00x |"), 4, p.stdout)
        self.assertNotIn("alpha differs", p.stdout)  # matmul's alpha is null
        self.assertNotIn("config differs", p.stdout + p.stderr)
        out = os.path.join(self.tmp, "schema-plots")
        p = self.plot(v1, v2, "-o", out, "--kind", "all")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "speedup-axpby.png")), p.stdout)

    def plot(self, *args):
        return self.miniapp("plot", *args)

    def assert_one_sentence(self, p, code):
        """Exit `code` with one line on stderr, from the program or from the plot script."""
        self.assertEqual(p.returncode, code, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertTrue(p.stderr.startswith(("miniapp plot: ", "miniapp-plot: ")), p.stderr)

    def test_plot_formats_and_x_axes(self):
        out = os.path.join(self.tmp, "plots-formats")
        p = self.plot(self.cpu, self.gpu, "-o", out, "--kind", "rate", "--format", "png,svg,pdf",
                      "--x", "run")
        self.assertEqual(p.returncode, 0, p.stderr)
        for ext, magic in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")):
            with open(os.path.join(out, "rate-axpby." + ext), "rb") as f:
                self.assertEqual(f.read(len(magic)), magic, ext)
        self.assertIn("rate vs run", png_text(os.path.join(out, "rate-axpby.png"))["Title"])
        for x in ("variant", "size"):
            q = self.plot(self.cpu, "-o", out, "--kind", "rate", "--x", x)
            self.assertEqual(q.returncode, 0, q.stderr)
        q = self.plot(self.cpu, "-o", out, "--format", "gif")
        self.assertEqual(q.returncode, 2)

    def test_plot_speedup_axis_is_logarithmic_and_labelled(self):
        out = os.path.join(self.tmp, "plots-speedup")
        p = self.plot(self.cpu, self.gpu, "-o", out, "--kind", "speedup", "--format", "svg")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "speedup-axpby.svg")) as f:
            svg = f.read()
        # Ticks at 1, 2, 5 x 10^k written as ratios (a log axis: 0.25x does not read as 0).
        self.assertTrue("<!-- 1x -->" in svg and "<!-- 2x -->" in svg, "no 1x/2x tick labels")

    def test_plot_names_colours_sizes_and_error_bars(self):
        # Two runs of one backend and device (pinned vs not, say) would share a label: each gets
        # its directory's name; --name renames one; each run keeps its colour in every plot; a
        # family of non-square sizes names them on its axis, with at most 8 tick labels.
        a, b = os.path.join(self.tmp, "gpu-pageable"), os.path.join(self.tmp, "gpu-pinned")
        rows = [dict(row("axpby", "flat", n, 1e-4, 1.1e-4, 1.3e-4), m=n // 2) for n in
                (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)]
        write_run(a, "cuda", "G", "c1", rows)
        write_run(b, "cuda", "G", "c2", rows)
        out = os.path.join(self.tmp, "plots-names")
        p = self.plot(self.cpu, a, b, "-o", out, "--kind", "all", "--format", "svg",
                      "--name", "1=the CPU", "--baseline", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "rate-axpby.svg")) as f:
            rate = f.read()
        with open(os.path.join(out, "speedup-axpby.svg")) as f:
            speedup = f.read()
        for label in ("the CPU", "cuda on G (h) [gpu-pageable]", "cuda on G (h) [gpu-pinned]"):
            self.assertIn(label, rate)
        self.assertIn("error bars: slowest to fastest repetition", rate)
        self.assertIn("m x n, placed at m*n", rate)
        self.assertIn("16384x32768", rate)  # the largest size by name
        self.assertLessEqual(len(re.findall(r"<g id=\"xtick_\d+\"", rate)), 2 * 8)  # 2 panels
        # run 3's colour (tab10's third, #2ca02c) is the same in the rate and the speedup plot
        self.assertIn("#2ca02c", rate)
        self.assertIn("#2ca02c", speedup)
        self.assertIn("kernel speedup vs cuda on G (h) [gpu-pageable]", speedup)
        bad = self.plot(self.cpu, "-o", out, "--name", "7=x")
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertIn("--name 7=x", bad.stderr)

    def test_plot_bench_json(self):
        bench = {"context": {"miniapp_backend": "openmp", "miniapp_device": "CPU Z",
                             "miniapp_concurrency": "2"},
                 "benchmarks": [
                     {"name": f"axpby/{v}/float32/{n}/manual_time",
                      "run_name": f"axpby/{v}/float32/{n}/manual_time", "run_type": "iteration",
                      "real_time": 0.01 * n / 1024, "time_unit": "ms",
                      "FLOP/s": 3.0 * n * n / (1e-5 * n / 1024), "bytes/s": 12.0 * n * n / (1e-5 * n / 1024)}
                     for v in ("flat", "team") for n in (1024, 2048)] + [
                     {"name": "ceiling/copy/iterations:3/manual_time", "run_type": "iteration",
                      "real_time": 1.0, "time_unit": "ms", "bytes/s": 5e10},
                     {"name": "launch/kokkos_empty/manual_time", "run_type": "iteration",
                      "real_time": 3.0, "time_unit": "us"}]}
        path = os.path.join(self.tmp, "bench.json")
        with open(path, "w") as f:
            json.dump(bench, f)
        out = os.path.join(self.tmp, "plots-bench")
        p = self.miniapp("plot", path, "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check_png(os.path.join(out, "rate-axpby.png"), "miniapp axpby: rate vs size (kernel)")
        self.assertIn("openmp 1x2 on CPU Z | flat | team",
                      png_text(os.path.join(out, "rate-axpby.png"))["Description"])
        # ceiling/copy is each row's ceiling: the roofline's slope
        self.assertIn("openmp 1x2 on CPU Z: copy bandwidth: 50 GB/s",
                      png_text(os.path.join(out, "roofline.png"))["Description"])
        # Benchmark JSON with nothing of miniapp's in it: an error, never "nothing written, exit 0".
        empty = os.path.join(self.tmp, "bench-empty.json")
        with open(empty, "w") as f:
            json.dump({"context": {}, "benchmarks": []}, f)
        self.assert_one_sentence(self.miniapp("plot", empty, "-o", out), 2)

    def test_plot_corrupt_inputs_exit_2_with_one_sentence(self):
        bad = os.path.join(self.tmp, "bad")
        os.makedirs(bad, exist_ok=True)
        cases = {"trunc.json": b'{"results": [', "deep.json": b"[" * 100000 + b"]" * 100000,
                 "notutf8.json": b'{"results": ["\xff\xfe"]}', "rows.json": b'{"results": [1, 2]}',
                 "nan.json": b'{"results": [{"family": "axpby", "gbs": "abc"}]}',
                 "bad.csv": b"family,gbs\naxpby,not-a-number\n", "nofamily.csv": b"a,b\n1,2\n"}
        for name, data in cases.items():
            path = os.path.join(bad, name)
            with open(path, "wb") as f:
                f.write(data)
            with self.subTest(name):
                self.assert_one_sentence(self.plot(path, "-o", os.path.join(self.tmp, "x")), 2)
        self.assert_one_sentence(self.plot(os.path.join(bad, "missing"), "-o", bad), 2)

    def script(self, *args):
        return subprocess.run(["/usr/bin/python3", PLOT_PY, *args], capture_output=True,
                              text=True, timeout=HANG_S)

    def test_plot_script_refuses_tables_not_the_programs(self):
        # The script reads only the plot table miniapp writes for it; anything else (truncated,
        # not UTF-8, nested absurdly deep, a row of the wrong shape or a number that is not one)
        # is refused with one sentence and exit 2, never a traceback.
        good = {"measure": "kernel", "baseline": 0, "families": [],
                "runs": [{"label": "r", "backend": "serial"}],
                "rows": [{"run": 0, "family": "f", "variant": "v", "precision": "float32",
                          "rate": 1.0, "rate_low": 0.9, "rate_high": 1.1, "rate_unit": "GB/s",
                          "size": 64, "size_label": "N=64", "tile_label": "", "speedup": None,
                          "intensity": None, "achieved_gflops": None, "transfer_gbs": None,
                          "roof": None}]}

        def with_row(**change):
            return json.dumps(dict(good, rows=[dict(good["rows"][0], **change)])).encode()
        bad = os.path.join(self.tmp, "bad-tables")
        os.makedirs(bad, exist_ok=True)
        cases = {"trunc.json": b'{"runs": [', "deep.json": b"[" * 100000 + b"]" * 100000,
                 "notutf8.json": b'{"runs": ["\xff\xfe"]}', "results.json": b'{"results": []}',
                 "rows.json": json.dumps(dict(good, rows=[1, 2])).encode(),
                 "run.json": with_row(run=7), "rate.json": with_row(rate="abc"),
                 "nan.json": with_row(rate_high=float("nan")), "roof.json": with_row(roof=[1])}
        for name, data in cases.items():
            path = os.path.join(bad, name)
            with open(path, "wb") as f:
                f.write(data)
            with self.subTest(name):
                self.assert_one_sentence(self.script(path, "-o", os.path.join(bad, "x")), 2)
        self.assert_one_sentence(self.script(os.path.join(bad, "missing"), "-o", bad), 2)
        path = os.path.join(bad, "good.json")
        with open(path, "wb") as f:
            f.write(json.dumps(good).encode())
        p = self.script(path, "-o", os.path.join(bad, "out"), "--kind", "rate")
        self.assertEqual(p.returncode, 0, p.stderr)  # the same table, well formed, draws

    def test_plot_draws_any_column_the_script_never_names(self):
        # The plot table carries every results column: one the script never names (team_size)
        # is an x axis without a change to the script.
        with open(PLOT_PY) as f:
            self.assertFalse("team_size" in f.read(), "the script names team_size")
        run = os.path.join(self.tmp, "teams")
        write_run(run, "openmp", "CPU", "tm", [
            dict(row("axpby", "team", 1024, 1e-3 * t / 32, 1e-3 * t / 32, 1e-3 * t / 32),
                 team_size=t) for t in (32, 64, 128)])
        out = os.path.join(self.tmp, "teams-out")
        p = self.plot(run, "-o", out, "--kind", "rate", "--x", "team_size", "--format", "svg")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "rate-axpby.svg")) as f:
            svg = f.read()
        self.assertIn("miniapp axpby: rate vs team_size (kernel)", svg)
        for t in ("32", "64", "128"):  # the x ticks: the team sizes the rows recorded
            self.assertIn(f"<!-- {t} -->", svg)
        self.assert_one_sentence(self.plot(run, "-o", out, "--x", "no_such_column"), 2)

    def test_plot_unwritable_output_is_a_resource_error(self):
        blocker = os.path.join(self.tmp, "a-file")
        with open(blocker, "w") as f:
            f.write("x")
        self.assert_one_sentence(self.plot(self.cpu, "-o", os.path.join(blocker, "sub")), 3)

    def test_plot_family_names_cannot_leave_the_output_dir(self):
        run = os.path.join(self.tmp, "evil")
        write_run(run, "openmp", "CPU", "e", [row("/../../escaped", "flat", 64, 1e-3, 1e-3, 1e-3),
                                              row("../up", "flat", 64, 1e-3, 1e-3, 1e-3)])
        out = os.path.join(self.tmp, "evil-out", "inner")
        p = self.plot(run, "-o", out, "--kind", "rate")
        self.assertEqual(p.returncode, 0, p.stderr)
        for path in p.stdout.split():
            self.assertEqual(os.path.dirname(os.path.realpath(path)), os.path.realpath(out), path)
        self.assertEqual(sorted(os.listdir(os.path.join(self.tmp, "evil-out"))), ["inner"])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "escaped.png")))

    def test_roofline_draws_one_slope_per_memory_level(self):
        # Issue 22: each row names the level whose bandwidth is its ceiling; the roofline draws
        # every level's slope once, labelled with the level, beside the vendor GEMM roof.
        run = os.path.join(self.tmp, "levels")
        small, big, mm = (row("axpby", "flat", 64, 1e-6, 1e-6, 1e-6),
                          row("axpby", "flat", 4096, 1e-2, 1e-2, 1e-2),
                          row("matmul", "flat", 256, 1e-3, 1e-3, 1e-3))
        small.update({"ceiling_level": "L2", "ceiling_value": 120.0})
        big.update({"ceiling_level": "memory", "ceiling_value": 20.0})
        big2 = dict(big, n=2048, m=2048)
        write_run(run, "openmp", "CPU", "lv", [small, big, big2, mm])
        out = os.path.join(self.tmp, "levels-out")
        p = self.plot(run, "-o", out, "--kind", "roofline")
        self.assertEqual(p.returncode, 0, p.stderr)
        legend = png_text(os.path.join(out, "roofline.png"))["Description"]
        self.assertIn("openmp on CPU (h): L2 copy bandwidth: 120 GB/s", legend)
        self.assertIn("openmp on CPU (h): memory copy bandwidth: 20 GB/s", legend)
        self.assertEqual(legend.count("memory copy bandwidth"), 1, legend)
        self.assertIn("vendor GEMM float32 N=256: 200 GFLOP/s", legend)

    def test_plot_labels_are_text_not_tex(self):
        run = os.path.join(self.tmp, "dollar")
        write_run(run, "openmp", "CPU", "d", [row("axpby", "flat", 64, 1e-3, 1e-3, 1e-3)])
        with open(os.path.join(run, "results.json")) as f:
            doc = json.load(f)
        doc["metadata"]["label"] = "costs $x^{$ run"
        with open(os.path.join(run, "results.json"), "w") as f:
            json.dump(doc, f)
        out = os.path.join(self.tmp, "dollar-out")
        p = self.plot(run, "-o", out, "--kind", "rate")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("costs $x^{$ run", png_text(os.path.join(out, "rate-axpby.png"))["Description"])
        # With TeX off, no axis may fall back to matplotlib's TeX tick labels ("$\\mathdefault{...}$").
        p = self.plot(run, "-o", out, "--kind", "roofline", "--format", "svg")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "roofline.svg")) as f:
            self.assertNotIn("mathdefault", f.read())

    def test_compare_refuses_deep_json(self):
        deep = os.path.join(self.tmp, "deep")
        os.makedirs(deep)
        with open(os.path.join(deep, "results.json"), "w") as f:
            f.write('{"results": [], "metadata": {"x": ' + "[" * 100000 + "]" * 100000 + "}}")
        p = self.miniapp("compare", deep)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("nested deeper than 64 levels", p.stderr)

    def test_speedup_needs_two_runs(self):
        p = self.miniapp("plot", self.cpu, "--kind", "speedup", "-o", os.path.join(self.tmp, "x"))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("two or more runs", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
