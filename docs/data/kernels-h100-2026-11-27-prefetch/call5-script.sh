#!/usr/bin/env bash
set -uo pipefail
W=/tmp/w; rm -rf $W; mkdir -p $W; S=$W/clock-summary.txt
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH=/tmp/carry/lib:/usr/local/cuda/lib64
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)" > $S
cat > $W/clock.yaml <<Y
name: clock
backend: auto
warmup: 2
repetitions: 20
validation:
  enabled: true
output:
  formats: [csv, json]
cases:
  - family: matmul
    variant: tiled_rb
    precision: float64
    tile: 128
    n: 4096
  - family: axpby
    variant: flat
    precision: float32
    n: 4096
Y
.carry/cuda/miniapp run $W/clock.yaml --output-dir $W/run > $W/run.txt 2>&1
echo "run exit $?" >> $S
tail -14 $W/run.txt >> $S
python3 -c "
import json
for r in json.load(open('$W/run/results.json'))['results']:
    print(r['case_id'], 'clock_limit =', repr(r.get('clock_limit')), 'power_w', r.get('power_w'), 'window', r.get('energy_window_s'))
" >> $S 2>&1
head -1 $W/run/results.csv | tr ',' '\n' | tail -2 >> $S
.carry/cuda/miniapp compare --no-pool $W/run $W/run 2>&1 | grep -A8 "## Energy" >> $S
cp $S $OUT/
