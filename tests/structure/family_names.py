#!/usr/bin/env python3
"""Only kernels/ names a family: no layer above it and no script names a family or a variant.

What a family is lives in the family table (miniapp/kernels/families.cpp); every layer above asks
it. This test takes the family and variant names from `miniapp list --names` (so a new family is
covered without editing the test) and fails where, outside comments,
  - a family name appears as a word (code or text), or
  - a string literal is exactly a variant name ("vendor", 'flat'),
in the C++ of the layers above kernels/ (miniapp/{config,plan,parallel,run,jobs,results,compare,
history,report,app}, miniapp/main.cpp, miniapp/bench) and of core/ below it, or in scripts/
(its folders too: scripts/device/).

Usage: family_names.py MINIAPP SOURCE_DIR
"""
import io
import pathlib
import re
import subprocess
import sys
import tokenize

LAYERS = [
    "core", "config", "plan", "parallel", "run", "jobs", "results", "compare", "history", "report",
    "app", "bench"
]
# Files of scripts/ left out of the scan: none. The device scripts (scripts/device/) select what
# they benchmark by configs (miniapp-bench --miniapp-config tests/gpu/*.yaml) and run output by
# patterns that match any case row.
KNOWN_EXCEPTIONS = set()


def names(miniapp, what):
    out = subprocess.run([miniapp, "list", what, "--names"], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    return sorted(set(out))


def cpp_code(text):
    """The text with // and /* */ comments blanked (string, char and raw literals kept, the
    latter without their SQL -- comments: the history database's schema)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"--[^\n]*", "", text[i:end]))  # SQL comments in a raw string
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def python_code(text):
    """The source without comments and docstrings (string statements), one token a line."""
    out, previous = [], tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            continue
        if tok.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT,
                                                         tokenize.DEDENT, tokenize.NL):
            continue  # a docstring
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            previous = tok.type
        out.append(tok.string)
    return "\n".join(out)


def shell_code(text):
    """Lines without their comments (a # at a word start outside quotes)."""
    lines = []
    for line in text.splitlines():
        quote, cut = None, len(line)
        for i, c in enumerate(line):
            if quote:
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (i == 0 or line[i - 1] in " \t;"):
                cut = i
                break
        lines.append(line[:cut])
    return "\n".join(lines)


def code_of(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".py":
        return python_code(text)
    if path.suffix in (".sh", ".bash") or text.startswith("#!") and "sh" in text.split("\n")[0]:
        return shell_code(text)
    return cpp_code(text)


def findings(code, families, variants):
    found = set()
    for f in families:
        if re.search(r"(?<![A-Za-z0-9_])" + re.escape(f) + r"(?![A-Za-z0-9_])", code):
            found.add(f)
    for v in variants:
        if re.search(r"([\"'])" + re.escape(v) + r"\1", code):
            found.add(f'"{v}"')
    return sorted(found)


def main():
    miniapp, source = sys.argv[1], pathlib.Path(sys.argv[2])
    families, variants = names(miniapp, "families"), names(miniapp, "variants")
    if len(families) < 2 or len(variants) < 2:
        print(f"miniapp list gave too few names: {families} {variants}")
        return 1
    # The scan must see the names where they belong, or it would pass by seeing nothing.
    table = findings(code_of(source / "miniapp/kernels/families.cpp"), families, variants)
    if not all(f in table for f in families):
        print(f"the scan does not find the families in kernels/families.cpp: {table}")
        return 1
    files = [source / "miniapp/main.cpp"]
    for layer in LAYERS:
        files += sorted(p for p in (source / "miniapp" / layer).rglob("*")
                        if p.suffix in (".cpp", ".hpp", ".h", ".in"))
    files += sorted(p for p in (source / "scripts").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts
                    and p.relative_to(source).as_posix() not in KNOWN_EXCEPTIONS)
    bad = 0
    for path in files:
        hits = findings(code_of(path), families, variants)
        if hits:
            bad += 1
            print(f"{path.relative_to(source)}: names {', '.join(hits)} outside comments "
                  "(ask the family table: miniapp/kernels/families.hpp)")
    if bad:
        return 1
    print(f"{len(files)} files above kernels/ and in scripts/ name no family or variant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
