// The transpose family as a KernelCase: B = A^T for an m x n row-major A (B is n x m).
#include "kernels/transpose_case.hpp"

#include "kernels/case_support.hpp"
#include "kernels/transpose.hpp"
#include "core/size_math.hpp"
#include "core/backends.hpp"

namespace miniapp::kernels {
namespace {

template <class Exec, class T>
class TransposeCase final : public KernelCase {
public:
  TransposeCase(const Case& c, int tile, int pad)
      : c_(c), tile_(tile), pad_(pad), A_("miniapp::transpose::A", c.m, c.n, c.pinned),
        B_("miniapp::transpose::B", c.n, c.m, c.pinned) {
    fill_input(A_.h, c, 0, c.a_values);
  }
  std::string label() const override { return "miniapp::transpose::" + c_.variant; }
  // No arithmetic; A read once and B written once, the minimum any transpose moves. Its ceiling
  // is therefore the device's copy bandwidth.
  Work work() const override {
    return {0.0, 2.0 * double(sizeof(T)) * double(c_.m) * double(c_.n)};
  }
  void upload() override { A_.upload(); }
  void fence() override { exec_.fence(); }
  void run() override {
    if (c_.variant == "flat")
      transpose_flat(exec_, A_.d, B_.d);
    else
      transpose_tiled(exec_, A_.d, B_.d, tile_, pad_, c_.team_size);
  }
  void poison() override {
    Kokkos::deep_copy(B_.d, poison_value<T>());
    Kokkos::deep_copy(B_.h, poison_value<T>());
  }
  void download() override { B_.download(); }
  bool transfers_are_copies() const override { return !DualMatrix<T, Exec>::zero_copy; }
  // Exact whatever rtol says: a transpose moves values, so any difference is a bad element.
  Validation validate(double /*rtol*/) override { return validate_transpose(A_.h, B_.h); }
  std::vector<double> result() const override { return to_double(B_.h); }
  void print(std::ostream& os) const override {
    print_matrix(os, "A", A_.h);
    print_matrix(os, "B = A^T", B_.h);
  }

private:
  Case c_;
  int tile_, pad_; // tiled only
  Exec exec_;
  DualMatrix<T, Exec> A_, B_;
};

// Columns of padding on each row of the tiled variant's scratch tile.
int scratch_pad(const Case& c) {
  return int(c.table_param("pad")); // resolved by the plan (the case-field table's default: 1)
}

// The checks make_transpose_case promises, for one backend and element type.
template <class Exec, class T>
int checked_tile(const Case& c, const Block& block) {
  const bool whole = block.row0 == 0 && block.col0 == 0 && (block.rows < 0 || block.rows == c.m) &&
                     (block.cols < 0 || block.cols == c.n);
  if (!whole)
    throw UnsupportedCase("transpose runs on one rank only: it cannot run on a block of the "
                          "matrix (a rank's block of A is not a block of B)");
  if (c.variant != "flat" && c.variant != "tiled")
    throw UnsupportedCase("transpose has no variant '" + c.variant + "' (flat, tiled)");
  if (c.variant == "flat")
    return 0;
  const int tile = c.tile; // resolved by the plan from the family table
  if (tile < kTransposeTileMin || tile > kTransposeTileMax)
    throw UnsupportedCase("transpose tiled needs a tile width between " +
                          std::to_string(kTransposeTileMin) + " and " +
                          std::to_string(kTransposeTileMax) + ", got " + std::to_string(tile));
  try {
    check_scratch<Kokkos::TeamPolicy<Exec>>("miniapp::transpose::tiled",
                                            transpose_tile_bytes<T>(tile, scratch_pad(c)));
  } catch (const LaunchError& e) { // the same message, as the error type the runner expects
    throw ResourceError(std::string(e.what()) + " (tile " + std::to_string(tile) + ", " +
                        to_string(c.precision) + ")");
  }
  return tile;
}

} // namespace

std::unique_ptr<KernelCase> make_transpose_case(const Case& c, const std::string& backend,
                                                const Block& block) {
  return with_backend(backend, [&](auto exec) {
    return with_precision(c.precision, [&](auto value) -> std::unique_ptr<KernelCase> {
      using Exec = decltype(exec);
      using T = decltype(value);
      const int tile = checked_tile<Exec, T>(c, block);
      return std::make_unique<TransposeCase<Exec, T>>(c, tile, scratch_pad(c));
    });
  });
}

} // namespace miniapp::kernels
