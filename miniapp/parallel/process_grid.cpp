#include "parallel/process_grid.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

namespace miniapp::parallel {

ProcessGrid::ProcessGrid(GridShape shape) : shape_(shape) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_split(MPI_COMM_WORLD, row(), col(), &row_);
  MPI_Comm_split(MPI_COMM_WORLD, col(), row(), &col_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_ranks_);
  MPI_Comm_free(&node);
}

ProcessGrid::~ProcessGrid() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return;
  if (row_ != MPI_COMM_NULL)
    MPI_Comm_free(&row_);
  if (col_ != MPI_COMM_NULL)
    MPI_Comm_free(&col_);
}

bool mpi_accepts_device_memory(const std::string& backend) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  if (backend == "cuda")
    return MPIX_Query_cuda_support() == 1;
#endif
  (void)backend;
  return false;
}

TransportChoice summa_transport(const std::string& requested, const std::string& backend,
                                bool one_node) {
  TransportFacts f;
  f.ipc_capable = backend == "cuda" || backend == "hip";
  f.ipc_by_default = backend == "cuda";
  f.mpi_device_memory = mpi_accepts_device_memory(backend);
  f.one_node = one_node;
  return choose_transport(requested, f);
}

} // namespace miniapp::parallel
