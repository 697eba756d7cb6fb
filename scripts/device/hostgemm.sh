# shellcheck shell=bash
# hostgemm: the host GEMM on the host's cores alone (no GPU program runs).
# lscpu, then host tiled_rb (every shape) and OpenBLAS at 1024 and 2048, float32 and float64, with
# $HOST_THREADS (default 16) threads ($HOST_SIZES: other sizes), OMP_PROC_BIND=spread and
# OMP_PLACES=cores, through miniapp-bench and through `miniapp run` (tests/gpu/hostgemm.yaml), on the
# carried OpenMP build for this CPU's level: .carry/gpuhost (preset gpuhost, x86-64-v4) where the CPU
# has AVX-512, else .carry/gpuhost-v3 (preset gpuhost-v3, x86-64-v3); summary.txt gives each ratio
# to OpenBLAS and run against bench. .carry/cuda may be absent. About 2-3 minutes.
device_start
host_gemm
save
