#!/usr/bin/python3
"""A study's state file (study-state.json) read back by `study status`, `resubmit` and `collect`
is an input like any other (issue 42): an edited count ends the command with exit 2 and one
sentence naming the file; nothing is imported or written, and nothing hangs.

Run by ctest (label config) as: test_study_state.py TEST_NAME, with the environment of
test_cli.py (MINIAPP, MINIAPP_SOURCE_DIR).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import MINIAPP, expect  # noqa: E402
from test_hostile_input import one_sentence, small_config  # noqa: E402

# Far above what these commands take; a state that made `collect` loop for ever ran into it
# (its memory grew ~60 MB/s: the timeout keeps that below about 1 GB).
LIMIT_S = 15


def run(args, env=None):
    try:
        p = subprocess.run([MINIAPP] + args, capture_output=True, text=True, env=env,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        sys.exit(f"FAILED: a hang: miniapp {' '.join(args)[:300]}")
    expect(p.returncode >= 0, f"no signal (got {-p.returncode})", p.stderr[-2000:])
    return p.returncode, p.stdout, p.stderr


def make_study(tmp):
    """A one-point study as `study submit` leaves it: the study file, its config and profile, the
    point's finished run, and the state; returns (study file, state file, state)."""
    cfg = small_config(tmp)
    with open(os.path.join(tmp, "four.yaml"), "w") as f:
        f.write("name: four\nbackend: openmp\ncores_per_node: 4\nmax_nodes: 1\n"
                "time: \"00:05:00\"\n")
    study = os.path.join(tmp, "s.yaml")
    with open(study, "w") as f:
        f.write(f"name: s\nconfig: {cfg}\nsystems: [four.yaml]\nnodes: [1]\n"
                "ranks_per_node: [1]\n")
    directory = os.path.join(tmp, "s")
    point_dir = os.path.join(directory, "results", "point-1")
    code, out, err = run(["run", cfg, "--quiet", "--kokkos-num-threads=1", "--output-dir",
                          point_dir])
    expect(code == 0, "the point's run", code, err)
    state = {"study": "s", "study_file": study, "scheduler": "slurm", "scaling": "strong",
             "points": [{"system": "four.yaml", "system_name": "four", "nodes": 1,
                         "ranks_per_node": 1, "script": os.path.join(directory, "point-1.sh"),
                         "output_dir": point_dir, "jobs": ["11"]}],
             "collect": {"script": os.path.join(directory, "collect.sh"), "jobs": ["12"]}}
    return study, os.path.join(directory, "study-state.json"), state


def write(path, state):
    with open(path, "w") as f:
        json.dump(state, f)


def test_study_state_counts():
    # nodes 2^30: the scaling plot's axis loop never ended; 0 and -1: efficiency -nan, "ranks -2".
    with tempfile.TemporaryDirectory() as tmp:
        study, state_file, state = make_study(tmp)
        write(state_file, state)
        code, out, err = run(["study", "collect", study, "--kokkos-num-threads=1"])
        expect(code == 0, "the state as written collects", code, err)
        for key in ("nodes", "ranks_per_node"):
            for bad in (0, -1, 2**30):
                state["points"][0][key] = bad
                write(state_file, state)
                code, out, err = run(["study", "collect", study, "--kokkos-num-threads=1"])
                expect(code == 2, f"{key} {bad} exits 2", code, out, err)
                one_sentence(err, state_file + ": point 1's " + key,
                             "not a count from 1 to 1000000")
                expect("-nan" not in out, "no efficiency of -nan", out)
            state["points"][0][key] = 1


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
    print("ok:", sys.argv[1])
