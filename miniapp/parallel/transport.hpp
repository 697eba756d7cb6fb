#pragma once
// How SUMMA's panels move between ranks (config key mpi.transport; docs/mpi.md, "Transports").
// A pure choice from facts about the backend, the MPI library and where the ranks run, so it can
// be tested without MPI or GPUs; process_grid.cpp gathers the facts.
#include <string>

namespace miniapp::parallel {

enum class Transport {
  host,       // MPI on host memory: staged device -> host -> MPI -> host -> device on GPUs
  device_mpi, // a CUDA-aware MPI takes the device buffers themselves
  device_ipc, // CUDA/HIP IPC: receivers copy the owner's device buffer over NVLink/PCIe/xGMI;
              // MPI only syncs
};

const char* to_string(Transport t);

struct TransportFacts {
  bool ipc_capable = false;       // the backend's buffers can be shared by IPC (cuda, hip)
  bool ipc_by_default = false;    // auto may pick IPC: cuda, where it ran; HIP IPC only compiles
                                  // here (no AMD GPU ran it), so HIP takes it only when asked
  bool mpi_device_memory = false; // the MPI library accepts device pointers (CUDA-aware)
  bool one_node = false;          // every rank runs on this node (IPC reaches only these)
};

struct TransportChoice {
  Transport transport = Transport::host;
  std::string unavailable; // non-empty: the requested transport cannot be used here, and why
};

// requested: "auto", "host", "device_mpi" or "device_ipc" (config.cpp accepts nothing else).
// auto prefers IPC, then a CUDA-aware MPI, then host staging; a forced transport that cannot
// work here comes back with `unavailable` saying why.
TransportChoice choose_transport(const std::string& requested, const TransportFacts& f);

} // namespace miniapp::parallel
