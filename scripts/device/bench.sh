# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# bench: miniapp-bench on CUDA (streams, GEMM, ceilings, launch) and on the host cores.
# tests/gpu/bench_stream.yaml and bench_gemm.yaml through miniapp-bench --miniapp-config on CUDA,
# the ceiling and launch benchmarks, then (with .carry/gpuhost) tests/gpu/bench_host_stream.yaml and
# bench_host_gemm.yaml on the host's cores (OpenMP).
device_start
log "== miniapp-bench on CUDA"
for cfg in tests/gpu/bench_stream.yaml tests/gpu/bench_gemm.yaml; do
  tag=$(basename "$cfg" .yaml)
  cuda_bench "$tag-cuda" 0.1 --miniapp-config="$cfg"
  bench_rows "$W/$tag-cuda.json" >> "$sum"
  save
done
cuda_bench ceilings-cuda 0.1 --benchmark_filter='^(ceiling|launch)/'
bench_rows "$W/ceilings-cuda.json" >> "$sum"
save
if [ -x .carry/gpuhost/miniapp-bench ]; then
  log "== miniapp-bench on the host (OpenMP, $(nproc) threads, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto})"
  .carry/gpuhost/miniapp-bench --benchmark_min_time=0.1 --miniapp-config=tests/gpu/bench_host_stream.yaml \
    --benchmark_out="$W/bench-openmp-stream.json" --benchmark_out_format=json > "$W/bench-openmp.txt" 2>&1
  log "host stream bench exit $?"
  .carry/gpuhost/miniapp-bench --benchmark_min_time=0.1 --miniapp-config=tests/gpu/bench_host_gemm.yaml \
    --benchmark_out="$W/bench-openmp-gemm.json" --benchmark_out_format=json >> "$W/bench-openmp.txt" 2>&1
  log "host gemm bench exit $?"
  bench_rows "$W/bench-openmp-stream.json" >> "$sum"
  bench_rows "$W/bench-openmp-gemm.json" >> "$sum"
  save
fi
