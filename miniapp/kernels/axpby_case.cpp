// The axpby family as a KernelCase: R = a*A + b*B, out of place or in place (A = a*A + b*B).
#include "kernels/axpby.hpp"
#include "kernels/case_support.hpp"
#include "kernels/family_cases.hpp"
#include "core/backends.hpp"

#include <cmath>

namespace miniapp::kernels {
namespace {

template <class Exec, class T>
class AxpbyCase final : public KernelCase {
public:
  AxpbyCase(const Case& c, const Block& blk)
      : c_(c), blk_(blk), m_(blk.rows < 0 ? c.m : blk.rows), n_(blk.cols < 0 ? c.n : blk.cols),
        A_("miniapp::axpby::A", m_, n_, c.pinned), B_("miniapp::axpby::B", m_, n_, c.pinned) {
    if (!c.in_place)
      R_ = DualMatrix<T, Exec>("miniapp::axpby::R", m_, n_, c.pinned);
    fill_input(A_.h, c, 0, c.a_values, blk.row0, blk.col0, c.n);
    fill_input(B_.h, c, 1, c.b_values, blk.row0, blk.col0, c.n);
    a0_ = to_double(A_.h);
  }
  std::string label() const override { return "miniapp::axpby::" + c_.variant; }
  // The paper's counts: 3 operations and 3 element transfers (12 bytes in float32) per element.
  Work work() const override {
    const double elems = double(m_) * double(n_);
    return {3.0 * elems, 3.0 * double(sizeof(T)) * elems};
  }
  void upload() override {
    A_.upload();
    B_.upload();
  }
  void reset_inputs() override { // in place overwrote A: restore it from the generated values
    if (!c_.in_place)
      return;
    for (std::int64_t i = 0; i < m_; ++i)
      for (std::int64_t j = 0; j < n_; ++j)
        A_.h(i, j) = T(a0_[i * n_ + j]);
  }
  void fence() override { exec_.fence(); }
  void run() override {
    const auto& R = c_.in_place ? A_.d : R_.d;
    const T a = T(c_.alpha), b = T(c_.beta);
    if (c_.variant == "flat")
      axpby_flat(exec_, a, A_.d, b, B_.d, R);
    else if (c_.variant == "mdrange")
      axpby_mdrange(exec_, a, A_.d, b, B_.d, R);
    else
      axpby_team(exec_, a, A_.d, b, B_.d, R, c_.team_size);
  }
  void poison() override {
    if (c_.in_place)
      return; // the output is the input; unwritten elements keep A's old value
    Kokkos::deep_copy(R_.d, poison_value<T>());
    Kokkos::deep_copy(R_.h, poison_value<T>());
  }
  void download() override { (c_.in_place ? A_ : R_).download(); }
  bool transfers_are_copies() const override { return !DualMatrix<T, Exec>::zero_copy; }
  Validation validate(double rtol) override {
    const auto b = to_double(B_.h);
    const double a_ = double(T(c_.alpha)), b_ = double(T(c_.beta));
    std::vector<double> ref(a0_.size()), scale(a0_.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      ref[i] = a_ * a0_[i] + b_ * b[i];
      scale[i] = std::fabs(a_ * a0_[i]) + std::fabs(b_ * b[i]);
    }
    // Two roundings of products and one of the sum: 3u, plus one for the order of evaluation.
    const double tol = rtol > 0 ? rtol : 4 * unit_roundoff<T>();
    return compare(c_.in_place ? A_.h : R_.h, ref, scale, tol, blk_.row0, blk_.col0);
  }
  std::vector<double> result() const override { return to_double(c_.in_place ? A_.h : R_.h); }
  void print(std::ostream& os) const override {
    print_matrix(os, c_.in_place ? "A = a*A + b*B" : "R = a*A + b*B", c_.in_place ? A_.h : R_.h);
  }

private:
  Case c_;
  Block blk_;
  std::int64_t m_, n_; // this block's extent
  Exec exec_;
  DualMatrix<T, Exec> A_, B_, R_;
  std::vector<double> a0_;
};

} // namespace

std::unique_ptr<KernelCase> make_axpby_case(const Case& c, const std::string& backend,
                                            const Block& block) {
  return with_backend(backend, [&](auto exec) {
    return with_precision(c.precision, [&](auto value) -> std::unique_ptr<KernelCase> {
      return std::make_unique<AxpbyCase<decltype(exec), decltype(value)>>(c, block);
    });
  });
}

} // namespace miniapp::kernels
