#!/usr/bin/python3
"""Differential test of the JSON Schemas against the loaders (ctest config.schema.differential):
the same mutated configs and study files go to the schema, through an independent validator
(Debian's python3-jsonschema, as test_schema.py reads YAML: the 1.2 core schema), and to the
loader (`miniapp validate` for configs, `miniapp study plan` for study files); any disagreement
fails, except those of KNOWN, where what a schema cannot express decides. Every KNOWN entry must
still be met (a rule that no mutant meets any more is stale and fails too).

Mutants: every key of the shipped files (configs/*.yaml, configs/examples/ and tests/e2e_configs/
for configs, configs/studies/ for studies; a key once, in the first file that has it), its value replaced by
each of REPLACEMENTS (other types, integral floats, bounds of 64-bit integers, empty and odd text),
then the key removed; and one unknown key added. The mutants are the same on every run.

Run as: schema_differential.py config|study, with MINIAPP and MINIAPP_SOURCE_DIR in the
environment.
"""
import copy
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

import test_schema as ts

REPLACEMENTS = [123, -1, 0, 16.0, 0.5, 2**63, 2**64, 1e300, True, None, "text", "", "16",
                [], [1], {}, {"x": 1}]

# Rules that hang on the host (its estimates): not every host meets them, so they are never stale.
HOST = "(on some hosts) "

# (kind, rule, why): mutants on which the schema and the loader may disagree, and why. A rule is
# a function of (path of keys, replacement value, loader's refusal text) -> bool.
KNOWN = [
    ("config", lambda path, value, err: isinstance(value, float) and value.is_integer() and
     abs(value) < 2**63 and "must be an integer" in err,
     "an integer written as a float (16.0): JSON Schema (draft 7) counts 16.0 as an integer, the "
     "loader wants the integer written as one"),
    ("config", lambda path, value, err: "precision" in err and path[-1] in ("alpha", "beta"),
     "a value against the case's precision"),
    ("config", lambda path, value, err: "must be a list of" in err or "must hold" in err or
     "needs matrix" in err,
     "explicit matrices against the case's sizes (their rows and values, and that init explicit "
     "has them)"),
    ("config", lambda path, value, err: "but the zip's first list has" in err,
     "the lengths of a zip's lists against each other"),
    ("study", lambda path, value, err: isinstance(value, float) and value.is_integer() and
     abs(value) < 2**63 and "integer" in err,
     "an integer written as a float (1.0): JSON Schema (draft 7) counts it as an integer, the "
     "loader wants the integer written as one"),
    ("study", lambda path, value, err: "is below the estimated" in err,
     HOST + "a point's time limit against its estimate from this host's earlier runs"),
    ("study", lambda path, value, err: path and path[0] == "config" and "config" in err,
     "the study's config file: the loader reads it, the schema sees a path"),
]


def leaves(doc, path=()):
    """Every path to a value (maps and lists included), depth first."""
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, path + (i,))


def replaced(doc, path, value):
    out = copy.deepcopy(doc)
    node = out
    for k in path[:-1]:
        node = node[k]
    if value is DELETE:
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            node.pop(path[-1])
    else:
        node[path[-1]] = value
    return out


DELETE = object()


def signature(path):
    """A path with its list positions left out: cases.0.n and cases.3.n are one key."""
    return tuple(k for k in path if not isinstance(k, int))


def mutants(doc, seen):
    """Each key's mutants once across the files (the first file that has the key gives them)."""
    for path in leaves(doc):
        if not path or signature(path) in seen:
            continue
        seen.add(signature(path))
        for value in REPLACEMENTS:
            yield path, value, replaced(doc, path, value)
        yield path, "(removed)", replaced(doc, path, DELETE)
    if ("unknown_key",) not in seen:
        seen.add(("unknown_key",))
        extra = copy.deepcopy(doc)
        extra["unknown_key"] = 1
        yield ("unknown_key",), 1, extra


def bases(kind):
    if kind == "config":  # (the test configs add keys no shipped config has, as seed)
        return ts.shipped_configs() + sorted(glob.glob(os.path.join(ts.SRC, "tests",
                                                                    "e2e_configs", "*.yaml")))
    return sorted(glob.glob(os.path.join(ts.SRC, "configs", "studies", "*.yaml")))


def loader(kind, path):
    args = ["validate", path] if kind == "config" else ["study", "plan", path]
    p = subprocess.run([ts.MINIAPP] + args, capture_output=True, text=True, timeout=120)
    ts.expect(p.returncode in (0, 2), "miniapp " + " ".join(args) + " exits 0 or 2 (" +
              str(p.returncode) + ")", p.stderr[-2000:])
    return p.returncode == 0, p.stderr.strip()


def main():
    kind = sys.argv[1]
    v = ts.validator(kind)
    work = tempfile.mkdtemp()
    met, seen = set(), set()
    disagree = []
    count = 0
    try:
        for base in bases(kind):
            with open(base) as f:
                doc = yaml.load(f, Loader=ts.Yaml12Loader)
            if kind == "study":  # the study's config, wherever the mutant is written
                doc["config"] = os.path.normpath(os.path.join(os.path.dirname(base),
                                                              doc["config"]))
            for path, value, mutant in mutants(doc, seen):
                text = yaml.safe_dump(mutant, sort_keys=False, allow_unicode=True)
                target = os.path.join(work, "mutant.yaml")
                with open(target, "w") as f:
                    f.write(text)
                errors = ts.schema_errors(v, text)
                accepted, err = loader(kind, target)
                count += 1
                if accepted != bool(errors):
                    continue
                known = [i for i, (k, rule, _) in enumerate(KNOWN)
                         if k == kind and not accepted and rule(path, value, err)]
                if known:
                    met.update(known)
                    continue
                disagree.append("%s with %s = %r: loader %s, schema %s" % (
                    os.path.basename(base), ".".join(map(str, path)), value,
                    "accepts" if accepted else "refuses (" + err[-300:] + ")",
                    "refuses " + str(errors[:2]) if errors else "accepts"))
    finally:
        shutil.rmtree(work)
    stale = [why for i, (k, _, why) in enumerate(KNOWN)
             if k == kind and i not in met and not why.startswith(HOST)]
    ts.expect(not disagree, "the %s schema and its loader agree on %d mutants (%d disagree)" %
              (kind, count, len(disagree)), *disagree[:40])
    ts.expect(not stale, "every known disagreement is still met (remove the stale ones)", *stale)
    print("PASS: %d %s mutants, the schema and the loader agree on each (known: %d rules met)" %
          (count, kind, len(met)))


if __name__ == "__main__":
    main()
