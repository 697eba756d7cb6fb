# shellcheck shell=bash disable=SC2154 # $sum: lib.sh's device_start sets it
# energy: the NVML energy counter, each case's joules and watts, checked against nvidia-smi.
# The NVML energy counter's step and update interval (polled in a tight loop, outside miniapp),
# quickstart and tests/gpu/gemm.yaml on CUDA with each case's joules and watts, two cases lasting
# over a second (tests/gpu/energy_long*.yaml) against nvidia-smi's power reading sampled meanwhile
# (within 15% expected), a host-backend run (why its energy is null).
# Each row of run directory $1: case, median time, rate, joules per launch, watts, rate per watt,
# the window, and the note where energy is null.
energy_rows() {
  python3 "$DEVICE_DIR/energy_rows.py" "$1" | tee -a "$sum"
}
device_start
export PATH="$PATH:/usr/local/cuda/bin"
log "== miniapp info (each backend's energy counter, characterised at start)"
grep -E "^  [a-z]+:|energy counter" "$W/info.txt" | tee -a "$sum"
log "== NVML energy counter polled in a tight loop for 3 s, idle (python ctypes, outside miniapp)"
python3 "$DEVICE_DIR/nvml_energy_counter.py" 2>&1 | tee -a "$sum"
for cfg in configs/quickstart.yaml tests/gpu/gemm.yaml; do
  name=$(basename "$cfg" .yaml)
  .carry/cuda/miniapp run "$cfg" --output-dir "$W/$name-cuda" > "$W/$name.txt" 2>&1
  log "== $name on CUDA: exit $? (time, rate, J per launch, W, rate per W, window)"
  energy_rows "$W/$name-cuda"
  save
done
log "== cases over 1 s: the run's power_w against nvidia-smi (power.draw and power.draw.instant)"
q=timestamp,power.draw,power.draw.instant,utilization.gpu
nvidia-smi --query-gpu=$q --format=csv,noheader,nounits > /dev/null 2>&1 || q=timestamp,power.draw,power.draw,utilization.gpu
for cfg in tests/gpu/energy_long.yaml tests/gpu/energy_long_axpby.yaml; do
  name=$(basename "$cfg" .yaml)
  nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -lms 50 > "$W/$name-smi.csv" 2>&1 &
  smi=$!
  sleep 1
  .carry/cuda/miniapp run "$cfg" --output-dir "$W/$name-cuda" > "$W/$name.txt" 2>&1
  log "== $name: exit $?"
  sleep 0.3; kill "$smi"; wait "$smi" 2>/dev/null
  energy_rows "$W/$name-cuda"
  python3 "$DEVICE_DIR/energy_against_smi.py" "$W/$name-cuda" "$W/$name-smi.csv" | tee -a "$sum"
  save
done
log "== host backend (serial) quickstart at 512: energy recorded as null with the reason"
.carry/cuda/miniapp run configs/quickstart.yaml --set backend=serial --set cases.0.n=512 \
  --output-dir "$W/quickstart-serial" > "$W/quickstart-serial.txt" 2>&1
log "serial quickstart exit $?"
energy_rows "$W/quickstart-serial"
save
