#!/usr/bin/python3
"""Files `run` wrote for itself are inputs (issue 42): a FIFO in place of ceilings.json or
autotune.json never makes a run wait (it waited for ever, and ignored SIGTERM), and `run --resume`
refuses a directory whose run still goes.

Run by ctest (label config) as: test_run_inputs.py TEST_NAME, with the environment of test_cli.py
(MINIAPP, MINIAPP_SOURCE_DIR).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import MINIAPP, expect  # noqa: E402
from test_hostile_input import one_sentence, small_config  # noqa: E402
from test_study_state import LIMIT_S, run, write  # noqa: E402


def test_run_cache_fifo():
    # `run` waited for ever on a FIFO ceilings.json or autotune.json, and a SIGTERM did not end
    # the wait: only SIGKILL did. Now a FIFO cache reads as damaged (the autotune cache says so).
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "c.yaml")
        with open(cfg, "w") as f:
            f.write("name: c\nwarmup: 0\nrepetitions: 1\nreuse_ceilings: true\ncases:\n"
                    "  - {family: matmul, variant: tiled, n: 32, tile: auto}\n")
        cache = os.path.join(tmp, "cache")
        os.mkdir(cache)
        for name in ("ceilings.json", "autotune.json"):
            os.mkfifo(os.path.join(cache, name))
        env = dict(os.environ, MINIAPP_CACHE_DIR=cache)
        p = subprocess.Popen([MINIAPP, "run", cfg, "--quiet", "--kokkos-num-threads=1",
                              "--output-dir", os.path.join(tmp, "out")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(timeout=LIMIT_S * 4)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGTERM)  # what a batch system sends first
            try:
                p.communicate(timeout=LIMIT_S)
                sys.exit("FAILED: run waited on a FIFO cache (SIGTERM ended the wait)")
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                sys.exit("FAILED: run waited on a FIFO cache and ignored SIGTERM")
        expect(p.returncode == 0, "the run ends as without a cache", p.returncode, err)
        expect(os.path.join(cache, "autotune.json") + ": is a FIFO" in err,
               "the autotune cache's FIFO is named", err)


def process_start_ticks():
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def test_resume_running():
    # --resume of a directory whose run still went: both exited 0 and the remaining cases ran
    # twice. The run's process is recorded (metadata.process); this test's own stands for it.
    with tempfile.TemporaryDirectory() as tmp:
        cfg = small_config(tmp)
        out_dir = os.path.join(tmp, "r")
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1", "--output-dir",
                              out_dir])
        expect(code == 0, "the first run", code, err)
        results = os.path.join(out_dir, "results.json")
        doc = json.load(open(results))
        recorded = doc["metadata"].get("process", {})
        expect(recorded.get("pid", 0) > 0, "the run's process recorded", recorded)
        doc["status"], doc["complete"] = "running", False
        doc["metadata"]["process"] = {"pid": os.getpid(), "start_ticks": process_start_ticks()}
        write(results, doc)
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1", "--resume",
                              out_dir])
        expect(code == 2, "a directory whose run still goes is refused", code, out, err)
        one_sentence(err, out_dir + " is being written by a run still going",
                     f"process {os.getpid()}")
        # The same process id with another start: the id was reused, the run ended long ago.
        doc["metadata"]["process"]["start_ticks"] = process_start_ticks() + 1
        write(results, doc)
        code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1", "--resume",
                              out_dir])
        expect(code == 0, "a run that ended without marking its status is resumed", code, err)


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
    print("ok:", sys.argv[1])
