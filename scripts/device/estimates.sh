# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# estimates: each shipped config's time estimate against its run, on the CUDA build (issue 41).
# tests/tools/check_estimates.py --passes 2 on .carry/cuda/miniapp, from an empty calibration (the
# first pass records it, the second is judged), over CONFIGS (default configs/strong_scaling.yaml
# and configs/weak_scaling.yaml: the cluster-sized configs, hours on a 2-core host, about a minute
# here). About 3 minutes on an H200.
device_start
log "== tests/tools/check_estimates.py --passes 2 (CUDA build, empty calibration)"
rm -rf "$W/estimates-cache"
# shellcheck disable=SC2086 # CONFIGS is a list of paths
MINIAPP_CACHE_DIR="$W/estimates-cache" timeout 500 python3 tests/tools/check_estimates.py \
  --miniapp .carry/cuda/miniapp --passes 2 --max-seconds 900 \
  ${CONFIGS:-configs/strong_scaling.yaml configs/weak_scaling.yaml} 2>&1 | tee -a "$sum"
log "check_estimates exit ${PIPESTATUS[0]}"
