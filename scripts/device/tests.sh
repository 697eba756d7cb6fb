# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# tests: the CUDA tests, quickstart and paper Table 1 (pageable and pinned) on CUDA.
# The CUDA GoogleTest suite (both test programs, every compiled backend), then configs/quickstart.yaml
# and configs/paper_table1.yaml through `miniapp run`, each run's rows in summary.txt.
device_start
cuda_tests
log "== quickstart on CUDA"
.carry/cuda/miniapp run configs/quickstart.yaml --output-dir "$W/run-quickstart" > "$W/quickstart.txt" 2>&1
log "quickstart exit $?"; case_rows "$W/quickstart.txt" | tee -a "$sum"
log "== paper Table 1 on CUDA"
.carry/cuda/miniapp run configs/paper_table1.yaml --output-dir "$W/paper_table1-cuda" > "$W/table1.txt" 2>&1
log "table1 exit $?"; case_rows "$W/table1.txt" | tee -a "$sum"
.carry/cuda/miniapp run configs/paper_table1.yaml --set pinned=true \
  --output-dir "$W/paper_table1-cuda-pinned" > "$W/table1-pinned.txt" 2>&1
log "table1 pinned exit $?"
save
