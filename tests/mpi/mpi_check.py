#!/usr/bin/env python3
"""MPI checks for ctest (label mpi).

compare: run CONFIG on one rank (no mpiexec) and on N ranks, then check, case by case, that
  both runs have the same rows and statuses, every measured row validated, and the global
  checksums agree: exactly for int32, else within the sum of the two runs' stated bounds
  (checksum_bound = tolerance * sum of the element scales, the per-kernel bound of docs/kernels.md).
breakdown: run CONFIG (matmul cases) on N ranks and check the per-rank breakdown columns: the
  exposed time is at least 0, the overlap fraction lies in [0, 1], the transport is named, there
  was communication, and each rank's compute + exposed time makes up its operation time (within
  noise).
expect: run a command on N ranks and check its exit code and that stderr matches a pattern
  (optionally: exactly once).
"""
import argparse
import csv
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

LIMIT_S = 50  # below the ctest TIMEOUT of 60 s


def run(cmd, env=None):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        sys.exit(f"FAIL: timed out after {LIMIT_S} s (a hang): {' '.join(cmd)}\n{err[-3000:]}")
    return proc.returncode, out, err


def mpi_cmd(args, ranks, rest):
    return [args.mpiexec, "--oversubscribe", "-n", str(ranks)] + rest


def rows_of(path):
    with open(os.path.join(path, "results.csv"), newline="") as f:
        return list(csv.DictReader(f))


def compare(args):
    work = tempfile.mkdtemp(prefix="mpi-compare-")
    common = ["run", args.config, "--quiet", "--kokkos-num-threads=1"]
    sets = ["--set"] + args.set if args.set else []
    one = os.path.join(work, "one")
    code, _, err = run([args.miniapp] + common + ["--output-dir", one] + sets)
    if code != 0:
        sys.exit(f"FAIL: single-rank run exited {code}\n{err[-3000:]}")
    many = os.path.join(work, f"np{args.ranks}")
    if args.grid:  # mpi.grid must match the rank count, so only the N-rank run gets it
        sets = (sets or ["--set"]) + [f"mpi.grid=[{args.grid}]"]
    code, out, err = run(mpi_cmd(args, args.ranks, [args.miniapp] + common + ["--output-dir", many] + sets))
    if code != 0:
        sys.exit(f"FAIL: {args.ranks}-rank run exited {code}\n{out[-2000:]}\n{err[-3000:]}")
    a, b = rows_of(one), rows_of(many)
    if len(a) != len(b) or not a:
        sys.exit(f"FAIL: {len(a)} rows on one rank, {len(b)} on {args.ranks}")
    checked = 0
    for x, y in zip(a, b):
        what = f"{x['family']}/{x['variant']}/{x['precision']}/{x['m']}x{x['n']}x{x['k']} tile={x['tile']}"
        if y["ranks"] != str(args.ranks):
            sys.exit(f"FAIL: {what}: ranks column says {y['ranks']}")
        if (x["family"], x["variant"], x["precision"], x["m"], x["n"], x["k"], x["tile"]) != \
           (y["family"], y["variant"], y["precision"], y["m"], y["n"], y["k"], y["tile"]):
            sys.exit(f"FAIL: rows differ: {what} vs {y['family']}/{y['variant']}")
        if x["status"] != y["status"]:
            sys.exit(f"FAIL: {what}: status {x['status']} on one rank, {y['status']} on {args.ranks}: {y['message']}")
        if x["status"] == "unsupported":
            continue
        if x["status"] != "ok" or x["valid"] != "true" or y["valid"] != "true":
            sys.exit(f"FAIL: {what}: not validated ({x['status']}/{x['valid']}, {y['status']}/{y['valid']}): {y['message']}")
        c1, cn = float(x["checksum"]), float(y["checksum"])
        bound = float(x["checksum_bound"]) + float(y["checksum_bound"])
        if x["precision"] == "int32":
            ok = c1 == cn and c1 == float(y["checksum_ref"])
        else:
            ok = abs(c1 - cn) <= bound
        print(f"{what}: checksum {c1!r} (1 rank) vs {cn!r} ({args.ranks} ranks, grid "
              f"{y['grid_p']}x{y['grid_q']}), bound {bound:.3g}: {'ok' if ok else 'DIFFERENT'}")
        if not ok:
            sys.exit(f"FAIL: {what}: checksums disagree")
        checked += 1
    print(f"PASS: {checked} case(s) agree between 1 and {args.ranks} rank(s)")
    shutil.rmtree(work)


