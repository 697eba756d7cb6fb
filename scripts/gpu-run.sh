#!/usr/bin/env bash
# One device-machine run: check the carried CUDA build runs, validate on CUDA, benchmark, and
# leave everything under $OUT (summary.txt last). Used through the device tool, in the source
# tree's root:
#   scripts/gpu-run.sh [MODE]   (default all: tests, then bench; --help lists the modes)
# Each mode is one file, scripts/device/<mode>.sh, whose second line says what it runs. This
# script sources scripts/device/lib.sh (the host's level, the run's start and end, the helpers the modes are
# built from), then the mode's file, which starts the run (device_start) unless it needs
# none (cpu-level), then ends the run (summary.txt packed and printed).
# Expects .carry/cuda (the CUDA build's programs; optionally .carry/gpuhost and .carry/gpuhost-v3,
# OpenMP builds: scripts/pack-gpu-carry.sh, or --host for those alone) and
# .carry/lib.tar.xz holding the shared libraries the GPU machine lacks (scripts/pack-gpu-carry.sh).
set -uo pipefail
device_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/device

usage() {
  echo "usage: scripts/gpu-run.sh [MODE]   (default all)"
  echo "modes (scripts/device/<mode>.sh):"
  local f
  for f in "$device_dir"/*.sh; do
    [ "$(basename "$f")" = lib.sh ] && continue
    printf '  %s\n' "$(sed -n '2s/^# //p' "$f")"
  done
}

mode=${1:-all}
if [ "$mode" = -h ] || [ "$mode" = --help ]; then
  usage
  exit 0
fi
# A mode is the name of a file beside lib.sh: a word of a-z, 0-9 and '-', never a path.
if [[ ! $mode =~ ^[a-z0-9-]+$ ]] || [ "$mode" = lib ] || [ ! -f "$device_dir/$mode.sh" ]; then
  echo "scripts/gpu-run.sh: no mode '$mode'" >&2
  usage >&2
  exit 2
fi
# shellcheck source=scripts/device/lib.sh
source "$device_dir/lib.sh"
# shellcheck source=/dev/null # one of scripts/device/*.sh
source "$device_dir/$mode.sh"
[ -z "${DEVICE_STARTED:-}" ] || device_finish
