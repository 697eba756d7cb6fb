#!/bin/bash
# Shared by the job-script checks: a scratch directory removed at exit, and pass/fail counting.
# Sourced; the caller ends with `finish_checks`.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-${CHECK_NAME:-check}.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pass() { echo "ok: $*"; }
finish_checks() {
  if [[ $failures -ne 0 ]]; then
    echo "$failures check(s) FAILED" >&2
    exit 1
  fi
  echo "all $1 checks passed"
}
