#!/usr/bin/python3
"""A study's state file (study-state.json) read back by `study status`, `resubmit` and `collect`
is an input like any other (issue 42): an edited count or path ends the command with exit 2 and
one sentence naming the file; nothing is submitted, imported or written, and nothing hangs. So
are the scheduler's answers that `study status` shows (a job's state and reason, a node's).

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


def write_study(tmp, name, ranks_per_node, extra=""):
    """A study of small_config on the profile four.yaml (one node of 4 cores); its file."""
    cfg = small_config(tmp)
    with open(os.path.join(tmp, "four.yaml"), "w") as f:
        f.write("name: four\nbackend: openmp\ncores_per_node: 4\nmax_nodes: 1\n"
                "time: \"00:05:00\"\n")
    study = os.path.join(tmp, name + ".yaml")
    with open(study, "w") as f:
        f.write(f"name: {name}\nconfig: {cfg}\nsystems: [four.yaml]\nnodes: [1]\n"
                f"ranks_per_node: {ranks_per_node}\n{extra}")
    return study


def make_study(tmp):
    """A one-point study as `study submit` leaves it: the study file, its config and profile, the
    point's finished run, and the state; returns (study file, state file, state)."""
    study = write_study(tmp, "s", "[1]")
    cfg = os.path.join(tmp, "c.yaml")
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


def fake_slurm(tmp):
    """squeue and sacct saying job 11 failed; an sbatch that logs what it is handed."""
    bin_dir = os.path.join(tmp, "bin")
    os.mkdir(bin_dir)
    log = os.path.join(tmp, "sbatch.log")
    for name, body in (("squeue", 'echo "11|FAILED"'), ("sacct", 'echo "11|FAILED"'),
                       ("sbatch", f'echo "$@" >>"{log}"; echo 99')):
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
    return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"]), log


def test_study_state_paths():
    with tempfile.TemporaryDirectory() as tmp:
        study, state_file, state = make_study(tmp)
        env, log = fake_slurm(tmp)
        # resubmit handed sbatch whatever script the state named.
        evil = os.path.join(tmp, "evil.sh")
        written = state["points"][0]["script"]
        state["points"][0]["script"] = evil
        write(state_file, state)
        code, out, err = run(["study", "resubmit", study, "--kokkos-num-threads=1"], env)
        expect(code == 2, "a script outside the study's directory exits 2", code, out, err)
        one_sentence(err, state_file + ": point 1's script '" + evil + "' lies outside")
        expect(not os.path.exists(log), "sbatch was not run", open(log).read()
               if os.path.exists(log) else "")
        # collect imported whatever directory the state named: another study's run, say.
        state["points"][0]["script"] = written
        other = os.path.join(tmp, "other-run")
        os.rename(state["points"][0]["output_dir"], other)
        state["points"][0]["output_dir"] = os.path.join(tmp, "s", "..", "other-run")
        write(state_file, state)
        code, out, err = run(["study", "collect", study, "--kokkos-num-threads=1"])
        expect(code == 2, "a results directory outside the study's exits 2", code, out, err)
        one_sentence(err, "point 1's output_dir", "lies outside the study's directory")
        expect(not os.path.exists(os.path.join(tmp, "s", "history.db")), "nothing imported")
        # The state as submit wrote it resubmits the failed point: its own script.
        state["points"][0]["output_dir"] = os.path.join(tmp, "s", "results", "point-1")
        write(state_file, state)
        code, out, err = run(["study", "resubmit", study, "--kokkos-num-threads=1"], env)
        expect(code == 0, "the state as written resubmits", code, out, err)
        with open(log) as f:
            handed = f.read()
        expect(written in handed and evil not in handed, "sbatch got the study's script", handed)


def test_study_status_says_why():
    """A point whose job a node failure ended: status says so in Slurm's words, and names the
    node out of service; the scheduler's texts are inputs: no escape reaches the terminal."""
    with tempfile.TemporaryDirectory() as tmp:
        study, state_file, state = make_study(tmp)
        write(state_file, state)
        env, _ = fake_slurm(tmp)
        fakes = {"squeue": r"printf '11|NODE_FAIL|2|Node\033]0;x\007Down%0200d\n' 0",
                 "sinfo": r"printf 'node3|down*|slurmd\033[2J stopped\n'"}
        for name, body in fakes.items():
            path = os.path.join(tmp, "bin", name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + body + "\n")
            os.chmod(path, 0o755)
        code, out, err = run(["study", "status", study], env)
        expect(code == 0, "status exits 0", code, out, err)
        reason = "Node]0;xDown" + "0" * 145 + "..."  # 160 characters, cut
        expect(f"failed (job 11: NODE_FAIL, {reason}, requeued 2x), results" in out,
               "the point's line says why, bounded", out)
        expect("\n  out of service: node3 (down*: slurmd[2J stopped)\n" in out,
               "the node out of service", out)
        expect("\x1b" not in out and "\x07" not in out, "no escape reaches the terminal", out)


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
    print("ok:", sys.argv[1])
