#!/usr/bin/env bash
# Where tiled transpose's instructions go (SASS with per-instruction counts), and a
# tile x team_size sweep of the current kernel.
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p /tmp/carry && tar -C /tmp/carry -xJf .carry/lib.tar.xz
export LD_LIBRARY_PATH="/tmp/carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
M=.carry/cuda/miniapp W=/tmp/w; rm -rf $W; mkdir -p $W
save() { tar -C /tmp -czf "$OUT/w.tar.gz" w; }
nvidia-smi -L > $W/gpu.txt; ncu --version >> $W/gpu.txt
cuobjdump -sass $M 2>/dev/null | awk '/Function :/{p = ($0 ~ /transpose_tiled/)} p' > $W/sass-transpose.txt
grep -c "Function :" $W/sass-transpose.txt
save
for p in float32 float64; do
  timeout 70 ncu --kernel-name-base demangled -k regex:TeamPolicy --launch-count 1 \
    --section SourceCounters --section InstructionStats --section SchedulerStats --section WarpStateStats \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    -o $W/tr-$p $M run tests/gpu/profile_transpose.yaml --set cases.0.precision=$p \
    --output-dir $W/r-$p > $W/ncu-$p.txt 2>&1
  echo "ncu $p exit $?"
  ncu -i $W/tr-$p.ncu-rep --page details > $W/details-$p.txt 2>&1
  ncu -i $W/tr-$p.ncu-rep --page source --csv --print-source sass > $W/sass-$p.csv 2>&1
  echo "source page $p exit $? lines $(wc -l < $W/sass-$p.csv)"
  grep -E "Registers Per|Issue Slots|No Eligible|DRAM Through|Duration|inst_executed.sum|Executed Ipc" $W/details-$p.txt
  save
done
timeout 120 $M run tests/gpu/agreement_transpose.yaml --set validation.enabled=false \
  'cases.0.tile=[32,64]' 'cases.0.team_size=[64,128,256,512]' --output-dir $W/sweep > $W/sweep.txt 2>&1
echo "sweep exit $?"; grep -E "^transpose|ceiling" $W/sweep.txt
save
cp $W/sass-float32.csv $W/sass-float64.csv $W/details-float32.txt $OUT/ 2>/dev/null
echo done
