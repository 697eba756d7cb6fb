#include "core/environment.hpp"

#include <cstdlib>

namespace miniapp::env {

const char* value(const char* name) {
  return std::getenv(name);
}

} // namespace miniapp::env
