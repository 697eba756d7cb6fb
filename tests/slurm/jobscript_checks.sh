#!/bin/bash
# shellcheck disable=SC2016 # the patterns match literal $VAR text in the scripts
# `miniapp jobscript` without a scheduler: every template and every generated script is clean
# for ShellCheck, the scripts carry what each backend needs, and bad configs, profiles and requests
# are refused with exit 2 and a file:line:col message.
# Usage: jobscript_checks.sh MINIAPP
set -euo pipefail
MINIAPP=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-jobscript.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pass() { echo "ok: $*"; }

command -v shellcheck >/dev/null || {
  echo "FAIL: shellcheck is not installed (Debian package shellcheck)" >&2
  exit 1
}

# The templates and the test scripts themselves.
if (cd "$src" && shellcheck -x jobscripts/*.sh tests/slurm/*.sh); then
  pass "shellcheck jobscripts/*.sh tests/slurm/*.sh"
else
  fail "shellcheck jobscripts/*.sh tests/slurm/*.sh"
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

generate cuda --system generic-gpu --time 00:10:00
expect cuda '^#SBATCH --gpus-per-task=1$'
expect cuda '^#SBATCH --ntasks-per-node=4$'
expect cuda '^#SBATCH --cpus-per-task=16$'
expect cuda '^#SBATCH --time=00:10:00$'
expect cuda '^#SBATCH --partition=gpu$'
expect cuda '^#SBATCH --account=myproject$'
expect cuda '^module load "cuda/12.4"$'
expect cuda '^GPU_BIND="per_task:1"'
expect cuda '^GPU_VISIBLE_VAR=CUDA_VISIBLE_DEVICES'
expect cuda '^set -euo pipefail$'
expect cuda '"\$MINIAPP" run "\$CONFIG"'
expect cuda '^exit "\$status"$'

generate hip --system generic-amd-gpu
expect hip '^#SBATCH --ntasks-per-node=8$'
expect hip '^GPU_VISIBLE_VAR=ROCR_VISIBLE_DEVICES'
expect hip '^module load "rocm/5.2.3"$'

generate mpigpu --system generic-gpu --nodes 4 --output-dir "$scratch/run-%j"
expect mpigpu '^#SBATCH --nodes=4$'
expect mpigpu '^#SBATCH --exclusive$'
expect mpigpu 'MPI \+ GPU over several nodes \(cuda backend\)'
expect mpigpu "--output-dir \"$scratch/run-\\$\\{SLURM_JOB_ID\\}\""

generate cpu --system generic-cpu --nodes 2 --results-dir "$scratch/results" --set repetitions=3
expect cpu '^#SBATCH --ntasks-per-node=4$'
expect cpu '^#SBATCH --cpus-per-task=16$'
expect cpu '^export OMP_NUM_THREADS=\$\{SLURM_CPUS_PER_TASK\}$'
expect cpu '^export OMP_PROC_BIND=spread$'
expect cpu '^export OMP_PLACES=threads$'
expect cpu "--set \"output.directory=$scratch/results\" \"repetitions=3\""

generate local --system "$src/jobscripts/systems/local.yaml" --ranks-per-node 2
expect local '^export OMPI_ALLOW_RUN_AS_ROOT="1"$'
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
  jobscript "$scratch/serial.yaml" --system generic-gpu
refuse 2 'exceed the 4 GPUs per node' jobscript "$scratch/small.yaml" --system generic-gpu --ranks-per-node 8
refuse 2 'exceeds max_nodes 16' jobscript "$scratch/small.yaml" --system generic-gpu --nodes 17
refuse 2 "--time '1h' is not a Slurm time" jobscript "$scratch/small.yaml" --system generic-cpu --time 1h
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

# Every shipped profile loads and yields a script that passes shellcheck.
for profile in "$src"/jobscripts/systems/*.yaml; do
  generate "profile-$(basename "$profile" .yaml)" --system "$profile" || true
done

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) FAILED" >&2
  exit 1
fi
echo "all jobscript checks passed"
