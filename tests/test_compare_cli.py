#!/usr/bin/python3
"""End-to-end: `miniapp compare` and `miniapp plot` on synthetic runs with known ratios.

Run by ctest (label e2e) as: /usr/bin/python3 test_compare_cli.py, with MINIAPP (the binary) and
MINIAPP_PLOT_PY (scripts/miniapp-plot.py) in the environment.
"""
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib

MINIAPP = os.environ.get("MINIAPP", "build/openmp/bin/miniapp")
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


def write_run(path, backend, device, config_hash, rows):
    os.makedirs(path)
    doc = {"schema_version": 1, "complete": True, "status": "complete", "config": {"name": "t"},
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
        return subprocess.run([MINIAPP, *args], capture_output=True, text=True, timeout=120)

    def test_markdown_numbers_and_names(self):
        p = self.miniapp("compare", self.cpu, self.gpu)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| 1 (baseline) | openmp | CPU X | h |", p.stdout)
        self.assertIn("| 2 | cuda | GPU Y | h |", p.stdout)
        self.assertEqual(p.stdout.count("| 4.00x |"), 4, p.stdout)  # 3 axpby + 1 matmul
        self.assertIn("No warnings", p.stdout)
        self.assertNotIn("warning", p.stderr)

    def test_baseline_by_path(self):
        p = self.miniapp("compare", self.cpu, self.gpu, "--baseline", self.gpu)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("| 0.25x |"), 4, p.stdout)

    def test_mismatched_configs_warn(self):
        p = self.miniapp("compare", self.cpu, self.other)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("warning: config differs", p.stderr)
        self.assertIn("alpha differs: 2 in run 1", p.stderr)
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
        self.assertEqual(sum(",4,false,true," in x for x in lines), 4)

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
        self.check_png(os.path.join(out, "rate-axpby.png"), "miniapp axpby: rate vs size")
        self.check_png(os.path.join(out, "rate-matmul.png"), "miniapp matmul: rate vs size")
        self.check_png(os.path.join(out, "speedup-axpby.png"), "miniapp axpby: speedup vs openmp")
        self.check_png(os.path.join(out, "roofline.png"), "miniapp roofline: measured ceilings")
        self.assertEqual(len(p.stdout.split()), 5, p.stdout)  # + speedup-matmul.png

    def test_plot_script_directly_with_transfers(self):
        out = os.path.join(self.tmp, "plots-direct")
        p = subprocess.run(["/usr/bin/python3", PLOT_PY, self.cpu, "-o", out, "--kind", "rate",
                            "--with-transfers"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.check_png(os.path.join(out, "rate-axpby.png"),
                       "miniapp axpby: rate vs size (with transfers)")
        self.assertFalse(os.path.exists(os.path.join(out, "roofline.png")))

    def test_speedup_needs_two_runs(self):
        p = self.miniapp("plot", self.cpu, "--kind", "speedup", "-o", os.path.join(self.tmp, "x"))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("two or more runs", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
