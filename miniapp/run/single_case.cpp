#include "run/driver.hpp"

#include <stdexcept>

namespace miniapp {

namespace {

// Keeps the rows, writes nothing.
class Discard final : public ResultSink {
public:
  void open(const RunSetup&) override {}
  void add(const CaseResult&) override {}
  void update(std::size_t, const CaseResult&) override {}
  void revise(std::size_t, const CaseResult&) override {}
  void finish(bool) override {}
  void failed() noexcept override {}
};

// Ceilings are not measured.
struct NoCeilings final : CeilingProvider {
  void attach(CaseResult&, const std::string&) override {}
};

} // namespace

CaseResult run_case(const Case& c, const config::Settings& s, const std::string& backend) {
  Plan plan;
  plan.settings = s;
  plan.backend = backend;
  plan.cases = {c};
  Discard sink;
  NoCeilings ceilings;
  RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, DriverOptions{});
  if (out.results.empty())
    throw std::runtime_error("the run of " + c.id() + " ended before the case");
  return out.results.front();
}

} // namespace miniapp
