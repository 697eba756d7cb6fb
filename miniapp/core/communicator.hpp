#pragma once
// What the run driver (run/driver.hpp) needs from the ranks it runs on: who am I, how many are
// we, agree on how a phase went, reduce numbers, pass rank 0's text on, end everyone. The driver
// is written once against this; SingleRank below runs it in one process without MPI, and
// MpiEnv (parallel/mpi_env.hpp) over MPI_COMM_WORLD.
// Depends on nothing but the standard library, so the MPI layer can implement it (this header
// belongs to the core layer, like core/timing.hpp).
#include <string>
#include <vector>

namespace miniapp {

// How a phase went over all ranks: the worst status (0 = fine, higher = worse, e.g. an exit
// code), the lowest rank that had it, whether every rank had it, and that rank's message.
struct Outcome {
  int code = 0;
  int rank = 0;
  bool everyone = false;
  std::string message;
};

enum class ReduceOp { min, max, sum };

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Collective: every rank calls it after a phase; this is how one rank's failure stops all of
  // them without a hang.
  virtual Outcome agree(int code, const std::string& message) const = 0;
  // Collective, element by element, in place.
  virtual void reduce(std::vector<double>& values, ReduceOp op) const = 0;
  double reduce(double value, ReduceOp op) const {
    std::vector<double> v{value};
    reduce(v, op);
    return v[0];
  }
  // Collective: root's text on every rank.
  virtual std::string broadcast(const std::string& text, int root = 0) const = 0;
  // Ends every rank with `code` after printing `message` (named by this rank); for a failure
  // inside collectives, where the other ranks cannot be asked to agree.
  [[noreturn]] virtual void abort_all(int code, const std::string& message) const = 0;
};

// One process, no MPI: every collective returns its input.
class SingleRank final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Outcome agree(int code, const std::string& message) const override {
    return {code, 0, true, message};
  }
  using Communicator::reduce;
  void reduce(std::vector<double>&, ReduceOp) const override {}
  std::string broadcast(const std::string& text, int) const override { return text; }
  [[noreturn]] void abort_all(int code, const std::string& message) const override;
};

} // namespace miniapp
