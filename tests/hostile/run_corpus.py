#!/usr/bin/python3
"""A corpus of hostile inputs over the files miniapp reads back (issue 42): each case under
tests/hostile/SURFACE/CASE.json puts hostile files in a scratch directory, runs one command and
states how it must end. Every case also ends with no hang (a time limit far above the command's
time), no death by signal, nothing written outside the scratch directory (a directory of files
beside it, which symlinks in the cases point at, is compared before and after), no sbatch run, and
no row marked valid with an absurd figure in any results.json the command left.

A case file holds:
  "about"   what it probes (one line)
  "edit"    changes to the surface's file read back (resumed, results: run/results.json;
            study_state: s/study-state.json), in order: {"set": "a.0.b", "value": V},
            {"copy_row": I}, {"drop_row": I}; then on its text {"replace": [OLD, NEW]},
            {"truncate": TEXT} (cut at TEXT's second occurrence)
  "files"   [{"path": P, and one of "text", "latin1" (each character one byte), "repeat" ([[TEXT,
            COUNT], ...] joined), "fifo", "dir", "symlink" (its target), "rename_to" (a path),
            "latin1_of_self" (the file's characters each made one byte)}], P relative to the
            scratch directory
  "args"    the command, after `miniapp`; "env" variables set for it
  "exit"    its exit code; "stderr", "stdout": text its output must hold, "stdout_not" text it
            must not
Placeholders: {scratch}, {outside} (the directory beside it), {config} (two small matmul cases),
{machine} (this host's ceilings key), {tune_key} (this host's autotune key), {study}, {state}.
With CORPUS_PROBE=1 in the environment each case's outcome is printed instead of checked (to
write a new case's expectations).

Run by ctest (labels config, hostile) as: run_corpus.py SURFACE, with MINIAPP and
MINIAPP_SOURCE_DIR in the environment.
"""
import concurrent.futures
import glob
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

MINIAPP = os.environ["MINIAPP"]
HERE = os.path.dirname(os.path.abspath(__file__))
# Far above any of these commands (a tiny run measuring its ceilings takes about 2 s): running
# into it is a hang.
LIMIT_S = 60
THREADS = "--kokkos-num-threads=1"
# Two cases whose ceilings are the vendor GEMM of their size (0.3 s each to measure, where the copy
# bandwidths of an axpby take 2 s).
SMALL = "name: c\nwarmup: 0\nrepetitions: 1\ncases:\n" \
        "  - {family: matmul, variant: tiled, n: 16, tile: 16}\n" \
        "  - {family: matmul, variant: tiled, n: 24, tile: 8}\n"
TUNED = "name: t\nwarmup: 0\nrepetitions: 1\ncases:\n" \
        "  - {family: matmul, variant: tiled, n: 32, tile: auto}\n"
GEMM = "name: g\nwarmup: 0\nrepetitions: 1\nreuse_ceilings: true\ncases:\n" \
       "  - {family: matmul, variant: tiled, n: 32, tile: 32}\n"
PROFILE = "name: four\nbackend: openmp\ncores_per_node: 4\nmax_nodes: 1\ntime: \"00:05:00\"\n"


def fail(what, *outputs):
    sys.exit("FAILED: " + what + "\n" + "\n---\n".join(str(o)[-3000:] for o in outputs))


