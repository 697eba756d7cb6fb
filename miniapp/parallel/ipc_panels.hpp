#pragma once
// CUDA IPC for SUMMA's panel buffers (mpi.transport device_ipc, docs/mpi.md "Transports"): ranks
// on one node open each other's device buffers, so a receiver copies the owner's panel device to
// device (NVLink or PCIe peer copy) instead of device -> host -> MPI -> host -> device.
// The buffers are cudaMalloc'd here, not Kokkos Views: a View's data pointer lies past its
// allocation record's header, and a handle maps back only the allocation's start.
// Other backends: has_ipc<Exec> is false and nothing here is called (HIP stays on the host path).
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp::parallel {

template <class Exec>
inline constexpr bool has_ipc = false;
#ifdef KOKKOS_ENABLE_CUDA
template <>
inline constexpr bool has_ipc<Kokkos::Cuda> = true;
#endif

#ifdef KOKKOS_ENABLE_CUDA
namespace ipc_detail {
inline void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess)
    throw std::runtime_error(std::string(what) +
                             " failed (resource: CUDA IPC): " + cudaGetErrorString(rc));
}
} // namespace ipc_detail

// Device memory this rank can share.
inline std::shared_ptr<void> allocate_shareable(std::size_t bytes) {
  void* p = nullptr;
  ipc_detail::check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc of a SUMMA panel");
  return std::shared_ptr<void>(p, [](void* q) { cudaFree(q); });
}

// The buffers of every rank of `comm`, opened in this process: peer(r, i) is rank r's buffer i
// (this rank's own for r == its rank). Collective over comm (MPI_Allgather of the handles).
class IpcPeers {
public:
  IpcPeers(MPI_Comm comm, const std::vector<void*>& mine) : n_(int(mine.size())) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<cudaIpcMemHandle_t> local(mine.size()), all(mine.size() * std::size_t(size));
    for (std::size_t i = 0; i < mine.size(); ++i)
      ipc_detail::check(cudaIpcGetMemHandle(&local[i], mine[i]), "cudaIpcGetMemHandle");
    const int bytes = int(sizeof(cudaIpcMemHandle_t) * mine.size());
    if (MPI_Allgather(local.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm) !=
        MPI_SUCCESS)
      throw std::runtime_error("MPI_Allgather of CUDA IPC handles failed (resource: network)");
    ptrs_.resize(all.size());
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n_; ++i) {
        void*& p = ptrs_[std::size_t(r * n_ + i)];
        if (r == rank) {
          p = mine[std::size_t(i)];
          continue;
        }
        ipc_detail::check(
            cudaIpcOpenMemHandle(&p, all[std::size_t(r * n_ + i)], cudaIpcMemLazyEnablePeerAccess),
            "cudaIpcOpenMemHandle");
        opened_.push_back(p);
      }
  }
  ~IpcPeers() {
    for (void* p : opened_)
      cudaIpcCloseMemHandle(p);
  }
  IpcPeers(const IpcPeers&) = delete;
  IpcPeers& operator=(const IpcPeers&) = delete;

  void* peer(int rank, int i) const { return ptrs_[std::size_t(rank * n_ + i)]; }

private:
  int n_;
  std::vector<void*> ptrs_, opened_;
};
#else
inline std::shared_ptr<void> allocate_shareable(std::size_t) {
  throw std::logic_error("CUDA IPC in a build without CUDA");
}
class IpcPeers {
public:
  IpcPeers(MPI_Comm, const std::vector<void*>&) {
    throw std::logic_error("CUDA IPC in a build without CUDA");
  }
  void* peer(int, int) const { return nullptr; }
};
#endif

} // namespace miniapp::parallel
