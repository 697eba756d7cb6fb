#pragma once
// One factory per kernel family; kernels/registry.cpp picks among them.
#include "kernels/kernel_case.hpp"

namespace miniapp::kernels {
std::unique_ptr<KernelCase> make_matmul_case(const Case& c, const std::string& backend);
std::unique_ptr<KernelCase> make_axpby_case(const Case& c, const std::string& backend,
                                            const Block& block);
std::unique_ptr<KernelCase> make_tile_average_case(const Case& c, const std::string& backend,
                                                   const Block& block);
std::unique_ptr<KernelCase> make_tile_index_case(const Case& c, const std::string& backend);
} // namespace miniapp::kernels
