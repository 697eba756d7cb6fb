#!/usr/bin/python3
"""End-to-end: noise across runs on this machine (issue 22, item 3).

`miniapp run --rounds 5` of one small config twice, and once with tile 2 instead of 16, then
`miniapp compare`: the two runs of one config compare as `~`, tile 2 against tile 16 as `*`,
each test on the rounds (Welch's t on log round medians), with the tool's default repetitions.

Five rounds, not three: on CI's loaded 2-core host one run's rounds of tile 2 spread by 52%
(3.5 to 17.6 ms) while tile 16's spread by 0.14%, and with 3 rounds a side Welch's test has
about 2 degrees of freedom, so a 3.2x slower tile 2 came out `~` (p 0.054). Each test meeting
the answer it should not is tried again with fresh runs, up to ATTEMPTS times, as a busy spell
passes: a tool that gives the wrong answer most of the time still fails. The false-alarm rate
(docs/testing.md, "Tests on a busy machine"): two runs of one config are called different with
probability alpha = 0.05 per attempt, so all of three attempts with 0.05^3 = 1.25e-4 (two attempts
gave 2.5e-3, above the suite's budget of one failure in a thousand runs).

Run by ctest (label e2e) as /usr/bin/python3 test_rounds_cli.py with MINIAPP (the binary) and
MINIAPP_CONFIG (tests/e2e_configs/rounds_tile.yaml) in the environment.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest

MINIAPP = os.environ.get("MINIAPP", "build/openmp/bin/miniapp")
CONFIG = os.environ.get("MINIAPP_CONFIG", "tests/e2e_configs/rounds_tile.yaml")


def run(*args, check=True):
    p = subprocess.run([MINIAPP, *args], capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError(f"miniapp {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


ROUNDS = "5"
# Tries of a statistical check before it fails (the module's docstring says why three).
ATTEMPTS = 3


def run_rounds(d, *extra):
    run("run", CONFIG, "--rounds", ROUNDS, "--output-dir", d, "--quiet", *extra)
    return d


def compare_csv(*args):
    rows = list(csv.DictReader(io.StringIO(run("compare", *args, "--format", "csv").stdout)))
    return [r for r in rows if r["baseline"] == "false"]


TILE2 = ["--set", "cases.0.tile=2"]


class Rounds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="miniapp-rounds-")
        cls.dirs = {}
        # tile 16, tile 16 again, tile 2: each its own process, three rounds.
        for name, extra in (("a", []), ("b", []), ("tile2", TILE2)):
            cls.dirs[name] = run_rounds(os.path.join(cls.tmp, name), *extra)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_rows_record_every_round_and_the_load(self):
        with open(os.path.join(self.dirs["a"], "results.json")) as f:
            doc = json.load(f)
        for r in doc["results"]:
            self.assertEqual(r["rounds"], int(ROUNDS))
            self.assertEqual(len(r["round_medians_s"]), int(ROUNDS))
            self.assertEqual(len(r["round_total_medians_s"]), int(ROUNDS))
            self.assertEqual(len(r["compute_times_s"]), int(ROUNDS) * r["repetitions"])
            self.assertGreaterEqual(r["host_load"], 0)
            self.assertGreaterEqual(r["host_others"], 0)  # one rank: measured (the busy rule's)
        with open(os.path.join(self.dirs["a"], "results.csv")) as f:
            header = f.readline().strip().split(",")
        self.assertIn("rounds", header)
        self.assertIn("host_load", header)
        self.assertIn("host_others", header)

    def test_two_runs_of_one_config_compare_as_no_difference(self):
        # A test at alpha = 0.05 calls about one pair in twenty of one config different (that is
        # what alpha means), so a `*` here is tried again with two fresh runs: a test that
        # calls one config different most of the time still fails.
        a, b = self.dirs["a"], self.dirs["b"]
        for attempt in range(ATTEMPTS):
            rows = compare_csv(a, b, "--no-pool")
            self.assertTrue(rows)
            for r in rows:
                self.assertEqual(r["test"], "rounds", r)
            if all(r["mark"] == "~" for r in rows) or attempt == ATTEMPTS - 1:
                break
            a, b = (run_rounds(os.path.join(self.tmp, f"retry{attempt}-same-{n}"))
                    for n in ("a", "b"))
        for r in rows:
            self.assertEqual(r["mark"], "~", r)
        print("\n" + run("compare", a, b, "--no-pool").stdout)

    def retried_tile2(self, tag):
        """A fresh tile 16 and tile 2 run, for a retry after a busy spell."""
        return (run_rounds(os.path.join(self.tmp, f"retry-{tag}-tile16")),
                run_rounds(os.path.join(self.tmp, f"retry-{tag}-tile2"), *TILE2))

    def test_tile_2_against_tile_16_compares_as_a_difference(self):
        a, tile2 = self.dirs["a"], self.dirs["tile2"]
        for attempt in range(ATTEMPTS):
            rows = compare_csv(a, tile2, "--ignore-param", "tile")
            self.assertTrue(rows)
            if all(r["mark"] == "*" for r in rows) or attempt == ATTEMPTS - 1:
                break
            a, tile2 = self.retried_tile2(f"differ{attempt}")
        for r in rows:
            self.assertEqual(r["test"], "rounds", r)
            self.assertEqual(r["mark"], "*", r)
        print("\n" + run("compare", a, tile2, "--ignore-param", "tile").stdout)

    def test_runs_of_one_experiment_pool_into_one_side(self):
        a, b, tile2 = self.dirs["a"], self.dirs["b"], self.dirs["tile2"]
        for attempt in range(ATTEMPTS):
            p = run("compare", a, b, tile2, "--ignore-param", "tile", "--format", "csv")
            rows = list(csv.DictReader(io.StringIO(p.stdout)))
            self.assertEqual({r["run"] for r in rows}, {"1", "2"})  # a + b, tile 2
            base = [r for r in rows if r["baseline"] == "true"]
            self.assertTrue(all(r["rounds"] == str(2 * int(ROUNDS)) for r in base), base)
            other = [r for r in rows if r["baseline"] == "false"]
            if all(r["mark"] == "*" for r in other) or attempt == ATTEMPTS - 1:
                break
            a, tile2 = self.retried_tile2(f"pool{attempt}")
            b = run_rounds(os.path.join(self.tmp, f"retry{attempt}-pool-tile16-b"))
        self.assertTrue(all(r["mark"] == "*" for r in other), rows)
        md = run("compare", a, b, tile2, "--ignore-param", "tile").stdout
        self.assertIn("2 runs pooled (same config hash, label and host)", md)

    def test_a_run_given_again_is_counted_once(self):
        # issue 42: three copies of one run were "3 runs" a side, identical rounds, p = 0 and `*`.
        a, tile2 = self.dirs["a"], self.dirs["tile2"]
        db = os.path.join(self.tmp, "history.db")
        run("db", "import", a, "--db", db)
        p = run("compare", a, a, tile2, tile2, tile2, "--ignore-param", "tile", "--db", db,
                "--select", "run=*", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        self.assertEqual({r["run"] for r in rows}, {"1", "2"})
        for r in rows:  # each side one run's rounds, not three copies of them
            self.assertEqual(r["rounds"], ROUNDS, r)
        self.assertIn(f"run 2 ({a}) is run 1 ({a}) again (run id ", p.stderr)
        self.assertRegex(p.stderr, r"run 6 \(.*\) is run 1 \(")  # the same run through --db
        md = run("compare", a, a, a, "--db", db, "--select", "run=*").stdout
        self.assertNotIn("runs pooled", md)

    def test_one_round_each_leaves_the_run_to_run_spread_unknown(self):
        d = os.path.join(self.tmp, "single")
        run("run", CONFIG, "--set", "cases.0.tile=2", "--output-dir", d, "--quiet")
        p = run("compare", self.dirs["a"], d, "--ignore-param", "tile")
        self.assertIn(f"run-to-run spread unknown ({ROUNDS} rounds in run 1", p.stdout)
        self.assertNotIn("x * (p", p.stdout)

    def test_rounds_out_of_range_is_a_usage_error(self):
        for bad in ("0", "1001", "x"):
            p = run("run", CONFIG, "--rounds", bad, "--output-dir",
                    os.path.join(self.tmp, "never"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "never")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
