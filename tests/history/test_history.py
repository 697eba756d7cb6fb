#!/usr/bin/python3
"""Performance references and the results history (issue 17, docs/history.md), end to end.

Run by ctest as: test_history.py TEST_NAME, with MINIAPP, MINIAPP_SOURCE_DIR and MINIAPP_WORK (a
scratch directory, emptied per test) in the environment.
"""
import csv
import glob
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

MINIAPP = os.environ["MINIAPP"]
SRC = os.environ["MINIAPP_SOURCE_DIR"]
HERE = os.path.join(SRC, "tests", "history")
SMALL = os.path.join(HERE, "history_small.yaml")
SWEEP = os.path.join(HERE, "history_sweep.yaml")


def expect(cond, what, *outputs):
    if not cond:
        sys.exit("FAILED: " + what + "\n" + "\n---\n".join(str(o) for o in outputs))


def run(args, timeout=120):
    p = subprocess.run([MINIAPP] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def scratch(name):
    d = os.path.join(os.environ["MINIAPP_WORK"], name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def results(run_dir):
    with open(os.path.join(run_dir, "results.json")) as f:
        return json.load(f)


def csv_results(run_dir):
    with open(os.path.join(run_dir, "results.csv")) as f:
        return list(csv.DictReader(f))


def db_rows(db, run_id):
    with sqlite3.connect(db) as con:
        return {r[0] for r in con.execute("SELECT case_index FROM rows WHERE run_id = ?", (run_id,))}


def test_references():
    work = scratch("references")
    high, low = os.path.join(HERE, "refs_high.yaml"), os.path.join(HERE, "refs_low.yaml")
    below_dir, met_dir = os.path.join(work, "below"), os.path.join(work, "met")
    code, out, err = run(["run", SMALL, "--quiet", "--set", "backend=serial", "--output-dir",
                          below_dir, "--references", high])
    expect(code == 5, "a run below its reference exits 5", code, out, err)
    for n in (64, 128):
        name = "axpby/flat/float32/%dx%d/" % (n, n)
        expect("BELOW " + name in out, "the console names the row below: " + name, out)
    expect("row(s) below their reference" in err, "stderr says rows are below", err)
    rows = results(below_dir)["results"]
    statuses = {(r["family"], int(r["n"])): (r["reference_status"], r["reference"]) for r in rows}
    expect(statuses[("matmul", 32)] == ("none", None), "matmul has no reference", statuses)
    expect(statuses[("axpby", 64)] == ("below", 1000000), "axpby rows marked below", statuses)
    expect(statuses[("axpby", 128)] == ("below", 1000000), "axpby rows marked below", statuses)
    expect({r["reference_unit"] for r in rows} == {None, "GB/s"}, "units: GB/s, null for none",
           rows)
    # results.csv carries the same three columns (empty where JSON has null).
    table = csv_results(below_dir)
    cells = {(r["family"], int(r["n"])): (r["reference_status"], r["reference"], r["reference_unit"])
             for r in table}
    expect(cells == {("matmul", 32): ("none", "", ""), ("axpby", 64): ("below", "1000000.0", "GB/s"),
                     ("axpby", 128): ("below", "1000000.0", "GB/s")},
           "results.csv has the reference columns", cells)
    # Columns are appended, never inserted (readers that go by position keep working): the
    # reference columns follow case_id, and only later additions (shape, rounds, host_load,
    # ceiling_level, the energy columns, ceiling_source, team_size_ran, clock_limit,
    # launches_per_sample, ceiling_low, ceiling_high, ceiling_recheck, ceiling_disturbed,
    # split_k, padded, host_others) follow them.
    keys = list(table[0].keys())
    expect(keys[keys.index("case_id") + 1:][:4] == ["reference", "reference_unit",
                                                      "reference_status", "shape"]
           and keys[-12:] == ["energy_note", "ceiling_source", "team_size_ran", "clock_limit",
                            "launches_per_sample", "ceiling_low", "ceiling_high",
                            "ceiling_recheck", "ceiling_disturbed", "split_k", "padded",
                            "host_others"],
           "the reference columns follow case_id, then shape, ..., energy_note, ceiling_source, "
           "team_size_ran, clock_limit, launches_per_sample, ceiling_low, ceiling_high, "
           "ceiling_recheck, ceiling_disturbed, split_k, padded, host_others",
           keys)

    code, out, err = run(["run", SMALL, "--quiet", "--set", "backend=serial", "--output-dir",
                          met_dir, "--references", low])
    expect(code == 0, "a run at or above its references exits 0", code, out, err)
    expect("3 row(s) met, 0 below" in out, "every row meets its reference", out)
    expect({r["reference_status"] for r in results(met_dir)["results"]} == {"met"},
           "rows marked met", results(met_dir)["results"])
    expect({r["reference_status"] for r in csv_results(met_dir)} == {"met"},
           "results.csv rows marked met", csv_results(met_dir))
    # Only --db needs results.json: references mark a CSV-only run too.
    csv_only = os.path.join(work, "csv_only")
    code, out, err = run(["run", SMALL, "--quiet", "--set", "backend=serial", "output.formats=[csv]",
                          "--output-dir", csv_only, "--references", low])
    expect(code == 0 and not os.path.exists(os.path.join(csv_only, "results.json")),
           "a CSV-only run with --references", code, out, err)
    expect({r["reference_status"] for r in csv_results(csv_only)} == {"met"},
           "the CSV-only run's rows marked met", csv_results(csv_only))

    # compare checks finished runs the same way (the rows of a run are named with the run).
    code, out, err = run(["compare", below_dir, met_dir, "--references", high])
    expect(code == 5, "compare --references exits 5 when a row is below", code, err)
    expect(err.count("BELOW run 1") == 2 and err.count("BELOW run 2") == 2,
           "compare names each row below with its run", err)
    code, out, err = run(["compare", below_dir, met_dir, "--references", low])
    expect(code == 0 and "6 row(s) met, 0 below" in err, "compare: all met exits 0", code, err)
    # A validation failure (4) wins over a row below its reference (5).
    code, out, err = run(["run", SMALL, "--quiet", "--set", "backend=serial", "validation.rtol=1e-300",
                          "--output-dir", os.path.join(work, "invalid"), "--references", high])
    expect(code == 4, "validation failure exits 4 even with rows below", code, err)


def test_bad_references():
    files = sorted(glob.glob(os.path.join(HERE, "bad_references", "*.yaml")))
    expect(len(files) >= 8, "the bad references corpus is there", files)
    work = scratch("bad_references")
    for i, f in enumerate(files):
        with open(f) as fh:
            first = fh.readline()
        expect(first.startswith("# expect: "), f + " starts with '# expect: LINE:COL text'", first)
        location, text = first[len("# expect: "):].rstrip("\n").split(" ", 1)
        want = "%s:%s: %s" % (f, location, text)
        code, out, err = run(["compare", os.path.join(SRC, "docs/data/paper_table1-openmp"),
                              "--references", f])
        expect(code == 2 and err.startswith(want), "compare: " + want, code, err)
        # run refuses it before any work: no run directory is made.
        out_dir = os.path.join(work, "run%d" % i)
        code, out, err = run(["run", SMALL, "--quiet", "--output-dir", out_dir, "--references", f])
        expect(code == 2 and err.startswith(want), "run: " + want, code, err)
        expect(not os.path.exists(out_dir), "no run directory after a bad references file", f)


def test_profile():
    """A system profile names its references file; the job's run gets --references, checked now."""
    work = scratch("profile")
    refs = os.path.join(work, "refs.yaml")
    profile = os.path.join(work, "cpu.yaml")
    with open(profile, "w") as f:
        f.write("name: cpu-with-refs\nbackend: openmp\ncores_per_node: 4\nreferences: refs.yaml\n")
    shutil.copy(os.path.join(HERE, "refs_low.yaml"), refs)
    config = os.path.join(SRC, "configs/quickstart.yaml")
    code, out, err = run(["jobscript", config, "--system", profile])
    expect(code == 0 and "--references '%s'" % refs in out,
           "the job's run checks the profile's references", code, out, err)
    bad = os.path.join(HERE, "bad_references", "unit_unknown.yaml")
    shutil.copy(bad, refs)
    code, out, err = run(["jobscript", config, "--system", profile])
    expect(code == 2 and refs + ":5:11: references[1].unit must be GB/s or GFLOP/s" in err,
           "a bad references file named by a profile exits 2 before a script is written",
           code, out, err)


def test_import():
    work = scratch("import")
    db = os.path.join(work, "history.db")
    shipped = sorted(glob.glob(os.path.join(SRC, "docs/data/paper_table1-*")) +
                     glob.glob(os.path.join(SRC, "docs/data/weak_scaling-*")))
    fresh = []
    for backend in ("serial", "openmp"):
        d = os.path.join(work, backend)
        code, out, err = run(["run", SMALL, "--quiet", "--set", "backend=" + backend,
                              "--output-dir", d])
        expect(code == 0, "fresh %s run" % backend, code, err)
        fresh.append(d)
    code, out, err = run(["db", "import", "--db", db] + shipped + fresh)
    expect(code == 0, "db import exits 0", code, out, err)
    run_dirs = [os.path.dirname(p) for d in shipped + fresh
                for p in glob.glob(os.path.join(d, "results.json")) +
                glob.glob(os.path.join(d, "*", "results.json"))]
    expected_rows = sum(len(results(d)["results"]) for d in run_dirs)
    # paper tables, weak_scaling-h200x2 and -h200x4, weak_scaling-h200x2-ipc,
    # weak_scaling-h200x4-ipc-2026-11-26, the fresh runs
    expect(len(run_dirs) == 4 + 9 + 6 + 6 + 2, "27 runs to import", run_dirs)

    def snapshot():
        with sqlite3.connect(db) as con:
            return (con.execute("SELECT * FROM runs ORDER BY run_id").fetchall(),
                    con.execute("SELECT * FROM rows ORDER BY run_id, case_index").fetchall())

    runs1, rows1 = snapshot()
    expect(len(runs1) == len(run_dirs) and len(rows1) == expected_rows,
           "every run and row imported (%d rows)" % expected_rows, len(runs1), len(rows1))
    # Twice: nothing changes, and the command says so.
    code, out, err = run(["db", "import", "--db", db] + shipped + fresh)
    expect(code == 0 and out.count(" 0 new or changed, run unchanged") == len(run_dirs),
           "a second import changes nothing", out, err)
    expect(snapshot() == (runs1, rows1), "the database is the same after a second import")
    # A run's id is the one results.json recorded (new runs) or derived (older ones).
    for d in fresh:
        rid = results(d)["metadata"]["run_id"]
        expect(len(db_rows(db, rid)) == 3, "fresh run %s is in the database by its id" % rid)

    # history: the paper's N=1024 case across the CPU and GPU runs, oldest first.
    code, out, err = run(["history", "--db", db, "--case", "axpby/flat/float32/1024x1024*"])
    expect(code == 0, "history exits 0", code, err)
    for label in ("openmp 1x2 on AMD EPYC (vm)", "serial 1x1 on AMD EPYC (vm)",
                  "on NVIDIA H100 80GB HBM3 (vm)"):
        expect(label in out, "history shows " + label, out)
    code, out, err = run(["history", "--db", db, "--case", "axpby/flat/float32/64x64*",
                          "--format", "csv"])
    table = list(csv.DictReader(io.StringIO(out)))
    expect(code == 0 and len(table) == 2, "csv: the two fresh runs", out, err)
    expect({r["backend"] for r in table} == {"serial", "openmp"}, "the two fresh runs' backends",
           out)
    code, out, err = run(["history", "--db", db, "--since", "2026-11-22", "--case", "matmul/*",
                          "--label", "cuda 4x1*", "--format", "csv"])
    expect(code == 0 and len(out.strip().split("\n")) == 1 + 3 * 2,
           "--since/--label: the 4-GPU weak-scaling rows", out, err)
    code, out, err = run(["history", "--db", db, "--since", "yesterday"])
    expect(code == 2 and "since=yesterday" in err, "a bad --since exits 2", code, err)

    # compare takes runs from the database: the Table 1 runs on the CPU.
    code, out, err = run(["compare", "--db", db, "--select", "experiment=paper_table1",
                          "backend=openmp", "--table", "paper1"])
    expect(code == 0 and "| 1024 x 1024 | 0.2905 | 10.8 |" in out, "compare --db --select", code, out,
           err)
    code, out, err = run(["compare", "--db", db, "--select", "label=nothing*"])
    expect(code == 2 and "no run" in err, "an empty selection exits 2", code, err)

    # rebuild from the directories gives the same contents.
    code, out, err = run(["db", "rebuild", "--db", db] + shipped + fresh)
    runs2, rows2 = snapshot()
    expect(code == 0 and [r[:-1] for r in runs2] == [r[:-1] for r in runs1] and rows2 == rows1,
           "rebuild gives the same runs and rows", code, err)


def test_report_db():
    """`miniapp report --db FILE --select ...`: the report of the runs the database selects."""
    work = scratch("report_db")
    db = os.path.join(work, "history.db")
    runs = {b: os.path.join(SRC, "docs/data", "paper_table1-" + b) for b in ("openmp", "cuda",
                                                                             "serial")}
    code, out, err = run(["db", "import", "--db", db] + list(runs.values()))
    expect(code == 0, "db import", code, out, err)

    def report(name, *select):
        page_dir = os.path.join(work, name)
        code, out, err = run(["report", "--db", db, "--select"] + list(select) + ["-o", page_dir],
                             timeout=180)
        expect(code == 0, "report --db --select " + " ".join(select), code, out, err)
        with open(os.path.join(page_dir, "index.html")) as f:
            return f.read()

    # Each run's source (the directory it was imported from) is in the page's Runs table.
    page = report("two", "experiment=paper_table1", "backend=[oc]*")
    for b in ("openmp", "cuda"):
        expect(runs[b] in page, "the report shows the selected %s run" % b, runs[b])
    expect(runs["serial"] not in page, "the serial run is not selected")
    expect("NVIDIA H100" in page and "AMD EPYC" in page, "both devices are on the page")
    page = report("cuda", "experiment=paper_table1", "backend=cuda")
    expect(runs["cuda"] in page and runs["openmp"] not in page, "only the selected CUDA run")

    code, out, err = run(["report", "--db", db, "--select", "label=nothing*", "-o",
                          os.path.join(work, "none")])
    expect(code == 2 and "miniapp report: no run in" in err, "an empty selection exits 2", code,
           err)
    code, out, err = run(["report", "-o", os.path.join(work, "none")])
    expect(code == 2 and "miniapp report: name the runs" in err, "no runs and no --db exits 2",
           code, err)


def test_plot():
    """`miniapp history --plot FILE`: the selected cases' rates per run, one file per family."""
    try:
        import matplotlib  # noqa: F401 (the plot script needs it: Debian's python3-matplotlib)
    except ImportError:
        print("skipped: no matplotlib")
        sys.exit(77)
    work = scratch("plot")
    db = os.path.join(work, "history.db")
    shipped = sorted(glob.glob(os.path.join(SRC, "docs/data/paper_table1-*")) +
                     glob.glob(os.path.join(SRC, "docs/data/weak_scaling-*")))
    code, out, err = run(["db", "import", "--db", db] + shipped)
    expect(code == 0, "db import", code, out, err)

    one = os.path.join(work, "n1024.svg")
    code, out, err = run(["history", "--db", db, "--case", "axpby/flat/float32/1024x1024*",
                          "--plot", one], timeout=180)
    expect(code == 0 and "miniapp history: wrote " + one in err, "history --plot exits 0", code,
           out, err)
    expect("1024x1024" in out, "the table is printed as well", out)
    with open(one) as f:
        svg = f.read()
    # The plot script stores the title and the legend in the file's metadata.
    expect("<svg" in svg and "<dc:title>miniapp axpby: rate vs run (kernel)</dc:title>" in svg,
           "an SVG of the axpby rates per run", svg[:600])
    expect("legend: flat N=1024" in svg, "the case is the plot's series", svg[:2000])

    # Several families: one file each, FILE-FAMILY.EXT.
    many = os.path.join(work, "scaling.png")
    code, out, err = run(["history", "--db", db, "--since", "2026-11-22", "--plot", many],
                         timeout=180)
    expect(code == 0, "history --plot over several families", code, err)
    for family in ("axpby", "matmul", "tile_average"):
        path = os.path.join(work, "scaling-%s.png" % family)
        with open(path, "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", "a PNG for " + family, path)
    expect(not os.path.exists(many), "FILE itself is not written when there are several")

    bad = os.path.join(work, "plot.txt")
    code, out, err = run(["history", "--db", db, "--plot", bad])
    expect(code == 2 and "name a .png, .svg or .pdf file" in err and out == "",
           "--plot with another extension exits 2 before any output", code, out, err)


def wait_for_rows(run_dir, n, proc, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if len(results(run_dir)["results"]) >= n:
                return
        except (OSError, ValueError, KeyError):
            pass
        expect(proc.poll() is None, "the run to be killed is still running")
        time.sleep(0.02)
    sys.exit("FAILED: no %d rows in %s after %d s" % (n, run_dir, timeout))


def test_concurrency():
    work = scratch("concurrency")
    db = os.path.join(work, "history.db")
    dirs = [os.path.join(work, name) for name in ("a", "b", "killed")]
    env = dict(os.environ, OMP_NUM_THREADS="1")

    def start(d, config):
        return subprocess.Popen([MINIAPP, "run", config, "--quiet", "--set", "backend=serial",
                                 "--output-dir", d, "--db", db], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    procs = [start(dirs[0], SMALL), start(dirs[1], SMALL), start(dirs[2], SWEEP)]
    wait_for_rows(dirs[2], 2, procs[2])
    procs[2].send_signal(signal.SIGKILL)
    for p in procs[:2]:
        expect(p.wait(timeout=120) == 0, "the concurrent runs exit 0", p.stderr.read())
    expect(procs[2].wait(timeout=30) == -signal.SIGKILL, "the third run was killed")

    with sqlite3.connect(db) as con:
        expect(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok",
               "the database is consistent after a writer was killed")
        expect(con.execute("PRAGMA journal_mode").fetchone()[0] == "wal", "WAL journal")
    for d in dirs:
        doc = results(d)
        rid = doc["metadata"]["run_id"]
        in_file = {int(r["case"]) for r in doc["results"]}
        in_db = db_rows(db, rid)
        expect(in_file <= in_db, "every completed row of %s is in the database" % d,
               sorted(in_file), sorted(in_db))
        if d != dirs[2]:
            expect(in_db == in_file and doc["complete"], "a finished run: the same rows", d)
        else:
            # The database is written before results.json: at most the row being written is ahead.
            expect(len(in_file) >= 2 and len(in_db - in_file) <= 1 and not doc["complete"],
                   "the killed run keeps its rows", sorted(in_file), sorted(in_db))
    with sqlite3.connect(db) as con:
        status = dict(con.execute("SELECT source, status FROM runs").fetchall())
    expect(status[dirs[0]] == "complete" and status[dirs[1]] == "complete",
           "finished runs recorded complete", status)



def test_resume():
    """`run --resume DIR --db` records each case once: the resumed run takes the place of the run
    it resumed (recorded by `run --db` or not), an old copy of that run adds nothing, and `db
    rebuild` from the directory records the same rows."""
    work = scratch("resume")
    db = os.path.join(work, "history.db")
    run_dir = os.path.join(work, "run")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen([MINIAPP, "run", SWEEP, "--quiet", "--set", "backend=serial",
                          "--output-dir", run_dir, "--db", db], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for_rows(run_dir, 2, p)
    p.send_signal(signal.SIGUSR1)  # stop after the current case, as a job near its time limit
    code = p.wait(timeout=120)
    first = results(run_dir)
    expect(code == 3 and first["status"] == "interrupted", "the first run stops, interrupted", code,
           p.stderr.read())
    first_id, kept = first["metadata"]["run_id"], len(first["results"])
    expect(db_rows(db, first_id) >= {int(r["case"]) for r in first["results"]},
           "the first run recorded its rows", sorted(db_rows(db, first_id)))
    planned = first["cases_planned"]
    stale = os.path.join(work, "stale-copy")  # the directory as the first run left it
    shutil.copytree(run_dir, stale)
    no_db = os.path.join(work, "first-without-db")
    shutil.copytree(run_dir, no_db)

    def cases_per_run(database):
        with sqlite3.connect(database) as con:
            return con.execute("SELECT run_id, case_index FROM rows").fetchall()

    def expect_once(database, run_id, what):
        pairs = cases_per_run(database)
        indexes = sorted(i for _, i in pairs)
        expect(indexes == list(range(planned)), what + ": every case exactly once", indexes)
        expect({r for r, _ in pairs} == {run_id}, what + ": under the resumed run",
               sorted({r for r, _ in pairs}))

    code, out, err = run(["run", SWEEP, "--quiet", "--set", "backend=serial", "--resume", run_dir,
                          "--db", db])
    expect(code == 0, "the resumed run completes", code, out, err)
    resumed = results(run_dir)
    resumed_id = resumed["metadata"]["run_id"]
    expect(resumed_id != first_id and len(resumed["results"]) == planned, "a new run, all cases",
           resumed_id)
    expect_once(db, resumed_id, "run --db, then run --resume --db")
    code, out, err = run(["history", "--db", db, "--format", "csv"])
    lines = [l for l in out.splitlines()[1:] if l]
    expect(code == 0 and len(lines) == planned, "history lists each case once", code, out, err)
    with sqlite3.connect(db) as con:
        runs = [r[0] for r in con.execute("SELECT run_id FROM runs")]
    expect(runs == [resumed_id], "the resumed run replaced the run it resumed", runs)

    # An old copy of the first run's directory adds nothing; importing it again says why.
    code, out, err = run(["db", "import", "--db", db, stale])
    expect(code == 0 and "not imported: run " + resumed_id + " resumed it" in out,
           "an old copy of a resumed run is not imported", code, out, err)
    expect_once(db, resumed_id, "after importing an old copy")

    # The first run without --db: the resumed run records the kept rows too.
    db2 = os.path.join(work, "second.db")
    code, out, err = run(["run", SWEEP, "--quiet", "--set", "backend=serial", "--resume", no_db,
                          "--db", db2])
    expect(code == 0, "the resume of a run without --db completes", code, out, err)
    expect_once(db2, results(no_db)["metadata"]["run_id"], "run (no --db), then run --resume --db")

    # db import of the stale copy, then of the resumed directory: the same end; and rebuild.
    db3 = os.path.join(work, "imported.db")
    code, out, err = run(["db", "import", "--db", db3, stale, run_dir])
    expect(code == 0 and "replaces the run(s) it resumed: " + first_id in out,
           "db import of the resumed directory replaces the earlier run", code, out, err)
    expect_once(db3, resumed_id, "db import of both states")
    code, out, err = run(["db", "rebuild", "--db", db3, run_dir, stale])
    expect(code == 0, "db rebuild", code, out, err)
    expect_once(db3, resumed_id, "db rebuild, the old copy last")
    print("%d of %d case(s) kept by the first run; each case recorded once" % (kept, planned))

# Hostile databases and results files (issue 23). A command that only reads leaves every file as
# it was: the same bytes and times, and no -wal, -shm or -journal file beside it.
def file_states(directory):
    states = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            st = os.stat(path)
            with open(path, "rb") as f:
                states[name] = (f.read(), st.st_mtime_ns, st.st_ctime_ns, st.st_size)
    return states


def expect_untouched(directory, before, what):
    after = file_states(directory)
    expect(sorted(after) == sorted(before), what + ": no file added or removed", sorted(before),
           sorted(after))
    for name in before:
        expect(after[name] == before[name], what + ": %s unchanged" % name)


def expect_refused(args, path, what, words):
    code, out, err = run(args)
    expect(code == 2, what + " exits 2 (no signal)", code, out, err)
    expect(path in err and words in err, what + ": one sentence naming " + path, err)


def shipped_db(work, name="history.db"):
    db = os.path.join(work, name)
    code, out, err = run(["db", "import", "--db", db,
                          os.path.join(SRC, "docs/data/paper_table1-openmp")])
    expect(code == 0, "db import", code, out, err)
    return db


def set_pragmas(db, *pragmas):
    con = sqlite3.connect(db, isolation_level=None)
    for p in pragmas:
        con.execute("PRAGMA " + p)
    con.close()


def test_schema_version():
    """A user_version out of range (negative, newer) is refused with exit 2, nothing changed."""
    work = scratch("schema_version")
    run_dir = os.path.join(SRC, "docs/data/paper_table1-serial")
    for version in (-1, -2147483648, 999):
        d = scratch("schema_version/%d" % abs(version))
        db = shipped_db(d)
        # rollback journal first: a refused database must not be switched to WAL either
        set_pragmas(db, "journal_mode=DELETE", "user_version=%d" % version)
        before = file_states(d)
        words = "is newer than this miniapp" if version > 0 else "not a miniapp history database"
        expect_refused(["history", "--db", db], db, "history, user_version %d" % version, words)
        expect_refused(["db", "import", "--db", db, run_dir], db,
                       "db import, user_version %d" % version, words)
        expect_refused(["compare", "--db", db, "--select", "backend=*"], db,
                       "compare --db, user_version %d" % version, words)
        expect_untouched(d, before, "user_version %d" % version)
        if version == -1:
            negative = db
    # run --db refuses it before any work: no run directory
    out_dir = os.path.join(work, "run")
    expect_refused(["run", SMALL, "--quiet", "--set", "backend=serial", "--output-dir", out_dir,
                    "--db", negative], negative, "run --db", "not a miniapp history database")
    expect(not os.path.exists(out_dir), "run --db with a refused database does no work")


def test_read_only():
    """history, compare --db and report --db write nothing; another program's database is refused."""
    work = scratch("read_only")
    dbs = scratch("read_only/dbs")
    foreign = os.path.join(dbs, "foreign.db")
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE contacts (name TEXT)")
    con.execute("INSERT INTO contacts VALUES ('ada')")
    con.commit()
    con.close()
    before = file_states(dbs)
    for args in (["history", "--db", foreign], ["compare", "--db", foreign, "--select", "run=*"],
                 ["report", "--db", foreign, "--select", "run=*", "-o", os.path.join(work, "r")],
                 ["db", "import", "--db", foreign, os.path.join(SRC, "docs/data/paper_table1-serial")]):
        expect_refused(args, foreign, " ".join(args[:2]) + " of another program's database",
                       "not a miniapp history database")
    expect_untouched(dbs, before, "another program's database")

    # The tool's own database (WAL, no writer): read by every reading command, left as it was.
    db = shipped_db(dbs)
    before = file_states(dbs)
    for args in (["history", "--db", db], ["history", "--db", db, "--format", "csv"],
                 ["compare", "--db", db, "--select", "backend=openmp"],
                 ["report", "--db", db, "--select", "backend=openmp", "-o",
                  os.path.join(work, "report")]):
        code, out, err = run(args)
        expect(code == 0, " ".join(args[:2]) + " reads the database", code, out, err)
    expect_untouched(dbs, before, "reading the history database")

    # A writer has it open (its -wal holds a commit): readers see it through SQLite's locks.
    con = sqlite3.connect(db)
    con.execute("UPDATE runs SET label = 'relabelled while open'")
    con.commit()
    code, out, err = run(["history", "--db", db])
    con.close()
    expect(code == 0 and "relabelled while open" in out, "a reader sees a writer's commit", code,
           out, err)

    # A read-only directory (as on a read-only file system), and another user reading: nothing
    # is created beside the database, and its owner can write it afterwards.
    shared = scratch("read_only/shared")
    db = shipped_db(shared)
    os.chmod(db, 0o644)
    other = []
    if os.geteuid() == 0:
        other = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        os.chmod(shared, 0o1777)  # others may create files here: the tool must not
        before = file_states(shared)
        p = subprocess.run(other + [MINIAPP, "history", "--db", db], capture_output=True,
                           text=True, timeout=60)
        expect(p.returncode == 0 and "1024x1024" in p.stdout, "another user reads the database",
               p.returncode, p.stdout, p.stderr)
        expect_untouched(shared, before, "another user's history")
    os.chmod(shared, 0o555)
    try:
        before = file_states(shared)
        p = subprocess.run(other + [MINIAPP, "history", "--db", db], capture_output=True,
                           text=True, timeout=60)
        expect(p.returncode == 0 and "1024x1024" in p.stdout,
               "history reads a database in a read-only directory", p.returncode, p.stdout,
               p.stderr)
        expect_untouched(shared, before, "history in a read-only directory")
    finally:
        os.chmod(shared, 0o755)
    code, out, err = run(["db", "import", "--db", db,
                          os.path.join(SRC, "docs/data/paper_table1-serial")])
    expect(code == 0, "the owner imports after the readers", code, out, err)


def test_deep_json():
    """JSON from the database is read under the limits of a results file."""
    work = scratch("deep_json")
    db = shipped_db(work)
    # Nested 100,000 deep inside the database: refused like such a results.json, not a crash.
    deep_object = '{"backend": "openmp", "x": ' + '{"a": ' * 100000 + "1" + "}" * 100001
    deep_row = '{"family": "axpby", "x": ' + "[" * 100000 + "]" * 100000 + "}"
    for column, table, text in (("metadata_json", "runs", deep_object),
                                ("row_json", "rows", deep_row)):
        copy = os.path.join(work, column + ".db")
        shutil.copy(db, copy)
        con = sqlite3.connect(copy)
        con.execute("UPDATE %s SET %s = ?" % (table, column), (text,))
        con.commit()
        con.close()
        select = ["--db", copy, "--select", "backend=openmp"]
        for args in (["compare"] + select, ["report"] + select + ["-o", work + "/report"]):
            expect_refused(args, copy, "%s --db with a deep %s" % (args[0], column),
                           "nested deeper than 64 levels")



def test_duplicate_cases():
    """Rows sharing one case: refused, not "6 row(s)" reported and 1 kept."""
    work = scratch("duplicate_cases")
    db = shipped_db(work)
    with open(os.path.join(SRC, "docs/data/paper_table1-openmp/results.json")) as f:
        doc = json.load(f)
    doc["metadata"]["run_id"] = "one-case-six-rows"
    for row in doc["results"]:
        row["case"] = 0
    dup = os.path.join(work, "dup.json")
    with open(dup, "w") as f:
        json.dump(doc, f)
    expect_refused(["db", "import", "--db", db, dup], dup, "rows sharing a case",
                   "are both case 0")
    with sqlite3.connect(db) as con:
        expect(con.execute("SELECT count(*) FROM runs WHERE run_id = 'one-case-six-rows'")
               .fetchone()[0] == 0, "nothing of the refused run is stored")
    # Distinct cases: every row reported is stored.
    for i, row in enumerate(doc["results"]):
        row["case"] = 10 + i
    with open(dup, "w") as f:
        json.dump(doc, f)
    code, out, err = run(["db", "import", "--db", db, dup])
    expect(code == 0 and "6 row(s)" in out and len(db_rows(db, "one-case-six-rows")) == 6,
           "the rows reported are the rows stored", code, out, err)



def test_wrong_type():
    """A value of the wrong type is bad input naming the file, not a database failure."""
    work = scratch("wrong_type")
    db = shipped_db(work)
    with open(os.path.join(SRC, "docs/data/paper_table1-serial/results.json")) as f:
        doc = json.load(f)
    doc["complete"] = "yes"
    bad = os.path.join(work, "complete-yes.json")
    with open(bad, "w") as f:
        json.dump(doc, f)
    expect_refused(["db", "import", "--db", db, bad], bad, '"complete": "yes"', '"complete"')
    code, out, err = run(["db", "import", "--db", db, bad])
    expect("resource" not in err, "not blamed on the history database", err)


def test_results_size():
    """Results files over the size limit are refused unread."""
    work = scratch("results_size")
    db = os.path.join(work, "history.db")
    for name in ("results.json", "results.csv"):
        d = scratch("results_size/" + name)
        huge = os.path.join(d, name)
        with open(huge, "wb") as f:
            f.truncate((256 << 20) + 1)  # sparse: one byte over the limit
        expect_refused(["compare", huge], huge, "compare of a huge " + name,
                       "larger than 256 MiB")
    expect_refused(["db", "import", "--db", db, os.path.join(work, "results.json")],
                   "results.json", "db import of a huge results.json", "larger than 256 MiB")


def test_out_of_memory():
    """Running out of memory while loading a results file exits 3, not abort (134)."""
    work = scratch("out_of_memory")
    db = os.path.join(work, "history.db")
    # 20 MB of rows under a 300 MB address-space limit: out of memory, exit 3, no abort.
    with open(os.path.join(SRC, "docs/data/paper_table1-openmp/results.json")) as f:
        doc = json.load(f)
    doc["results"] = [dict(doc["results"][0], case=i) for i in range(20000)]
    big = os.path.join(work, "big.json")
    with open(big, "w") as f:
        json.dump(doc, f)

    def limited():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))

    probe = subprocess.run([MINIAPP, "--version"], capture_output=True, preexec_fn=limited)
    if probe.returncode != 0:  # a sanitizer build reserves more address space than that
        print("out-of-memory part skipped: the program does not start under 300 MB")
        return
    for args in (["compare", big], ["db", "import", "--db", db, big]):
        p = subprocess.run([MINIAPP] + args, capture_output=True, text=True, timeout=120,
                           preexec_fn=limited)
        expect(p.returncode == 3 and "out of host memory" in p.stderr,
               " ".join(args[:2]) + " out of memory exits 3", p.returncode, p.stderr[-2000:])


def test_not_utf8():
    """Bytes that are not UTF-8 (a results.csv cell, a database column) never stop the plots."""
    work = scratch("not_utf8")
    try:
        import matplotlib  # noqa: F401
        plots = True
    except ImportError:
        plots = False  # the JSON handed to the plot script is still written first
    csv_run = scratch("not_utf8/csv-run")
    with open(os.path.join(SRC, "docs/data/paper_table1-openmp/results.csv"), "rb") as f:
        lines = f.read().split(b"\n")
    header, first = lines[0].split(b","), lines[1].split(b",")
    first[header.index(b"backend")] += b"\xff"  # a column the loader keeps as text
    lines[1] = b",".join(first)
    with open(os.path.join(csv_run, "results.csv"), "wb") as f:
        f.write(b"\n".join(lines))
    db = shipped_db(work)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET experiment = CAST(X'7061706572ff' AS TEXT)")
    for args in (["report", csv_run, "-o", os.path.join(work, "report-csv")],
                 ["report", "--db", db, "--select", "backend=openmp", "-o",
                  os.path.join(work, "report-db")],
                 ["history", "--db", db, "--plot", os.path.join(work, "history.svg")]):
        code, out, err = run(args, timeout=180)
        what = " ".join(args[:2]) + " with bytes that are not UTF-8"
        expect("json.exception" not in err, what + ": no JSON exception", code, err)
        expect(not plots or ("No plots" not in err and "no plot" not in err),
               what + ": the plots are drawn", code, err)
        expect(code == 0 or (not plots and code == 3), what + " exits 0", code, out, err)


def test_locked_stop():
    """A stop signal ends a run's wait for another process's lock on the database (not 60 s)."""
    work = scratch("locked_stop")
    db = os.path.join(work, "history.db")
    run_dir = os.path.join(work, "run")
    p = subprocess.Popen([MINIAPP, "run", SWEEP, "--quiet", "--set", "backend=serial",
                          "--output-dir", run_dir, "--db", db],
                         env=dict(os.environ, OMP_NUM_THREADS="1"),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for_rows(run_dir, 1, p)
    holder = sqlite3.connect(db, isolation_level=None, timeout=30)
    holder.execute("BEGIN EXCLUSIVE")  # every later row of the run waits for this lock
    try:
        time.sleep(1)
        expect(p.poll() is None, "the run waits for the lock", p.stderr.read() if p.poll() else "")
        p.send_signal(signal.SIGTERM)
        start = time.monotonic()
        try:
            code = p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            expect(False, "SIGTERM ends a run waiting for the database's lock within 15 s")
        err = p.stderr.read()
        expect(code == 3, "the stopped run exits 3", code, err)
        print("stopped %.1f s after SIGTERM" % (time.monotonic() - start))
    finally:
        holder.rollback()
        holder.close()
    expect(results(run_dir)["status"] == "interrupted", "results.json says the run was interrupted",
           results(run_dir).get("status"))


TESTS = {"references": test_references, "bad_references": test_bad_references,
         "profile": test_profile,
         "import": test_import, "concurrency": test_concurrency, "report_db": test_report_db,
         "plot": test_plot, "schema_version": test_schema_version, "read_only": test_read_only,
         "deep_json": test_deep_json, "duplicate_cases": test_duplicate_cases,
         "wrong_type": test_wrong_type, "results_size": test_results_size, "not_utf8": test_not_utf8,
         "out_of_memory": test_out_of_memory, "locked_stop": test_locked_stop,
         "resume": test_resume}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        sys.exit("usage: test_history.py " + "|".join(TESTS))
    TESTS[sys.argv[1]]()
    print("ok")
