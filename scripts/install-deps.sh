#!/usr/bin/env bash
# Installs the project's build and test dependencies from Debian's packages, by name.
# Idempotent and quiet when everything is already there.
#   scripts/install-deps.sh            # the packages every build needs
#   scripts/install-deps.sh --gpu      # plus hipcc for the HIP compile-only build
#   scripts/install-deps.sh --slurm    # plus a Slurm + munge for the scheduler tests
#   scripts/install-deps.sh --fuzz     # plus clang with libFuzzer for the fuzz preset
set -euo pipefail

packages=(build-essential cmake ninja-build git ca-certificates xz-utils patch
  libopenmpi-dev openmpi-bin libyaml-cpp-dev libbenchmark-dev libbenchmark-tools
  libgtest-dev libcli11-dev nlohmann-json3-dev libopenblas-dev libhwloc-dev pkg-config
  libsqlite3-dev python3-matplotlib python3-scipy python3-jsonschema python3-yaml help2man
  shellcheck chromium ccache)
# ccache: every preset compiles through it (cmake/CompilerCache.cmake).
# python3-scipy: Google Benchmark's compare.py (libbenchmark-tools) imports it.
# python3-jsonschema, python3-yaml: the config schema test validates configs/ against `miniapp schema`.
# help2man: the miniapp(1) man page, generated from --help at build time.
# chromium: the report test (label report) renders `miniapp report`'s page headless.
# libhwloc-dev: the CPU topology and process binding recorded in results.json.
# libsqlite3-dev: the results history database (miniapp db, history, run --db).
for arg in "$@"; do
  case "$arg" in
    --gpu) packages+=(hipcc libamdhip64-dev) ;;
    --slurm) packages+=(slurm-wlm munge) ;;
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    *) echo "install-deps.sh: unknown option '$arg' (known: --gpu, --slurm, --fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  grep -q "install ok installed" < <(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=sudo; else
    echo "install-deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
else SUDO=; fi
echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
