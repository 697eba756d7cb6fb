#include "parallel/transport.hpp"

#include <stdexcept>

namespace miniapp::parallel {

const char* to_string(Transport t) {
  switch (t) {
  case Transport::host:
    return "host";
  case Transport::device_mpi:
    return "device_mpi";
  case Transport::device_ipc:
    return "device_ipc";
  }
  return "host";
}

TransportChoice choose_transport(const std::string& requested, const TransportFacts& f) {
  const bool ipc = f.ipc_capable && f.one_node;
  if (requested == "host")
    return {Transport::host, ""};
  if (requested == "device_ipc") {
    if (ipc)
      return {Transport::device_ipc, ""};
    return {Transport::host,
            !f.ipc_capable
                ? "mpi.transport device_ipc needs the cuda or hip backend (GPU IPC); use auto or "
                  "host"
                : "mpi.transport device_ipc needs every rank on one node (GPU IPC does not "
                  "reach other nodes); use auto or host"};
  }
  if (requested == "device_mpi") {
    if (f.mpi_device_memory)
      return {Transport::device_mpi, ""};
    return {Transport::host,
            "mpi.transport device_mpi needs the cuda backend and a CUDA-aware MPI "
            "(this MPI reports no device memory support: MPIX_Query_cuda_support); "
            "use auto or host"};
  }
  if (requested != "auto")
    throw std::invalid_argument("unknown mpi.transport '" + requested + "'");
  if (ipc && f.ipc_by_default)
    return {Transport::device_ipc, ""};
  return {f.mpi_device_memory ? Transport::device_mpi : Transport::host, ""};
}

} // namespace miniapp::parallel
