// The tile_average family as a KernelCase: the mean of every S x S tile (S = case.tile).
#include "kernels/case_support.hpp"
#include "kernels/family_cases.hpp"
#include "kernels/tile_average.hpp"
#include "core/backends.hpp"

#include <cmath>
#include <stdexcept>

namespace miniapp::kernels {
namespace {

template <class Exec, class T>
class TileAverageCase final : public KernelCase {
public:
  // A block starts on a tile boundary (plan/grid.hpp), so its tiles are the global ones.
  TileAverageCase(const Case& c, const Block& blk)
      : c_(c), S_(c.tile), blk_(blk), m_(blk.rows < 0 ? c.m : blk.rows),
        n_(blk.cols < 0 ? c.n : blk.cols), X_("miniapp::tile_average::X", m_, n_, c.pinned),
        avg_("miniapp::tile_average::avg", (m_ + S_ - 1) / S_, (n_ + S_ - 1) / S_, c.pinned) {
    if (blk.row0 % S_ || blk.col0 % S_)
      throw std::invalid_argument("tile_average block does not start on a tile boundary");
    fill_input(X_.h, c, 0, c.a_values, blk.row0, blk.col0, c.n);
  }
  std::string label() const override { return "miniapp::tile_average::" + c_.variant; }
  // One addition per element, one division per tile; bytes: the matrix read once, the means
  // written.
  Work work() const override {
    const double elems = double(m_) * double(n_), tiles = double(avg_.h.size());
    return {elems + tiles, double(sizeof(T)) * (elems + tiles)};
  }
  void upload() override { X_.upload(); }
  void fence() override { exec_.fence(); }
  void run() override {
    if (c_.variant == "leader")
      tile_average_leader(exec_, X_.d, avg_.d, S_, c_.team_size);
    else
      tile_average_team_reduce(exec_, X_.d, avg_.d, S_, c_.team_size);
  }
  void poison() override {
    Kokkos::deep_copy(avg_.d, poison_value<T>());
    Kokkos::deep_copy(avg_.h, poison_value<T>());
  }
  void download() override { avg_.download(); }
  bool transfers_are_copies() const override { return !DualMatrix<T, Exec>::zero_copy; }
  Validation validate(double rtol) override {
    // Reference: the exact mean in float64 over the elements each tile holds; integers divide
    // with truncation toward zero, as the kernel's int32 arithmetic does.
    const std::int64_t tm = avg_.h.extent(0), tn = avg_.h.extent(1);
    std::vector<double> ref(tm * tn), scale(tm * tn);
    for (std::int64_t ti = 0; ti < tm; ++ti)
      for (std::int64_t tj = 0; tj < tn; ++tj) {
        double sum = 0, abs_sum = 0;
        std::int64_t count = 0;
        for (std::int64_t i = ti * S_; i < std::min<std::int64_t>((ti + 1) * S_, m_); ++i)
          for (std::int64_t j = tj * S_; j < std::min<std::int64_t>((tj + 1) * S_, n_); ++j) {
            sum += double(X_.h(i, j));
            abs_sum += std::fabs(double(X_.h(i, j)));
            ++count;
          }
        ref[ti * tn + tj] =
            std::is_floating_point_v<T> ? sum / double(count) : double(std::int64_t(sum) / count);
        scale[ti * tn + tj] = abs_sum / double(count);
      }
    const double tol = rtol > 0 ? rtol : double(S_ * S_ + 2) * unit_roundoff<T>();
    return compare(avg_.h, ref, scale, tol, blk_.row0 / S_, blk_.col0 / S_);
  }
  std::vector<double> result() const override { return to_double(avg_.h); }
  void print(std::ostream& os) const override {
    print_matrix(os, "tile averages, S=" + std::to_string(S_), avg_.h);
  }

private:
  Case c_;
  int S_;
  Block blk_;
  std::int64_t m_, n_; // this block's extent
  Exec exec_;
  DualMatrix<T, Exec> X_, avg_;
};

} // namespace

std::unique_ptr<KernelCase> make_tile_average_case(const Case& c, const std::string& backend,
                                                   const Block& block) {
  return with_backend(backend, [&](auto exec) {
    return with_precision(c.precision, [&](auto value) -> std::unique_ptr<KernelCase> {
      return std::make_unique<TileAverageCase<decltype(exec), decltype(value)>>(c, block);
    });
  });
}

} // namespace miniapp::kernels
