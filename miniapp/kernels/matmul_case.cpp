// The matmul family as a KernelCase: flat, tiled, tiled_rb and vendor on any backend and type.
#include "kernels/case_support.hpp"
#include "kernels/family_cases.hpp"
#include "kernels/matmul_product.hpp"
#include "kernels/vendor_blas.hpp"
#include "core/backends.hpp"

#include <cmath>
#include <thread>

namespace miniapp::kernels {
namespace {

template <class Exec, class T>
class MatmulCase final : public KernelCase {
public:
  explicit MatmulCase(const Case& c)
      : c_(c), A_("miniapp::matmul::A", c.m, c.k, c.pinned),
        B_("miniapp::matmul::B", c.k, c.n, c.pinned), C_("miniapp::matmul::C", c.m, c.n, c.pinned) {
    check_matmul_product<Exec, T>(c);
    fill_input(A_.h, c, 0, c.a_values);
    fill_input(B_.h, c, 1, c.b_values);
  }
  std::string label() const override { return "miniapp::matmul::" + c_.variant; }
  Work work() const override {
    return {2.0 * double(c_.m) * double(c_.n) * double(c_.k),
            double(sizeof(T)) * double(c_.m * c_.k + c_.k * c_.n + c_.m * c_.n)};
  }
  void upload() override {
    A_.upload();
    B_.upload();
  }
  void fence() override { exec_.fence(); }
  void run() override { ran_ = matmul_product<Exec, T>(exec_, c_, c_.tile, A_.d, B_.d, C_.d); }
  LaunchChoice launch_choice() const override { return ran_; }
  void poison() override {
    Kokkos::deep_copy(C_.d, poison_value<T>());
    Kokkos::deep_copy(C_.h, poison_value<T>());
  }
  void download() override { C_.download(); }
  bool transfers_are_copies() const override { return !DualMatrix<T, Exec>::zero_copy; }
  Validation validate(double rtol) override {
    // Reference in float64 (exact for the small integers used); the bound per element is
    // tol * (|A||B|)(i,j), with tol = (K + 2) u: the classic worst case of a K-term dot product.
    const auto a = to_double(A_.h), b = to_double(B_.h);
    std::vector<double> ref(c_.m * c_.n), scale(c_.m * c_.n);
    const int threads = int(std::thread::hardware_concurrency());
    host_gemm(a.data(), b.data(), ref.data(), c_.m, c_.n, c_.k, threads);
    std::vector<double> abs_a(a.size()), abs_b(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      abs_a[i] = std::fabs(a[i]);
    for (size_t i = 0; i < b.size(); ++i)
      abs_b[i] = std::fabs(b[i]);
    host_gemm(abs_a.data(), abs_b.data(), scale.data(), c_.m, c_.n, c_.k, threads);
    const double tol = rtol > 0 ? rtol : double(c_.k + 2) * unit_roundoff<T>();
    return compare(C_.h, ref, scale, tol);
  }
  std::vector<double> result() const override { return to_double(C_.h); }
  void print(std::ostream& os) const override {
    print_matrix(os, "A", A_.h);
    print_matrix(os, "B", B_.h);
    print_matrix(os, "C = A * B", C_.h);
  }

private:
  Case c_;
  Exec exec_;
  DualMatrix<T, Exec> A_, B_, C_;
  LaunchChoice ran_;
};

} // namespace

std::unique_ptr<KernelCase> make_matmul_case(const Case& c, const std::string& backend,
                                             const Block&) {
  return with_backend(backend, [&](auto exec) {
    return with_precision(c.precision, [&](auto value) -> std::unique_ptr<KernelCase> {
      return std::make_unique<MatmulCase<decltype(exec), decltype(value)>>(c);
    });
  });
}

} // namespace miniapp::kernels
