#pragma once
// One factory per kernel family (the KernelFactory of its row in kernels/families.cpp). Each
// receives a case whose parameters are resolved (kernels/families.hpp resolve_parameters): a
// factory has no defaults of its own. Families that do not distribute in blocks ignore `block`.
#include "kernels/kernel_case.hpp"

namespace miniapp::kernels {
std::unique_ptr<KernelCase> make_matmul_case(const Case& c, const std::string& backend,
                                             const Block& block);
std::unique_ptr<KernelCase> make_axpby_case(const Case& c, const std::string& backend,
                                            const Block& block);
std::unique_ptr<KernelCase> make_tile_average_case(const Case& c, const std::string& backend,
                                                   const Block& block);
std::unique_ptr<KernelCase> make_tile_index_case(const Case& c, const std::string& backend,
                                                 const Block& block);
} // namespace miniapp::kernels
