#!/usr/bin/env bash
# KOKKOS_TOOLS_LIBS (Kokkos 4's name, which every Kokkos tools guide uses) loads a tools library
# whichever Kokkos miniapp is built with: the test tool records the quickstart's axpby kernels
# (labels miniapp::axpby::<variant>) and its per-case regions (miniapp::case::<case id>).
#   check_tools_env.sh MINIAPP TOOL_LIBRARY SOURCE_DIR
set -euo pipefail
miniapp=$1 tool=$2 src=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/miniapp-tools.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset KOKKOS_PROFILE_LIBRARY
KOKKOS_TOOLS_LIBS=$tool MINIAPP_TOOL_LOG=$work/log \
  "$miniapp" run "$src/configs/quickstart.yaml" --set cases.0.n=256 --output-dir "$work/run" --quiet
for want in "init library" "kernel miniapp::axpby::flat" "kernel miniapp::axpby::team" \
  "region miniapp::case::axpby/flat/float32/256x256/a=2,b=0.5" "finalize library"; do
  grep -qxF "$want" "$work/log" || {
    echo "check_tools_env: the tool did not record '$want'; it recorded:" >&2
    sort -u "$work/log" | head -20 >&2
    exit 1
  }
done
echo "check_tools_env: ok ($(wc -l <"$work/log") records)"