def miniapp(args, env, cwd):
    try:
        p = subprocess.run([MINIAPP] + args, capture_output=True, env=env, cwd=cwd,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        fail(f"a hang: miniapp {' '.join(args)[:300]}")
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if p.returncode < 0:
        fail(f"killed by signal {-p.returncode}: miniapp {' '.join(args)[:300]}", out, err)
    return p.returncode, out, err


def environment(scratch):
    env = dict(os.environ, HOME=os.path.join(scratch, "home"), TMPDIR=os.path.join(scratch, "tmp"),
               MINIAPP_CACHE_DIR=os.path.join(scratch, "cache"))
    env["PATH"] = os.path.join(scratch, "bin") + os.pathsep + env["PATH"]
    for d in ("home", "tmp", "cache", "bin"):
        os.makedirs(os.path.join(scratch, d), exist_ok=True)
    # A scheduler saying job 11 failed, and an sbatch that leaves a trace: none of these cases may
    # submit anything.
    for name, body in (("squeue", 'echo "11|FAILED"'), ("sacct", 'echo "11|FAILED"'),
                       ("sbatch", f'echo "$@" >>"{scratch}/sbatch.log"; echo 99')):
        path = os.path.join(scratch, "bin", name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
    return env


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def prime(root, surface):
    """What the surface's cases start from, made once: a finished run of SMALL, this host's cache
    keys."""
    scratch = os.path.join(root, "prime")
    os.makedirs(scratch)
    env = environment(scratch)
    primed = {"run": os.path.join(scratch, "run"), "machine": "", "tune_key": ""}
    config, cache, key = {"ceilings": ("g.yaml", "ceilings.json", "machine"),
                          "autotune": ("t.yaml", "autotune.json", "tune_key")}.get(
                              surface, ("c.yaml", "", ""))
    write(os.path.join(scratch, "c.yaml"), SMALL)
    write(os.path.join(scratch, "t.yaml"), TUNED)
    write(os.path.join(scratch, "g.yaml"), GEMM)
    code, o, e = miniapp(["run", config, "--quiet", THREADS, "--output-dir", "run"], env, scratch)
    if code != 0:
        fail("the priming run of " + config, o, e)
    if cache:
        with open(os.path.join(scratch, "cache", cache)) as f:
            primed[key] = next(iter(json.load(f)))
    return primed


def study_base(scratch, primed):
    """A one-point study as `study submit` leaves it (its point's run finished)."""
    write(os.path.join(scratch, "four.yaml"), PROFILE)
    study = os.path.join(scratch, "s.yaml")
    write(study, f"name: s\nconfig: {scratch}/c.yaml\nsystems: [four.yaml]\nnodes: [1]\n"
                 "ranks_per_node: [1]\n")
    point = os.path.join(scratch, "s", "results", "point-1")
    shutil.copytree(primed["run"], point, symlinks=True)
    state = {"study": "s", "study_file": study, "scheduler": "slurm", "scaling": "strong",
             "points": [{"system": "four.yaml", "system_name": "four", "nodes": 1,
                         "ranks_per_node": 1, "script": os.path.join(scratch, "s", "point-1.sh"),
                         "output_dir": point, "jobs": ["11"]}],
             "collect": {"script": os.path.join(scratch, "s", "collect.sh"), "jobs": ["12"]}}
    write(os.path.join(scratch, "s", "study-state.json"), json.dumps(state, indent=1))
    return {"study": study, "state": os.path.join(scratch, "s", "study-state.json")}


def setup(surface, scratch, primed):
    """The surface's files; the placeholders and the file that edits apply to."""
    write(os.path.join(scratch, "c.yaml"), SMALL)
    write(os.path.join(scratch, "t.yaml"), TUNED)
    write(os.path.join(scratch, "g.yaml"), GEMM)
    values = {"config": os.path.join(scratch, "c.yaml"), "machine": primed["machine"],
              "tune_key": primed["tune_key"]}
    edited = None
    if surface in ("resumed", "results"):
        shutil.copytree(primed["run"], os.path.join(scratch, "run"), symlinks=True)
        edited = os.path.join(scratch, "run", "results.json")
    elif surface == "study_state":
        values.update(study_base(scratch, primed))
        edited = values["state"]
    return values, edited


def expand(text, values):
    for k, v in values.items():
        text = text.replace("{" + k + "}", v)
    return text


def place(spec, scratch, values):
    path = os.path.join(scratch, expand(spec["path"], values))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path) and "rename_to" not in spec and "latin1_of_self" not in spec:
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    if "text" in spec:
        write(path, expand(spec["text"], values))
    elif "latin1" in spec:
        with open(path, "wb") as f:
            f.write(expand(spec["latin1"], values).encode("latin-1"))
    elif "repeat" in spec:
        write(path, "".join(expand(t, values) * n for t, n in spec["repeat"]))
    elif spec.get("fifo"):
        os.mkfifo(path)
    elif spec.get("dir"):
        os.mkdir(path)
    elif "symlink" in spec:
        os.symlink(expand(spec["symlink"], values), path)
    elif spec.get("latin1_of_self"):  # the file as it is, its characters each one byte
        with open(path) as f:
            text = f.read()
        with open(path, "wb") as f:
            f.write(text.encode("latin-1"))
    elif "rename_to" in spec:
        os.rename(path, os.path.join(scratch, expand(spec["rename_to"], values)))


def apply_edits(path, edits, values):
    with open(path) as f:
        text = f.read()
    doc = json.loads(text)
    for e in edits:
        if "set" in e:
            keys = e["set"].split(".")
            node = doc
            for k in keys[:-1]:
                node = node[int(k)] if isinstance(node, list) else node[k]
            value = json.loads(expand(json.dumps(e["value"]), values))
            node[int(keys[-1]) if isinstance(node, list) else keys[-1]] = value
        elif "copy_row" in e:
            doc["results"].append(dict(doc["results"][e["copy_row"]]))
        elif "drop_row" in e:
            del doc["results"][e["drop_row"]]
    text = json.dumps(doc, indent=1)
    for e in edits:
        if "replace" in e:
            text = text.replace(*e["replace"])
        if "truncate" in e:
            at = text.find(e["truncate"], text.find(e["truncate"]) + 1)
            text = text[:at]
    write(path, text)


def snapshot(root):
    """Every entry under root: its type, size and content hash."""
    seen = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(d, name)
            if os.path.islink(p) or not os.path.isfile(p):
                seen[p] = ("link", os.readlink(p)) if os.path.islink(p) else ("dir",)
            else:
                with open(p, "rb") as f:
                    seen[p] = ("file", hashlib.sha256(f.read()).hexdigest())
    return seen


def results_files(scratch):
    """Each regular results.json under scratch: its content's hash."""
    found = {}
    for path in glob.glob(os.path.join(scratch, "**", "results.json"), recursive=True):
        if not os.path.islink(path) and os.path.isfile(path):
            with open(path, "rb") as f:
                found[path] = hashlib.sha256(f.read()).hexdigest()
    return found


def written_rows(scratch, before):
    """(path, rows) of each results.json the command wrote (new or changed)."""
    for path, digest in results_files(scratch).items():
        if before.get(path) == digest:
            continue
        try:
            with open(path) as f:
                rows = json.load(f).get("results", [])
        except (ValueError, AttributeError, UnicodeDecodeError, RecursionError):
            rows = None
        yield path, rows if isinstance(rows, list) else []


def absurd_valid_rows(scratch, before):
    """Rows marked valid whose figures no measurement gives, in a results.json written."""
    bad = []
    for path, rows in written_rows(scratch, before):
        for row in rows:
            if not isinstance(row, dict) or row.get("valid") is not True:
                continue
            for key, low, high in (("gbs", 0, 1e9), ("gflops", 0, 1e9), ("ceiling_value", 0, 1e9),
                                   ("pct_of_ceiling", 0, 1e5), ("power_w", 0, 1e4),
                                   ("energy_j", 0, 1e9)):
                v = row.get(key)
                if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)
                                          and low <= v <= high):
                    bad.append(f"{path}: {row.get('case_id')} {key} {v}")
    return bad


