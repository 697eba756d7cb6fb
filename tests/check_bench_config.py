#!/usr/bin/python3
"""miniapp-bench --miniapp-config FILE: the benchmarks are the cases `miniapp run FILE` runs.

Usage: check_bench_config.py TEST MINIAPP_BENCH MINIAPP SOURCE_DIR, TEST one of
  names      the benchmark names of tests/e2e_configs/bench_cases.yaml (--benchmark_list_tests)
             are the case ids `miniapp run` writes to results.csv for it, in its order, 'auto'
             tiles as the autotuner chose them
  errors     a config error exits 2 with file:line:col (and a did-you-mean) as `miniapp run`
             says it, before any benchmark; --miniapp-set reaches the config as --set does
  validates  a real short run: every case validated and timed (samples chained as the run's),
             each against the ceiling the run attaches; a failed validation (MINIAPP_FAULT=0:validation) is reported and exits 4
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

TEST, BENCH, MINIAPP, SRC = sys.argv[1:5]
CONFIG = os.path.join(SRC, "tests/e2e_configs/bench_cases.yaml")
TMP = tempfile.mkdtemp(prefix="miniapp-bench-config-")
# One autotune cache for both programs, fresh for this test: the bench searches 'auto', the run
# reads what it chose.
ENV = dict(os.environ, MINIAPP_CACHE_DIR=os.path.join(TMP, "cache"))


def run(program, args, env=ENV):
    p = subprocess.run([program] + args, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what, *outputs):
    if not cond:
        sys.exit("FAILED: " + what + "\n" + "\n---\n".join(str(o) for o in outputs))


def case_name(benchmark_name):
    expect(benchmark_name.endswith("/manual_time"), "a benchmark name ends in /manual_time",
           benchmark_name)
    return benchmark_name[: -len("/manual_time")]


def test_names():
    code, out, bench_err = run(BENCH, ["--miniapp-config", CONFIG, "--benchmark_list_tests=true"])
    expect(code == 0, "miniapp-bench --miniapp-config lists its benchmarks", code, out, bench_err)
    names = [case_name(line) for line in out.split()]
    run_dir = os.path.join(TMP, "run")
    code, out, err = run(MINIAPP, ["run", CONFIG, "--quiet", "--output-dir", run_dir])
    expect(code == 0, "miniapp run of the same config", code, out, err)
    with open(os.path.join(run_dir, "results.csv")) as f:
        ids = [row["case_id"] for row in csv.DictReader(f)]
    expect(len(ids) == 11, "the config expands to 11 cases", ids)
    expect(not any("auto" in i for i in ids), "the run records the tiles the autotuner chose", ids)
    expect(names == ids, "the benchmark names are the run's case ids, in its order",
           "\n".join(names), "\n".join(ids), "miniapp-bench said:\n" + bench_err,
           "miniapp run said:\n" + err)
    # --miniapp-set reaches the config: one size less, two names less
    code, out, err = run(BENCH, ["--miniapp-config", CONFIG, "--miniapp-set", "cases.0.n=[64]",
                                 "--benchmark_list_tests=true"])
    expect(code == 0 and [case_name(n) for n in out.split()] ==
           [i for i in ids if not i.startswith("axpby/") or "/64x64/" in i],
           "--miniapp-set cases.0.n=[64] leaves the 96x96 cases out", code, out, err)
    print(f"{len(names)} benchmark names are the case ids `miniapp run` records")


def test_errors():
    bad = os.path.join(TMP, "bad.yaml")
    with open(bad, "w") as f:
        f.write("name: bad\ncases:\n  - family: axpby\n    varient: flat\n    n: 64\n")
    code, out, err = run(BENCH, ["--miniapp-config", bad, "--benchmark_list_tests=true"])
    expect(code == 2, "a config error exits 2", code, out, err)
    expect(re.match(re.escape(bad) + r":4:5: unknown key 'varient'.*did you mean 'variant'",
                    err.strip()), "the error is file:line:col with a did-you-mean", err)
    expect(out == "", "no benchmark is listed (or run) for a config in error", out)
    code_run, _, err_run = run(MINIAPP, ["validate", bad])
    expect(code_run == 2 and err_run.strip() == err.strip(),
           "miniapp validate says the same of the same file", err_run, err)
    for args, what in (
            (["--miniapp-config", os.path.join(TMP, "missing.yaml")], "cannot open"),
            (["--miniapp-config", CONFIG, "--miniapp-set", "repetitons=3"],
             "did you mean 'repetitions'"),
            (["--miniapp-config", CONFIG, "--miniapp-sizes=64"], "excludes"),
            (["--miniapp-set", "n=4"], "requires --miniapp-config")):
        code, out, err = run(BENCH, args + ["--benchmark_list_tests=true"])
        expect(code == 2 and what in err and out == "", f"{args}: exit 2, saying {what!r}",
               code, out, err)
    print("config errors exit 2 with file:line:col, as `miniapp run` reports them")


def bench_json(extra, env=ENV):
    code, out, err = run(BENCH, ["--miniapp-config", CONFIG, "--benchmark_min_time=0.01",
                                 "--benchmark_format=json"] + extra, env)
    return code, json.loads(out) if out.startswith("{") else None, err


def test_validates():
    code, doc, err = bench_json([])
    expect(code == 0 and doc, "a short run of the config exits 0 with JSON on stdout", code, err)
    ctx, benchmarks = doc["context"], doc["benchmarks"]
    expect(ctx.get("miniapp_config") == CONFIG and ctx.get("miniapp_config_hash"),
           "the context names the config and its hash", ctx)
    expect(len(benchmarks) == 11, "one benchmark per case", [b["name"] for b in benchmarks])
    for b in benchmarks:
        expect(not b.get("error_occurred"), "every case set up and validated", b)
        expect(not b.get("label", "").startswith("unvalidated"), "every case validated", b)
        rate = b["FLOP/s"] if b["name"].startswith("matmul/") else b["bytes/s"]
        expect(rate > 0 and b["ceiling"] > 0 and
               abs(b["pct_of_ceiling"] - 100 * rate / b["ceiling"]) < 1e-6 * b["pct_of_ceiling"]
               + 1e-9, "each rate against its ceiling, as the run attaches it", b)
        expect("ceiling: " in b.get("label", ""), "the label names the ceiling", b)
        # Samples chain launches as the run's do (a sample lasts 2 ms), each launch one
        # iteration: Google Benchmark's time is per launch. (How many: the unit tests, Timing.*;
        # on a loaded 2-core host a launch of microseconds can take 10 ms.)
        chained = b.get("launches_per_sample", 0)
        expect(chained >= 1 and b["iterations"] >= chained,
               "each sample chained the launches of 2 ms, counted as iterations", b)
        expect(b.get("host_others", -1) >= 0,
               "the other work beside the samples is measured (the busy rule's, as the run's)", b)
    expect("ceilings: " in err, "the ceilings measured are printed on stderr", err)
    # `miniapp compare` puts each case of both programs on one line, and notes no difference of
    # warm-up (the config's, recorded in the context).
    bench_file = os.path.join(TMP, "bench.json")
    with open(bench_file, "w") as f:
        json.dump(doc, f)
    run_dir = os.path.join(TMP, "run")
    code, out, err = run(MINIAPP, ["run", CONFIG, "--quiet", "--output-dir", run_dir])
    expect(code == 0, "miniapp run of the same config", code, out, err)
    code, out, err = run(MINIAPP, ["compare", bench_file, run_dir, "--format", "csv"])
    rows = list(csv.DictReader(out.splitlines()))
    expect(code == 0 and len(rows) == 2 * len(benchmarks), "compare joins every case", out, err)
    for r in rows:
        expect(r["valid"] == "true" and "warmup" not in r["notes"] and "timing" not in r["notes"],
               "each case validated in both, with the same warm-up and chained samples", r)
    # The marks travel from miniapp-bench's counters as from the run's columns: a benchmark with
    # other work beside it is busy, one with a ceiling range has an uncertain ceiling, the others
    # none (whatever this machine's load: the counters are set here).
    busy, uncertain = benchmarks[0]["name"], benchmarks[1]["name"]
    # (Google Benchmark names a manually timed benchmark CASE_ID/manual_time)
    busy_name, uncertain_name = (n.removesuffix("/manual_time") for n in (busy, uncertain))
    for b in doc["benchmarks"]:
        b["host_others"] = 2.0 if b["name"] == busy else 0.0
        b.pop("ceiling_low", None)  # (a ceiling this run found uncertain under load)
        b.pop("ceiling_high", None)
        if b["name"] == uncertain:
            b["ceiling_low"], b["ceiling_high"] = 0.5 * b["ceiling"], b["ceiling"]
    marked_file = os.path.join(TMP, "bench-marked.json")
    with open(marked_file, "w") as f:
        json.dump(doc, f)
    code, out, err = run(MINIAPP, ["compare", marked_file, run_dir, "--format", "csv"])
    marked = {}
    for r in csv.DictReader(out.splitlines()):
        if r["run"] == "1":
            marked[r["case_id"]] = r["marks"]
    expect(code == 0 and len(marked) == len(benchmarks), "compare reads the marked file", out, err)
    for name, marks in marked.items():
        want = {busy_name: "busy", uncertain_name: "uncertain ceiling"}.get(name, "")
        expect(marks == want, f"{name}: the marks of its counters", marks, want)
    # Repetitions: each chains the same launches a sample (the first's), so Google Benchmark's
    # equal iteration counts hold; a count set by each repetition's own warm-up aborted it.
    code, doc, err = bench_json(["--benchmark_filter=^(axpby/flat/float32/64x64|matmul/)",
                                 "--benchmark_repetitions=3"])
    reps = [b for b in (doc or {}).get("benchmarks", []) if b.get("run_type") == "iteration"]
    expect(code == 0 and len(reps) >= 6, "repetitions of chained samples run", code, err)
    for b in reps:
        same = [o for o in reps if o["run_name"] == b["run_name"]]
        expect(len(same) == 3 and all(o["iterations"] == b["iterations"] and
                                      o["launches_per_sample"] == b["launches_per_sample"]
                                      for o in same), "each repetition times the same chains", same)
    # The validation is the run's: a failure is reported per case and exits 4.
    code, doc, err = bench_json(["--benchmark_filter=^axpby/flat/float32/64x64/"],
                                dict(ENV, MINIAPP_FAULT="0:validation"))
    expect(code == 4 and doc and doc["benchmarks"][0].get("error_occurred")
           and "validation failed" in doc["benchmarks"][0].get("error_message", ""),
           "a failed validation is the benchmark's error and exits 4", code, doc, err)
    code, doc, err = bench_json(["--benchmark_filter=^axpby/flat/float32/64x64/",
                                 "--miniapp-set", "validation.enabled=false"])
    expect(code == 0 and doc and
           doc["benchmarks"][0].get("label", "").startswith("unvalidated (validate: false)"),
           "validation.enabled: false is honoured and said", code, doc, err)
    print(f"{len(benchmarks)} cases validated and timed against their ceilings")


{"names": test_names, "errors": test_errors, "validates": test_validates}[TEST]()
