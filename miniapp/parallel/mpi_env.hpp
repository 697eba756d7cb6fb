#pragma once
// MPI start-up and the facts about it the rest of the program needs. Without MPI (or without
// MINIAPP_ENABLE_MPI), or when not asked to start it, this is a single rank.
// MPI starts only where it is needed (run and validate launched by mpiexec/srun): a singleton
// MPI_Init spawns Open MPI's daemon (about 1 s) and, with no ssh/rsh on PATH, prints a page of
// errors, which `miniapp --version` or `compare` must not do.
#include "core/communicator.hpp"

#include <string>
#include <vector>

#ifdef MINIAPP_HAVE_MPI
#include <mpi.h>
#endif

namespace miniapp {

class MpiEnv final : public Communicator {
public:
  // start = false: no MPI call at all (rank 0 of 1), library() excepted.
  MpiEnv(int& argc, char**& argv, bool start);
  ~MpiEnv();
  MpiEnv(const MpiEnv&) = delete;
  MpiEnv& operator=(const MpiEnv&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const { return local_rank_; }
  bool one_node() const { return local_size_ == size_; } // every rank shares this rank's node
  std::string library() const;
  // Each rank's host name (core/device_info.hpp's host_name()), in rank order, gathered once at
  // start-up: where the ranks ran, for results.json (metadata.mpi_hosts).
  const std::vector<std::string>& hosts() const { return hosts_; }
  // Ends every rank with code (MPI_Abort when there are several), after printing message.
  [[noreturn]] void abort_all(int code, const std::string& message) const override;
  static bool enabled();
  // Whether an MPI launcher started this process (mpiexec, srun, a PMI/PMIx process manager),
  // read from the variables launchers set; and the rank count it announces (0 = none).
  static bool launched_by_mpi();
  static int launcher_ranks();
  static int launcher_rank(); // this process's rank as the launcher says (0 = none)

  // Collectives over every rank (core/communicator.hpp); with one rank (or without MPI) they
  // return their input.
  std::string broadcast(const std::string& text, int root = 0) const override;
  using Outcome = miniapp::Outcome;
  Outcome agree(int code, const std::string& message) const override;
  using Op = ReduceOp;
  using Communicator::reduce;
  void reduce(std::vector<double>& values, Op op) const override;

private:
  void gather_hosts();
#ifdef MINIAPP_HAVE_MPI
  // Completes one collective request within the stall limit (parallel/stall_watch.hpp); a stall
  // ends every rank. root: the broadcast's root, or -1.
  int complete(MPI_Request& request, int root, const std::string& what) const;
#endif
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool initialized_here_ = false;
  std::vector<std::string> hosts_;
};

} // namespace miniapp
