#pragma once
// MPI start-up and the facts about it the rest of the program needs. Without MPI (or without
// MINIAPP_ENABLE_MPI) this is a single rank.
#include <string>
#include <vector>

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

  // Collectives over every rank; with one rank (or without MPI) they return their input.
  // Text of `root`, on every rank.
  std::string broadcast(const std::string& text, int root = 0) const;
  // After a phase every rank says how it went (0 = fine, higher = worse, e.g. an exit code);
  // all learn the worst status, the lowest rank that had it, whether every rank had it, and
  // that rank's message. This is how one rank's failure stops all of them without a hang.
  struct Outcome {
    int code = 0;
    int rank = 0;
    bool everyone = false;
    std::string message;
  };
  Outcome agree(int code, const std::string& message) const;
  enum class Op { min, max, sum };
  double reduce(double value, Op op) const;
  void reduce(std::vector<double>& values, Op op) const; // element by element, in place

private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialized_here_ = false;
};

} // namespace miniapp
