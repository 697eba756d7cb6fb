#!/usr/bin/python3
"""The JSON Schemas of the YAML files miniapp reads (`miniapp schema config|study|profile|
references`), checked with an independent validator (Debian's python3-jsonschema) as an editor's
YAML language server would use them:

  committed   every schemas/KIND.schema.json is exactly what `miniapp schema KIND` prints
  shipped     every config under configs/ carries the language server's modeline, pointing at
              that file, and is valid against the schema
  mistakes    the schema refuses each of five typical mistakes, one at a time and all together
  agreement   for every shipped and test config (configs/, tests/e2e_configs, tests/bad_configs),
              the schema and `miniapp validate` accept or refuse alike, but for the files listed
              in BEYOND_SCHEMA (what a schema cannot see), which must still be refused by the
              loader and accepted by the schema (so the list cannot go stale)
  studies     the shipped study files against the study schema and `miniapp study plan`
  profiles    the shipped system profiles, typical mistakes and test profiles against the profile
              schema and the loader (`miniapp jobscript`)
  references  the references files of the tests, typical mistakes and the bad references corpus
              against the references schema and the loader (`miniapp compare --references`)

Run by ctest (label config) as: test_schema.py TEST_NAME, with MINIAPP and MINIAPP_SOURCE_DIR in
the environment.
"""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import yaml

MINIAPP = os.environ["MINIAPP"]
SRC = os.environ["MINIAPP_SOURCE_DIR"]
SCHEMA_FILE = os.path.join(SRC, "schemas", "config.schema.json")
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.M)

# Test configs the loader refuses for reasons no JSON Schema of one file can express.
BEYOND_SCHEMA = {
    "alpha_float32_overflow.yaml": "a value against the case's precision",
    "alpha_int32_overflow.yaml": "a value against the case's precision",
    "beta_sum_float32_overflow.yaml": "values together against the precision",
    "duplicate_case_key.yaml": "duplicate keys (YAML readers keep the last)",
    "duplicate_flow_key.yaml": "duplicate keys (YAML readers keep the last)",
    "duplicate_top_key.yaml": "duplicate keys (YAML readers keep the last)",
    "explicit_matrix_shape.yaml": "a matrix's shape against the sizes",
    "explicit_value_float32_overflow.yaml": "a value against the case's precision",
    "grid_product_wraps_to_one.yaml": "the process grid against the ranks",
    "hex_integer.yaml": "how an integer is written (YAML reads 0x10 as 16)",
    "octal_integer.yaml": "how an integer is written (YAML 1.2 reads 0o17 as 15)",
    "key_tag.yaml": "explicit YAML tags, which readers apply",
    "nan_float.yaml": "NaN (no JSON Schema keyword refuses it)",
    "size_bytes_overflow.yaml": "the bytes of a case (sizes together)",
    "size_exceeds_memory.yaml": "the device's memory",
    "sweep_too_many_cases.yaml": "the product of a case's lists",
    "zip_length_mismatch.yaml": "the lengths of a zip's lists against each other",
    "leading_zero.yaml": "how an integer is written (YAML 1.2 reads 010 as 10)",
}


class Yaml12Loader(yaml.SafeLoader):
    """YAML 1.2 core schema scalars, as the YAML language server reads them (PyYAML reads YAML
    1.1, where yes/no/on/off are booleans and 010 is octal)."""


