#!/usr/bin/env python3
"""The layers above the kernels reach no Kokkos header.

config, plan, results, compare, report, history, jobs and the commands (app/) work on names,
figures and files: a source there that includes a Kokkos header, directly or through any project
header, goes through a CUDA or HIP build's device passes (cmake/HostOnlySources.cmake sorts the
files by the same rule). Through core/backends.hpp (which dispatches a backend's name to its
execution space) fifteen such files went through nvcc; nvcc took 10-23 s over each, the host
compiler alone about 40% of that. The names are core/backend_names.hpp, the timing rule's figures
core/timing_rule.hpp. Two files need Kokkos itself, and are listed below with why.

Usage: kokkos_free_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

LAYERS = ["config", "plan", "results", "compare", "report", "history", "jobs", "app"]
NEEDS_KOKKOS = {
    "app/kokkos_launch.cpp": "starts and ends Kokkos",
    "results/metadata.cpp": "records Kokkos' configuration and concurrency in every result",
}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
KOKKOS = re.compile(r"(Kokkos|impl/Kokkos)[A-Za-z_]*\.hpp$")


def chain(path, roots, memo, seen=()):
    """The include chain from path to a Kokkos header, or None."""
    if path in memo:
        return memo[path]
    if path in seen:
        return None
    found = None
    for quote, name in INCLUDE.findall(path.read_text(errors="replace")):
        if quote == "<":
            if KOKKOS.match(name):
                found = [name]
                break
            continue
        for d in [path.parent, *roots]:
            p = d / name
            if p.exists():
                rest = chain(p, roots, memo, seen + (path,))
                if rest:
                    found = [str(p.relative_to(roots[0].parent))] + rest
                break
        if found:
            break
    memo[path] = found
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    src = root / "miniapp"
    roots = [src, root / "tests"]
    memo = {}
    bad = []
    files = sorted(p for layer in LAYERS for p in (src / layer).glob("*.cpp"))
    for path in files:
        rel = str(path.relative_to(src))
        found = chain(path, roots, memo)
        if found and rel not in NEEDS_KOKKOS:
            bad.append(f"miniapp/{rel} -> " + " -> ".join(found))
        if not found and rel in NEEDS_KOKKOS:
            bad.append(f"miniapp/{rel} is listed as needing Kokkos but reaches no Kokkos header")
    for b in bad:
        print(b)
    print(f"{len(files)} sources of {', '.join(LAYERS)} read; {len(bad)} reach Kokkos unlisted "
          "(names: core/backend_names.hpp; the timing rule: core/timing_rule.hpp)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
