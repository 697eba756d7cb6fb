#include "parallel/mpi_env.hpp"
#include "core/device_info.hpp"
#include "core/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#ifdef MINIAPP_HAVE_MPI
#include "parallel/stall_watch.hpp"

#include <mpi.h>
#endif

namespace miniapp {

namespace {
// The rank count launchers announce: Open MPI, MPICH/Hydra (PMI), PMIx, MVAPICH, Slurm's srun.
const char* const kLauncherSizeVars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                         "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"};
const char* const kLauncherRankVars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                         "MV2_COMM_WORLD_RANK"};
} // namespace

bool MpiEnv::launched_by_mpi() {
  for (const char* v : kLauncherRankVars)
    if (env::value(v))
      return true;
  // srun sets SLURM_PROCID in every step task; the batch script itself has no step task count.
  return env::value("SLURM_PROCID") && env::value("SLURM_STEP_NUM_TASKS");
}

int MpiEnv::launcher_ranks() {
  for (const char* v : kLauncherSizeVars)
    if (const char* s = env::value(v))
      return std::atoi(s) > 0 ? std::atoi(s) : 0;
  return 0;
}

int MpiEnv::launcher_rank() {
  for (const char* v : kLauncherRankVars)
    if (const char* s = env::value(v))
      return std::atoi(s);
  if (launched_by_mpi())
    if (const char* s = env::value("SLURM_PROCID"))
      return std::atoi(s);
  return 0;
}

MpiEnv::MpiEnv(int& argc, char**& argv, bool start) : hosts_{host_name()} {
#ifdef MINIAPP_HAVE_MPI
  if (!start)
    return;
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    initialized_here_ = true;
  }
  // Errors come back as codes, so a failing rank can report and abort the job instead of hanging.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  gather_hosts();
  parallel::set_stall_ranks(this, hosts_);
#else
  (void)argc;
  (void)argv;
  (void)start;
#endif
}

void MpiEnv::gather_hosts() {
#ifdef MINIAPP_HAVE_MPI
  // Fixed-width slots: a Linux host name is at most 64 bytes; a longer one is cut, not overrun.
  constexpr int kSlot = 256;
  std::vector<char> mine(kSlot, '\0'), all(std::size_t(kSlot) * std::size_t(size_), '\0');
  hosts_.front().copy(mine.data(), kSlot - 1);
  MPI_Request r = MPI_REQUEST_NULL;
  if (MPI_Iallgather(mine.data(), kSlot, MPI_CHAR, all.data(), kSlot, MPI_CHAR, MPI_COMM_WORLD,
                     &r) != MPI_SUCCESS ||
      complete(r, -1, "the start-up's exchange of host names") != MPI_SUCCESS)
    return; // the run's own collectives report a broken MPI; this list stays this rank's
  hosts_.clear();
  for (int r = 0; r < size_; ++r)
    hosts_.emplace_back(all.data() + std::size_t(r) * kSlot);
#endif
}

#ifdef MINIAPP_HAVE_MPI
int MpiEnv::complete(MPI_Request& request, int root, const std::string& what) const {
  std::vector<MPI_Request> one{request};
  try {
    const int rc = parallel::wait_bounded(one, {{MPI_COMM_WORLD, root}}, what);
    request = one.front();
    return rc;
  } catch (const parallel::MpiStall& e) {
    parallel::abort_stalled(e);
  }
}
#endif

MpiEnv::~MpiEnv() {
#ifdef MINIAPP_HAVE_MPI
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_here_ && !finalized)
    MPI_Finalize();
#endif
}

bool MpiEnv::enabled() {
#ifdef MINIAPP_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::string MpiEnv::library() const {
#ifdef MINIAPP_HAVE_MPI
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, len);
  const auto nl = s.find_first_of("\n,");
  return s.substr(0, nl);
#else
  return "none (built without MPI)";
#endif
}

std::string MpiEnv::broadcast(const std::string& text, int root) const {
#ifdef MINIAPP_HAVE_MPI
  if (size_ > 1) {
    unsigned long long len = text.size();
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Ibcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD, &r);
    complete(r, root, "a broadcast from rank " + std::to_string(root));
    std::string out = rank_ == root ? text : std::string(len, '\0');
    // Chunks keep each count within an int.
    for (unsigned long long off = 0; off < len; off += 1u << 30) {
      const int n = int(std::min<unsigned long long>(len - off, 1u << 30));
      MPI_Ibcast(&out[off], n, MPI_CHAR, root, MPI_COMM_WORLD, &r);
      complete(r, root, "a broadcast from rank " + std::to_string(root));
    }
    return out;
  }
#endif
  (void)root;
  return text;
}

MpiEnv::Outcome MpiEnv::agree(int code, const std::string& message) const {
  Outcome o;
  o.code = code;
  o.rank = rank_;
  o.everyone = true;
  o.message = message;
#ifdef MINIAPP_HAVE_MPI
  if (size_ > 1) {
    // MAXLOC on (code, rank) gives the worst code and, among ties, the lowest rank.
    struct {
      int code, rank;
    } in{code, rank_}, out{0, 0};
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Iallreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD, &r);
    complete(r, -1, "the ranks' agreement on how a phase went");
    int lowest = 0;
    MPI_Iallreduce(&code, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r);
    complete(r, -1, "the ranks' agreement on how a phase went");
    o.code = out.code;
    o.rank = out.rank;
    o.everyone = lowest == out.code;
    o.message = o.code ? broadcast(message, o.rank) : std::string();
  }
#endif
  return o;
}

void MpiEnv::reduce(std::vector<double>& values, Op op) const {
#ifdef MINIAPP_HAVE_MPI
  if (size_ > 1 && !values.empty()) {
    const MPI_Op mop = op == Op::min ? MPI_MIN : op == Op::max ? MPI_MAX : MPI_SUM;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Iallreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, mop, MPI_COMM_WORLD,
                   &r);
    complete(r, -1, "a reduction over the ranks");
  }
#else
  (void)values;
  (void)op;
#endif
}

void MpiEnv::abort_all(int code, const std::string& message) const {
  // One write for the whole line: written piece by piece, mpirun forwarded "miniapp: rank " and
  // then its own MPI_ABORT banner before the rest (mpi_fault_pipeline failed so, once in a suite).
  const std::string line = "miniapp: rank " + std::to_string(rank_) + ": " + message + "\n";
  std::cerr << line << std::flush;
#ifdef MINIAPP_HAVE_MPI
  if (size_ > 1)
    MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

} // namespace miniapp