def breakdown(args):
    work = tempfile.mkdtemp(prefix="mpi-breakdown-")
    out = os.path.join(work, f"np{args.ranks}")
    cmd = [args.miniapp, "run", args.config, "--quiet", "--kokkos-num-threads=1", "--output-dir", out]
    code, so, err = run(mpi_cmd(args, args.ranks, cmd))
    if code != 0:
        sys.exit(f"FAIL: {args.ranks}-rank run exited {code}\n{so[-2000:]}\n{err[-3000:]}")
    rows = rows_of(out)
    if not rows:
        sys.exit("FAIL: no rows")
    with open(os.path.join(out, "results.json")) as f:
        metadata = json.load(f)["metadata"]
    used = metadata.get("summa_transport")
    # Every rank's host, in rank order: here all on this one.
    if metadata.get("mpi_hosts") != [socket.gethostname()] * args.ranks:
        sys.exit(f"FAIL: mpi_hosts {metadata.get('mpi_hosts')}, not {args.ranks} x {socket.gethostname()}")
    # The driver decides the panel and transport once: the header and every SUMMA row agree.
    panels = {int(r["panel"]) for r in rows if r["panel"] not in ("", "0")}
    if panels and panels != {metadata.get("summa_panel")}:
        sys.exit(f"FAIL: panel widths {sorted(panels)} in the rows, {metadata.get('summa_panel')} "
                 "in the metadata")
    for r in rows:
        what = f"{r['family']}/{r['variant']}/{r['precision']}"
        # Empty cells (energy_window_s where no energy was measured) are not numbers.
        f = {k: float(r[k]) for k in r
             if (k.endswith("_s") or k.startswith("overlap_rank_")) and r[k] != ""}
        if r["status"] != "ok":
            sys.exit(f"FAIL: {what}: status {r['status']}: {r['message']}")
        lo, mean, hi = f["overlap_rank_min"], f["overlap_rank_mean"], f["overlap_rank_max"]
        if not 0 <= lo <= mean <= hi <= 1:
            sys.exit(f"FAIL: {what}: overlap fraction {lo} {mean} {hi} not ordered within [0, 1]")
        if not 0 <= f["exposed_rank_min_s"] <= f["exposed_rank_max_s"]:
            sys.exit(f"FAIL: {what}: exposed time {f['exposed_rank_min_s']} {f['exposed_rank_max_s']}")
        if r["transport"] not in ("host", "device_mpi", "device_ipc") or r["transport"] != used:
            sys.exit(f"FAIL: {what}: transport '{r['transport']}' (metadata: {used})")
        if f["comm_rank_max_s"] <= 0:
            sys.exit(f"FAIL: {what}: no communication recorded on {args.ranks} ranks")
        # Per rank, compute + exposed = the operation's time; time_* is the slowest rank's.
        least = f["compute_rank_min_s"] + f["exposed_rank_min_s"]
        most = f["compute_rank_max_s"] + f["exposed_rank_max_s"]
        if least > 1.5 * f["time_max_s"] or most < 0.5 * f["time_min_s"]:
            sys.exit(f"FAIL: {what}: compute + exposed per rank {least:.3g}..{most:.3g} s, "
                     f"operation {f['time_min_s']:.3g}..{f['time_max_s']:.3g} s")
        print(f"{what}: compute {f['compute_rank_mean_s']:.3g} s + exposed {f['exposed_rank_mean_s']:.3g} s "
              f"(operation {f['time_median_s']:.3g} s), comm {f['comm_rank_mean_s']:.3g} s, "
              f"overlap {lo:.2f}..{hi:.2f}: ok")
    print(f"PASS: {len(rows)} row(s) with a sane breakdown on {args.ranks} ranks")
    shutil.rmtree(work)


