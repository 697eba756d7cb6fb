#!/usr/bin/python3
"""End-to-end checks of `miniapp run` (ctest label e2e). Standard library only.

  example   run a worked example; its printed numbers must appear (exit 0, every row valid)
  results   results.csv / results.json parse with plain readers and hold every metadata field;
            a second run into the same directory is refused and leaves the files untouched
  interrupt SIGTERM (or --signal: SIGHUP, SIGQUIT) in the middle of a sweep: completed rows
            intact, JSON parses, run incomplete
  invalid   a run whose validation fails exits 4 and marks the row invalid
  full_disk a run on a full disk (a small tmpfs; needs root) exits 3 naming the disk, leaves
            results.json parseable with status "failed" and no temporary files; a disk full from
            the start leaves no run directory behind
  sigpipe   the reader of stdout goes away: the run stops, exits 3, results.json "interrupted"
  files     --output-dir NEW/ (trailing slash) works; compare -o refuses its inputs and symlinks
"""
import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

RUNTIME_ERROR, VALIDATION_FAILED = 3, 4


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def fresh(directory):
    """The run directory must not exist (miniapp never overwrites one)."""
    if os.path.exists(directory):
        shutil.rmtree(directory)
    os.makedirs(os.path.dirname(os.path.abspath(directory)), exist_ok=True)


