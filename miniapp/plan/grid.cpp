#include "plan/grid.hpp"

#include "kernels/families.hpp"
#include "core/size_math.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace miniapp::parallel {

GridShape choose_grid(int ranks) {
  GridShape g;
  for (int p = int(std::sqrt(double(ranks))); p >= 1; --p)
    if (ranks % p == 0) {
      g.p = p;
      g.q = ranks / p;
      break;
    }
  return g;
}

Range block_range(std::int64_t n, std::int64_t unit, int parts, int part) {
  const std::int64_t units = (n + unit - 1) / unit;
  const std::int64_t base = units / parts, extra = units % parts;
  const auto first_unit = [&](std::int64_t p) { return p * base + std::min(p, extra); };
  Range r;
  r.begin = std::min(n, first_unit(part) * unit);
  r.size = std::min(n, first_unit(part + 1) * unit) - r.begin;
  return r;
}

int block_owner(std::int64_t n, std::int64_t unit, int parts, std::int64_t i) {
  // The first `extra` parts hold base + 1 units, the others base (block_range's split).
  const std::int64_t units = (n + unit - 1) / unit;
  const std::int64_t base = units / parts, extra = units % parts;
  const std::int64_t u = std::min(std::max<std::int64_t>(i, 0) / unit, units - 1);
  const std::int64_t in_long = extra * (base + 1); // units held by the longer parts
  if (u < in_long)
    return int(u / (base + 1));
  return base > 0 ? int(std::min<std::int64_t>(extra + (u - in_long) / base, parts - 1))
                  : parts - 1;
}

namespace {
std::int64_t unit_of(const Case& c) {
  return family(c.family).blocks_in_tiles ? std::max(1, c.tile) : 1;
}
bool summa(const Case& c) {
  return family(c.family).distribution == Distribution::summa;
}
} // namespace

RankBlocks rank_blocks(const Case& c, GridShape g, int grid_row, int grid_col) {
  const std::int64_t u = unit_of(c);
  RankBlocks b;
  b.rows = block_range(c.m, u, g.p, grid_row);
  b.cols = block_range(c.n, u, g.q, grid_col);
  if (summa(c)) {
    b.inner_a = block_range(c.k, 1, g.q, grid_col);
    b.inner_b = block_range(c.k, 1, g.p, grid_row);
  }
  return b;
}

std::string check_fits(const Case& c, GridShape g, std::string* dimension) {
  const std::int64_t u = unit_of(c);
  const std::string grid = std::to_string(g.p) + "x" + std::to_string(g.q) + " process grid (" +
                           std::to_string(g.ranks()) + " ranks)";
  const std::string what = u > 1 ? " tile(s) of " + std::to_string(u) : "";
  struct Dim {
    const char* key;
    std::int64_t size;
    int parts;
    const char* over;
  };
  std::vector<Dim> dims = {{"m", c.m, g.p, "process rows"}, {"n", c.n, g.q, "process columns"}};
  if (summa(c)) {
    dims.push_back({"k", c.k, g.q, "process columns (A's columns)"});
    dims.push_back({"k", c.k, g.p, "process rows (B's rows)"});
  }
  for (const auto& d : dims) {
    const std::int64_t units = (d.size + u - 1) / u;
    if (units < d.parts) {
      if (dimension)
        *dimension = d.key;
      return std::string(d.key) + "=" + std::to_string(d.size) + " gives " + std::to_string(units) +
             what + (u > 1 ? "" : " element(s)") + " to share among " + std::to_string(d.parts) +
             " " + d.over + " of the " + grid +
             ": more ranks than blocks; use a larger size, fewer ranks or another mpi.grid";
    }
  }
  return "";
}

int panel_width(int configured) {
  return configured > 0 ? configured : kDefaultPanel;
}

std::uint64_t rank_case_bytes(const Case& c, GridShape g, int panel) {
  const RankBlocks b = rank_blocks(c, g, 0, 0);
  if (!summa(c)) { // local blocks: the one-rank case on the block
    Case local = c;
    local.m = b.rows.size;
    local.n = b.cols.size;
    return case_bytes(local);
  }
  const std::uint64_t e = c.precision == Precision::float64 ? 8 : 4;
  const std::uint64_t r = size_of(b.rows.size), cl = size_of(b.cols.size);
  const std::uint64_t rc = sat_mul(r, cl);
  const std::uint64_t w = size_of(std::min<std::int64_t>(panel_width(panel), c.k));
  // SUMMA: A, B, C blocks, then two panel pairs (double-buffered for the pipelined SUMMA) and the
  // partial product
  std::uint64_t elems = sat_add(
      sat_add(sat_mul(r, size_of(b.inner_a.size)), sat_mul(size_of(b.inner_b.size), cl)), rc);
  elems = sat_add(elems, sat_add(sat_mul(2, sat_add(sat_mul(r, w), sat_mul(w, cl))), rc));
  return sat_mul(elems, e);
}

} // namespace miniapp::parallel
