// The tile_index family as a KernelCase, and the printer behind `miniapp describe`.
#include "kernels/tile_index_case.hpp"

#include "kernels/case_support.hpp"
#include "kernels/family_cases.hpp"
#include "kernels/tile_index.hpp"
#include "core/backends.hpp"

#include <iomanip>
#include <sstream>

namespace miniapp::kernels {

void print_index_map(std::ostream& os, const IndexMap& map, bool colour) {
  // As the C++ AMP example prints it: four lines per matrix row (value, tile, global, local),
  // neighbouring tiles in alternating colours (red/green) on a terminal.
  const char* colours[2] = {"\033[31m", "\033[32m"};
  auto cell = [&](std::int64_t i, std::int64_t j, const std::string& text) {
    const int parity = int((map.at(i, j, 2) + map.at(i, j, 3)) % 2);
    if (colour)
      os << colours[parity];
    os << std::left << std::setw(15) << text; // the source prints 15-character cells
    if (colour)
      os << "\033[0m";
  };
  for (std::int64_t i = 0; i < map.rows; ++i) {
    for (std::int64_t j = 0; j < map.cols; ++j) {
      std::ostringstream v;
      v << "Value: " << std::setw(2) << i * map.cols + j;
      cell(i, j, v.str());
    }
    os << "\n";
    const char* names[3] = {"Tile:   ", "Global: ", "Local:  "};
    const int field[3] = {2, 0, 4};
    for (int f = 0; f < 3; ++f) {
      for (std::int64_t j = 0; j < map.cols; ++j)
        cell(i, j,
             std::string(names[f]) + "(" + std::to_string(map.at(i, j, field[f])) + "," +
                 std::to_string(map.at(i, j, field[f] + 1)) + ")");
      os << "\n";
    }
    os << "\n";
  }
}

namespace {

template <class Exec>
class TileIndexCase final : public KernelCase {
  using Out = Kokkos::View<int** [6], Kokkos::LayoutRight, typename Exec::memory_space>;

public:
  explicit TileIndexCase(const Case& c)
      : c_(c), tr_(c.tile), tc_(c.tile_cols),
        out_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::tile_index::out"), c.m, c.n),
        host_(Kokkos::create_mirror_view(out_)) {}
  std::string label() const override { return "miniapp::tile_index::team"; }
  Work work() const override { return {0.0, 6.0 * sizeof(int) * double(c_.m) * double(c_.n)}; }
  void upload() override {}
  void fence() override { exec_.fence(); }
  void run() override { tile_index_map(exec_, out_, tr_, tc_, c_.team_size); }
  void poison() override {
    Kokkos::deep_copy(out_, -1);
    Kokkos::deep_copy(host_, -1);
  }
  void download() override { Kokkos::deep_copy(host_, out_); }
  bool transfers_are_copies() const override {
    return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  }
  Validation validate(double) override {
    Validation v;
    v.checked = true;
    for (std::int64_t i = 0; i < c_.m; ++i)
      for (std::int64_t j = 0; j < c_.n; ++j) {
        const std::int64_t want[6] = {i, j, i / tr_, j / tc_, i % tr_, j % tc_};
        for (int f = 0; f < 6; ++f)
          if (host_(i, j, f) != want[f] && v.bad_elements++ == 0)
            v.first_bad = "(" + std::to_string(i) + "," + std::to_string(j) + ") field " +
                          std::to_string(f) + ": got " + std::to_string(host_(i, j, f)) +
                          ", expected " + std::to_string(want[f]);
      }
    v.passed = v.bad_elements == 0;
    return v;
  }
  std::vector<double> result() const override {
    return std::vector<double>(host_.data(), host_.data() + host_.size());
  }
  void print(std::ostream& os) const override { print_index_map(os, map(), false); }
  IndexMap map() const {
    IndexMap m;
    m.rows = c_.m;
    m.cols = c_.n;
    m.fields.assign(host_.data(), host_.data() + host_.size());
    return m;
  }

private:
  Case c_;
  int tr_, tc_;
  Exec exec_;
  Out out_;
  typename Out::HostMirror host_;
};

} // namespace

std::unique_ptr<KernelCase> make_tile_index_case(const Case& c, const std::string& backend,
                                                 const Block&) {
  return with_backend(backend, [&](auto exec) -> std::unique_ptr<KernelCase> {
    return std::make_unique<TileIndexCase<decltype(exec)>>(c);
  });
}

IndexMap compute_index_map(std::int64_t rows, std::int64_t cols, int tile_rows, int tile_cols,
                           const std::string& backend) {
  Case c;
  c.family = "tile_index";
  c.variant = "team";
  c.m = rows;
  c.n = cols;
  c.tile = tile_rows;
  c.tile_cols = tile_cols;
  return with_backend(backend, [&](auto exec) {
    TileIndexCase<decltype(exec)> tc(c);
    tc.poison();
    tc.run();
    Kokkos::fence();
    tc.download();
    const Validation v = tc.validate(0);
    if (!v.passed)
      throw std::runtime_error("tile_index map failed validation: " + v.first_bad);
    return tc.map();
  });
}

} // namespace miniapp::kernels
