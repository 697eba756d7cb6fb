#pragma once
// The one place miniapp reads its environment (`grep env::value` lists every variable):
//   launchers and Slurm: OMPI_COMM_WORLD_*, PMI_*, PMIX_*, SLURM_PROCID, SLURM_STEP_NUM_TASKS,
//     the scheduler's job id (jobs/scheduler.hpp: SLURM_JOB_ID, run directory names),
//     SLURM_JOB_PARTITION (autotune cache key);
//   Kokkos device choice: KOKKOS_DEVICE_ID, KOKKOS_NUM_DEVICES, KOKKOS_MAP_DEVICE_ID_BY;
//   miniapp's own: MINIAPP_FAULT (fault injection), MINIAPP_MPI_STALL_TIMEOUT (bounded MPI
//     waits), MINIAPP_CACHE_DIR (autotune cache),
//     MINIAPP_SYSTEMS_DIR (system profiles), MINIAPP_PLOT_SCRIPT; and HOME, TMPDIR.
// results.json records the environment the run saw (results/metadata.cpp).
namespace miniapp::env {

// The variable's value, or nullptr when it is not set.
const char* value(const char* name);

} // namespace miniapp::env
