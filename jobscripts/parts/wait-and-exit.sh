if [[ -n $LAUNCHER_PID ]]; then
  if [[ $TIME_LIMIT_NEAR == 1 ]]; then kill -USR1 "$LAUNCHER_PID" 2>/dev/null || true; fi
  # wait returns early (status above 128) when the trap ran: wait again while the launcher lives.
  while wait "$LAUNCHER_PID"; status=$?; [[ $status -gt 128 ]] && kill -0 "$LAUNCHER_PID" 2>/dev/null; do :; done
  if [[ $status == 0 ]] && ! grep -qx 0 "$EXIT_STATUS_FILE" 2>/dev/null; then
    echo "miniapp-job: the launcher exited 0, but miniapp's rank 0 never said how the run ended: the tasks did not all start (see the launcher's messages above)" >&2
    status=3
  fi
  rm -f "$EXIT_STATUS_FILE"
  if [[ $TIME_LIMIT_NEAR == 1 && $status == $((128 + 10)) ]]; then
    # SIGUSR1 ends a process that has not set its handler: the warning came while the launcher
    # was still starting the tasks (seen under load: srun took over 30 s), so no case ran.
    echo "miniapp-job: the time-limit warning (USR1) reached a rank before miniapp had started: no case of this job ran" >&2
    status=3
  elif ((status > 128 && status < 160)); then
    # The signal in the launcher's status need not be the one the rank died of: a rank SIGKILLed
    # on the local cluster once left srun's status at 143, the TERM it then sent the other rank
    # (CI, 2026-11-30). So name neither rank here: srun's lines above say which died of what.
    echo "miniapp-job: a rank was ended by a signal and the launcher ended the others (the launcher's status: signal $((status - 128)), $(kill -l "$((status - 128))" 2>/dev/null || echo ?)); its lines above name the node and task (rank) of each and how it ended" >&2
    status=3
  fi
fi
if [[ $TIME_LIMIT_NEAR == 1 && $status == 3 ]]; then
  echo "miniapp-job: stopped before the time limit; the cases that ran are kept${OUTPUT_DIR:+ in $OUTPUT_DIR}"
  if [[ -n $OUTPUT_DIR ]]; then echo "miniapp-job: submit this script again (sbatch) to run the remaining cases"; fi
  echo "miniapp-job: waiting for the time limit, so that Slurm records the job as TIMEOUT"
  sleep "$((STOP_MARGIN_S + 300))" &
  wait $! || true
fi

case "$status" in
0) echo "miniapp-job: done (exit 0): every case ran, none failed validation" ;;
2) echo "miniapp-job: FAILED: config or usage error (exit 2), see the messages above" >&2 ;;
3) echo "miniapp-job: FAILED: runtime or resource error (exit 3)" >&2 ;;
4) echo "miniapp-job: FAILED: result validation failed (exit 4), rows marked invalid" >&2 ;;
*) echo "miniapp-job: FAILED: the launcher exited with $status" >&2 ;;
esac
exit "$status"
