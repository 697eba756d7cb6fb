/* The link between two nodes as MPI carries SUMMA's panels
 * (scripts/maintainer/cluster-network-term.sh): series of 8 MPI_Ibcast + MPI_Wait between two
 * ranks, back to back as SUMMA's pipeline posts them (one in flight at a time; the root the first
 * rank for 4, then the other, as the owner of a 1x2 grid's A panels changes half-way along k), at
 * 256 KiB, 1 MiB and 4 MiB; each size's time a message is the median of 5 series (the slower
 * rank's) over 8; then t = alpha + bytes / beta fitted by least squares. Prints JSON on rank 0:
 * {"sizes": [...], "median_s": [...], "alpha_us": A, "beta_gbs": B}.
 *   mpicc -O2 -o mpi_bcast_probe mpi_bcast_probe.c; srun --nodes 2 --ntasks-per-node 1
 * ./mpi_bcast_probe */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  enum { kSizes = 3, kReps = 5, kSeries = 8 };
  const long sizes[kSizes] = {262144, 1048576, 4194304};
  double median[kSizes];
  char* buf = calloc(4194304, 1);
  for (int s = 0; s < kSizes; ++s) {
    double times[kReps];
    for (int r = -1; r < kReps; ++r) { /* r = -1: a first series, not counted */
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < kSeries; ++i) {
        MPI_Request q;
        MPI_Ibcast(buf, (int)sizes[s], MPI_BYTE, i < kSeries / 2 ? 0 : 1, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }
      double t = (MPI_Wtime() - t0) / kSeries, slowest = 0;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r >= 0)
        times[r] = slowest;
    }
    qsort(times, kReps, sizeof times[0], by_value);
    median[s] = times[kReps / 2];
  }
  if (rank == 0) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int s = 0; s < kSizes; ++s) {
      sx += sizes[s];
      sy += median[s];
      sxx += (double)sizes[s] * sizes[s];
      sxy += sizes[s] * median[s];
    }
    const double slope = (kSizes * sxy - sx * sy) / (kSizes * sxx - sx * sx);
    const double alpha = (sy - slope * sx) / kSizes;
    printf("{\"sizes\": [%ld, %ld, %ld], \"median_s\": [%.6f, %.6f, %.6f], \"alpha_us\": %.1f, "
           "\"beta_gbs\": %.6f}\n",
           sizes[0], sizes[1], sizes[2], median[0], median[1], median[2], alpha * 1e6,
           1 / slope / 1e9);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
