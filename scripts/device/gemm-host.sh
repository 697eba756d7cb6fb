# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# gemm-host: racecheck over team scratch, then host tiled_rb against OpenBLAS.
# Racecheck over the team-scratch kernels, then host tiled_rb against OpenBLAS and host axpby flat
# run against bench on .carry/gpuhost (an OpenMP build).
device_start
export PATH="$PATH:/usr/local/cuda/bin"
racecheck 300
save
if [ -x .carry/gpuhost/miniapp-bench ]; then
  log "== host ($(nproc) threads, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}): tests/gpu/hostgemm.yaml against OpenBLAS"
  .carry/gpuhost/miniapp-bench --miniapp-config=tests/gpu/hostgemm.yaml --miniapp-set 'cases.0.n=[1024,2048]' \
    --benchmark_min_time=0.2 --benchmark_out="$W/host-bench.json" --benchmark_out_format=json \
    > "$W/host-bench.txt" 2>&1
  log "host gemm bench exit $?"
  bench_rows "$W/host-bench.json" 60 | tee -a "$sum"
  save
  log "== host configs/quickstart.yaml: miniapp run (twice) against miniapp-bench --miniapp-config (twice)"
  for i in 1 2; do
    .carry/gpuhost/miniapp run configs/quickstart.yaml --output-dir "$W/host-quickstart-$i" \
      > "$W/host-quickstart-$i.txt" 2>&1
    case_rows "$W/host-quickstart-$i.txt" | tee -a "$sum"
    .carry/gpuhost/miniapp-bench --miniapp-config=configs/quickstart.yaml --benchmark_min_time=0.2 \
      --benchmark_out="$W/host-bench-quickstart-$i.json" --benchmark_out_format=json \
      > "$W/host-bench-quickstart-$i.txt" 2>&1
    bench_rows "$W/host-bench-quickstart-$i.json" 60 | tee -a "$sum"
  done
  save
fi
