#!/usr/bin/env python3
"""`miniapp run --resume DIR` end to end (ctest e2e.resume.*, mpi_resume_np2).

interrupted: a sweep stopped by SIGTERM after two cases, then resumed: every case exactly once,
  validated, in plan order in results.csv and results.json, the run complete; the header says how
  many cases were kept and how many ran; a failed row (made so in DIR) runs again and is replaced;
  a second resume has nothing to run (exit 0) and leaves the files alone.
usr1: SIGUSR1 stops the sweep after its current case (no case is cut short), exit 3, then resumed.
refused: a config that expands to another experiment (exit 2, naming what differs, DIR untouched),
  another rank count, a directory without results.json, a path that does not exist, a results.json
  that is not JSON (its line and column), --resume with --output-dir.
damaged: a complete run's results.json edited as no run writes it: a mistyped config_hash,
  mpi_ranks or row status (exit 2, one sentence naming the file, not the JSON library's message),
  a row whose precision or size contradicts its case id or that is cut down to its status (exit
  2), and a row with status ok but valid false (run again, as an invalid row is; exit 0).
With --mpiexec and --ranks N the runs are N-rank runs under mpiexec.
"""
import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

LIMIT_S = 240


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def command(a, rest, ranks=None):
    ranks = a.ranks if ranks is None else ranks
    prefix = [a.mpiexec, "--oversubscribe", "-n", str(ranks)] if a.mpiexec else []
    threads = ["--kokkos-num-threads=1"] if a.mpiexec else []
    return prefix + [a.miniapp] + rest + threads


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT_S)
    return proc.returncode, proc.stdout, proc.stderr


