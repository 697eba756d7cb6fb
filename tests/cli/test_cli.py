#!/usr/bin/python3
"""The command line as a new user meets it (issue 15): Kokkos flags of either generation, unknown
flags, clean benchmark JSON, subcommands that start no MPI, `list`, `help`, `validate --ranks`.

Run by ctest (label cli) as: test_cli.py TEST_NAME, with MINIAPP, MINIAPP_BENCH (may be empty)
and MINIAPP_SOURCE_DIR in the environment.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MINIAPP = os.environ["MINIAPP"]
BENCH = os.environ.get("MINIAPP_BENCH", "")
SRC = os.environ["MINIAPP_SOURCE_DIR"]


def run(args, env=None, program=None):
    e = dict(os.environ) if env is None else env
    p = subprocess.run([program or MINIAPP] + args, capture_output=True, text=True, env=e,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what, *outputs):
    if not cond:
        sys.exit("FAILED: " + what + "\n" + "\n---\n".join(str(o) for o in outputs))


def concurrency(out):
    m = re.search(r"^  openmp: concurrency (\d+)", out, re.M)
    expect(m, "info names the openmp concurrency", out)
    return int(m.group(1))


def test_thread_flags():
    # OMP_NUM_THREADS=2 from ctest; either spelling of the thread flag must win over it.
    for flag in ("--kokkos-num-threads=1", "--kokkos-threads=1"):
        code, out, err = run(["info", flag])
        expect(code == 0, flag + " exits 0", code, err)
        expect(concurrency(out) == 1, flag + " gives one thread", out)
        expect(re.search(r"ranks x threads: +1 rank x 1 thread \(openmp", out),
               "info prints ranks x threads", out)
    # Old and new spellings of the device flags are accepted on host builds too.
    for flag in ("--kokkos-device-id=0", "--kokkos-device=0", "--kokkos-numa=1"):
        code, out, err = run(["info", flag])
        expect(code == 0, flag + " is accepted", code, err)


def test_unknown_kokkos_flag():
    code, out, err = run(["info", "--kokkos-num-thread=1"])
    expect(code == 2, "a misspelt Kokkos flag exits 2", code, out, err)
    expect("did you mean '--kokkos-num-threads'?" in err, "with a did-you-mean", err)
    for bad in ("--kokkos-threads=two", "--kokkos-threads", "--kokkos-help=1"):
        code, out, err = run(["validate", os.path.join(SRC, "configs/quickstart.yaml"), bad])
        expect(code == 2 and "Kokkos option" in err, bad + " exits 2 with a sentence", code, err)


def test_no_mpi_for_quick_commands():
    # No launcher variables and no ssh/rsh on PATH: a singleton MPI_Init would print Open MPI's
    # errors here. These commands must not start MPI at all.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMI", "PMIX_", "SLURM_"))}
    with tempfile.TemporaryDirectory() as empty:
        env["PATH"] = empty
        code, out, err = run(["--version"], env)
        expect(code == 0 and re.fullmatch(r"miniapp \S+ \(git \S+\)\n", out) and err == "",
               "--version prints one line and nothing else", code, out, err)
        for args in (["list"], ["info"], ["help"]):
            code, out, err = run(args, env)
            expect(code == 0 and err == "", " ".join(args) + " runs without MPI text", code, err)
            expect(not re.search(r"orte|ORTE|PMIx|ess_|mpirun", out + err), "no MPI errors", out)


def test_version_names_the_tree():
    """--version (and every results file's git_revision) names the commit the binary was built
    from: the revision is read at every build, not once when the build was configured."""
    code, out, err = run(["--version"])
    m = re.fullmatch(r"miniapp \S+ \(git (\S+)\)\n", out)
    expect(code == 0 and m, "--version prints the version and the git revision", code, out, err)
    git = subprocess.run(["git", "describe", "--always", "--dirty", "--tags"], cwd=SRC,
                         capture_output=True, text=True)
    tree = git.stdout.strip() if git.returncode == 0 and git.stdout.strip() else "unknown"
    expect(m.group(1) == tree, "the revision is the source tree's as built (" + tree + ")", out)


def test_quick_commands_once_under_launcher():
    # As mpiexec -n 2 starts them: only rank 0 writes (a job script once, not once per rank).
    env = dict(os.environ, OMPI_COMM_WORLD_SIZE="2", OMPI_COMM_WORLD_RANK="1")
    for args in (["list"], ["info"], ["jobscript", os.path.join(SRC, "configs/quickstart.yaml"),
                                      "--system", "generic-cpu"]):
        code, out, err = run(args, env)
        expect(code == 0 and out == "", " ".join(args[:1]) + " is silent on rank 1", code, out)
    env["OMPI_COMM_WORLD_RANK"] = "0"
    code, out, err = run(["list", "backends", "--names"], env)
    expect(code == 0 and "openmp" in out.split(), "rank 0 answers", code, out, err)


def test_subcommand_suggestions():
    code, out, err = run(["runn", "x.yaml"])
    expect(code == 2 and "unknown command 'runn' (did you mean 'run'?)" in err,
           "a mistyped command gets a suggestion", code, err)
    code, out, err = run(["help"])
    expect(code == 0 and "list" in out and "validate" in out, "help lists the commands", out, err)
    code, out, err = run(["help", "compar"])
    expect(code == 2 and "did you mean 'compare'?" in err, "help of a mistyped command", code, err)
    code, out, err = run(["help", "validate"])
    expect(code == 0 and "--ranks" in out, "help COMMAND shows its options", out, err)


def test_validate_ranks():
    mpi = os.path.join(SRC, "tests/mpi")
    code, out, err = run(["validate", mpi + "/tile_index.yaml", "--ranks", "2"])
    expect(code == 2 and "tile_index.yaml:4:13: tile_index runs on one rank only" in err,
           "validate --ranks 2 finds the single-rank case", code, err)
    code, out, err = run(["validate", mpi + "/too_many_ranks.yaml", "--ranks", "3"])
    expect(code == 2 and "mpi.grid [1, 4] needs 4 rank(s) but this run has 3" in err,
           "validate --ranks 3 finds the grid mismatch", code, err)
    code, out, err = run(["validate", mpi + "/tile_index.yaml", "--ranks", "1"])
    expect(code == 0, "one rank is fine", code, err)
    code, out, err = run(["validate", mpi + "/compare.yaml", "--ranks", "4"])
    expect(code == 0 and "distributed over 4 MPI ranks" in out, "the plan for 4 ranks", out, err)


def test_validate_model():
    weak = os.path.join(SRC, "configs/weak_scaling.yaml")
    two = ["--set", "cases.0.n=16384", "cases.1.n=16384", "cases.2.n=16384"]
    rates = ["--rates", "gemm_tflops=50.67", "hbm_gbs=4200", "ipc_gbs=52", "gpus_per_node=8"]
    code, out, err = run(["validate", weak, "--ranks", "2", *two, *rates])
    # one model line per matmul variant (vendor, tiled_rb), none for axpby / tile_average
    lines = re.findall(r"\[(\d)\] model: device_ipc over 1 node\(s\), 8 panel\(s\): ([\d.]+) ms", out)
    expect(code == 0 and [l[0] for l in lines] == ["1", "2"], "a model line per matmul case", out, err)
    # 2 * 8192^3 flops at 50.67 TFLOP/s is 21.70 ms on one GPU; the 2-GPU IPC run took 23.87 ms
    expect(lines and 23.0 < float(lines[0][1]) < 24.5, "the measured 2-GPU IPC time, within 3%", out)
    code, out, err = run(["validate", weak, "--ranks", "2", *two, "--rates", "gemm_tflops=50", "gpus_per_node=8"])
    expect(code == 0 and "model: needs --rates ipc_gbs=..." in out, "a missing rate is named", out)
    code, out, err = run(["validate", weak, "--ranks", "2", *two, "--rates", "nvlink=400"])
    expect(code == 2 and "unknown key 'nvlink'" in err and out == "", "a bad rate exits 2 first", code, out, err)
    code, out, err = run(["validate", weak, *rates])
    expect(code == 0 and not re.search(r"\[\d+\] model: ", out), "one rank: nothing distributed to model",
           out, err)


def test_list():
    code, out, err = run(["list"])
    expect(code == 0, "list exits 0", code, err)
    for word in ("matmul", "tiled_rb", "team_reduce", "tile_index", "generic-gpu", "openmp",
                 "matmul tiled needs a tile width between 2 and 32",
                 "matmul tiled_rb needs tile 64 or 128"):
        expect(word in out, "list names " + word, out)
    # tile_average's default sample size is the plan's (16), not a copy.
    expect(re.search(r"leader: .*tile=16", out), "tile_average default tile", out)
    # tiled_rb's default is the tile that runs (the family table), not "the kernel's".
    expect(re.search(r"tiled_rb: .*tile=128", out), "tiled_rb default tile", out)
    expect(re.search(r"team: .*tile=2, tile_cols=3", out), "tile_index default tile", out)
    code, out, err = run(["list", "systems", "--names"])
    expect(code == 0 and "generic-cpu" in out.split(), "bare system names", out, err)
    code, out, err = run(["list", "famlies"])
    expect(code == 2, "an unknown section exits 2", code, err)


def tiny_config(tmp, name):
    """A config of one axpby case of n = 16, run once: a run in well under a second."""
    cfg = os.path.join(tmp, "c.yaml")
    with open(cfg, "w") as f:
        f.write(f"name: {name}\nwarmup: 0\nrepetitions: 1\ncases:\n"
                "  - {family: axpby, variant: flat, n: 16}\n")
    return cfg


def test_run_header_and_metadata():
    with tempfile.TemporaryDirectory() as tmp:
        cfg = tiny_config(tmp, "hdr")
        out_dir = os.path.join(tmp, "run")
        code, out, err = run(["run", cfg, "--output-dir", out_dir, "--kokkos-threads=1"])
        expect(code == 0, "the run succeeds", code, out, err)
        expect(re.search(r"^parallelism: 1 rank x 1 thread \(openmp, ", out, re.M),
               "the run header says ranks x threads", out)
        meta = json.load(open(os.path.join(out_dir, "results.json")))["metadata"]
        expect(meta["mpi_ranks"] == 1 and meta["threads_per_rank"] == 1
               and meta["devices_per_rank"] == 0, "results.json records them", meta)


def cpu_offers_x86_64_v2():
    """Whether this CPU offers more than OpenBLAS's Prescott kernels use (SSE3): x86-64-v2."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    return all(re.search(r"\b" + f + r"\b", flags) for f in ("ssse3", "sse4_2", "popcnt"))


def test_blas_kernels_older_than_the_cpu():
    # OpenBLAS falls back to its Prescott kernels on a CPU model it does not know (a KVM guest);
    # OPENBLAS_CORETYPE makes it take them here, and info and a host run must say so, naming the
    # core to ask for. The configuration string is named once ("OpenBLAS OpenBLAS 0.3.21" before).
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott")
    code, out, err = run(["info"], env)
    expect(code == 0, "info exits 0", code, err)
    line = re.search(r"^host BLAS: +(.*)$", out, re.M)
    expect(line and not line.group(1).startswith("OpenBLAS OpenBLAS"), "one OpenBLAS", out)
    if " Prescott " not in line.group(1) + " " or not cpu_offers_x86_64_v2():
        print("skip: OpenBLAS has no Prescott kernels to switch to, or this CPU runs them fully")
        return
    said = "OpenBLAS runs its Prescott kernels, made for less than this CPU's x86-64-v"
    expect(said in out and "set OPENBLAS_CORETYPE=" in out, "info warns", out)
    with tempfile.TemporaryDirectory() as tmp:
        # An axpby run calls no BLAS: no warning, in the run or in its comparison.
        cfg = tiny_config(tmp, "axpby")
        axpby_dir = os.path.join(tmp, "axpby")
        code, out, err = run(["run", cfg, "--output-dir", axpby_dir, "--quiet"], env)
        expect(code == 0 and said not in err, "an axpby run does not warn", code, out, err)
        code, out, err = run(["compare", axpby_dir, axpby_dir], env)
        expect(code == 0 and said not in out + err, "nor its comparison", code, out, err)
        cfg = os.path.join(tmp, "blas.yaml")
        with open(cfg, "w") as f:
            f.write("name: blas\nwarmup: 0\nrepetitions: 1\ncases:\n"
                    "  - {family: matmul, variant: vendor, n: 16}\n")
        out_dir = os.path.join(tmp, "run")
        code, out, err = run(["run", cfg, "--output-dir", out_dir, "--quiet"], env)
        expect(code == 0 and said in err, "a host run of BLAS rows warns", code, out, err)
        meta = json.load(open(os.path.join(out_dir, "results.json")))["metadata"]
        expect(" Prescott " in meta["host_blas"] + " ", "results.json names the core", meta)
        # Once: in the markdown's warnings on stdout, not again on stderr.
        code, out, err = run(["compare", out_dir, out_dir], env)
        expect(code == 0 and out.count(said) == 1 and said not in err,
               "compare flags the run once", code, out, err)


def complete(*words):
    """What scripts/miniapp-completion.bash offers after `miniapp WORDS...` (last = being typed)."""
    script = os.path.join(SRC, "scripts/miniapp-completion.bash")
    line = " ".join([MINIAPP] + list(words))
    cmd = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; _miniapp; "
           "printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "completion runs", p.stderr)
    return p.stdout.split()


def test_completion_and_man():
    expect(complete("va") == ["validate"], "a command completes", complete("va"))
    expect("list" in complete(""), "every command is offered", complete(""))
    expect(complete("jobscript", "--sys") == ["--system"], "an option completes",
           complete("jobscript", "--sys"))
    expect("generic-gpu" in complete("jobscript", "--system", "gen"), "profile names complete",
           complete("jobscript", "--system", "gen"))
    expect(complete("validate", "--ran") == ["--ranks"], "validate --ranks completes")
    expect(complete("validate", "--ra") == ["--ranks", "--rates"], "both --ra options complete",
           complete("validate", "--ra"))
    expect(sorted(complete("study", "s")) == ["status", "submit"], "a study action completes",
           complete("study", "s"))
    expect(complete("db", "") == ["import", "rebuild"], "db's actions complete", complete("db", ""))
    man = os.environ.get("MINIAPP_MAN", "")
    if man:  # made only where help2man is installed (scripts/install-deps.sh installs it)
        text = open(man).read()
        expect(".TH MINIAPP" in text and ".SH COMMANDS" in text and ".SS validate" in text,
               "the man page is miniapp's --help with a section per command", text[:500])
        expect(r"\-\-ranks" in text or "--ranks" in text, "with each command's options")


def test_install_layout():
    # The completion and the man page land under the prefix (share/...), never outside it.
    with tempfile.TemporaryDirectory() as prefix:
        p = subprocess.run(["cmake", "--install", os.environ["MINIAPP_BUILD_DIR"], "--prefix",
                            prefix], capture_output=True, text=True, timeout=300)
        expect(p.returncode == 0, "cmake --install works", p.stdout, p.stderr)
        installed = re.findall(r"-- (?:Installing|Up-to-date): (\S+)", p.stdout)
        outside = [f for f in installed if not f.startswith(prefix + "/")]
        expect(not outside, "everything lands under the prefix", outside)
        expect(os.path.isfile(prefix + "/share/bash-completion/completions/miniapp"),
               "bash completion installed", installed)
        if os.environ.get("MINIAPP_MAN"):
            expect(os.path.isfile(prefix + "/share/man/man1/miniapp.1"), "man page installed",
                   installed)


def bench_env():
    env = dict(os.environ)
    env.pop("OMP_PROC_BIND", None)
    env.pop("OMP_PLACES", None)
    return env


def test_bench_json_stdout():
    expect(BENCH, "miniapp-bench was built")
    code, out, err = run(["--miniapp-quick", "--benchmark_min_time=0.01",
                          "--benchmark_filter=^axpby/flat/float32/64x64/",
                          "--benchmark_format=json"], bench_env(), BENCH)
    expect(code == 0, "miniapp-bench runs", code, err)
    doc = json.loads(out)  # the whole of stdout is one JSON document
    b = [x for x in doc["benchmarks"] if x["name"].startswith("axpby/flat/float32/64x64/")]
    expect(b and b[0]["time_unit"] == "us", "a microsecond kernel is reported in us", b)


def test_bench_options():
    expect(BENCH, "miniapp-bench was built")
    code, out, err = run(["--help"], bench_env(), BENCH)
    expect(code == 0 and out.startswith("miniapp-bench") and "--miniapp-sizes" in out
           and "--benchmark_filter" in out, "--help names the program and its flags", out, err)
    for bad in (["--miniapp-sizes=abc"], ["--miniapp-sizes=0"], ["--miniapp-backend=cuda9"],
                ["--miniapp-nope"], ["--kokkos-thread=1"]):
        code, out, err = run(bad, bench_env(), BENCH)
        expect(code == 2, " ".join(bad) + " exits 2", code, out, err)


def test_case_parameter():
    # transpose tiled's scratch padding (pad) is named only by its row of the case-field table,
    # its family's row and its kernel: the loader, the plan, the hash, the results, compare, the
    # console and list read it from there.
    with tempfile.TemporaryDirectory() as tmp:
        def write(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            return path
        head = "name: pad\nbackend: serial\nwarmup: 0\nrepetitions: 2\ncases:\n"
        case = "  - family: transpose\n    m: 45\n    n: 70\n    tile: 16\n"
        cfg = write("pad.yaml", head + case + "    pad: [0, 1, 3]\n")
        plain = write("plain.yaml", head + case)
        # Refused with file:line:col: out of range, on a family that does not read it, misspelt.
        code, out, err = run(["validate", cfg, "--set", "cases.0.pad=-1"])
        expect(code == 2 and "pad must be between 0 and 1024, got -1" in err, "pad -1 exits 2",
               code, err)
        bad = write("bad.yaml", "name: bad\ncases:\n  - {family: matmul, n: 8, pad: 2}\n"
                                "  - {family: transpose, n: 8, padd: 2}\n")
        code, out, err = run(["validate", bad])
        expect(code == 2 and re.search(r"bad\.yaml:3:\d+: pad applies to transpose only", err)
               and re.search(r"bad\.yaml:4:\d+: unknown key 'padd'.*did you mean 'pad'\?", err),
               "pad on matmul and a misspelt pad are errors at their positions", code, err)
        # The default is no change: the case id and the config hash of a config without pad.
        def plan_of(path, *sets):
            args = ["validate", path]
            for s in sets:
                args += ["--set", s]
            code, out, err = run(args)
            expect(code == 0, "validate " + " ".join(args), code, out, err)
            return re.search(r"config hash ([0-9a-f]+)", out).group(1), out
        base_hash, base_out = plan_of(plain)
        expect(plan_of(cfg, "cases.0.pad=1")[0] == base_hash, "pad 1 (the default) keeps the hash")
        expect(plan_of(cfg, "cases.0.pad=0")[0] != base_hash, "pad 0 changes the hash")
        _, out = plan_of(cfg)
        for cid in ("transpose/tiled/float32/45x70/tile=16/pad=0",
                    "transpose/tiled/float32/45x70/tile=16\n",
                    "transpose/tiled/float32/45x70/tile=16/pad=3"):
            expect(cid in out, "the plan has " + cid, out)
        # Run and validated at every pad; the results carry the column, null where unread.
        run_dir = os.path.join(tmp, "run")
        code, out, err = run(["run", cfg, "--output-dir", run_dir])
        expect(code == 0, "the run succeeds and validates", code, out, err)
        expect("tiled, pad=0" in out and "tiled, pad=3" in out,
               "the console shows a pad that is not the default", out)
        rows = json.load(open(os.path.join(run_dir, "results.json")))["results"]
        expect([(r["variant"], r["pad"], r["valid"]) for r in rows] ==
               [("flat", None, True), ("tiled", 0, True), ("tiled", 1, True), ("tiled", 3, True)],
               "results.json: pad per row, validated", rows)
        with open(os.path.join(run_dir, "results.csv")) as f:
            header = f.readline().strip().split(",")
            pads = [line.split(",")[header.index("pad")] for line in f]
        expect(header[header.index("seed") + 1] == "pad" and pads == ["", "0", "1", "3"],
               "results.csv: the pad column after seed", header, pads)
        # compare: the id tells pads apart; --ignore-param pad joins them.
        one, other = os.path.join(tmp, "pad0"), os.path.join(tmp, "pad3")
        for d, pad in ((one, "0"), (other, "3")):
            code, out, err = run(["run", cfg, "--output-dir", d, "--set", "cases.0.pad=" + pad,
                                  "--set", "cases.0.variant=tiled"])
            expect(code == 0, "run at pad " + pad, code, out, err)
        code, out, err = run(["compare", one, other])
        tiled = [l for l in out.splitlines()  # the rates table's lines
                 if l.startswith("| transpose/tiled") and "| GB/s |" in l]
        expect(code == 0 and len(tiled) == 2 and "/pad=0 |" in tiled[0] and "/pad=3 |" in tiled[1],
               "compare keeps pad 0 and pad 3 apart", out, err)
        code, out, err = run(["compare", one, other, "--ignore-param", "pad"])
        tiled = [l for l in out.splitlines()  # the rates table's lines
                 if l.startswith("| transpose/tiled") and "| GB/s |" in l]
        expect(code == 0 and len(tiled) == 1 and "pad" not in tiled[0],
               "compare --ignore-param pad joins them", out, err)
    # list: its default and its range.
    code, out, err = run(["list", "parameters"])
    expect(code == 0 and re.search(r"tiled: .*tile=32, .*pad=1, seed=42", out)
           and "pad must be between 0 and 1024" in out, "list shows pad", out, err)


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
    print("ok:", sys.argv[1])
