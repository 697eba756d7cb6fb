#pragma once
// SIGUSR1 asks the run to stop after the case it is running (the case completes and keeps its
// row); the stop signals of run/stop_signals.hpp stop it after the current repetition instead. A
// batch job's script forwards it when Slurm warns that the time limit is near (`#SBATCH --signal`,
// docs/jobs.md "Resuming"): the job's time margin is sized so that the longest case can finish.
// srun forwards SIGUSR1 to its tasks and Open MPI's mpirun to every rank.
namespace miniapp {

void install_stop_after_case_handler();
bool stop_after_case_requested();
// Forgets a request that was honoured (the driver's tests run several experiments in one process).
void reset_stop_after_case();

} // namespace miniapp
