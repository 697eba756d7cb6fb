#!/usr/bin/env bash
# (one device call; a copy of the script this call ran)
set -uo pipefail
export TESTS='*Timing*:*Driver*:*Rounds*:*Energy*' NO_RACECHECK=1 NO_HOST=1
xz -d .carry/cuda/miniapp-tests.xz 2>/dev/null; chmod +x .carry/cuda/* 2>/dev/null
timeout 420 scripts/gpu-run.sh targets > /tmp/targets.log 2>&1
echo "targets exit $?" >> /tmp/targets.log
mkdir -p "$OUT/t" && cp /tmp/gpurun/summary.txt "$OUT/t/" ; tar -C /tmp -czf "$OUT/gpurun.tar.gz" gpurun
cat /tmp/gpurun/summary.txt | tail -40
