#pragma once
// The cost model of SUMMA as implemented (parallel/summa.hpp; docs/mpi.md, "Model"): the time of
// one distributed product on a P x Q grid from the rates of the machine, so a distributed case can
// be judged before it runs (`miniapp validate --ranks N --rates ...`) and a panel width chosen.
// Plain arithmetic: no MPI, no device, so it is tested on any machine.
//
// Per panel s (width w_s, never crossing an owner's block, as SUMMA cuts them):
//   t_c(s) = 2 rows cols w_s / F  (+ 3 rows cols e / HBM for C += T, every panel but the first)
//   t_x(s) = packing + the A broadcast along the process row + the B broadcast along the column
//            (+ device <-> host staging of the panels that travel on the host transport: one
//            copy of each on a rank, D2H on the owner or H2D on a receiver, in series with MPI)
// and the pipeline overlaps the product of panel s with the transfer of panel s+1:
//   T = t_x(0) + sum_{s < S-1} max(t_c(s), t_x(s+1)) + t_c(S-1).
// A broadcast among ranks on several nodes goes over the network (the node's bandwidth shared by
// its ranks, which all broadcast at once) and then inside each node; ranks are placed in order,
// gpus_per_node consecutive ranks per node, so a process row fills nodes first.
#include "parallel/transport.hpp"
#include "plan/grid.hpp"
#include "plan/plan.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace miniapp::parallel {

struct Link {
  double bandwidth = 0; // bytes/s
  double latency = 0;   // s per message
};

enum class BroadcastAlgorithm {
  pipelined, // scatter + allgather (large messages in Open MPI and MPICH): 2 (p-1)/p bytes / beta
  tree,      // binomial tree: ceil(log2 p) whole messages
};

// The machine, as measured (one-rank run, peer copy, MPI) or stated (the network).
struct MachineRates {
  double gemm_flops = 0; // the local product's rate on one device, flop/s (the one-rank run's)
  double hbm = 0;        // device memory bandwidth for packing and C += T, bytes/s (0: not counted)
  Link ipc;              // a peer copy between two devices of a node (device_ipc)
  Link node;             // MPI between two ranks of a node on the transport's buffers
  Link network;          // per node, shared by its ranks (ranks on several nodes)
  double staging = 0;    // device <-> host copy rate, bytes/s (transport host)
  int gpus_per_node = 1; // ranks per node
  BroadcastAlgorithm broadcast = BroadcastAlgorithm::pipelined;
};

// Parses `key=value` items (validate --rates): gemm_tflops, hbm_gbs, ipc_gbs, ipc_us, node_gbs,
// node_us, net_gbs (per node), net_us, staging_gbs, gpus_per_node, bcast (pipelined | tree).
// Throws std::invalid_argument naming the item when a key is unknown or a value is not a positive
// number (zero allowed for latencies).
MachineRates parse_rates(const std::vector<std::string>& items);
extern const char* const kRatesHelp; // the keys, for --help

// The broadcast of `bytes` among `ranks` ranks over one link (0 when ranks <= 1).
double broadcast_time(double bytes, int ranks, const Link& link, BroadcastAlgorithm a);

struct SummaProblem {
  GridShape grid;
  std::int64_t m = 0, n = 0, k = 0;
  int panel = kDefaultPanel;
  int element_bytes = 4;
  Transport transport = Transport::device_ipc; // device_ipc on several nodes is modelled as
                                               // device_mpi, what `auto` picks there
};

struct SummaPrediction {
  double time = 0;       // one product, s
  double ideal = 0;      // the one-device time of the whole product / ranks, s
  double efficiency = 0; // ideal / time
  double compute = 0;    // sum of t_c, s
  double exposed = 0;    // time - compute, s
  double transfer = 0;   // t_x of a full-width panel, s
  int panels = 0;
  int nodes = 1;
  std::string missing; // non-empty: the rate this prediction needs and was not given
};

SummaPrediction predict_summa(const SummaProblem& p, const MachineRates& r);

// The panel width among 128, 256, ..., 8192 (at most k) with the highest predicted efficiency.
int recommend_panel(SummaProblem p, const MachineRates& r);

// The problem of a matmul case on the plan's grid, with the plan's panel width and the transport
// mpi.transport asks for (auto: device_ipc, which the model takes as device_mpi across nodes).
SummaProblem summa_problem(const Case& c, const Plan& plan);

// One line per distributed matmul case of the plan: predicted time, efficiency, exposed time,
// and the recommended panel width with its efficiency (`validate --ranks N --rates ...`).
void print_summa_model(std::ostream& os, const Plan& plan, const MachineRates& r);

} // namespace miniapp::parallel
