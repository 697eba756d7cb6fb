#!/usr/bin/env bash
# Everything a fresh Debian machine needs, in one idempotent step: Debian packages, Kokkos 3.4.01
# (built once per machine into ~/.cache/miniapp unless -DKokkos_ROOT names one), then configure
# and build a CMake preset.
#   scripts/setup.sh [PRESET]      PRESET: openmp (default), serial, cuda, hip, debug
set -euo pipefail
preset=${1:-openmp}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
case "$preset" in
  openmp|serial|debug) deps=(--slurm) ;;
  cuda|hip) deps=(--slurm --gpu) ;;
  *) echo "setup.sh: unknown preset '$preset' (known: openmp, serial, cuda, hip, debug)" >&2; exit 2 ;;
esac
scripts/install-deps.sh "${deps[@]}"
if ! command -v c++ >/dev/null; then
  echo "setup.sh: no C++ compiler found; install Debian's build-essential (scripts/install-deps.sh does)." >&2
  exit 1
fi
log=$(mktemp)
if ! cmake --preset "$preset" >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"
  echo "setup.sh: configuring preset '$preset' failed (see above)." >&2
  exit 1
fi
rm -f "$log"
cmake --build --preset "$preset" -j "$(nproc)"
