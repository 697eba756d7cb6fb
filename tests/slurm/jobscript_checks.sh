#!/bin/bash
# shellcheck disable=SC2016 # the patterns match literal $VAR text in the scripts
# `miniapp jobscript` without a scheduler: every template and every generated script is clean
# for ShellCheck, the scripts carry what each backend needs, and bad configs, profiles and requests
# are refused with exit 2 and a file:line:col message.
# Usage: jobscript_checks.sh MINIAPP TEMPLATES   (TEMPLATES: the build's assembled jobscripts/)
set -euo pipefail
MINIAPP=$(realpath "$1")
templates=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
CHECK_NAME=jobscript
# shellcheck source=tests/slurm/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

command -v shellcheck >/dev/null || {
  echo "FAIL: shellcheck is not installed (Debian package shellcheck)" >&2
  exit 1
}

# The templates as the build assembles them, and the test scripts themselves.
if (cd "$src" && shellcheck -x "$templates"/*.sh tests/slurm/*.sh scripts/local-cluster.sh \
  scripts/local-slurm-common.sh); then
  pass "shellcheck the assembled templates, tests/slurm/*.sh and scripts/local-*.sh"
else
  fail "shellcheck the assembled templates, tests/slurm/*.sh and scripts/local-*.sh"
fi
# Each template is its jobscripts/NAME.sh.in with the shared parts in place, and what templates
# share is written once (jobscripts/parts/): no run of 10 non-blank lines is in two source files.
for t in openmp gpu slurm-collect; do
  if [[ ! -s $templates/$t.sh ]] || grep -q '^#@@PART ' "$templates/$t.sh"; then
    fail "$templates/$t.sh: missing or not assembled"
  fi
done
if shared=$(python3 - "$src"/jobscripts/*.sh* "$src"/jobscripts/parts/*.sh <<'PY'
import itertools, sys
text = {p: [l for l in open(p).read().split("\n") if l.strip()] for p in sys.argv[1:]}
for a, b in itertools.combinations(text, 2):
    A, B = text[a], text[b]
    for i in range(len(A) - 9):
        for j in range(len(B) - 9):
            if A[i:i + 10] == B[j:j + 10]:
                sys.exit(f"{a} and {b} share the 10 lines from {A[i]!r}: make them a part")
PY
); then
  pass "what the job templates share is written once (jobscripts/parts/)"
else
  fail "job templates repeat a block: $shared"
fi

cat >"$scratch/small.yaml" <<'YAML'
name: small
backend: auto
warmup: 1
repetitions: 2
cases:
  - family: axpby
    variant: flat
    n: 64
YAML

# generate NAME ARGS...: miniapp jobscript small.yaml ARGS -o NAME.sh, then shellcheck it.
generate() {
  local name=$1
  shift
  if ! "$MINIAPP" jobscript "$scratch/small.yaml" "$@" -o "$scratch/$name.sh" 2>"$scratch/$name.err"; then
    fail "$name: jobscript failed: $(cat "$scratch/$name.err")"
    return 1
  fi
  if shellcheck "$scratch/$name.sh"; then pass "$name: generated script passes shellcheck"; else fail "$name: shellcheck"; fi
}
# expect NAME PATTERN: the generated script has a line matching the extended regex.
expect() {
  if grep -Eq -- "$2" "$scratch/$1.sh"; then pass "$1: has /$2/"; else fail "$1: no line matches /$2/"; fi
}

# A GPU profile needs a program with that backend: this build is named as another one.
gpu_build=(--miniapp /opt/miniapp-cuda/bin/miniapp)
generate cuda --system generic-gpu --time 00:10:00 --ranks-per-node 4 "${gpu_build[@]}"
expect cuda '^#SBATCH --gpus-per-task=1$'
expect cuda '^#SBATCH --ntasks-per-node=4$'
expect cuda '^#SBATCH --cpus-per-task=16$'
expect cuda '^#SBATCH --time=00:10:00$'
expect cuda '^#SBATCH --partition=gpu$'
expect cuda '^#SBATCH --account=myproject$'
expect cuda "^module load 'cuda/12.4'$"
expect cuda "^GPU_BIND='per_task:1'"
expect cuda '^GPU_VISIBLE_VAR=CUDA_VISIBLE_DEVICES'
expect cuda '^set -euo pipefail$'
expect cuda '"\$MINIAPP" run "\$CONFIG"'
expect cuda '^exit "\$status"$'
expect cuda '^# miniapp Slurm job: cuda backend, 1 node\(s\) x 4 rank\(s\) per node = 4 rank\(s\)'
expect cuda 'module list'
expect cuda 'nvidia-smi -L'
if grep -q -- '--exclusive' "$scratch/cuda.sh"; then fail "cuda: one node, no --exclusive asked"; else pass "cuda: no --exclusive unless asked"; fi

# The default is one rank per node, also on a GPU node: a single-GPU benchmark stays one rank.
generate gpu1 --system generic-gpu "${gpu_build[@]}"
expect gpu1 '^#SBATCH --ntasks-per-node=1$'
expect gpu1 '^#SBATCH --cpus-per-task=64$'
expect gpu1 '= 1 rank\(s\), one GPU per rank'
if grep -q 'one rank (one GPU) per node; --ranks-per-node 4 runs one rank on each GPU' "$scratch/gpu1.err"; then
  pass "gpu1: the one-rank default is said on stderr"
else
  fail "gpu1: no note about the one-rank default: $(cat "$scratch/gpu1.err")"
fi

generate hip --system generic-amd-gpu --ranks-per-node 8 "${gpu_build[@]}"
expect hip '^#SBATCH --ntasks-per-node=8$'
expect hip '^GPU_VISIBLE_VAR=ROCR_VISIBLE_DEVICES'
expect hip "^module load 'rocm/5.2.3'$"
expect hip "^module load 'openmpi/"
expect hip 'rocm-smi'

generate mpigpu --system generic-gpu --nodes 4 --ranks-per-node 4 --output-dir "$scratch/run-%j" "${gpu_build[@]}"
expect mpigpu '^#SBATCH --nodes=4$'
expect mpigpu '^#SBATCH --exclusive$'
expect mpigpu 'cuda backend, 4 node\(s\) x 4 rank\(s\) per node = 16 rank\(s\)'
# The directory is passed by the template (--output-dir, or --resume when it holds results).
expect mpigpu "^OUTPUT_DIR='$scratch/run-'\"\\$\\{SLURM_JOB_ID\\}\"'' "
# Warned 60 s (the least margin) before the 30 min limit: the run stops after its current case.
expect mpigpu '^#SBATCH --signal=B:USR1@60$'
expect mpigpu '^STOP_MARGIN_S=60 '
expect mpigpu '^trap on_time_limit_near USR1$'
if grep -q -- "RUN_ARGS=(.*--output-dir" "$scratch/mpigpu.sh"; then fail "mpigpu: --output-dir also in RUN_ARGS"; else pass "mpigpu: --output-dir only through OUTPUT_DIR"; fi
if grep -q OMPI_MCA_pml "$scratch/mpigpu.sh"; then fail "the GPU profile disables UCX (OMPI_MCA_pml)"; else pass "no OMPI_MCA_pml in the GPU profile"; fi

generate cpu --system generic-cpu --nodes 2 --results-dir "$scratch/results" --set repetitions=3 --exclusive --hint nomultithread
expect cpu '^#SBATCH --ntasks-per-node=4$'
expect cpu '^#SBATCH --cpus-per-task=16$'
expect cpu '^#SBATCH --exclusive$'
expect cpu '^#SBATCH --hint=nomultithread$'
expect cpu '^export OMP_NUM_THREADS=\$\{SLURM_CPUS_PER_TASK\}$'
expect cpu '^export OMP_PROC_BIND=spread$'
expect cpu '^export OMP_PLACES=threads$'
expect cpu "--set 'output.directory=$scratch/results' 'repetitions=3'"
expect cpu '2 node\(s\) x 4 MPI rank\(s\) per node = 8 rank\(s\)'

generate local --system "$src/jobscripts/systems/local.yaml" --ranks-per-node 2
expect local "^export OMPI_ALLOW_RUN_AS_ROOT='1'$"
expect local '^#SBATCH --cpus-per-task=1$'

# refuse CODE PATTERN ARGS...: miniapp ARGS exits CODE with a message matching PATTERN.
refuse() {
  local code=$1 pattern=$2 rc=0
  shift 2
  "$MINIAPP" "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
  if [[ $rc -eq $code ]] && grep -Eq -- "$pattern" "$scratch/err"; then
    pass "refused ($rc): $(head -c 150 "$scratch/err" | head -n 1)"
  else
    fail "miniapp $* exited $rc (want $code), stderr: $(cat "$scratch/err")"
  fi
  if [[ -s $scratch/out ]]; then fail "a refused request printed a script"; fi
}

printf 'name: bad\ncases:\n  - family: axpby\n    n: 64\n    nn: 3\n' >"$scratch/bad.yaml"
refuse 2 'bad.yaml:5:5: unknown key .nn.' jobscript "$scratch/bad.yaml" --system generic-cpu
sed 's/^backend: auto/backend: serial/' "$scratch/small.yaml" >"$scratch/serial.yaml"
refuse 2 "serial.yaml:2:10: backend 'serial' does not run on system 'generic-gpu'" \
  jobscript "$scratch/serial.yaml" --system generic-gpu "${gpu_build[@]}"
refuse 2 'exceed the 4 GPUs per node' jobscript "$scratch/small.yaml" --system generic-gpu --ranks-per-node 8 "${gpu_build[@]}"
refuse 2 'exceeds max_nodes 16' jobscript "$scratch/small.yaml" --system generic-gpu --nodes 17 "${gpu_build[@]}"
refuse 2 "--time '1h' is not a Slurm time" jobscript "$scratch/small.yaml" --system generic-cpu --time 1h
refuse 2 "--time '00:61:99' is not a Slurm time" jobscript "$scratch/small.yaml" --system generic-cpu --time 00:61:99
refuse 2 "--time '1-24:00' is not a Slurm time" jobscript "$scratch/small.yaml" --system generic-cpu --time 1-24:00
refuse 2 'ranks-per-node: Value 0 not in' jobscript "$scratch/small.yaml" --system generic-cpu --ranks-per-node 0
refuse 2 'nodes: Value 0 not in' jobscript "$scratch/small.yaml" --system generic-cpu --nodes 0
refuse 2 "runs the cuda backend, which this miniapp \(backends [a-z, ]*\) does not have" \
  jobscript "$scratch/small.yaml" --system generic-gpu
# The config is checked for the job's rank count: a one-rank case in a 2-node job is refused now,
# not after queueing.
refuse 2 'tile_index_8x9.yaml:[0-9]+:[0-9]+: .*(rank|MPI)' \
  jobscript "$src/configs/examples/tile_index_8x9.yaml" --system generic-cpu --nodes 2
refuse 2 'hint' jobscript "$scratch/small.yaml" --system generic-cpu --hint sometimes

# Templates are read as regular files only (/dev/zero must not fill the memory, a FIFO not wait).
refuse 2 '/dev/zero:1:1: the job template is a character device, not a regular file' jobscript "$scratch/small.yaml" --system generic-cpu --template /dev/zero
: >"$scratch/empty.sh"
refuse 2 'empty.sh:1:1: the job template is empty' jobscript "$scratch/small.yaml" --system generic-cpu --template "$scratch/empty.sh"
printf '#!/bin/bash\n#SBATCH --time=@@TIME@@\n' >"$scratch/site-template.sh"
printf 'name: site\nbackend: openmp\ncores_per_node: 4\ntemplate: site-template.sh\n' >"$scratch/site.yaml"
if "$MINIAPP" jobscript "$scratch/small.yaml" --system "$scratch/site.yaml" >"$scratch/site.out" 2>"$scratch/err" &&
  [[ $(cat "$scratch/site.out") == $'#!/bin/bash\n#SBATCH --time=00:30:00' ]]; then
  pass "the profile's template (relative to the profile) is used"
else
  fail "profile template: $(cat "$scratch/err") $(cat "$scratch/site.out")"
fi
refuse 2 'site.yaml.*is an input' jobscript "$scratch/small.yaml" --system "$scratch/site.yaml" -o "$scratch/site.yaml"
refuse 2 'site-template.sh.*is an input' jobscript "$scratch/small.yaml" --system "$scratch/site.yaml" -o "$scratch/site-template.sh"

# Files: -o onto the config the job reads is refused; so is writing through a symbolic link,
# also at --submit's fixed file name (the link's target keeps its content and mode).
cp "$scratch/small.yaml" "$scratch/keep.yaml"
refuse 2 'is an input' jobscript "$scratch/keep.yaml" --system generic-cpu -o "$scratch/keep.yaml"
if cmp -s "$scratch/small.yaml" "$scratch/keep.yaml"; then pass "the config is unchanged"; else fail "-o overwrote the config"; fi
printf 'program' >"$scratch/prog"
refuse 2 'is an input' jobscript "$scratch/small.yaml" --system generic-cpu --miniapp "$scratch/prog" -o "$scratch/prog"
if [[ $(cat "$scratch/prog") == program ]]; then pass "the job's program is unchanged"; else fail "-o overwrote the job's program"; fi
mkdir -p "$scratch/submit/bin"
printf '#!/bin/bash\necho 42\n' >"$scratch/submit/bin/sbatch"
chmod +x "$scratch/submit/bin/sbatch"
echo "precious" >"$scratch/submit/target"
chmod 644 "$scratch/submit/target"
ln -s "$scratch/submit/target" "$scratch/submit/miniapp-small-generic-cpu.sh"
rc=0
(cd "$scratch/submit" && PATH="$scratch/submit/bin:$PATH" "$MINIAPP" jobscript "$scratch/small.yaml" \
  --system generic-cpu --submit >"$scratch/out" 2>"$scratch/err") || rc=$?
if [[ $rc -eq 2 ]] && grep -q 'symbolic link' "$scratch/err" && [[ $(cat "$scratch/submit/target") == precious ]] &&
  [[ ! -x $scratch/submit/target ]]; then
  pass "--submit refuses its file name when it is a symbolic link"
else
  fail "--submit through a symlink: exit $rc, $(cat "$scratch/err"), target: $(stat -c %A "$scratch/submit/target")"
fi
rm "$scratch/submit/miniapp-small-generic-cpu.sh"
rc=0
(cd "$scratch/submit" && PATH="$scratch/submit/bin:$PATH" "$MINIAPP" jobscript "$scratch/small.yaml" \
  --system generic-cpu --submit >"$scratch/out" 2>"$scratch/err") || rc=$?
if [[ $rc -eq 0 && $(cat "$scratch/out") == 42 && -x $scratch/submit/miniapp-small-generic-cpu.sh ]]; then
  pass "--submit writes an executable script and prints the job id"
else
  fail "--submit: exit $rc, $(cat "$scratch/err")"
fi
refuse 2 "system profile 'nosuch' not found" jobscript "$scratch/small.yaml" --system nosuch

printf 'name: x\nbackend: cuda\ncores_per_node: 8\ngpus_per_node: 4\nlauncher: srum\n' >"$scratch/p1.yaml"
refuse 2 "p1.yaml:5:11: launcher must be one of srun, mpirun, got 'srum' \(did you mean 'srun'\?\)" \
  jobscript "$scratch/small.yaml" --system "$scratch/p1.yaml"
printf 'name: x\nbackend: cuda\ncores_per_node: 8\n' >"$scratch/p2.yaml"
refuse 2 'p2.yaml:2:10: backend cuda runs one rank per GPU' jobscript "$scratch/small.yaml" --system "$scratch/p2.yaml"
printf 'name: x\nbackend: openmp\ncores_per_node: 8\nparition: a\n' >"$scratch/p3.yaml"
refuse 2 "p3.yaml:4:1: unknown key 'parition' .*did you mean 'partition'" \
  jobscript "$scratch/small.yaml" --system "$scratch/p3.yaml"
printf 'name: x\nbackend: openmp\ncores_per_node: 8\ncores_per_node: 4\n' >"$scratch/p4.yaml"
refuse 2 'p4.yaml:4:1: duplicate key' jobscript "$scratch/small.yaml" --system "$scratch/p4.yaml"
printf 'name: x\nbackend: openmp\ncores_per_node: 8\nsbatch_options: [--nodes=2]\n' >"$scratch/p5.yaml"
refuse 2 'p5.yaml:4:18: --nodes is written by miniapp jobscript' jobscript "$scratch/small.yaml" --system "$scratch/p5.yaml"
# sbatch reads #SBATCH words with getopt_long: abbreviations, a value as the next word, aliases
# and short options set the same options (issue 23 item 14). Each is refused; options that only
# look alike are not.
guarded=(
  "--nod=8|'--nod=8' is --nodes" "--nodes 8|--nodes is written" "--time 5|--time is written"
  "--ti=5|'--ti=5' is --time" "--output=/tmp/x.out|--output is written"
  "--o=x|'--o=x' is --output" "--tasks-per-node=4|'--tasks-per-node=4' is --ntasks-per-node"
  "--ntasks-per-n=4|'--ntasks-per-n=4' is --ntasks-per-node" "--job=x|'--job=x' is --job-name"
  "--gpus-per-t=2|'--gpus-per-t=2' is --gpus-per-task" "--part=debug|'--part=debug' is --partition"
  "--constraint=a100 -N 8|'-N' is --nodes" "--exclusive -vt5|'-vt5' is --time"
  "--comment=x --qos=high|--qos is written" "--acc=x|'--acc=x' is --account"
)
for spec in "${guarded[@]}"; do
  printf 'name: x\nbackend: openmp\ncores_per_node: 8\nsbatch_options: ["%s"]\n' "${spec%%|*}" >"$scratch/p6.yaml"
  refuse 2 "p6.yaml:4:18: ${spec#*|}" jobscript "$scratch/small.yaml" --system "$scratch/p6.yaml"
done
printf 'name: x\nbackend: openmp\ncores_per_node: 8\nsbatch_options: [--gpus=2, --time-min=5, --nodelist=n1, --ntasks-per-core=1, --constraint=a100, "--exclusive", --mem=0, --exclude=n2]\n' >"$scratch/p7.yaml"
generate p7 --system "$scratch/p7.yaml" && expect p7 '^#SBATCH --time-min=5$' && expect p7 '^#SBATCH --gpus=2$'
# A template near the 1 MiB limit with 100,000 placeholders on two lines renders in linear time
# (each line was scanned again for every placeholder on it: 15 s of CPU).
python3 -c "print('#!/bin/bash\n# ' + '@@NODES@@' * 50000 + '\nX=' + '@@CONFIG@@' * 50000)" >"$scratch/long.sh"
if timeout 10 "$MINIAPP" jobscript "$scratch/small.yaml" --system generic-cpu --template "$scratch/long.sh" \
  -o "$scratch/long-job.sh" 2>"$scratch/err"; then
  pass "a template of 100,000 placeholders renders within 10 s"
else
  fail "long template: $(head -c 300 "$scratch/err")"
fi
# A NUL cuts a string short where the system reads it: the file checked is not the one the job
# gets (issue 23 item 15). NUL and other control bytes are refused where the profile is read.
printf 'name: x\nbackend: openmp\ncores_per_node: 8\nreferences: "refs.yaml\\0.bak"\n' >"$scratch/p8.yaml"
refuse 2 'p8.yaml:4:13: the value holds a NUL byte' jobscript "$scratch/small.yaml" --system "$scratch/p8.yaml"
printf 'name: x\nbackend: openmp\ncores_per_node: 8\ntemplate: "t.sh\\0x"\n' >"$scratch/p9.yaml"
refuse 2 'p9.yaml:4:11: the value holds a NUL byte' jobscript "$scratch/small.yaml" --system "$scratch/p9.yaml"
printf 'name: x\nbackend: openmp\ncores_per_node: 8\nmodules: ["gcc\\e[2J"]\n' >"$scratch/p10.yaml"
refuse 2 'p10.yaml:4:11: modules\[0\] has the control character 0x1b at offset 3' jobscript "$scratch/small.yaml" --system "$scratch/p10.yaml"

# Slurm's time-limit warning that reaches a rank srun has not yet started kills it (SIGUSR1 ends a
# process without a handler): the job stops "before the time limit", says that no case ran, and
# waits to be recorded TIMEOUT. The srun stub dies of USR1 as that task did.
# run_stubbed NAME SRUN [WRAPPER...]: the generated NAME.sh as a one-rank Slurm job runs it, with
# an srun whose body is SRUN and a module that does nothing; its output in NAME.out. (In a subshell:
# it ends with exec.)
run_stubbed() {
  local name=$1 body=$2
  shift 2
  mkdir -p "$scratch/$name-bin" && printf '#!/bin/bash\n%s\n' "$body" >"$scratch/$name-bin/srun" &&
    printf '#!/bin/bash\n' >"$scratch/$name-bin/module" && chmod +x "$scratch/$name-bin"/*
  cd "$scratch" && exec env -u MINIAPP PATH="$scratch/$name-bin:$PATH" SLURM_JOB_ID=7 SLURM_NTASKS=1 \
    SLURM_CPUS_PER_TASK=1 SLURM_NTASKS_PER_NODE=1 SLURM_JOB_NODELIST=n1 "$@" bash "$name.sh" \
    >"$name.out" 2>&1
}
generate usr1 --system generic-cpu
(run_stubbed usr1 "trap 'exit 138' USR1; touch '$scratch/launched'; while :; do sleep 0.1; done" setsid) &
job=$!
for _ in $(seq 300); do [[ -e $scratch/launched ]] && break; sleep 0.1; done
kill -USR1 "$job" || true
for _ in $(seq 300); do grep -q "waiting for the time limit" "$scratch/usr1.out" && break; sleep 0.1; done
kill -- "-$job" 2>/dev/null || true
wait "$job" 2>/dev/null || true
if grep -q "the time-limit warning (USR1) reached a rank before miniapp had started: no case of this job ran" \
  "$scratch/usr1.out" && grep -q "stopped before the time limit" "$scratch/usr1.out" &&
  ! grep -q "died of signal" "$scratch/usr1.out"; then
  pass "a warning before the rank started: stopped before the time limit, no case ran"
else
  fail "a warning before the rank started: $(cat "$scratch/usr1.out")"
fi

# A launcher that ends with a signal's status: srun's can be the TERM it sent the surviving rank
# (143) though the first rank died of SIGKILL (seen once in CI on the local cluster), so the script
# names neither rank, only that a rank was ended by a signal, and the job exits 3.
generate term --system generic-cpu
status=0
(run_stubbed term 'exit 143' timeout 60) || status=$?
if ((status == 3)) && grep -q "a rank was ended by a signal and the launcher ended the others (the launcher's status: signal 15, TERM)" \
  "$scratch/term.out" && grep -q "FAILED: runtime or resource error (exit 3)" "$scratch/term.out"; then
  pass "a launcher ended by a signal: exit 3, saying a rank was ended by one (signal 15, TERM)"
else
  fail "a launcher ended by a signal: exit $status: $(cat "$scratch/term.out")"
fi

# docs/jobs.md shows the script its quickstart command writes, word for word (it once kept a wait
# block two changes old): that command, run again, writes the same text, paths aside.
mkdir -p "$scratch/doc" && ln -sfn "$src/configs" "$scratch/doc/configs"
(cd "$scratch/doc" && "$MINIAPP" jobscript configs/quickstart.yaml --system generic-gpu \
  --time 00:20:00 --ranks-per-node 4 --exclusive --hint nomultithread \
  --miniapp /opt/miniapp-cuda/bin/miniapp --output-dir runs/quickstart-%j -o quickstart.sh 2>/dev/null)
sed -e "s#$scratch/doc#/home/me/miniapp#g" -e "s#$src#/home/me/miniapp#g" \
  "$scratch/doc/quickstart.sh" >"$scratch/doc/made.sh"
awk '/^\$ sbatch quickstart.sh$/ { f = 1; next } f == 1 && /^```bash$/ { f = 2; next }
  f == 2 && /^```$/ { exit } f == 2' "$src/docs/jobs.md" >"$scratch/doc/shown.sh"
if [[ -s $scratch/doc/shown.sh ]] && diff -u "$scratch/doc/shown.sh" "$scratch/doc/made.sh" >"$scratch/doc/diff"; then
  pass "docs/jobs.md's example script is what its command writes"
else
  fail "docs/jobs.md's example script differs from what its command writes: $(head -n 40 "$scratch/doc/diff")"
fi

# Every shipped profile loads and yields a script that passes shellcheck.
for profile in "$src"/jobscripts/systems/*.yaml; do
  generate "profile-$(basename "$profile" .yaml)" --system "$profile" "${gpu_build[@]}" || true
done

finish_checks jobscript