def expect(args):
    env = dict(os.environ)
    for kv in args.env or []:
        k, v = kv.split("=", 1)
        env[k] = v
    cmd = mpi_cmd(args, args.ranks, args.command)
    code, out, err = run(cmd, env)
    text = out + err
    if code != args.code:
        sys.exit(f"FAIL: exit code {code}, expected {args.code}\n{text[-4000:]}")
    hits = len(re.findall(args.pattern, text, re.MULTILINE))
    if hits == 0 or (args.once and hits != 1):
        sys.exit(f"FAIL: /{args.pattern}/ found {hits} time(s) in the output\n{text[-4000:]}")
    print(f"PASS: exit code {code}; /{args.pattern}/ found {hits} time(s)")
    if args.results:
        final_state(args.results)


def final_state(directory):
    """A failed run leaves results.json (when it got that far) with a final status, no temp files."""
    path = os.path.join(directory, "results.json")
    if not os.path.exists(path):
        print(f"PASS: no results.json in {directory} (the run stopped before writing one)")
        return None
    with open(path) as f:
        doc = json.load(f)
    if doc["status"] not in ("failed", "interrupted", "complete"):
        sys.exit(f"FAIL: results.json says status {doc['status']}, not a final status")
    leftovers = [f for f in os.listdir(directory) if ".tmp." in f]
    if leftovers:
        sys.exit(f"FAIL: temporary files left behind: {leftovers}")
    print(f"PASS: results.json final status {doc['status']}, no temporary files")
    return doc


def interrupt(args):
    """SIGTERM to a multi-rank sweep: the message counts exactly the rows results.json keeps."""
    if os.path.exists(args.dir):
        shutil.rmtree(args.dir)
    cmd = mpi_cmd(args, args.ranks, [args.miniapp, "run", args.config, "--quiet",
                                     "--kokkos-num-threads=1", "--output-dir", args.dir])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(os.path.join(args.dir, "results.json")) as f:
                if json.load(f)["cases_completed"] >= 2:
                    break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    if proc.poll() is not None:
        sys.exit(f"FAIL: the run ended (exit {proc.returncode}) before it could be interrupted")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=240)
    doc = final_state(args.dir)
    m = re.search(r"interrupted; (\d+) of (\d+) case\(s\) kept", err)
    if not m or doc is None or doc["status"] != "interrupted":
        sys.exit(f"FAIL: no interrupted message or status (exit {proc.returncode})\n{err[-3000:]}")
    if int(m.group(1)) != doc["cases_completed"] or len(doc["results"]) != doc["cases_completed"]:
        sys.exit(f"FAIL: the message says {m.group(1)} kept, results.json has "
                 f"{doc['cases_completed']} ({len(doc['results'])} rows)")
    print(f"PASS: interrupted on {args.ranks} ranks: {m.group(1)} of {m.group(2)} kept, as written")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mpiexec", required=True)
    sub = p.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--miniapp", required=True)
    c.add_argument("--config", required=True)
    c.add_argument("--ranks", type=int, required=True)
    c.add_argument("--set", nargs="*")
    c.add_argument("--grid", help="P,Q for the N-rank run")
    b = sub.add_parser("breakdown")
    b.add_argument("--miniapp", required=True)
    b.add_argument("--config", required=True)
    b.add_argument("--ranks", type=int, required=True)
    e = sub.add_parser("expect")
    e.add_argument("--ranks", type=int, required=True)
    e.add_argument("--code", type=int, required=True)
    e.add_argument("--pattern", required=True)
    e.add_argument("--once", action="store_true")
    e.add_argument("--env", action="append")
    e.add_argument("--results", help="run directory whose results.json must end final")
    e.add_argument("command", nargs=argparse.REMAINDER)
    i = sub.add_parser("interrupt")
    i.add_argument("--miniapp", required=True)
    i.add_argument("--config", required=True)
    i.add_argument("--ranks", type=int, required=True)
    i.add_argument("--dir", required=True)
    args = p.parse_args()
    if args.mode == "expect" and args.command and args.command[0] == "--":
        args.command = args.command[1:]
    {"compare": compare, "breakdown": breakdown, "expect": expect, "interrupt": interrupt}[
        args.mode](args)


if __name__ == "__main__":
    main()
