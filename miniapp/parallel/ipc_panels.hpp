#pragma once
// GPU IPC for SUMMA's panel buffers (mpi.transport device_ipc, docs/mpi.md "Transports"): ranks
// on one node open each other's device buffers, so a receiver copies the owner's panel device to
// device (NVLink, xGMI or PCIe peer copy) instead of device -> host -> MPI -> host -> device.
// CUDA (cudaIpc*) and HIP (hipIpc*, the same calls by other names; compiled, never run on an AMD
// GPU) share the code below through the small `gpu` namespace.
// The buffers are cudaMalloc'd / hipMalloc'd here, not Kokkos Views: a View's data pointer lies
// past its allocation record's header, and a handle maps back only the allocation's start.
// Host backends: has_ipc<Exec> is false and nothing here is called.
#include "core/compat.hpp"

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
#if defined(KOKKOS_ENABLE_CUDA)
template <>
inline constexpr bool has_ipc<Kokkos::Cuda> = true;
#elif defined(KOKKOS_ENABLE_HIP)
template <>
inline constexpr bool has_ipc<compat::Hip> = true;
#endif

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
// The runtime calls IPC needs, by the same names for CUDA and HIP (hipIpc* mirrors cudaIpc*).
namespace gpu {
#ifdef KOKKOS_ENABLE_CUDA
using Error = cudaError_t;
using IpcMemHandle = cudaIpcMemHandle_t;
inline constexpr Error kSuccess = cudaSuccess;
inline constexpr unsigned kLazyPeerAccess = cudaIpcMemLazyEnablePeerAccess;
inline constexpr const char* kApi = "CUDA IPC";
inline Error malloc(void** p, std::size_t bytes) {
  return cudaMalloc(p, bytes);
}
inline Error free(void* p) {
  return cudaFree(p);
}
inline Error get_handle(IpcMemHandle* h, void* p) {
  return cudaIpcGetMemHandle(h, p);
}
inline Error open_handle(void** p, IpcMemHandle h) {
  return cudaIpcOpenMemHandle(p, h, kLazyPeerAccess);
}
inline Error close_handle(void* p) {
  return cudaIpcCloseMemHandle(p);
}
inline const char* error_string(Error rc) {
  return cudaGetErrorString(rc);
}
#else
using Error = hipError_t;
using IpcMemHandle = hipIpcMemHandle_t;
inline constexpr Error kSuccess = hipSuccess;
inline constexpr unsigned kLazyPeerAccess = hipIpcMemLazyEnablePeerAccess;
inline constexpr const char* kApi = "HIP IPC";
inline Error malloc(void** p, std::size_t bytes) {
  return hipMalloc(p, bytes);
}
inline Error free(void* p) {
  return hipFree(p);
}
inline Error get_handle(IpcMemHandle* h, void* p) {
  return hipIpcGetMemHandle(h, p);
}
inline Error open_handle(void** p, IpcMemHandle h) {
  return hipIpcOpenMemHandle(p, h, kLazyPeerAccess);
}
inline Error close_handle(void* p) {
  return hipIpcCloseMemHandle(p);
}
inline const char* error_string(Error rc) {
  return hipGetErrorString(rc);
}
#endif
} // namespace gpu

namespace ipc_detail {
inline void check(gpu::Error rc, const char* what) {
  if (rc != gpu::kSuccess)
    throw std::runtime_error(std::string(what) + " failed (resource: " + gpu::kApi +
                             "): " + gpu::error_string(rc));
}
} // namespace ipc_detail

// Device memory this rank can share.
inline std::shared_ptr<void> allocate_shareable(std::size_t bytes) {
  void* p = nullptr;
  ipc_detail::check(gpu::malloc(&p, bytes == 0 ? 1 : bytes), "device allocation of a SUMMA panel");
  // A release cannot report an error (it runs in a destructor); HIP's error type is nodiscard.
  return std::shared_ptr<void>(p, [](void* q) { (void)gpu::free(q); });
}

// The buffers of every rank of `comm`, opened in this process: peer(r, i) is rank r's buffer i
// (this rank's own for r == its rank). Collective over comm (MPI_Allgather of the handles).
class IpcPeers {
public:
  IpcPeers(MPI_Comm comm, const std::vector<void*>& mine) : n_(int(mine.size())) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<gpu::IpcMemHandle> local(mine.size()), all(mine.size() * std::size_t(size));
    for (std::size_t i = 0; i < mine.size(); ++i)
      ipc_detail::check(gpu::get_handle(&local[i], mine[i]), "getting an IPC memory handle");
    const int bytes = int(sizeof(gpu::IpcMemHandle) * mine.size());
    if (MPI_Allgather(local.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm) !=
        MPI_SUCCESS)
      throw std::runtime_error(std::string("MPI_Allgather of ") + gpu::kApi +
                               " handles failed (resource: network)");
    ptrs_.resize(all.size());
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n_; ++i) {
        void*& p = ptrs_[std::size_t(r * n_ + i)];
        if (r == rank) {
          p = mine[std::size_t(i)];
          continue;
        }
        ipc_detail::check(gpu::open_handle(&p, all[std::size_t(r * n_ + i)]),
                          "opening a peer's IPC memory handle");
        opened_.push_back(p);
      }
  }
  ~IpcPeers() {
    for (void* p : opened_)
      (void)gpu::close_handle(p); // nothing to do about a failed close in a destructor
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
  throw std::logic_error("GPU IPC in a build without CUDA or HIP");
}
class IpcPeers {
public:
  IpcPeers(MPI_Comm, const std::vector<void*>&) {
    throw std::logic_error("GPU IPC in a build without CUDA or HIP");
  }
  void* peer(int, int) const { return nullptr; }
};
#endif

} // namespace miniapp::parallel
