#pragma once
// The P x Q process grid over MPI_COMM_WORLD (MPI builds only): rank r sits at row r / Q,
// column r % Q; one communicator per process row (SUMMA broadcasts A's panels along it) and one
// per process column (B's panels).
#include "parallel/transport.hpp"
#include "plan/grid.hpp"

#include <mpi.h>

#include <cstdint>
#include <type_traits>

namespace miniapp::parallel {

class ProcessGrid {
public:
  explicit ProcessGrid(GridShape shape);
  ~ProcessGrid();
  ProcessGrid(const ProcessGrid&) = delete;
  ProcessGrid& operator=(const ProcessGrid&) = delete;

  GridShape shape() const { return shape_; }
  int rank() const { return rank_; }
  int row() const { return rank_ / shape_.q; }
  int col() const { return rank_ % shape_.q; }
  int node_ranks() const { return node_ranks_; }         // ranks sharing this rank's node
  bool one_node() const { return node_ranks_ == size_; } // the same answer on every rank
  MPI_Comm row_comm() const { return row_; }             // rank within it = col()
  MPI_Comm col_comm() const { return col_; }             // rank within it = row()

private:
  GridShape shape_;
  int rank_ = 0, size_ = 1, node_ranks_ = 1;
  MPI_Comm row_ = MPI_COMM_NULL, col_ = MPI_COMM_NULL;
};

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else
    return MPI_INT32_T;
}

// Whether MPI may be handed device pointers of `backend` (a CUDA-aware Open MPI says so through
// MPIX_Query_cuda_support). Otherwise transfers are staged through host buffers.
bool mpi_accepts_device_memory(const std::string& backend);

// SUMMA's transport for `requested` (mpi.transport) on this backend, MPI library and grid.
// one_node: every rank on one node (ProcessGrid::one_node, MpiEnv::one_node).
TransportChoice summa_transport(const std::string& requested, const std::string& backend,
                                bool one_node);

} // namespace miniapp::parallel