def repeated_rows(scratch, before):
    """Cases with two rows in a results.json written: a case counted twice."""
    bad = []
    for path, rows in written_rows(scratch, before):
        cases = [json.dumps(row.get("case")) for row in rows if isinstance(row, dict)]
        bad += [f"{path}: case {c} {cases.count(c)} times" for c in set(cases)
                if cases.count(c) > 1]
    return bad


def run_case(surface, case_file, root, primed):
    name = os.path.basename(case_file)[:-len(".json")]
    with open(case_file) as f:
        case = json.load(f)
    scratch, outside = os.path.join(root, "case-" + name), os.path.join(root, "outside-" + name)
    os.makedirs(scratch)
    make_outside(outside, primed)
    env = environment(scratch)
    values, edited = setup(surface, scratch, primed)
    values.update(scratch=scratch, outside=outside)
    if case.get("edit"):
        apply_edits(edited, case["edit"], values)
    for spec in case.get("files", []):
        place(spec, scratch, values)
    before, passwd = snapshot(outside), snapshot("/etc/passwd")
    written = results_files(scratch)
    args = [expand(a, values) for a in case["args"]]
    env.update({k: expand(v, values) for k, v in case.get("env", {}).items()})
    code, out, err = miniapp(args, env, scratch)
    what = f"{surface}/{name} ({case['about']})"
    if os.environ.get("CORPUS_PROBE"):
        return f"{surface}/{name}: exit {code}\n  stdout: {out[-400:]!r}\n  stderr: {err[-600:]!r}"
    if code != case["exit"]:
        fail(f"{what}: exit {code}, expected {case['exit']}", out, err)
    for key, text in (("stderr", err), ("stdout", out)):
        if expand(case.get(key, ""), values) not in text:
            fail(f"{what}: {key} lacks '{expand(case[key], values)}'", out, err)
    if case.get("stdout_not") and expand(case["stdout_not"], values) in out:
        fail(f"{what}: stdout holds '{case['stdout_not']}'", out, err)
    if snapshot(outside) != before or snapshot("/etc/passwd") != passwd:
        fail(f"{what}: a file outside the scratch directory changed")
    if os.path.exists(os.path.join(scratch, "sbatch.log")):
        fail(f"{what}: sbatch was run", open(os.path.join(scratch, "sbatch.log")).read())
    bad = absurd_valid_rows(scratch, written) + repeated_rows(scratch, written)
    if bad:
        fail(f"{what}: rows valid with absurd figures", *bad)
    return f"ok {surface}/{name}: exit {code}"


def make_outside(outside, primed):
    """Files beside the scratch directory that the cases' symlinks point at."""
    os.makedirs(os.path.join(outside, "dir"))
    write(os.path.join(outside, "target.json"), '{"untouched": true}\n')
    shutil.copytree(primed["run"], os.path.join(outside, "run"))


def main():
    surface = sys.argv[1]
    cases = sorted(glob.glob(os.path.join(HERE, surface, "*.json")))
    if not cases:
        fail("no cases under " + os.path.join(HERE, surface))
    with tempfile.TemporaryDirectory() as root:
        primed = prime(root, surface)
        # Two cases at a time: a case spends most of its time starting a process and waiting.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for line in pool.map(lambda c: run_case(surface, c, root, primed), cases):
                print(line)


if __name__ == "__main__":
    main()
