#include "kernels/executor.hpp"

namespace miniapp {
namespace {

class KernelExecutor final : public Executor {
public:
  KernelExecutor(const Case& c, const std::string& backend, const Block& b)
      : local_(c), k_(make_kernel_case(c, backend, b)) {
    if (b.rows >= 0)
      local_.m = b.rows;
    if (b.cols >= 0)
      local_.n = b.cols;
  }
  Work local_work() const override { return k_->work(); }
  Case local_case() const override { return local_; }
  void reset_inputs() override { k_->reset_inputs(); }
  void upload() override { k_->upload(); }
  RepTimes run() override {
    k_->run();
    return {};
  }
  void fence() override { k_->fence(); }
  void poison() override { k_->poison(); }
  void download() override { k_->download(); }
  Validation validate(double rtol) override { return k_->validate(rtol); }
  bool transfers_are_copies() const override { return k_->transfers_are_copies(); }
  void print(std::ostream& os) const override { k_->print(os); }
  LaunchChoice launch_choice() const override { return k_->launch_choice(); }

private:
  Case local_;
  std::unique_ptr<KernelCase> k_;
};

} // namespace

std::unique_ptr<Executor> kernel_executor(const Case& c, const std::string& backend,
                                          const Block& block) {
  return std::make_unique<KernelExecutor>(c, backend, block);
}

} // namespace miniapp
