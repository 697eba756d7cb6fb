#!/bin/bash
# Shared by the job-script checks and the tests against a real Slurm: a scratch directory removed at
# exit (callers with daemons to stop set their own EXIT trap and call remove_scratch_unless_failed),
# and pass/fail counting.
# Sourced; the job-script checks end with `finish_checks`.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-${CHECK_NAME:-check}.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pass() { echo "ok: $*"; }
# verify WHAT COMMAND...: passes when COMMAND succeeds, else fails naming WHAT.
verify() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
# remove_scratch_unless_failed RC: for an EXIT trap: the scratch directory removed when RC is 0, no
# check failed and KEEP_SCRATCH is unset; else kept, and named.
remove_scratch_unless_failed() {
  if [[ $1 -eq 0 && $failures -eq 0 && -z ${KEEP_SCRATCH:-} ]]; then
    rm -rf "$scratch"
  else
    echo "scratch directory kept: $scratch" >&2
  fi
}
finish_checks() {
  if [[ $failures -ne 0 ]]; then
    echo "$failures check(s) FAILED" >&2
    exit 1
  fi
  echo "all $1 checks passed"
}