def run(args, env=None):
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def read_results(directory):
    with open(os.path.join(directory, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(directory, "results.json")) as f:
        doc = json.load(f)
    return rows, doc


def normalized(line):
    return " ".join(line.split())


def count_blocks(lines, block):
    """How often the lines of block appear consecutively (whitespace-insensitive, whole lines)."""
    found = 0
    for i in range(len(lines) - len(block) + 1):
        if all(lines[i + j] == block[j] for j in range(len(block))):
            found += 1
    return found


def cmd_example(a):
    fresh(a.dir)
    code, out, err = run([a.miniapp, "run", a.config, "--output-dir", a.dir])
    print(out)
    if code != 0:
        fail(f"exit code {code}, expected 0; stderr:\n{err}")
    lines = [normalized(l) for l in out.splitlines()]
    for spec in a.block:
        block = [normalized(r) for r in spec.split("|")]
        n = count_blocks(lines, block)
        if n != a.copies:
            fail(f"expected {a.copies} printed copies of {block}, found {n}")
        print(f"ok: {n} x {block}")
    rows, doc = read_results(a.dir)
    if len(rows) != a.rows or any(r["valid"] != "true" for r in rows):
        fail(f"expected {a.rows} valid rows, got {[(r['case'], r['valid']) for r in rows]}")
    if not doc["complete"]:
        fail("results.json is not marked complete")


REQUIRED_METADATA = [
    "kokkos_version", "kokkos_configuration", "backend", "device_name", "device_memory_bytes",
    "host_name", "compiler", "mpi_library", "mpi_ranks", "git_revision", "config_hash",
    "start_time", "end_time", "slurm"]


def cmd_results(a):
    fresh(a.dir)
    env = dict(os.environ, SLURM_JOB_ID="4242", SLURM_NTASKS="1")
    code, out, err = run([a.miniapp, "run", a.config, "--output-dir", a.dir], env)
    if code != 0:
        fail(f"exit code {code}, expected 0; stderr:\n{err}")
    rows, doc = read_results(a.dir)
    with open(os.path.join(a.dir, "results.csv"), newline="") as f:
        header = next(csv.reader(f))
    for key in ["schema_version", "complete", "status", "cases_planned", "cases_completed",
                "config", "metadata", "results"]:
        if key not in doc:
            fail(f"results.json lacks '{key}'")
    meta = doc["metadata"]
    missing = [k for k in REQUIRED_METADATA if k not in meta or meta[k] in ("", None)]
    if missing:
        fail(f"metadata lacks {missing}")
    if meta["slurm"].get("SLURM_JOB_ID") != "4242":
        fail(f"Slurm variables not recorded: {meta['slurm']}")
    if not (doc["complete"] is True and doc["status"] == "complete"):
        fail(f"run not marked complete: {doc['complete']} {doc['status']}")
    planned = doc["cases_planned"]
    if not (len(rows) == len(doc["results"]) == doc["cases_completed"] == planned == len(
            doc["config"]["cases"])):
        fail(f"row counts differ: csv {len(rows)}, json {len(doc['results'])}, planned {planned}")
    for csv_row, json_row in zip(rows, doc["results"]):
        # JSON rows: the CSV columns plus every repetition's times and every round's medians
        # (compare's significance tests).
        times = ("compute_times_s", "h2d_times_s", "d2h_times_s")
        rounds = ("round_medians_s", "round_total_medians_s")
        if sorted(json_row.keys()) != sorted(header + list(times) + list(rounds)):
            fail("JSON rows name other columns than the CSV header, the repetition times and "
                 "the round medians")
        if any(len(json_row[r]) != json_row["rounds"] or json_row["rounds"] != 1 for r in rounds):
            fail(f"row {csv_row['case']}: not one median per round (one round)")
        if any(len(json_row[t]) != json_row["repetitions"] for t in times):
            fail(f"row {csv_row['case']}: not one time per repetition")
        if csv_row["valid"] != "true" or json_row["valid"] is not True:
            fail(f"row {csv_row['case']} not valid")
        if float(csv_row["time_median_s"]) <= 0 or json_row["gflops"] <= 0:
            fail(f"row {csv_row['case']} has no timing")
        if not (float(csv_row["time_min_s"]) <= float(csv_row["time_median_s"])
                <= float(csv_row["time_max_s"])):
            fail(f"row {csv_row['case']}: min <= median <= max does not hold")
        # Schema 2: integers stay integers, the CSV holds the same values, and each row names its
        # case by the id the config echo gives it.
        for key in ("case", "m", "n", "repetitions", "ranks"):
            if type(json_row[key]) is not int or str(json_row[key]) != csv_row[key]:
                fail(f"row {csv_row['case']}: {key} = {json_row[key]!r} in JSON, "
                     f"{csv_row[key]!r} in CSV; expected the same integer")
        for key in ("time_median_s", "flops", "gflops"):
            if float(csv_row[key]) != json_row[key]:
                fail(f"row {csv_row['case']}: {key} differs between CSV and JSON")
        config_case = doc["config"]["cases"][json_row["case"]]
        if not json_row["case_id"] or json_row["case_id"] != config_case["id"]:
            fail(f"row {csv_row['case']}: case_id {json_row['case_id']!r}, "
                 f"config case id {config_case['id']!r}")
    if doc["schema_version"] != 2:
        fail(f"schema_version {doc['schema_version']}, expected 2")
    print(f"ok: {len(rows)} rows, metadata {sorted(meta)}")
    # Never overwrite: a second run into the same directory is refused before any work.
    before = {f: open(os.path.join(a.dir, f)).read() for f in ("results.csv", "results.json")}
    code, out, err = run([a.miniapp, "run", a.config, "--output-dir", a.dir])
    if code != RUNTIME_ERROR or "already exists" not in err:
        fail(f"second run into {a.dir}: exit {code}, stderr {err!r}")
    after = {f: open(os.path.join(a.dir, f)).read() for f in ("results.csv", "results.json")}
    if before != after:
        fail("the existing results were modified")
    print("ok: existing results directory refused and untouched")


def cmd_interrupt(a):
    fresh(a.dir)
    proc = subprocess.Popen([a.miniapp, "run", a.config, "--output-dir", a.dir],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    json_path = os.path.join(a.dir, "results.json")
    deadline = time.time() + 300
    completed = 0
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(json_path) as f:
                completed = json.load(f)["cases_completed"]
        except (OSError, ValueError):
            completed = 0
        if completed >= a.after:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        fail(f"the run ended (exit {proc.returncode}) before it could be interrupted")
    proc.send_signal(getattr(signal, a.signal))
    out, err = proc.communicate(timeout=300)
    print(out)
    print(err)
    if proc.returncode != RUNTIME_ERROR:
        fail(f"exit code {proc.returncode}, expected {RUNTIME_ERROR} for an interrupted run")
    rows, doc = read_results(a.dir)
    if doc["complete"] is not False or doc["status"] != "interrupted":
        fail(f"not marked incomplete: complete={doc['complete']} status={doc['status']}")
    if not (a.after <= len(rows) < doc["cases_planned"]):
        fail(f"{len(rows)} rows kept of {doc['cases_planned']}, expected at least {a.after} and "
             "fewer than planned")
    if len(doc["results"]) != len(rows) or doc["cases_completed"] != len(rows):
        fail("CSV and JSON disagree on the completed rows")
    for i, row in enumerate(rows):
        if row["case"] != str(i) or row["status"] != "ok" or row["valid"] != "true":
            fail(f"row {i} damaged: {row}")
        if float(row["time_median_s"]) <= 0:
            fail(f"row {i} has no timing")
    if "end_time" not in doc["metadata"]:
        fail("no end time recorded")
    leftovers = [f for f in os.listdir(a.dir) if ".tmp." in f]
    if leftovers:
        fail(f"temporary files left behind: {leftovers}")
    print(f"ok: interrupted after {len(rows)} of {doc['cases_planned']} cases, rows intact")


def cmd_invalid(a):
    fresh(a.dir)
    code, out, err = run([a.miniapp, "run", a.config, "--output-dir", a.dir] +
                         sum((["--set", s] for s in a.set), []))
    print(out)
    print(err)
    if code != VALIDATION_FAILED:
        fail(f"exit code {code}, expected {VALIDATION_FAILED}")
    rows, doc = read_results(a.dir)
    if not rows or any(r["valid"] != "false" or r["status"] != "invalid" for r in rows):
        fail(f"rows not marked invalid: {[(r['status'], r['valid']) for r in rows]}")
    if any(r["valid"] is not False for r in doc["results"]):
        fail("results.json rows not marked invalid")
    if "NO" not in out:
        fail("the console table does not show the invalid row")
    print(f"ok: exit 4, {len(rows)} row(s) marked invalid")


def final_state(directory, status):
    """results.json parses with the final status; no temporary files are left."""
    with open(os.path.join(directory, "results.json")) as f:
        doc = json.load(f)
    if doc["status"] != status or doc["complete"] is not False:
        fail(f"results.json says status={doc['status']} complete={doc['complete']}, "
             f"expected {status}")
    leftovers = [f for f in os.listdir(directory) if ".tmp." in f]
    if leftovers:
        fail(f"temporary files left behind: {leftovers}")
    return doc


def cmd_full_disk(a):
    os.makedirs(a.dir, exist_ok=True)
    mount = os.path.join(a.dir, "disk")
    os.makedirs(mount, exist_ok=True)
    subprocess.run(["umount", mount], stderr=subprocess.DEVNULL)
    # 96 KiB: room for results.json with a few rows, not for the whole sweep.
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", mount]).returncode:
        fail("cannot mount a small tmpfs (this test needs root)")
    try:
        run_dir = os.path.join(mount, "run")
        code, out, err = run([a.miniapp, "run", a.config, "--output-dir", run_dir, "--quiet"])
        print(err)
        if code != RUNTIME_ERROR or "No space left on device (resource: disk)" not in err:
            fail(f"exit {code}, expected {RUNTIME_ERROR} naming the disk")
        doc = final_state(run_dir, "failed")
        if "No space left" not in doc.get("error", ""):
            fail("results.json does not say why the run failed")
        print(f"ok: full disk: exit 3, results.json failed with {doc['cases_completed']} row(s)")
        # Full from the start: no results.json can be written; nothing may block a rerun.
        with open(os.path.join(mount, "filler"), "wb") as f:
            try:
                f.write(b"x" * (1 << 20))
            except OSError:
                pass
        second = os.path.join(mount, "second")
        code, out, err = run([a.miniapp, "run", a.config, "--output-dir", second, "--quiet"])
        print(err)
        if code != RUNTIME_ERROR or "resource: disk" not in err:
            fail(f"exit {code} on a full disk, expected {RUNTIME_ERROR} naming the disk")
        if os.path.exists(second):
            fail(f"a run that could write nothing left {second}: {os.listdir(second)}")
        print("ok: a disk full from the start: exit 3, no run directory left")
    finally:
        subprocess.run(["umount", mount])


def cmd_sigpipe(a):
    fresh(a.dir)
    proc = subprocess.Popen([a.miniapp, "run", a.config, "--output-dir", a.dir, "--print"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(1024)
    proc.stdout.close()  # the reader goes away, as `miniapp run ... | head` does
    err = proc.stderr.read().decode(errors="replace")
    proc.wait(timeout=300)
    print(err[-2000:])
    if proc.returncode != RUNTIME_ERROR:
        fail(f"exit {proc.returncode} after SIGPIPE, expected {RUNTIME_ERROR} (interrupted)")
    doc = final_state(a.dir, "interrupted")
    if doc["cases_completed"] >= doc["cases_planned"]:
        fail("the run did not stop")
    print(f"ok: SIGPIPE: exit 3, results.json interrupted with {doc['cases_completed']} row(s)")


def cmd_files(a):
    os.makedirs(a.dir, exist_ok=True)
    new = os.path.join(a.dir, "slash")
    if os.path.exists(new):
        shutil.rmtree(new)
    code, out, err = run([a.miniapp, "run", a.config, "--output-dir", new + "/", "--quiet"])
    if code != 0 or not os.path.exists(os.path.join(new, "results.json")):
        fail(f"--output-dir NEW/: exit {code}: {err}")
    print("ok: --output-dir with a trailing slash")
    results = os.path.join(new, "results.json")
    with open(results, "rb") as f:
        before = f.read()
    for target in (results, os.path.join(new, "results.csv")):
        code, out, err = run([a.miniapp, "compare", new, "-o", target])
        if code != 2 or "is an input" not in err:
            fail(f"compare -o {target}: exit {code}, expected 2 (an input): {err}")
    with open(results, "rb") as f:
        if f.read() != before:
            fail("compare -o changed the run's results.json")
    print("ok: compare -o onto its input refused, results untouched")
    victim = os.path.join(a.dir, "victim")
    link = os.path.join(a.dir, "link.md")
    with open(victim, "w") as f:
        f.write("keep")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(victim, link)
    code, out, err = run([a.miniapp, "compare", new, "-o", link])
    with open(victim) as f:
        kept = f.read() == "keep"
    if code != 2 or "symbolic link" not in err or not kept:
        fail(f"compare -o SYMLINK: exit {code}, kept={kept}: {err}")
    print("ok: compare -o through a symbolic link refused")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("example", "results", "interrupt", "invalid", "full_disk", "sigpipe", "files"):
        s = sub.add_parser(name)
        s.add_argument("--miniapp", required=True)
        s.add_argument("--config", required=True)
        s.add_argument("--dir", required=True, help="run directory to create")
        if name == "example":
            s.add_argument("--block", action="append", default=[],
                           help="printed rows that must appear in order, separated by '|'")
            s.add_argument("--copies", type=int, default=1,
                           help="how many cases print each block")
            s.add_argument("--rows", type=int, default=1, help="result rows of the run, all valid")
        if name == "interrupt":
            s.add_argument("--after", type=int, default=2,
                           help="send the signal once this many cases are complete")
            s.add_argument("--signal", default="SIGTERM",
                           help="SIGTERM, SIGINT, SIGHUP (a closed terminal) or SIGQUIT")
        if name == "invalid":
            s.add_argument("--set", action="append", default=[])
    a = p.parse_args()
    {"example": cmd_example, "results": cmd_results, "interrupt": cmd_interrupt,
     "invalid": cmd_invalid, "full_disk": cmd_full_disk, "sigpipe": cmd_sigpipe,
     "files": cmd_files}[a.cmd](a)


if __name__ == "__main__":
    main()
