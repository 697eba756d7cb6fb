#!/usr/bin/python3
"""A study's files are inputs (issue 42): two `study submit`/`resubmit` of one study
never both submit, a submission that failed half-way can be completed, a study's directory holds no
job id, `collect` checks each point's run against the point, the state's texts reach the terminal
escaped, and a FIFO in place of a state or results file never makes a command wait.

Run by ctest (label config) as: test_study_inputs.py TEST_NAME, with the environment of
test_cli.py (MINIAPP, MINIAPP_SOURCE_DIR).
"""
import fcntl
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import MINIAPP, expect  # noqa: E402
from test_hostile_input import one_sentence  # noqa: E402
from test_study_state import (LIMIT_S, fake_slurm, make_study, run, write,  # noqa: E402
                              write_study)


def sbatch_calls(log):
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [line.split()[-1] for line in f if line.strip()]


def two_point_study(tmp, extra=""):
    """A study of two points (1 and 2 ranks on one node) of a small config; the study file."""
    return write_study(tmp, "two", "[1, 2]", extra)


def test_study_lock():
    # Two submits started together both submitted every point: the "submitted already" check and
    # the first save raced. The study's lock (study-state.lock, flock) is held by one; the other
    # is refused at once with one sentence, submitting nothing.
    with tempfile.TemporaryDirectory() as tmp:
        study = two_point_study(tmp)
        env, log = fake_slurm(tmp)
        directory = os.path.join(tmp, "two")
        os.makedirs(directory)
        with open(os.path.join(directory, "study-state.lock"), "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            code, out, err = run(["study", "submit", study, "--kokkos-num-threads=1"], env)
            expect(code == 3, "a submit while another holds the lock exits 3", code, out, err)
            one_sentence(err, "another `miniapp study submit` or `resubmit` of this study is "
                         "running", "study-state.lock")
            expect(sbatch_calls(log) == [], "nothing submitted", sbatch_calls(log))
            expect(not os.path.exists(os.path.join(directory, "study-state.json")),
                   "no state written")
        code, out, err = run(["study", "submit", study, "--kokkos-num-threads=1"], env)
        expect(code == 0, "the lock released, submit goes", code, out, err)
        with open(os.path.join(directory, "study-state.lock"), "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            code, out, err = run(["study", "resubmit", study, "--kokkos-num-threads=1"], env)
            expect(code == 3, "a resubmit while another holds the lock exits 3", code, out, err)
            one_sentence(err, "another `miniapp study submit` or `resubmit`")
        # Two submits of a fresh study at once: each point submitted once, by one of them.
        os.remove(log)
        study2 = two_point_study(tmp, "directory: race\n")
        procs = [subprocess.Popen([MINIAPP, "study", "submit", study2, "--kokkos-num-threads=1"],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        codes = sorted(p.wait(timeout=LIMIT_S * 4) for p in procs)
        points = [c for c in sbatch_calls(log) if c.endswith(".sh") and "point-" in c]
        expect(codes[0] == 0 and codes[1] in (2, 3), "one submit, one refusal", codes)
        expect(sorted(points) == sorted(set(points)) and len(points) == 2,
               "each point submitted once", points)


def test_study_half_submitted():
    # sbatch refused point 2: the point stayed 'unknown', resubmit said nothing to resubmit and
    # submit was refused as the state existed; the point could never be submitted.
    with tempfile.TemporaryDirectory() as tmp:
        study = two_point_study(tmp)
        env, log = fake_slurm(tmp)
        sbatch = os.path.join(tmp, "bin", "sbatch")
        count = os.path.join(tmp, "count")
        with open(sbatch, "w") as f:  # the second call fails, every other one is accepted
            f.write(f'#!/bin/sh\necho x >>"{count}"\n'
                    f'[ "$(wc -l <"{count}")" -eq 2 ] && exit 1\n'
                    f'echo "$@" >>"{log}"; echo $((20 + $(wc -l <"{count}")))\n')
        code, out, err = run(["study", "submit", study, "--kokkos-num-threads=1"], env)
        expect(code == 3, "sbatch failing on point 2 exits 3", code, out, err)
        expect("1 of 2 point(s) submitted" in err and "miniapp study resubmit" in err,
               "the failure says what was submitted and how to go on", err)
        code, out, err = run(["study", "status", study, "--kokkos-num-threads=1"], env)
        expect(code == 0 and "[2] four: 1 node(s) x 2 rank(s) per node: not submitted" in out,
               "status names the point never submitted", code, out, err)
        code, out, err = run(["study", "resubmit", study, "--kokkos-num-threads=1"], env)
        expect(code == 0, "resubmit completes the submission", code, out, err)
        calls = sbatch_calls(log)
        expect(calls[-2:] == [os.path.join(tmp, "two", "point-2.sh"),
                              os.path.join(tmp, "two", "collect.sh")],
               "point 2 and then a collect job submitted", calls)
        state = json.load(open(os.path.join(tmp, "two", "study-state.json")))
        expect(len(state["points"][1]["jobs"]) == 1 and len(state["collect"]["jobs"]) == 1,
               "the state records both", state)


def test_study_directory_job_id():
    # '%j' in a study's directory became the job id in the job, not in status and collect:
    # "done, results none yet", collect exit 3, a resubmission started over.
    with tempfile.TemporaryDirectory() as tmp:
        study = two_point_study(tmp, "directory: out-%j\n")
        env, log = fake_slurm(tmp)
        for action in ("plan", "submit"):
            code, out, err = run(["study", action, study, "--kokkos-num-threads=1"], env)
            expect(code == 2, f"study {action} of a directory with %j exits 2", code, out, err)
            one_sentence(err, study + ":6:", "holds '%j'", "fixed")
        expect(sbatch_calls(log) == [] and not os.path.exists(os.path.join(tmp, "out-%j")),
               "nothing submitted or written")


def test_study_collect_checks_ranks():
    # A 1-rank run in a 2-rank point's directory was reported as "2 ranks, efficiency 0.50".
    with tempfile.TemporaryDirectory() as tmp:
        study, state_file, state = make_study(tmp)
        state["points"][0]["ranks_per_node"] = 2
        write(state_file, state)
        code, out, err = run(["study", "collect", study, "--kokkos-num-threads=1"])
        expect(code == 2, "a run of another rank count exits 2", code, out, err)
        one_sentence(err, state["points"][0]["output_dir"] + " holds a run of 1 rank(s)",
                     "point 1", "runs 2", "nothing imported")
        expect(not os.path.exists(os.path.join(tmp, "s", "history.db")), "nothing imported")
        expect(not os.path.exists(os.path.join(tmp, "s", "report")), "no report")


def test_study_state_escapes():
    # Terminal escapes in system_name and output_dir were printed raw by status and collect.
    with tempfile.TemporaryDirectory() as tmp:
        study, state_file, state = make_study(tmp)
        env, log = fake_slurm(tmp)
        good = dict(state["points"][0])
        for key, value in (("system_name", "\x1b]0;owned\x07four"),
                           ("output_dir", os.path.join(tmp, "s", "results", "\x1b[2Jpoint-1"))):
            state["points"][0] = dict(good, **{key: value})
            write(state_file, state)
            for action in ("status", "collect"):
                code, out, err = run(["study", action, study, "--kokkos-num-threads=1"], env)
                expect("\x1b" not in out + err, f"{action}: no escape reaches the terminal",
                       repr(out), repr(err))
                expect(code == 2, f"{action}: a control character in {key} exits 2", code,
                       repr(err))
                one_sentence(err, state_file + ": point 1's " + key, "control character 0x1b")


def test_study_state_fifo():
    # `study status` waited for ever on a FIFO study-state.json or results.json.
    with tempfile.TemporaryDirectory() as tmp:
        study, state_file, state = make_study(tmp)
        env, log = fake_slurm(tmp)
        os.mkfifo(state_file)
        code, out, err = run(["study", "status", study, "--kokkos-num-threads=1"], env)
        expect(code == 2, "a FIFO state file exits 2", code, out, err)
        one_sentence(err, state_file + ": is a FIFO, not a regular file")
        os.remove(state_file)
        write(state_file, state)
        results = os.path.join(state["points"][0]["output_dir"], "results.json")
        os.remove(results)
        os.mkfifo(results)
        code, out, err = run(["study", "status", study, "--kokkos-num-threads=1"], env)
        expect(code == 0 and "results unreadable results.json" in out,
               "a FIFO results.json is unreadable, not waited on", code, out, err)


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
    print("ok:", sys.argv[1])
