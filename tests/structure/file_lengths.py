#!/usr/bin/env python3
"""No source file in miniapp/ is longer than 450 lines.

A file past that size has come to hold more than one job (docs/architecture.md, "Small files"):
split it along its seams, one file per job, rather than raise the limit. Files the build
generates live in the build tree, so every file under miniapp/ counts; a file that says it is
generated in its first lines ("generated", "do not edit") would be left out.

Usage: file_lengths.py SOURCE_DIR [LIMIT]
"""
import pathlib
import sys

DEFAULT_LIMIT = 450


def generated(lines):
    head = "\n".join(lines[:5]).lower()
    return "this file is generated" in head or "do not edit" in head


def too_long(source_dir, limit):
    out = []
    for path in sorted(pathlib.Path(source_dir, "miniapp").rglob("*")):
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if len(lines) > limit and not generated(lines):
            out.append((path.relative_to(source_dir).as_posix(), len(lines)))
    return out


def main():
    source_dir = pathlib.Path(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_LIMIT
    counted = sum(1 for p in pathlib.Path(source_dir, "miniapp").rglob("*") if p.is_file())
    if counted == 0:
        print(f"no files under {source_dir}/miniapp: wrong source directory")
        return 1
    long_files = too_long(source_dir, limit)
    for name, n in long_files:
        print(f"{name}: {n} lines, more than {limit}: split it along its seams (one file per job)")
    if long_files:
        return 1
    print(f"{counted} files under miniapp/, none over {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
