#!/usr/bin/python3
"""Smoke test of miniapp-bench: it must run on small sizes and emit JSON that compare.py reads
(a context with the miniapp fields, and benchmarks carrying rate counters). No timing thresholds."""
import json
import subprocess
import sys
import tempfile

bench = sys.argv[1]
with tempfile.NamedTemporaryFile(suffix=".json") as out:
    subprocess.run([bench, "--miniapp-quick", "--benchmark_min_time=0.01",
                    "--benchmark_filter=axpby/flat|tile_average/team_reduce/float32/S16|matmul/(tiled16|vendor)/float32|ceiling/copy|launch",
                    "--benchmark_out=" + out.name, "--benchmark_out_format=json"], check=True)
    doc = json.load(open(out.name))
ctx = doc["context"]
for key in ("miniapp_backend", "miniapp_device", "kokkos_version"):
    assert key in ctx, key
# The header explains Google Benchmark's "Library was built as DEBUG" (Debian builds it so).
assert "Google Benchmark's own library" in ctx.get("library_debug_note", ""), ctx
names = [b["name"] for b in doc["benchmarks"]]
errors = [b for b in doc["benchmarks"] if b.get("error_occurred")]
assert not errors, errors
for want in ("axpby/flat/float32/64", "matmul/tiled16/float32/64", "matmul/vendor/float32/128", "ceiling/copy"):
    assert any(n.startswith(want) for n in names), (want, names)
for b in doc["benchmarks"]:
    if b["name"].startswith(("axpby", "matmul", "tile_average")):
        assert b["FLOP/s"] > 0 and b["bytes/s"] > 0, b
print(f"miniapp-bench: {len(names)} benchmarks, valid JSON, backend {ctx['miniapp_backend']}")
