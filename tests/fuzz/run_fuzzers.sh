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
  "references tests/history tests/fuzz/regressions/references"
  "template jobscripts tests/fuzz/regressions/template"
)

limits=(-rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
if [ "$seconds" -eq 0 ]; then
  limits+=(-runs=0)
else
  limits+=(-max_total_time="$seconds")
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
status=0
for spec in "${targets[@]}"; do
  read -r name seeds <<<"$spec"
  bin=$build/bin/miniapp-fuzz-$name
  [ -x "$bin" ] || { echo "run_fuzzers.sh: $bin not built (cmake --build --preset fuzz)" >&2; exit 1; }
  mkdir -p "$scratch/$name"
  log=$scratch/$name.log
  # shellcheck disable=SC2086 # $seeds is a list of directories
  if "$bin" "${limits[@]}" -dict="tests/fuzz/$name.dict" -artifact_prefix="$artifacts/$name-" \
       "$scratch/$name" $seeds >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "fuzz $name: ok, ${runs:-?} runs in ${seconds} s (seeds: $seeds)"
  else
    status=1
    echo "fuzz $name: FAILED; the input is in $artifacts, the report:" >&2
    grep -E -A 30 '^==[0-9]+==|^SUMMARY|deadly signal|ERROR: libFuzzer' "$log" | head -n 60 >&2
  fi
done
exit $status
