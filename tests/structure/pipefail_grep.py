#!/usr/bin/env python3
"""No shell script pipes into `grep -q`.

Under `set -o pipefail` (which most of the project's scripts set, and scripts they source
inherit), `WRITER | grep -q PATTERN` fails when grep, leaving at its first match, ends the writer
with SIGPIPE: the pipeline reports a miss where there was a match. Which happens depends on how much
the writer has left to write and on scheduling (the cluster test looked for a rank by its
environment so: `tr ... /proc/PID/environ | grep -qx SLURM_PROCID=1`). Write
`grep -q PATTERN < <(WRITER)` instead (the status is grep's alone), or `grep -q PATTERN FILE`.

Scans every *.sh and .ci/run (their code, not comments) under the source directory, build
directories left out. Usage: pipefail_grep.py SOURCE_DIR
"""
import pathlib
import re
import sys

from family_names import shell_code  # (this folder: the script's own is on sys.path)

PIPE_INTO_QUIET_GREP = re.compile(r"(?<!\|)\|(?!\|)\s*grep\s+(-[A-Za-z]*q[A-Za-z]*\b|--quiet\b|--silent\b)")


def main():
    root = pathlib.Path(sys.argv[1])
    files = [p for p in root.rglob("*.sh") if "build" not in p.relative_to(root).parts]
    files.append(root / ".ci" / "run")
    bad = []
    for path in sorted(files):
        text = path.read_text(errors="replace")
        for n, (line, code) in enumerate(zip(text.splitlines(), shell_code(text).split("\n")), 1):
            if PIPE_INTO_QUIET_GREP.search(code):
                bad.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    for b in bad:
        print(b)
    print(f"{len(files)} scripts read, {len(bad)} pipe(s) into grep -q "
          "(write `grep -q PATTERN < <(WRITER)`)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