Yaml12Loader.yaml_implicit_resolvers = {
    k: [r for r in v if r[0] not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                                     "tag:yaml.org,2002:float")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                                   re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                   list("tTfF"))
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:int",
                                   re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
                                   list("-+0123456789"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def construct_int(loader, node):
    text = loader.construct_scalar(node)
    return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", construct_int)


def expect(cond, what, *details):
    if not cond:
        sys.exit("FAILED: " + what + "\n" + "\n---\n".join(str(d) for d in details))


def schema_text(kind="config"):
    p = subprocess.run([MINIAPP, "schema", kind], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "miniapp schema " + kind + " exits 0", p.stderr)
    return p.stdout


def validator(kind="config"):
    schema = json.loads(schema_text(kind))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


# Values once every alias is expanded, as the loader bounds them (config/limits.hpp): a validator
# walks the expanded document, so an alias bomb or an alias inside itself never ends otherwise.
MAX_EXPANDED_NODES = 1000000


def too_large(node):
    stack, seen = [node], 0
    while stack:
        n = stack.pop()
        seen += 1
        if seen > MAX_EXPANDED_NODES:
            return True
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                stack += [k, v]
        elif isinstance(n, yaml.SequenceNode):
            stack += n.value
    return False


def schema_errors(v, text):
    """The schema's errors for a YAML text; a text no YAML reader takes is one error."""
    try:
        node = yaml.compose(text, Loader=Yaml12Loader)
        if node is not None and too_large(node):
            return ["over %d values once aliases are expanded" % MAX_EXPANDED_NODES]
        doc = yaml.load(text, Loader=Yaml12Loader)
    except (yaml.YAMLError, ValueError) as e:  # ValueError: an integer of 100000 digits
        return ["YAML: " + str(e).splitlines()[0]]
    return [e.message for e in v.iter_errors(doc)]


def shipped_configs():
    files = sorted(glob.glob(os.path.join(SRC, "configs", "**", "*.yaml"), recursive=True))
    # configs/studies/ holds study files (miniapp study plan), which `miniapp schema config` does
    # not describe
    files = [f for f in files if os.sep + "studies" + os.sep not in f]
    expect(len(files) >= 10, "configs/ holds the shipped configs", files)
    return files


SCHEMA_KINDS = ("config", "study", "profile", "references")


def test_committed():
    committed = sorted(os.path.basename(f) for f in glob.glob(os.path.join(SRC, "schemas", "*")))
    expect(committed == sorted(k + ".schema.json" for k in SCHEMA_KINDS),
           "schemas/ holds one committed schema per kind of `miniapp schema`", committed)
    for kind in SCHEMA_KINDS:
        with open(os.path.join(SRC, "schemas", kind + ".schema.json")) as f:
            text = f.read()
        expect(text == schema_text(kind),
               "schemas/%s.schema.json equals `miniapp schema %s` (regenerate it with `miniapp "
               "schema %s > schemas/%s.schema.json`)" % (kind, kind, kind, kind))


def test_shipped():
    v = validator()
    for path in shipped_configs():
        with open(path) as f:
            text = f.read()
        m = MODELINE.search(text)
        expect(m, path + " carries '# yaml-language-server: $schema=...'")
        target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        expect(target == os.path.normpath(SCHEMA_FILE),
               path + "'s modeline points at schemas/config.schema.json", m.group(1))
        errors = schema_errors(v, text)
        expect(not errors, path + " is valid against the schema", *errors)


GOOD = {"name": "mistakes", "cases": [{"family": "matmul", "variant": "tiled", "n": 512,
                                       "precision": "float32", "tile": 16}]}


def mistakes():
    def typo(d):  # precison
        d["cases"][0]["precison"] = d["cases"][0].pop("precision")

    def spaced_name(d):
        d["name"] = "my run"

    def plural_key(d):  # variants
        d["cases"][0]["variants"] = d["cases"][0].pop("variant")

    def quoted_size(d):
        d["cases"][0]["n"] = "512"

    def tile_too_wide(d):  # matmul tiled takes 2 to 32
        d["cases"][0]["tile"] = 64

    return [typo, spaced_name, plural_key, quoted_size, tile_too_wide]


def test_mistakes():
    v = validator()
    expect(not list(v.iter_errors(GOOD)), "the starting config is valid",
           *[e.message for e in v.iter_errors(GOOD)])
    everything = copy.deepcopy(GOOD)
    for mistake in mistakes():
        d = copy.deepcopy(GOOD)
        mistake(d)
        mistake(everything)
        expect(list(v.iter_errors(d)), "the schema refuses " + mistake.__name__, d)
        # The loader refuses it too (as YAML: what a user would have written).
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(yaml.safe_dump(d))
            f.flush()
            accepted, stderr = loader_accepts(f.name)
        expect(not accepted, "miniapp validate refuses " + mistake.__name__, stderr)
    errors = " | ".join(e.message for e in v.iter_errors(everything))
    for mark in ("'precison'", "'variants'", "'512'", "64 ", "'my run'"):
        expect(mark in errors, "the schema reports every mistake of one file: " + mark, errors)


def loader_accepts(path):
    p = subprocess.run([MINIAPP, "validate", path], capture_output=True, text=True, timeout=120)
    expect(p.returncode in (0, 2), "miniapp validate " + path + " exits 0 or 2", p.stderr)
    return p.returncode == 0, p.stderr


def test_agreement():
    v = validator()
    files = shipped_configs()
    for d in ("e2e_configs", "bad_configs"):
        files += sorted(glob.glob(os.path.join(SRC, "tests", d, "*.yaml")))
    disagree = []
    for path in files:
        with open(path, "rb") as f:
            raw = f.read()
        try:
            errors = schema_errors(v, raw.decode("utf-8"))
        except UnicodeDecodeError:
            errors = ["not UTF-8"]
        accepted, stderr = loader_accepts(path)
        name = os.path.basename(path)
        beyond = "bad_configs" in path and name in BEYOND_SCHEMA
        if beyond:
            if accepted or errors:
                disagree.append("%s is listed as beyond the schema (%s): the loader must refuse "
                                "it and the schema accept it (remove it from the list if the "
                                "schema refuses it now): loader %s, schema %s" %
                                (name, BEYOND_SCHEMA[name], "accepts" if accepted else "refuses",
                                 errors[:2]))
        elif accepted == bool(errors):
            disagree.append("%s: loader %s, schema %s %s" %
                            (path, "accepts" if accepted else "refuses (" + stderr.strip() + ")",
                             "refuses" if errors else "accepts", errors[:2]))
    expect(not disagree, "the schema and the loader agree on every config", *disagree)


STUDY_SCHEMA_FILE = os.path.join(SRC, "schemas", "study.schema.json")
# Study-file mistakes, each alone in a copy of a shipped study; the loader refuses each too.
STUDY_MISTAKES = {
    "scalling: weak": ("scaling: strong", "scalling: weak"),
    "nodes as one string": ("nodes: [1]", 'nodes: "1,2,4"'),
    "a count listed twice": ("ranks_per_node: [1, 2]", "ranks_per_node: [1, 1]"),
    "scaling that is not a word it knows": ("scaling: strong", "scaling: medium"),
    "no systems": ("systems: [local]\n", ""),
}


def test_studies():
    """Every shipped study file (configs/studies/) carries the modeline of the committed study
    schema (test_committed compares it with `miniapp schema study`); the schema and `miniapp study
    plan` accept each and refuse each mistake of STUDY_MISTAKES."""
    v = validator("study")
    files = sorted(glob.glob(os.path.join(SRC, "configs", "studies", "*.yaml")))
    expect(len(files) >= 2, "configs/studies holds the shipped study files", files)
    for path in files:
        with open(path) as f:
            text = f.read()
        m = MODELINE.search(text)
        expect(m and os.path.normpath(os.path.join(os.path.dirname(path), m.group(1))) ==
               STUDY_SCHEMA_FILE, path + " carries the study schema's modeline")
        expect(not schema_errors(v, text), path + " is valid", schema_errors(v, text))
    base = os.path.join(SRC, "configs", "studies", "strong_local.yaml")
    with open(base) as f:
        text = f.read()
    work = tempfile.mkdtemp()
    try:
        for what, (old, new) in STUDY_MISTAKES.items():
            expect(old in text, "the base study holds " + repr(old))
            bad = text.replace(old, new, 1).replace("config: ../quickstart.yaml",
                                                    "config: " + os.path.join(SRC, "configs",
                                                                              "quickstart.yaml"))
            expect(schema_errors(v, bad), "the study schema refuses " + what)
            path = os.path.join(work, "bad.yaml")
            with open(path, "w") as f:
                f.write(bad)
            p = subprocess.run([MINIAPP, "study", "plan", path], capture_output=True, text=True,
                               timeout=60)
            expect(p.returncode == 2 and "bad.yaml:" in p.stderr,
                   "miniapp study plan refuses " + what + " at file:line:col", p.returncode,
                   p.stderr)
    finally:
        shutil.rmtree(work)


def check_files_and_mistakes(kind, files, base, mistakes, beyond, loader_accepts_text):
    """The shipped `files` carry the modeline of schemas/KIND.schema.json and are valid; each of
    `mistakes` (name: (old, new) replaced in the text of `base`) is refused by the schema and the
    loader; each of `beyond` (the same, for what no schema of one file can see) is refused by the
    loader and accepted by the schema, so the list cannot go stale."""
    v = validator(kind)
    schema_file = os.path.join(SRC, "schemas", kind + ".schema.json")
    for path in files:
        with open(path) as f:
            text = f.read()
        m = MODELINE.search(text)
        expect(m and os.path.normpath(os.path.join(os.path.dirname(path), m.group(1))) ==
               schema_file, path + " carries the modeline of schemas/" + kind + ".schema.json")
        expect(not schema_errors(v, text), path + " is valid", schema_errors(v, text))
        accepted, stderr = loader_accepts_text(text, path)
        expect(accepted, "the loader accepts " + path, stderr)
    with open(base) as f:
        text = f.read()
    for what, (old, new) in list(mistakes.items()) + list(beyond.items()):
        expect(old in text, os.path.basename(base) + " holds " + repr(old))
        bad = text.replace(old, new, 1)
        errors = schema_errors(v, bad)
        accepted, stderr = loader_accepts_text(bad, base)
        expect(not accepted, "the loader refuses " + what, bad)
        if what in beyond:
            expect(not errors, what + " is listed as beyond the schema: the schema must accept "
                   "it (move it to the mistakes if the schema refuses it now)", errors)
        else:
            expect(errors, "the " + kind + " schema refuses " + what, bad)
    return v


def run_loader(args, path_in_message):
    p = subprocess.run([MINIAPP] + args, capture_output=True, text=True, timeout=120)
    expect(p.returncode in (0, 2, 5), " ".join(args) + " exits 0, 2 or 5", p.returncode, p.stderr)
    if p.returncode == 2:
        expect(path_in_message + ":" in p.stderr, "the loader says file:line:col", p.stderr)
    return p.returncode != 2, p.stderr


def text_loader(name, loader_args):
    """A check of a text by a loader: the text written to a file NAME in a scratch directory,
    then `miniapp` run with loader_args(that file)."""
    def accepts(text, path):
        work = tempfile.mkdtemp()
        try:
            file = os.path.join(work, name)
            with open(file, "wb") as f:
                f.write(text.encode("utf-8", "surrogateescape"))
            return run_loader(loader_args(file), file)
        finally:
            shutil.rmtree(work)
    return accepts


# `miniapp jobscript` reads the profile (then the config and its estimate: quickstart, far below
# any profile's time); --miniapp keeps a GPU profile from asking for a GPU build.
profile_loader_accepts = text_loader("profile.yaml", lambda f: [
    "jobscript", os.path.join(SRC, "configs", "quickstart.yaml"), "--system", f, "--miniapp",
    "/opt/miniapp/bin/miniapp"])
# `miniapp compare RUN --references FILE` reads the references file.
references_loader_accepts = text_loader("refs.yaml", lambda f: [
    "compare", os.path.join(SRC, "docs", "data", "paper_table1-openmp"), "--references", f])


# Typical mistakes in a copy of jobscripts/systems/generic-gpu.yaml.
PROFILE_MISTAKES = {
    "an unknown key (cores_per_nod)": ("cores_per_node: 64", "cores_per_nod: 64"),
    "a count as a word": ("cores_per_node: 64", "cores_per_node: many"),
    "a list where a count goes": ("gpus_per_node: 4", "gpus_per_node: [4]"),
    "no cores": ("cores_per_node: 64", "cores_per_node: 0"),
    "more nodes than any machine": ("max_nodes: 16", "max_nodes: 2000000"),
    "a backend it does not know": ("backend: cuda", "backend: gpu"),
    "a launcher it does not know": ("launcher: srun", "launcher: mpiexec"),
    "a hint sbatch does not know": ("launcher: srun", "launcher: srun\nhint: nosmt"),
    "a GPU backend without GPUs": ("gpus_per_node: 4\n", ""),
    "a partition with a space": ("partition: gpu", "partition: gpu a100"),
    "a list of lines as one string": ("modules: [cuda/12.4, openmpi/4.1]",
                                      "modules: cuda/12.4 openmpi/4.1"),
    "an sbatch option without --": ("launcher: srun", "launcher: srun\nsbatch_options: [gres=gpu:4]"),
    "an environment variable name with a dash": ("launcher: srun",
                                                 "launcher: srun\nenvironment: {MY-VAR: x}"),
    "a Slurm time in hours": ('time: "00:30:00"', "time: 1h"),
    "a rate of zero": ("launcher: srun", "launcher: srun\ngbs: 0"),
}
# What the loader refuses and no schema of one file can see.
PROFILE_BEYOND_SCHEMA = {
    "an sbatch option the generator writes (--nodes)": (
        "launcher: srun", "launcher: srun\nsbatch_options: [--constraint=a100 --nodes 2]"),
    "--hint as an sbatch option (the profile's hint key and jobscript's --hint set it)": (
        "launcher: srun", "launcher: srun\nsbatch_options: [--hint=multithread]"),
    "a minute count of 61": ('time: "00:30:00"', 'time: "00:61:00"'),
    "more ranks than GPUs per node": ("max_nodes: 16", "max_nodes: 16\nranks_per_node: 8"),
}


def test_profiles():
    files = sorted(glob.glob(os.path.join(SRC, "jobscripts", "systems", "*.yaml")))
    expect(len(files) >= 4, "jobscripts/systems holds the shipped profiles", files)
    base = os.path.join(SRC, "jobscripts", "systems", "generic-gpu.yaml")
    v = check_files_and_mistakes("profile", files, base, PROFILE_MISTAKES, PROFILE_BEYOND_SCHEMA,
                                 profile_loader_accepts)
    # gpu_bind: "" (Slurm's default binding) is accepted by both.
    with open(base) as f:
        text = f.read().replace("gpu_bind: per_task:1", 'gpu_bind: ""', 1)
    expect('gpu_bind: ""' in text and not schema_errors(v, text), "the schema accepts gpu_bind: \"\"",
           schema_errors(v, text))
    accepted, stderr = profile_loader_accepts(text, base)
    expect(accepted, 'the loader accepts gpu_bind: ""', stderr)


# Typical mistakes in a copy of tests/history/refs_low.yaml.
REFERENCES_MISTAKES = {
    "an unknown key (tolerance)": ("tolerance_pct: 10", "tolerance: 10"),
    "a rate as a word": ("rate: 0.001\n    tolerance_pct", "rate: fast\n    tolerance_pct"),
    "a tolerance of 100%": ("tolerance_pct: 10", "tolerance_pct: 100"),
    "a unit it does not know": ("unit: GFLOP/s", "unit: TFLOP/s"),
    "a percentage with a unit": ("rate: 0.001\n    unit", "pct_of_ceiling: 1\n    unit"),
    "both a rate and a percentage": ("tolerance_pct: 10", "tolerance_pct: 10\n    pct_of_ceiling: 5"),
    "neither a rate nor a percentage": ("    rate: 0.001\n    tolerance_pct", "    tolerance_pct"),
    "no case": ('  - case: "matmul/*"\n', "  -\n"),
}


def test_references():
    files = sorted(glob.glob(os.path.join(SRC, "tests", "history", "refs_*.yaml")))
    expect(len(files) >= 2, "tests/history holds the references files of the tests", files)
    v = check_files_and_mistakes("references", files, files[files.index(
        os.path.join(SRC, "tests", "history", "refs_low.yaml"))], REFERENCES_MISTAKES, {},
        references_loader_accepts)
    # The loader's bad references corpus: the schema refuses every file too.
    bad = sorted(glob.glob(os.path.join(SRC, "tests", "history", "bad_references", "*.yaml")))
    expect(len(bad) >= 8, "the bad references corpus is there", bad)
    for path in bad:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "surrogateescape")
        accepted, stderr = references_loader_accepts(text, path)
        expect(not accepted, "the loader refuses " + path, stderr)
        expect(schema_errors(v, text), "the references schema refuses " + path)


TESTS = {"committed": test_committed, "studies": test_studies, "shipped": test_shipped,
         "mistakes": test_mistakes, "agreement": test_agreement, "profiles": test_profiles,
         "references": test_references}

if __name__ == "__main__":
    TESTS[sys.argv[1]]()
    print("ok")
