#!/usr/bin/env python3
"""One shard of a GoogleTest program, for the sanitizer job (ctest unit.<program>.<i>of<n>).

Usage: gtest_shard.py PROGRAM INDEX COUNT [--skip-param PREFIX]

The README's suite runs each test in a process of its own (gtest_discover_tests). Under
AddressSanitizer a process start costs about a second (the instrumented start-up, Kokkos'
initialisation, LeakSanitizer's walk at exit), and the 523 unit tests took 700 s one a
process; as six shards they took 490 s, at a higher load (5-6 on 2 cores). Here each program runs
as COUNT processes instead: the program's tests in the order it lists them, every COUNT-th one
from INDEX (0-based), each test in exactly one shard, all of them under the sanitizers as before.

--skip-param PREFIX leaves out the instances of parameterised tests whose value starts with
PREFIX, as the sanitizer preset's name filter does for one test a process (the Serial instances:
docs/testing.md says why nothing instrumented is lost). Exit status: the program's, or 1 when the
shard has no test or the program ran another number of tests than chosen (a shard that ran less
than its share must not pass).
"""
import argparse
import re
import subprocess
import sys


def listed_tests(program):
    """(full name, parameter value or None) for every test the program lists."""
    out = subprocess.run([program, "--gtest_list_tests"], capture_output=True, text=True,
                         check=True).stdout
    tests, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
            continue
        m = re.match(r"\s+(\S+)(?:\s+#\s+GetParam\(\) = (.*))?$", line)
        if m and suite:
            tests.append((suite + m.group(1), m.group(2)))
    return tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("program")
    ap.add_argument("index", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--skip-param", action="append", default=[])
    a = ap.parse_args()
    if not 0 <= a.index < a.count:
        sys.exit(f"gtest_shard.py: shard {a.index} of {a.count} does not exist")

    def skipped(param):
        value = (param or "").lstrip('(').lstrip('"')
        return any(value.startswith(p) for p in a.skip_param)

    names = [name for name, param in listed_tests(a.program) if not skipped(param)]
    mine = names[a.index::a.count]
    if not mine:
        sys.exit(f"gtest_shard.py: {a.program} lists no test for shard {a.index} of {a.count}")
    print(f"shard {a.index + 1} of {a.count}: {len(mine)} of {len(names)} tests", flush=True)
    # The names go in a filter, not in GTEST_SHARD_INDEX, so that the Serial instances stay out.
    p = subprocess.run([a.program, "--gtest_filter=" + ":".join(mine)], stdout=subprocess.PIPE,
                       text=True, errors="replace")
    sys.stdout.write(p.stdout)
    ran = re.search(r"^\[=+\] (\d+) tests? from .* ran\.", p.stdout, re.M)
    if p.returncode == 0 and (not ran or int(ran.group(1)) != len(mine)):
        sys.exit(f"gtest_shard.py: {len(mine)} tests chosen, but the program ran "
                 f"{ran.group(1) if ran else 'no'} tests")
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()
