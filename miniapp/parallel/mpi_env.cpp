#include "parallel/mpi_env.hpp"

#include <cstdlib>
#include <iostream>

#ifdef MINIAPP_HAVE_MPI
#include <mpi.h>
#endif

namespace miniapp {

MpiEnv::MpiEnv(int& argc, char**& argv) {
#ifdef MINIAPP_HAVE_MPI
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
  MPI_Comm_free(&local);
#else
  (void)argc;
  (void)argv;
#endif
}

MpiEnv::~MpiEnv() {
#ifdef MINIAPP_HAVE_MPI
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_here_ && !finalized) MPI_Finalize();
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

void MpiEnv::abort_all(int code, const std::string& message) const {
  std::cerr << "miniapp: rank " << rank_ << ": " << message << std::endl;
#ifdef MINIAPP_HAVE_MPI
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

} // namespace miniapp
