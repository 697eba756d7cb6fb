#!/usr/bin/python3
"""Hostile input on the command line, in the environment and by signals (issue 23): each command
ends with its documented exit code, one sentence, no signal and no hang.

Run by ctest (label config) as: test_hostile_input.py TEST_NAME, with the environment of
test_cli.py (MINIAPP, MINIAPP_SOURCE_DIR).
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import MINIAPP, SRC, expect  # noqa: E402

LIMIT_S = 60  # far above any of these commands: running into it is a hang


def run(args, env=None, cwd=None):
    """exit code, stdout, stderr; a hang or a death by signal fails the test."""
    try:
        p = subprocess.run([MINIAPP] + args, capture_output=True, env=env, cwd=cwd,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAILED: a hang: miniapp {' '.join(map(str, args))[:300]}")
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    expect(p.returncode >= 0, f"no signal (got {-p.returncode})", out[-2000:], err[-2000:])
    return p.returncode, out, err


def one_sentence(err, *words):
    lines = [l for l in err.splitlines() if l.strip()]
    expect(len(lines) == 1, "one line on stderr", err[-3000:])
    for w in words:
        expect(w in lines[0], f"the sentence says '{w}'", lines[0])


def small_config(tmp):
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write("name: c\nwarmup: 0\nrepetitions: 1\ncases:\n"
                "  - {family: axpby, variant: flat, n: 16}\n")
    return path


def test_nul_in_output_directory():
    # The path was cut at the NUL, and the results directory loop spun on it at 100% CPU.
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        for cmd in ("validate", "run"):
            code, out, err = run([cmd, cfg, "--kokkos-num-threads=1", "--set",
                                  'output.directory="x\\0y"'], cwd=tmp)
            expect(code == 2, cmd + " exits 2", code, err)
            one_sentence(err, "--set[1] 'output.directory=\"x\\0y\"':1:18:", "NUL byte")
        expect(os.listdir(tmp) == ["c.yaml"], "nothing created", os.listdir(tmp))


def test_run_directory_not_utf8():
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        bad = os.fsdecode(b"d\xff")
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1", "--output-dir",
                              bad], cwd=tmp)
        expect(code == 2, "--output-dir with byte 0xFF exits 2", code, err)
        one_sentence(err, "--output-dir", "not valid UTF-8")
        env = dict(os.environ, SLURM_JOB_ID=os.fsdecode(b"1\xff"))
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1"], env, tmp)
        expect(code == 2, "SLURM_JOB_ID with byte 0xFF exits 2", code, err)
        one_sentence(err, "SLURM_JOB_ID", "not a job id")
        env["SLURM_JOB_ID"] = "../../escape"
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1"], env, tmp)
        expect(code == 2, "a SLURM_JOB_ID that is a path exits 2", code, err)
        expect(os.listdir(tmp) == ["c.yaml"], "no run directory made", os.listdir(tmp))
        expect("json.exception" not in err, "no raw JSON exception", err)


def test_jobscript_deleted_working_directory():
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        gone = os.path.join(tmp, "gone")
        os.mkdir(gone)
        p = subprocess.run(["sh", "-c", 'cd "$1" && rmdir "$1" && exec "$2" jobscript "$3" '
                            '--system generic-cpu --output-dir rel', "sh", gone, MINIAPP, cfg],
                           capture_output=True, text=True, timeout=LIMIT_S)
        expect(p.returncode == 3, "exit 3 (a resource error), not an abort", p.returncode,
               p.stderr)
        one_sentence(p.stderr, "miniapp jobscript: 'rel' is relative and the working directory "
                     "cannot be found", "resource: working directory")


def test_report_sigterm_stops_plot_script():
    # A plot script that hangs: SIGTERM to `report` stops it, waits for it and removes the
    # scratch directory with the plot table.
    with tempfile.TemporaryDirectory() as tmp:
        pid_file = os.path.join(tmp, "plot.pid")
        script = os.path.join(tmp, "slow-plot.py")
        with open(script, "w") as f:
            f.write("import os, sys, time\n"
                    f"open({pid_file!r}, 'w').write(str(os.getpid()))\n"
                    "time.sleep(120)\n")
        scratch = os.path.join(tmp, "scratch")
        os.mkdir(scratch)
        env = dict(os.environ, MINIAPP_PLOT_SCRIPT=script, TMPDIR=scratch)
        run_dir = os.path.join(SRC, "docs/data/paper_table1-openmp")
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            proc = subprocess.Popen([MINIAPP, "report", run_dir, "-o", os.path.join(tmp, "rep")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=env)
            deadline = time.time() + LIMIT_S
            while not os.path.exists(pid_file) and time.time() < deadline:
                time.sleep(0.05)
            expect(os.path.exists(pid_file), "the plot script started")
            time.sleep(0.2)
            child = int(open(pid_file).read())
            proc.send_signal(sig)
            try:
                out, err = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                sys.exit("FAILED: report did not end after " + sig.name)
            os.remove(pid_file)
            expect(proc.returncode == 3, f"{sig.name}: report exits 3", proc.returncode, err)
            one_sentence(err, "miniapp report: interrupted by signal")
            alive = os.path.exists(f"/proc/{child}") and \
                "zombie" not in open(f"/proc/{child}/status").read()
            expect(not alive, f"{sig.name}: the plot script is not left running")
            expect(glob.glob(os.path.join(scratch, "miniapp-plot-*")) == [],
                   f"{sig.name}: no scratch directory left", os.listdir(scratch))


def test_report_sigterm_while_writing_plot_inputs():
    # A stop signal while report writes the plot table for the plot script (before the script
    # starts; a fraction of a second for these runs, seconds for large ones) killed it and left
    # $TMPDIR/miniapp-plot-* with the JSON behind.
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, "large")
        os.mkdir(run_dir)
        with open(os.path.join(SRC, "docs/data/paper_table1-openmp/results.json")) as f:
            doc = json.load(f)
        for row in doc["results"]:
            row["compute_times_s"] = [1e-6 * (1 + i % 7) for i in range(200000)]
        with open(os.path.join(run_dir, "results.json"), "w") as f:
            json.dump(doc, f)
        pid_file = os.path.join(tmp, "plot.pid")
        script = os.path.join(tmp, "plot.py")
        with open(script, "w") as f:
            f.write(f"import os, time\nopen({pid_file!r}, 'w').write('1')\ntime.sleep(120)\n")
        scratch = os.path.join(tmp, "scratch")
        os.mkdir(scratch)
        env = dict(os.environ, MINIAPP_PLOT_SCRIPT=script, TMPDIR=scratch)
        proc = subprocess.Popen([MINIAPP, "report", run_dir, "-o", os.path.join(tmp, "rep")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.time() + LIMIT_S
        while not glob.glob(os.path.join(scratch, "miniapp-plot-*")) and proc.poll() is None \
                and time.time() < deadline:
            time.sleep(0.001)
        expect(not os.path.exists(pid_file), "the signal comes before the plot script starts")
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            sys.exit("FAILED: report did not end after SIGTERM")
        expect(proc.returncode == 3, "report exits 3", proc.returncode, err)
        one_sentence(err, "miniapp report: interrupted by signal 15")
        expect(os.listdir(scratch) == [], "no scratch directory left", os.listdir(scratch))


def test_thread_count_limit():
    hardware = os.cpu_count()
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        for flag in ("--kokkos-num-threads=65536", "--kokkos-threads=40000",
                     "--kokkos-num-threads=2000", f"--kokkos-num-threads={hardware * 8 + 1}"):
            code, out, err = run(["run", cfg, "--quiet", flag], env, tmp)
            expect(code == 2, flag + " exits 2", code, err)
            one_sentence(err, flag + " asks for", "threads per rank", f"{hardware} hardware")
        for var, value in (("OMP_NUM_THREADS", "999999"), ("OMP_NUM_THREADS", "4,100000"),
                           ("KOKKOS_NUM_THREADS", "65536"), ("OMP_NUM_THREADS", "lots")):
            code, out, err = run(["info"], dict(env, **{var: value}))
            expect(code == 2, f"{var}={value} exits 2", code, err)
            expect(err.strip().splitlines()[-1].startswith(f"miniapp: {var}"),
                   "one sentence naming the variable", err)
            expect("threads per rank" in err or "not a thread count" in err, "says why", err)
        # Beside the flag too (libgomp crashed on OMP_NUM_THREADS=999999 with a flag of 1).
        for var in ("OMP_NUM_THREADS", "KOKKOS_NUM_THREADS"):
            code, out, err = run(["info", "--kokkos-num-threads=1"], dict(env, **{var: "99999"}))
            expect(code == 2, var + "=99999 beside --kokkos-num-threads=1 exits 2", code, err)
        # A little oversubscription is allowed.
        code, out, err = run(["info", "--kokkos-num-threads=1"],
                             dict(env, OMP_NUM_THREADS=str(hardware * 2)))
        expect(code == 0, "twice the hardware threads in OMP_NUM_THREADS are fine", code, err)
        code, out, err = run(["run", cfg, "--quiet", f"--kokkos-num-threads={hardware * 2}",
                              "--output-dir", os.path.join(tmp, "ok")], env)
        expect(code == 0, "twice the hardware threads run", code, err)


def test_set_items_limit():
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        code, out, err = run(["validate", cfg, "--set"] + ["repetitions=2"] * 1001)
        expect(code == 2, "1001 --set items exit 2", code, err)
        one_sentence(err, "--set[1001]:1:1:", "the limit is 1000")
        # The cost of the items that are allowed grows linearly: 1000 items need at most about
        # twice what 500 need beyond 10 items' peak (it was 4x: 17 MB, then 65 MB; 2000 items
        # 255 MB). The slack covers the allocator; a sanitizer's quarantine grows linearly too.
        def peak_kb(n):
            items = [f"cases.0.n={8 + i % 5}" if i % 2 else f"repetitions={1 + i % 3}"
                     for i in range(n)]
            proc = subprocess.Popen([MINIAPP, "validate", cfg, "--set"] + items,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            expect(proc.returncode == 0, f"{n} --set items validate", proc.returncode)
            return usage.ru_maxrss
        base, half, full = peak_kb(10), peak_kb(500), peak_kb(1000)
        expect(full - base <= 2.5 * (half - base) + 4096,
               f"the peak memory grows linearly with the items: {base} KB for 10, {half} KB for "
               f"500, {full} KB for 1000")


def test_resume_empty_directory():
    # issue 42: `--resume ''` started a new run instead of being refused.
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1", "--resume", ""],
                             cwd=tmp)
        expect(code == 2, "--resume '' exits 2", code, err)
        one_sentence(err, "--resume '' names no directory")
        expect(os.listdir(tmp) == ["c.yaml"], "no run directory made", os.listdir(tmp))


def test_cache_dir_empty():
    # issue 42: MINIAPP_CACHE_DIR set but empty wrote /ceilings.json in the filesystem's root; an
    # empty HOME did the same. Empty is unset; without HOME the caches go to ./.cache/miniapp.
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        with open(cfg, "a") as f:
            f.write("reuse_ceilings: true\n")
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        cases = ((dict(os.environ, MINIAPP_CACHE_DIR="", HOME=home), home + "/.cache/miniapp"),
                 ({k: v for k, v in os.environ.items()
                   if k not in ("MINIAPP_CACHE_DIR", "HOME")}, tmp + "/.cache/miniapp"),
                 (dict(os.environ, MINIAPP_CACHE_DIR="", HOME=""), tmp + "/.cache/miniapp"))
        for i, (env, cache) in enumerate(cases):
            code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1",
                                  "--output-dir", os.path.join(tmp, f"run{i}")], env, tmp)
            expect(code == 0, "the run", code, err)
            expect(os.path.isfile(cache + "/ceilings.json"), f"ceilings stored in {cache}",
                   os.listdir(tmp), err)
            for d in (home, tmp):
                if os.path.isdir(d + "/.cache"):
                    subprocess.run(["rm", "-rf", d + "/.cache"], check=True)


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
    print("ok:", sys.argv[1])
