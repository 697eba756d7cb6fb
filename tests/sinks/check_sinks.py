#!/usr/bin/python3
"""No writer bypasses the sanitisers of core/sinks.hpp (one function per sink).

Fails when a source file of miniapp/ other than core/sinks.* quotes a shell word by hand ('\\''),
keeps its own list of plain shell characters, escapes CSV on its own, or writes a text table or
CSV that mentions a label, device, host or other metadata without the sink's function: the
writers named below must call for_terminal / for_csv_cell, and the commands that read results
files and databases print no exception text or message raw. Usage: check_sinks.py SOURCE_DIR
"""
import os
import re
import sys

src = os.path.join(sys.argv[1], "miniapp")
SINKS = {os.path.join("core", "sinks.cpp"), os.path.join("core", "sinks.hpp")}
# Each rule: a pattern nothing but core/sinks.cpp may contain, and why.
RULES = [
    (re.compile(r"'\\\\''"), "quotes a shell word by hand: use shell_quote or shell_word"),
    (re.compile(r"_\./=:%,\+-@"), "keeps its own list of plain shell characters: use shell_word"),
    (re.compile(r'"\\"\\""'), "escapes CSV by hand: use csv_escape or for_csv_cell"),
]
# The writers of each sink, and what each must call. results.csv (results_writer.cpp) is a data
# file the program reads back: csv_escape there, the cells as they are.
WRITERS = {
    os.path.join("compare", "tables.cpp"): ["for_terminal(", "for_csv_cell"],
    os.path.join("results", "console.cpp"): ["for_terminal("],
    os.path.join("app", "cmd_history.cpp"): ["for_terminal(", "for_csv_cell("],
    os.path.join("app", "cmd_compare.cpp"): ["for_terminal("],
    os.path.join("app", "cmd_db.cpp"): ["for_terminal("],
    os.path.join("app", "cmd_report.cpp"): ["for_terminal("],
    os.path.join("report", "html_report.cpp"): ["shell_word("],
    os.path.join("jobs", "jobscript.cpp"): ["shell_quote(", "comment_text("],
    "main.cpp": ["shell_word("],
}
# Commands whose messages may quote what a file holds (a label, a table name of another program's
# database, a JSON parser's last token, the plot script's complaint): an exception's text or a
# message goes to the terminal only through for_terminal.
TERMINAL_MESSAGES = [os.path.join("app", name) for name in
                     ("cmd_compare.cpp", "cmd_history.cpp", "cmd_db.cpp", "cmd_report.cpp",
                      "run_command.cpp")]
RAW_MESSAGE = re.compile(r"<<\s*(e\.what\(\)|message\b|why\b|[\w.]*plots_note\b|r\.source\b)")
CSV_DATA_FILES = {os.path.join("results", "results_writer.cpp"),
                  os.path.join("results", "results_writer.hpp")}

problems = []
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith((".cpp", ".hpp", ".in")):
            continue
        path = os.path.join(root, name)
        rel = os.path.relpath(path, src)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if rel in SINKS:
            continue
        for pattern, why in RULES:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append("miniapp/%s:%d: %s" % (rel, line, why))
        if "csv_escape(" in text and rel not in CSV_DATA_FILES:
            line = text.count("\n", 0, text.index("csv_escape(")) + 1
            problems.append("miniapp/%s:%d: csv_escape is for results.csv only: a CSV for "
                            "spreadsheets writes its cells through for_csv_cell" % (rel, line))
for rel, calls in WRITERS.items():
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        text = f.read()
    for call in calls:
        if call not in text:
            problems.append("miniapp/%s: writes a sink without %s (core/sinks.hpp)" % (rel, call))
for rel in TERMINAL_MESSAGES:
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        text = f.read()
    for m in RAW_MESSAGE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        problems.append("miniapp/%s:%d: writes %s to the terminal without for_terminal"
                        % (rel, line, m.group(1)))
if problems:
    sys.exit("FAILED: writers that bypass core/sinks.hpp:\n  " + "\n  ".join(problems))
print("ok: every writer goes through core/sinks.hpp")
