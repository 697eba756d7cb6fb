#!/usr/bin/env python3
"""Each shipped config's time estimate against its measured run, on this host.

For every configs/*.yaml and configs/examples/*.yaml: `miniapp validate CONFIG` gives the estimate
(and says where it comes from: this host's calibration or the built-in model), then
`miniapp run --quiet CONFIG` is timed from the outside; the table shows both and their ratio
(measured / estimated). Each run records this host's calibration (docs/jobs.md, "Time estimates"),
so a second pass estimates from the first. Configs whose estimate is above --max-seconds (the
cluster-sized SUMMA configs run for hours on a small host) or that do not validate on this build
(a CUDA-only backend) are skipped with the reason. Load averages before and after each run are
printed: the goal (within 25%) holds for a quiet host.

Usage: tests/tools/check_estimates.py [--miniapp build/openmp/bin/miniapp] [--passes 2]
       [--max-seconds 600] [--tolerance 0.25] [CONFIG...]
Exit 1 when a compared config is off by more than the tolerance in the last pass.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def estimate(miniapp, config):
    p = subprocess.run([miniapp, "validate", config], capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["validate failed"])[-1]
    m = re.search(r"^estimated time: .*\(([0-9.e+]+) s(?:, of which ceilings [^)]*)?\); (.*)$",
                  p.stdout, re.M)
    if not m:
        return None, "no estimate in validate's output"
    return float(m.group(1)), m.group(2).split(":")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--miniapp", default=os.path.join(ROOT, "build/openmp/bin/miniapp"))
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--tolerance", type=float, default=0.25)
    ap.add_argument("configs", nargs="*")
    a = ap.parse_args()
    configs = a.configs or sorted(glob.glob(os.path.join(ROOT, "configs/*.yaml")) +
                                  glob.glob(os.path.join(ROOT, "configs/examples/*.yaml")))
    print(f"host CPUs {os.cpu_count()}, load {load():.2f} at the start")
    worst = 0.0
    for p in range(1, a.passes + 1):
        print(f"\npass {p}")
        print(f"{'config':34} {'estimate':>9} {'measured':>9} {'ratio':>6}  load  source")
        worst = 0.0
        for config in configs:
            name = os.path.relpath(config, ROOT)
            est, source = estimate(a.miniapp, config)
            if est is None:
                print(f"{name:34} skipped: {source}")
                continue
            if est > a.max_seconds:
                print(f"{name:34} skipped: estimated {est:.0f} s, above --max-seconds "
                      f"{a.max_seconds:.0f}")
                continue
            before = load()
            with tempfile.TemporaryDirectory() as out:
                t0 = time.monotonic()
                r = subprocess.run([a.miniapp, "run", "--quiet", config,
                                    "--set", f"output.directory={out}"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                wall = time.monotonic() - t0
            if r.returncode != 0:
                print(f"{name:34} run failed (exit {r.returncode}): {r.stderr.strip()[-200:]}")
                continue
            ratio = wall / est
            worst = max(worst, abs(ratio - 1))
            print(f"{name:34} {est:8.1f}s {wall:8.1f}s {ratio:6.2f}  {before:4.1f}-{load():4.1f}"
                  f"  {source}", flush=True)
    print(f"\nworst |measured/estimated - 1| in the last pass: {100 * worst:.0f}% "
          f"(tolerance {100 * a.tolerance:.0f}%)")
    return 0 if worst <= a.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
