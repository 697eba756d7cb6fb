#pragma once
// MPI start-up and the facts about it the rest of the program needs. Without MPI (or without
// MINIAPP_ENABLE_MPI) this is a single rank.
#include <string>

namespace miniapp {

class MpiEnv {
public:
  MpiEnv(int& argc, char**& argv);
  ~MpiEnv();
  MpiEnv(const MpiEnv&) = delete;
  MpiEnv& operator=(const MpiEnv&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  std::string library() const;
  // Ends every rank with code (MPI_Abort when there are several), after printing message.
  [[noreturn]] void abort_all(int code, const std::string& message) const;
  static bool enabled();

private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialized_here_ = false;
};

} // namespace miniapp
