#!/usr/bin/env python3
"""The case ids of every shipped config stay what earlier runs recorded.

Case ids are keys: results files, the autotune cache and the history database join runs on them,
so a change to how an id is written splits old runs from new ones. This test expands every config
under configs/, tests/e2e_configs/, tests/gpu/ and tests/structure/ (id_pieces.yaml: every
piece an id can have) with `miniapp validate` and compares each id with the list
pinned in tests/structure/case_ids.txt.

Usage: case_ids.py MINIAPP SOURCE_DIR [--write]   (--write regenerates the pinned list)
"""
import pathlib
import re
import subprocess
import sys


def expanded_ids(miniapp, source):
    lines = []
    # configs/studies/ holds study files (miniapp study plan), not experiment configs
    configs = sorted(p for p in (source / "configs").rglob("*.yaml")
                     if "studies" not in p.relative_to(source / "configs").parts)
    for folder in ("e2e_configs", "gpu", "structure"):
        configs += sorted((source / "tests" / folder).glob("*.yaml"))
    for cfg in configs:
        out = subprocess.run([miniapp, "validate", str(cfg)], capture_output=True, text=True,
                             timeout=120, env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        rel = cfg.relative_to(source).as_posix()
        if out.returncode != 0:
            lines.append(f"{rel}: exit {out.returncode}")
            continue
        for line in out.stdout.splitlines():
            m = re.match(r"\s+\[\d+\] (.*)$", line)
            # the plan's id lines; validate's per-case time estimates follow as "[N] estimated ..."
            if m and not m.group(1).startswith("estimated "):
                lines.append(f"{rel}: {m.group(1)}")
    return lines


def main():
    miniapp, source = sys.argv[1], pathlib.Path(sys.argv[2])
    pinned_file = source / "tests" / "structure" / "case_ids.txt"
    got = expanded_ids(miniapp, source)
    if len(sys.argv) > 3 and sys.argv[3] == "--write":
        pinned_file.write_text("\n".join(got) + "\n")
        return 0
    pinned = pinned_file.read_text().splitlines()
    if len(got) < 20:
        print(f"only {len(got)} ids expanded: the configs were not found or did not expand")
        return 1
    if got != pinned:
        missing = [x for x in pinned if x not in got]
        new = [x for x in got if x not in pinned]
        print("case ids changed (ids are keys of results, the autotune cache and the history):")
        for x in missing[:20]:
            print("  pinned, now missing:", x)
        for x in new[:20]:
            print("  new:", x)
        if not missing and not new:
            print("  same ids in another order")
        return 1
    print(f"{len(got)} case ids as pinned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
