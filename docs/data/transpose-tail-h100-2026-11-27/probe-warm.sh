#!/usr/bin/env bash
# As probe.sh, but the profiled launch is the fourth of four identical ones (three warm-up
# launches first), with ncu leaving the caches and the clocks as the chain of launches finds them
# (--cache-control none --clock-control none): what a launch of a chained sample meets.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
m=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,dram__bytes_read.sum
m=$m,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum
m=$m,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpc__cycles_elapsed.avg.per_second
for tile in 32 64; do
  for n in 4096 8192; do
    timeout 100 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-skip 3 --launch-count 1 \
      --cache-control none --clock-control none --metrics "$m" \
      .carry/cuda/miniapp run tests/gpu/profile_transpose.yaml --set warmup=3 --set cases.0.tile="$tile" \
      --set cases.0.n="$n" --output-dir "/tmp/warm-$tile-$n" > "$OUT/ncu-warm-tile$tile-$n.txt" 2>&1
    echo "== tile $tile, $n, warm: exit $?"
    grep -E "gpu__|gpc__|sm__|dram__|lts__|==PROF==|passes" "$OUT/ncu-warm-tile$tile-$n.txt" | sed 's/  */ /g'
  done
done
