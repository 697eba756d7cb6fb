#pragma once
// The parameters of the per-backend kernel tests: every execution space compiled in, each with
// every precision, named "<backend>_<precision>" in the test names.
#include "core/backends.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace miniapp {

using BackendPrecision = std::tuple<std::string, Precision>;

inline std::vector<BackendPrecision> all_backend_precisions() {
  std::vector<BackendPrecision> p;
  for (const auto& b : compiled_backends())
    for (Precision t : {Precision::int32, Precision::float32, Precision::float64})
      p.emplace_back(b, t);
  return p;
}

inline std::string backend_precision_name(const ::testing::TestParamInfo<BackendPrecision>& info) {
  return std::get<0>(info.param) + "_" + to_string(std::get<1>(info.param));
}

} // namespace miniapp