def read(path):
    with open(os.path.join(path, "results.json")) as f:
        doc = json.load(f)
    with open(os.path.join(path, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return doc, rows


def start_and_signal(a, sig, after):
    """Starts the sweep into a.dir and sends sig once `after` cases are written; returns the exit
    code, stderr and the number of cases written when the signal went."""
    if os.path.exists(a.dir):
        shutil.rmtree(a.dir)
    proc = subprocess.Popen(command(a, ["run", a.config, "--output-dir", a.dir]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + LIMIT_S
    done = 0
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(os.path.join(a.dir, "results.json")) as f:
                done = json.load(f)["cases_completed"]
        except (OSError, ValueError, KeyError):
            done = 0
        if done >= after:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        fail(f"the run ended (exit {proc.returncode}) before it could be signalled")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=LIMIT_S)
    return proc.returncode, err, done


def check_complete(a, planned):
    doc, rows = read(a.dir)
    if doc["status"] != "complete" or doc["complete"] is not True:
        fail(f"after the resume: status {doc['status']}, complete {doc['complete']}")
    if doc["cases_planned"] != planned or doc["cases_completed"] != planned:
        fail(f"planned {doc['cases_planned']}, completed {doc['cases_completed']}, expected {planned}")
    cases = [r["case"] for r in rows]
    if cases != [str(i) for i in range(planned)]:
        fail(f"results.csv cases {cases}: not every case exactly once in plan order")
    if [r["case"] for r in doc["results"]] != list(range(planned)):
        fail(f"results.json cases {[r['case'] for r in doc['results']]}")
    for r in rows:
        if r["status"] != "ok" or r["valid"] != "true" or float(r["time_median_s"]) <= 0:
            fail(f"row {r['case']} not a validated measurement: {r['status']} {r['valid']}")
    for r, j in zip(rows, doc["results"]):
        if r["case_id"] != j["case_id"] or float(r["time_median_s"]) != j["time_median_s"]:
            fail(f"results.csv and results.json disagree on case {r['case']}")
    leftovers = [f for f in os.listdir(a.dir) if ".tmp." in f]
    if leftovers:
        fail(f"temporary files left behind: {leftovers}")
    return doc, rows


def resume(a, expect_kept, expect_run):
    code, out, err = run(command(a, ["run", a.config, "--resume", a.dir]))
    if code != 0:
        fail(f"the resume exited {code}\n{out[-2000:]}\n{err[-3000:]}")
    m = re.search(r"resume: (\d+) case\(s\) kept, (\d+) to run", out)
    if not m or (int(m.group(1)), int(m.group(2))) != (expect_kept, expect_run):
        fail(f"header {m.group(0) if m else 'missing'}, expected {expect_kept} kept, "
             f"{expect_run} to run\n{out[-2000:]}")
    if out.count("resume: ") != 1:
        fail("the resume header is printed more than once (every rank?)")


def cmd_interrupted(a):
    code, err, _ = start_and_signal(a, signal.SIGTERM, 2)
    if code != 3 and not (a.mpiexec and code != 0):  # mpiexec itself exits 1 on SIGTERM
        fail(f"interrupted run exited {code}, expected 3\n{err[-2000:]}")
    doc, rows = read(a.dir)
    kept, planned = len(rows), doc["cases_planned"]
    if doc["status"] != "interrupted" or not 2 <= kept < planned:
        fail(f"interrupted run: status {doc['status']}, {kept} of {planned} rows")
    first_times = {r["case"]: r["time_median_s"] for r in rows}
    resume(a, kept, planned - kept)
    doc, rows = check_complete(a, planned)
    for r in rows[:kept]:  # the kept rows are the earlier run's, unchanged
        if r["time_median_s"] != first_times[r["case"]]:
            fail(f"kept row {r['case']} changed: {first_times[r['case']]} -> {r['time_median_s']}")
    earlier = doc["metadata"].get("resumed")
    if not isinstance(earlier, list) or len(earlier) != 1 or earlier[0]["status"] != "interrupted":
        fail(f"metadata.resumed does not record the interrupted run: {earlier}")

    # A failed row (as a failed validation leaves it) runs again and is replaced.
    path = os.path.join(a.dir, "results.json")
    with open(path) as f:
        doc = json.load(f)
    doc["results"][1]["status"] = "invalid"
    doc["results"][1]["valid"] = False
    doc["results"][1]["time_median_s"] = 12345.0
    doc["status"] = "complete"
    with open(path, "w") as f:
        json.dump(doc, f)
    resume(a, planned - 1, 1)
    doc, rows = check_complete(a, planned)
    if float(rows[1]["time_median_s"]) == 12345.0 or len(doc["metadata"]["resumed"]) != 2:
        fail("the failed row was not replaced by a new measurement")

    # Nothing left: said, exit 0, files untouched.
    before = open(path, "rb").read()
    code, out, err = run(command(a, ["run", a.config, "--resume", a.dir + "/"]))
    if code != 0 or "nothing to run" not in out:
        fail(f"a complete DIR: exit {code}, expected 0 with 'nothing to run'\n{out}\n{err}")
    if open(path, "rb").read() != before:
        fail("a resume with nothing to run rewrote results.json")
    print(f"PASS: interrupted after {kept} of {planned}, resumed: every case once, validated; "
          "a failed row replaced; nothing left to run says so")


def cmd_usr1(a):
    code, err, done = start_and_signal(a, signal.SIGUSR1, 2)
    doc, rows = read(a.dir)
    if code != 3 or doc["status"] != "interrupted":
        fail(f"SIGUSR1: exit {code}, status {doc['status']}; expected 3, interrupted\n{err[-2000:]}")
    # The case running when the signal came completes: nothing is cut short.
    if not done <= len(rows) <= done + 1 or len(rows) == doc["cases_planned"]:
        fail(f"SIGUSR1 after {done} case(s): {len(rows)} rows of {doc['cases_planned']}")
    if "stopped by a signal before the case completed" in err:
        fail("SIGUSR1 cut a case short")
    resume(a, len(rows), doc["cases_planned"] - len(rows))
    check_complete(a, doc["cases_planned"])
    print(f"PASS: SIGUSR1 after {done} case(s) stopped with {len(rows)} rows; resumed")


def expect_refused(a, rest, pattern, ranks=None, once=True):
    code, out, err = run(command(a, ["run", a.config] + rest, ranks))
    if code != 2 or not re.search(pattern, err):
        fail(f"{rest}: exit {code}, expected 2 with /{pattern}/\n{out[-1000:]}\n{err[-2000:]}")
    if a.mpiexec and once and len(re.findall(pattern, err)) != 1:
        fail(f"{rest}: the refusal is printed {len(re.findall(pattern, err))} times, not once")


def first_run(a):
    """A complete run into a.dir; the path of its results.json."""
    if os.path.exists(a.dir):
        shutil.rmtree(a.dir)
    code, _, err = run(command(a, ["run", a.config, "--output-dir", a.dir, "--quiet"]))
    if code != 0:
        fail(f"the first run exited {code}\n{err[-2000:]}")
    return os.path.join(a.dir, "results.json")


def cmd_refused(a):
    path = first_run(a)
    before = open(path, "rb").read()
    expect_refused(a, ["--resume", a.dir, "--set", "repetitions=3"],
                   r"holds another experiment: its config hash is \w+, this config's .* is \w+ "
                   r"\(config/repetitions is \d+ there and 3 here\)")
    other = a.ranks + 1 if a.mpiexec else 2
    if a.mpiexec:
        expect_refused(a, ["--resume", a.dir],
                       rf"holds rows of {a.ranks} rank\(s\) and this run has {other}", ranks=other)
    if open(path, "rb").read() != before:
        fail("a refused resume changed results.json")
    empty = a.dir + "-empty"
    shutil.rmtree(empty, ignore_errors=True)
    os.makedirs(empty)
    expect_refused(a, ["--resume", empty], re.escape(empty) + " is not a results directory")
    expect_refused(a, ["--resume", empty + "/nowhere"],
                   re.escape(empty + "/nowhere") + " is not a directory")
    with open(os.path.join(empty, "results.json"), "w") as f:
        f.write('{\n  "schema_version": 2,\n  "status": oops\n}\n')
    expect_refused(a, ["--resume", empty],
                   re.escape(empty + "/results.json") + r": not valid JSON .*line 3, column")
    # (a usage error: every rank parses its own command line, before MPI starts)
    expect_refused(a, ["--resume", a.dir, "--output-dir", empty + "/new"], r"--output-dir",
                   once=False)
    print("PASS: another experiment, rank count, no results.json, no directory, bad JSON and "
          "--output-dir are refused with exit 2")


def cmd_damaged(a):
    path = first_run(a)
    with open(path) as f:
        good = json.load(f)
    planned = good["cases_planned"]
    edits = {
        "config_hash 5": (lambda d: d["metadata"].update(config_hash=5),
                          r"metadata\.config_hash is number 5, not a string"),
        'mpi_ranks "1"': (lambda d: d["metadata"].update(mpi_ranks="1"),
                          r'metadata\.mpi_ranks is string "1", not an integer'),
        "row status 5": (lambda d: d["results"][0].update(status=5),
                         r"row of case 0: the row has status 5 \(not its type\)"),
        "precision": (lambda d: d["results"][0].update(precision="float32"
                                                       if d["results"][0]["precision"] != "float32"
                                                       else "float64"),
                      r"row of case 0: the row has precision .* where its case has"),
        "m": (lambda d: d["results"][0].update(m=d["results"][0]["m"] + 1),
              r"row of case 0: the row has m \d+ where its case has \d+"),
        "cut down": (lambda d: d["results"].__setitem__(0, {k: d["results"][0][k] for k in
                     ("case", "case_id", "status", "rounds")}),
                     r"row of case 0: the row has no \w+"),
    }
    for what, (edit, pattern) in edits.items():
        doc = json.loads(json.dumps(good))
        edit(doc)
        with open(path, "w") as f:
            json.dump(doc, f)
        code, out, err = run(command(a, ["run", a.config, "--resume", a.dir]))
        if code != 2 or not re.search(re.escape(path) + ".*" + pattern, err) or \
                "[json.exception" in err or len(err.strip().splitlines()) != 1:
            fail(f"{what}: exit {code}, expected 2 with one line /{pattern}/ naming {path}\n"
                 f"{out[-1000:]}\n{err[-2000:]}")
    doc = json.loads(json.dumps(good))
    doc["results"][0]["valid"] = False  # status stays ok: a contradiction, not a kept row
    with open(path, "w") as f:
        json.dump(doc, f)
    resume(a, planned - 1, 1)
    doc, _ = check_complete(a, planned)
    if doc["results"][0]["valid"] is not True:
        fail(f"the row valid false was kept: {doc['results'][0]['valid']}")
    print(f"PASS: {len(edits)} edited results.json refused with exit 2 naming the file; a row ok "
          "but not valid runs again")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["interrupted", "usr1", "refused", "damaged"])
    p.add_argument("--miniapp", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--mpiexec", default="")
    p.add_argument("--ranks", type=int, default=1)
    a = p.parse_args()
    {"interrupted": cmd_interrupted, "usr1": cmd_usr1, "refused": cmd_refused,
     "damaged": cmd_damaged}[a.mode](a)


if __name__ == "__main__":
    main()
