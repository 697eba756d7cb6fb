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
    # a byte 0x80-0x9f that is not UTF-8 (decoded as U+DC80-U+DC9F) is a C1 control to an 8-bit
    # terminal: 0x9b is CSI
    bad = sorted({hex(ord(ch)) for ch in text
                  if (ord(ch) < 0x20 and ch != "\n") or 0x7f <= ord(ch) <= 0x9f
                  or 0xdc80 <= ord(ch) <= 0xdc9f})
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
    hostile_messages(runs)
    print("ok")


def hostile_messages(runs):
    """What a file holds reaches the terminal as text in error messages and summaries too."""
    # Another program's database whose table name is an escape sequence: refused, shown as text.
    foreign = os.path.join(WORK, "foreign.db")
    import sqlite3
    con = sqlite3.connect(foreign)
    con.execute('CREATE TABLE "\x1b]0;owned\x07\x1b[2J" (x)')
    con.commit()
    con.close()
    for args in (["history", "--db", foreign], ["compare", "--db", foreign, "--select", "run=*"],
                 ["db", "import", "--db", foreign, runs[0]]):
        code, out, err = run(args)
        if code != 2 or "another program's tables" not in err:
            fail(" ".join(args[:2]) + " of another program's database exits 2", code, out, err)
        no_controls(" ".join(args[:2]) + " of a hostile table name", out + err)
    # A results.json that is not JSON, its bad token an 8-bit CSI and an escape sequence.
    bad = os.path.join(WORK, "bad-token.json")
    with open(bad, "wb") as f:
        f.write(b'{"results": ["\x9b31m\x1b[2J\xff"]}')
    for args in (["compare", bad, runs[0]], ["report", bad, "-o", os.path.join(WORK, "rep")],
                 ["db", "import", "--db", os.path.join(WORK, "bad.db"), bad]):
        code, out, err = run(args)
        if code != 2 or "not valid JSON" not in err:
            fail(" ".join(args[:2]) + " of a file that is not JSON exits 2", code, out, err)
        no_controls(" ".join(args[:2]) + " quoting a bad token", out + err)
    # A directory of runs whose names hold escape sequences: db import names each run.
    parent = os.path.join(WORK, "runs-of-a-sweep")
    os.makedirs(parent)
    shutil.copytree(runs[0], os.path.join(parent, "run-\x1b]0;owned\x07"))
    code, out, err = run(["db", "import", "--db", os.path.join(WORK, "sweep.db"), parent])
    if code != 0 or "run-\\x1b]0;owned\\x07" not in out:
        fail("db import of a directory of runs exits 0 naming each as text", code, out, err)
    no_controls("db import of a run directory with an escape sequence in its name", out + err)


if __name__ == "__main__":
    main()
