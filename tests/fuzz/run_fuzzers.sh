#!/usr/bin/env bash
# Runs each libFuzzer target of a fuzz build (cmake --preset fuzz) over its seed corpus, then
# fuzzes it for SECONDS; fails on the first crash, leak, timeout (10 s per input) or input using
# more than 2 GiB. The seeds are the shipped files, read in place: nothing is copied; inputs the
# fuzzer finds go to a scratch corpus, and a failing input is kept in ARTIFACTS (docs/testing.md).
#   tests/fuzz/run_fuzzers.sh [BUILD_DIR [SECONDS [ARTIFACTS]]]
#     BUILD_DIR  default build/fuzz;  SECONDS  per target, default 90 (0: the seeds only)
#     ARTIFACTS  default BUILD_DIR/fuzz-artifacts
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build/fuzz}
seconds=${2:-90}
artifacts=${3:-$build/fuzz-artifacts}
mkdir -p "$artifacts"

# target name, then its seed directories (searched recursively by libFuzzer); regressions/ holds
# every input that once crashed or hung a target (issue 16), so each run replays them first
targets=(
  "config configs tests/bad_configs tests/e2e_configs tests/mpi tests/fuzz/regressions/config"
  "jobscript jobscripts/systems tests/fuzz/regressions/jobscript"
  "results docs/data tests/fuzz/regressions/results"
  "history_db tests/fuzz/seeds/history_db tests/fuzz/regressions/history_db"
  "references tests/history tests/fuzz/regressions/references"
  "template $build/jobscripts jobscripts/systems tests/fuzz/regressions/template"
  "study_state tests/fuzz/seeds/study_state tests/fuzz/regressions/study_state"
  "ceiling_cache tests/fuzz/seeds/ceiling_cache tests/fuzz/regressions/ceiling_cache"
  "autotune_cache tests/fuzz/seeds/autotune_cache tests/fuzz/regressions/autotune_cache"
  "resumed tests/fuzz/seeds/resumed tests/fuzz/regressions/resumed"
)

limits=(-rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
if [ "$seconds" -eq 0 ]; then
  limits+=(-runs=0)
else
  limits+=(-max_total_time="$seconds")
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# One fuzzing process per target, up to FUZZ_JOBS at once (default: the CPU count; libFuzzer's own
# process is single-threaded), so the wall time is about ceil(targets / FUZZ_JOBS) x SECONDS while each
# target still fuzzes for SECONDS.
parallel=${FUZZ_JOBS:-$(nproc)}
fuzz_one() { # fuzz_one NAME SEEDS...: the fuzzer's log in $scratch/NAME.log, its exit status in NAME.rc
  local name=$1 rc=0
  shift
  mkdir -p "$scratch/$name"
  # (TMPDIR: the files a target writes to read back go to the scratch directory, removed at exit)
  TMPDIR="$scratch" "$build/bin/miniapp-fuzz-$name" "${limits[@]}" -dict="tests/fuzz/$name.dict" \
    -artifact_prefix="$artifacts/$name-" "$scratch/$name" "$@" >"$scratch/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$scratch/$name.rc"
}
names=()
declare -A seeds_of
for spec in "${targets[@]}"; do
  read -r name seeds <<<"$spec"
  seeds_of[$name]=$seeds
  bin=$build/bin/miniapp-fuzz-$name
  [ -x "$bin" ] || { echo "run_fuzzers.sh: $bin not built (cmake --build --preset fuzz)" >&2; exit 1; }
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  # shellcheck disable=SC2086 # $seeds is a list of directories
  fuzz_one "$name" $seeds &
  names+=("$name")
done
wait

status=0
for name in "${names[@]}"; do
  log=$scratch/$name.log
  seeds=${seeds_of[$name]}
  if [ "$(cat "$scratch/$name.rc")" = 0 ]; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "fuzz $name: ok, ${runs:-?} runs in ${seconds} s (seeds: $seeds)"
  else
    status=1
    echo "fuzz $name: FAILED; the input is in $artifacts, the report:" >&2
    grep -E -A 30 '^==[0-9]+==|^SUMMARY|deadly signal|ERROR: libFuzzer' "$log" | head -n 60 >&2
  fi
done
exit $status
