#!/usr/bin/env bash
# One launch of the float32 tiled transpose at tile 32 (32 x 4 threads) and tile 64 (64 x 4), at
# 4096 and 8192, under ncu: its duration, how long the SMs were busy within it (the share of the
# launch the last teams leave SMs idle), DRAM bytes and occupancy. Run on the GPU machine from the
# repository root with the CUDA build carried (scripts/pack-gpu-carry.sh); writes to $OUT.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
m=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_active.min
m=$m,sm__cycles_active.max,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
m=$m,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size
m=$m,launch__block_size,sm__ctas_launched.sum,sm__ctas_launched.max,sm__ctas_launched.min
for tile in 32 64; do
  for n in 4096 8192; do
    timeout 100 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-count 1 --metrics "$m" \
      .carry/cuda/miniapp run tests/gpu/profile_transpose.yaml --set cases.0.tile="$tile" \
      --set cases.0.n="$n" --output-dir "/tmp/tail-$tile-$n" > "$OUT/ncu-tile$tile-$n.txt" 2>&1
    echo "== tile $tile, $n: exit $?"
    grep -E "gpu__|sm__|dram__|launch__" "$OUT/ncu-tile$tile-$n.txt" | sed 's/  */ /g'
  done
done
