# shellcheck shell=bash
# cpu-level: the host's x86-64 level and OPENBLAS_CORETYPE, printed; nothing else runs.
# Nothing is started on the device machine: the carried build is not needed (tests/tools/gpu_run_cpu_level.sh).
echo "${CPU_LEVEL:-below x86-64-v3} OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-}"
