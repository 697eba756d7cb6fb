#pragma once
// Whether a comparison warns with `text` in one of its warnings (the compare and pooling tests).
#include "compare/compare.hpp"

#include <string>

namespace miniapp::compare {

inline bool has_warning(const Comparison& c, const std::string& text) {
  for (const auto& w : c.warnings)
    if (w.find(text) != std::string::npos)
      return true;
  return false;
}

} // namespace miniapp::compare
