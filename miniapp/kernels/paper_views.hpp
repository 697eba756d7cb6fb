#pragma once
// The published tables `miniapp compare --table NAME` reproduces, as data beside the family
// table: which cases a view selects. The report only formats the rows a view selects, so no
// layer above kernels/ names the family, variant or precision a paper measured.
#include "core/case.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace miniapp {

struct PaperView {
  std::string name; // the --table value
  std::string family, variant;
  Precision precision = Precision::float32;
  bool square = true; // N x N cases only
  // "family/variant/precision", as the view names its cases in help and messages.
  std::string cases() const { return family + "/" + variant + "/" + to_string(precision); }
};

inline const std::vector<PaperView>& paper_views() {
  static const std::vector<PaperView> views = {
      // Park (2018), Table 1: R = a*A + b*B end to end, CPU against GPU
      // (configs/paper_table1.yaml, scripts/maintainer/table1.sh).
      {"paper1", "axpby", "flat", Precision::float32, true},
  };
  return views;
}

inline const PaperView& paper_view(const std::string& name) {
  for (const auto& v : paper_views())
    if (v.name == name)
      return v;
  throw std::invalid_argument("no paper view '" + name + "'");
}

} // namespace miniapp
