#!/usr/bin/python3
"""Smoke test of miniapp-bench: it must run on small sizes and emit JSON that compare.py reads
(a context with the miniapp fields, and benchmarks carrying rate counters). No timing thresholds.
With the miniapp binary as the second argument: the benchmarks are named by the case ids
`miniapp run` records, so `miniapp compare` of the bench JSON and a run of the same cases puts
each case on one line, measured in both."""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

bench = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="miniapp-bench-json-")
bench_json = os.path.join(tmp, "bench.json")
# Case ids hold '/', '=' and ',' (none special in the filter's regular expression).
subprocess.run([bench, "--miniapp-quick", "--benchmark_min_time=0.01",
                "--benchmark_filter=axpby/flat|tile_average/team_reduce/float32/[0-9x]+/tile=16/|"
                "matmul/(tiled/float32/[0-9x]+/tile=16|vendor/float32)/|ceiling/copy|launch",
                "--benchmark_out=" + bench_json, "--benchmark_out_format=json"], check=True)
doc = json.load(open(bench_json))
ctx = doc["context"]
for key in ("miniapp_backend", "miniapp_device", "kokkos_version"):
    assert key in ctx, key
# The header explains Google Benchmark's "Library was built as DEBUG" (Debian builds it so).
assert "Google Benchmark's own library" in ctx.get("library_debug_note", ""), ctx
names = [b["name"] for b in doc["benchmarks"]]
errors = [b for b in doc["benchmarks"] if b.get("error_occurred")]
assert not errors, errors
for want in ("axpby/flat/float32/64x64/", "matmul/tiled/float32/64x64x64/tile=16/manual_time",
             "tile_average/team_reduce/float32/64x64/tile=16/", "matmul/vendor/float32/128x128x128/",
             "ceiling/copy"):
    assert any(n.startswith(want) for n in names), (want, names)
for b in doc["benchmarks"]:
    if b["name"].startswith(("axpby", "matmul", "tile_average")):
        assert b["FLOP/s"] > 0 and b["bytes/s"] > 0, b

if len(sys.argv) > 2:  # the same cases through `miniapp run`, then compare with the bench JSON
    miniapp = sys.argv[2]
    config = os.path.join(tmp, "same.yaml")
    with open(config, "w") as f:
        f.write(f"""name: bench_same_cases
backend: {ctx['miniapp_backend']}
warmup: 1
repetitions: 3
energy: false
cases:
  - {{family: axpby, variant: flat, precision: float32, n: 64}}
  - {{family: matmul, variant: tiled, precision: float32, n: 64, tile: 16}}
""")
    run_dir = os.path.join(tmp, "run")
    subprocess.run([miniapp, "run", config, "--quiet", "--output-dir", run_dir], check=True)
    p = subprocess.run([miniapp, "compare", bench_json, run_dir, "--format", "csv"],
                       capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    for case_id in ("axpby/flat/float32/64x64/a=2,b=-1", "matmul/tiled/float32/64x64x64/tile=16"):
        mine = [r for r in rows if r["case_id"] == case_id]
        assert len(mine) == 2 and all(r["rate"] and r["valid"] != "missing" for r in mine), \
            (case_id, p.stdout)
        assert {r["run"] for r in mine} == {"1", "2"}, mine
        # alpha, beta and the seed read from the id: the same case, no difference noted
        assert not any(w in r["notes"] for r in mine for w in ("alpha", "beta", "seed")), mine
    assert rows[0]["backend"] == ctx["miniapp_backend"], rows[0]
    # plot reads the same names: a rate plot per family, sizes from the ids
    plots = os.path.join(tmp, "plots")
    p = subprocess.run([miniapp, "plot", bench_json, "-o", plots], capture_output=True, text=True)
    assert p.returncode == 0 and os.path.isfile(os.path.join(plots, "rate-matmul.png")), p.stderr
    # Names of older builds (no case id: square N, the tile in the variant's name) join a run's
    # rows on (family, variant, precision, size, tile); k = N for a family whose cases read it.
    old = os.path.join(tmp, "old.json")
    with open(old, "w") as f:
        json.dump({"context": ctx, "benchmarks": [
            {"name": "matmul/tiled16/float32/64/manual_time", "run_type": "iteration",
             "real_time": 1.0, "time_unit": "ms", "FLOP/s": 2.0 * 64**3 / 1e-3}]}, f)
    p = subprocess.run([miniapp, "compare", old, run_dir, "--format", "csv"],
                       capture_output=True, text=True)
    assert p.returncode == 0, (p.returncode, p.stderr)
    tiled = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r["variant"] == "tiled"]
    assert {r["run"] for r in tiled} == {"1", "2"} and all(r["rate"] for r in tiled) \
        and tiled[0]["k"] == "64" and tiled[0]["tile"] == "16", p.stdout
    # A benchmark JSON without a case (only ceilings and launches): exit 2, saying so.
    with open(old, "w") as f:
        json.dump({"context": ctx, "benchmarks": [
            b for b in doc["benchmarks"] if b["name"].startswith(("ceiling", "launch"))]}, f)
    p = subprocess.run([miniapp, "compare", old, run_dir], capture_output=True, text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 \
        and "no miniapp kernel benchmarks (named by case id" in p.stderr, (p.returncode, p.stderr)
    print("miniapp compare: the bench JSON and a run of the same cases meet on their case ids")
shutil.rmtree(tmp, ignore_errors=True)
print(f"miniapp-bench: {len(names)} benchmarks, valid JSON, backend {ctx['miniapp_backend']}")
