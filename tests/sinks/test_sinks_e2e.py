#!/usr/bin/python3
"""Hostile labels and device names reach no terminal or spreadsheet raw (core/sinks.hpp).

Two shipped runs are copied with a device name and host name holding terminal escape sequences
(ESC, BEL, a C1 CSI) and spreadsheet formulas; `compare` (markdown and CSV), `db import` and
`history` (table and CSV) must print no control byte but the newline, and every CSV cell that
starts with = + - @ must be a number (or a lone - or +). Run by ctest with MINIAPP, MINIAPP_SOURCE_DIR and
MINIAPP_WORK in the environment.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

MINIAPP = os.environ["MINIAPP"]
SRC = os.environ["MINIAPP_SOURCE_DIR"]
WORK = os.environ["MINIAPP_WORK"]

DEVICE = '\x1b]0;owned\x07\x1b[2J=HYPERLINK("http://evil.example","x")\u009b31m'
HOST = '@SUM(1+1)\x1b[31m\x08\x7f'
LABEL_CELL = '=HYPERLINK("http://evil.example","y")\x1b[5m'


def fail(what, *outputs):
    sys.exit("FAILED: " + what + "\n" + "\n---\n".join(repr(o) for o in outputs))


def run(args):
    p = subprocess.run([MINIAPP] + args, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape"), \
        p.stderr.decode("utf-8", "surrogateescape")


def no_controls(what, text):
    bad = sorted({hex(ord(ch)) for ch in text
                  if (ord(ch) < 0x20 and ch != "\n") or 0x7f <= ord(ch) <= 0x9f})
    if bad:
        fail(what + " printed control characters " + ", ".join(bad), text)


def no_formulas(what, text):
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    for cell in cells:
        if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and cell not in ("-", "+"):
            try:
                float(cell)
            except ValueError:
                fail(what + ": a text cell starts a formula: " + repr(cell), text)
    return cells


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    runs = []
    for name in ("paper_table1-openmp", "paper_table1-serial"):
        d = os.path.join(WORK, name)
        shutil.copytree(os.path.join(SRC, "docs", "data", name), d)
        os.remove(os.path.join(d, "results.csv"))
        path = os.path.join(d, "results.json")
        with open(path) as f:
            doc = json.load(f)
        doc["metadata"]["device_name"] = DEVICE
        doc["metadata"]["host_name"] = HOST
        doc["metadata"]["run_id"] = name + "-\x1b[1mhostile"
        doc["metadata"]["label"] = LABEL_CELL
        with open(path, "w") as f:
            json.dump(doc, f)
        runs.append(d)

    code, out, err = run(["compare"] + runs)
    if code != 0:
        fail("compare exits 0", code, out, err)
    no_controls("compare", out + err)
    if "\\x1b]0;owned\\x07" not in out:
        fail("compare shows the escape sequence as text", out)

    code, out, err = run(["compare", "--format", "csv"] + runs)
    if code != 0:
        fail("compare --format csv exits 0", code, out, err)
    no_controls("compare --format csv", out + err)
    cells = no_formulas("compare --format csv", out)
    if not any(c.startswith("'@SUM(1+1)") for c in cells):
        fail("compare --format csv keeps the host as a text cell", out)

    db = os.path.join(WORK, "history.db")
    code, out, err = run(["db", "import", "--db", db] + runs)
    if code != 0:
        fail("db import exits 0", code, out, err)
    no_controls("db import", out + err)
    for fmt in ("table", "csv"):
        code, out, err = run(["history", "--db", db, "--case", "axpby/*"] +
                             (["--format", "csv"] if fmt == "csv" else []))
        if code != 0:
            fail("history (%s) exits 0" % fmt, code, out, err)
        no_controls("history (%s)" % fmt, out + err)
        if fmt == "csv":
            cells = no_formulas("history --format csv", out)
            if not any(c.startswith("'") for c in cells):
                fail("history --format csv neutralised a formula cell", out)
        elif '=HYPERLINK("http://evil.example","y")\\x1b[5m' not in out:
            fail("history shows the hostile label as text", out)
    print("ok")


if __name__ == "__main__":
    main()
