# A requeued or resubmitted job resumes its results directory: only the cases it lacks run.
DIR_ARGS=()
if [[ -n $OUTPUT_DIR && -e $OUTPUT_DIR/results.json ]]; then
  DIR_ARGS=(--resume "$OUTPUT_DIR")
  echo "miniapp-job: resuming the run in $OUTPUT_DIR"
elif [[ -n $OUTPUT_DIR ]]; then
  DIR_ARGS=(--output-dir "$OUTPUT_DIR")
fi

# Slurm's SIGUSR1 (time limit near) goes to this shell only: the run is asked to stop after its
# current case (srun and mpirun forward SIGUSR1 to every rank). The launcher runs in the
# background so that the trap runs at once, not when the launcher has ended.
TIME_LIMIT_NEAR=0
LAUNCHER_PID=
# shellcheck disable=SC2317 # run by the trap
on_time_limit_near() {
  TIME_LIMIT_NEAR=1
  echo "miniapp-job: time limit in about ${STOP_MARGIN_S} s: the run stops after its current case"
  if [[ -n $LAUNCHER_PID ]]; then kill -USR1 "$LAUNCHER_PID" 2>/dev/null || true; fi
}
trap on_time_limit_near USR1
status=0

# Rank 0 writes how the run ended here (miniapp reads MINIAPP_EXIT_STATUS_FILE): Slurm 22.05's
# srun exits 0 when the step's tasks never launched, so the launcher's 0 alone is no success.
EXIT_STATUS_FILE=$PWD/.miniapp-job-${SLURM_JOB_ID}.status
rm -f "$EXIT_STATUS_FILE" # a requeued job keeps its id
export MINIAPP_EXIT_STATUS_FILE=$EXIT_STATUS_FILE
