#include "kernels/family_cases.hpp"

namespace miniapp {

std::unique_ptr<KernelCase> make_kernel_case(const Case& c, const std::string& backend,
                                             const Block& block) {
  if (c.family == "matmul")
    return kernels::make_matmul_case(c, backend);
  if (c.family == "axpby")
    return kernels::make_axpby_case(c, backend, block);
  if (c.family == "tile_average")
    return kernels::make_tile_average_case(c, backend, block);
  if (c.family == "tile_index")
    return kernels::make_tile_index_case(c, backend);
  throw UnsupportedCase("unknown kernel family '" + c.family + "'");
}

} // namespace miniapp
