#!/usr/bin/env bash
set -uo pipefail
W=/tmp/w; rm -rf $W; mkdir -p $W; S=$W/power-summary.txt
save() { tar -C /tmp -cJf "$OUT/w.tar.xz" w; cp $S "$OUT/power-summary.txt"; }
log() { echo "$*" | tee -a $S; }
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH=/tmp/carry/lib:/usr/local/cuda/lib64 PATH=$PATH:/usr/local/cuda/bin
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader)"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 100 > $W/smi.csv 2>&1 &
smi=$!
for w in 2 200; do
cat > $W/p$w.yaml <<Y
name: power_w$w
backend: auto
warmup: $w
repetitions: 20
validation:
  enabled: true
output:
  formats: [json]
cases:
  - family: matmul
    variant: tiled_rb
    precision: [float64, float32]
    tile: 128
    n: 4096
Y
done
for r in 1 2; do for w in 2 200; do
  log "== run warmup $w round $r $(date -u +%T.%N | cut -c1-12)"
  .carry/cuda/miniapp run $W/p$w.yaml --output-dir $W/run-$w-$r > $W/run-$w-$r.txt 2>&1
  python3 -c "
import json
for r in json.load(open('$W/run-$w-$r/results.json'))['results']:
    print('  ', r['case_id'], 'median %.3f ms'%(r['time_median_s']*1e3), 'min %.3f max %.3f'%(r['time_min_s']*1e3, r['time_max_s']*1e3), '%.1f%% of %s'%(r['pct_of_ceiling'], r['ceiling']), 'W', r.get('power_w'))
" >> $S 2>&1
  log "== bench warmup $w round $r $(date -u +%T.%N | cut -c1-12)"
  .carry/cuda/miniapp-bench --miniapp-config=$W/p$w.yaml --benchmark_min_time=0.2 --benchmark_repetitions=3 \
    --benchmark_out=$W/bench-$w-$r.json --benchmark_out_format=json > $W/bench-$w-$r.txt 2>&1
  python3 -c "
import json
for b in json.load(open('$W/bench-$w-$r.json'))['benchmarks']:
    print('  ', b['name'].replace('/manual_time',''), b.get('aggregate_name','rep'), '%.3f ms'%b['real_time'], b.get('pct_of_ceiling'))
" >> $S 2>&1
  save
done; done
kill $smi; save
