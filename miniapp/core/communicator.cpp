#include "core/communicator.hpp"

#include <cstdlib>
#include <iostream>

namespace miniapp {

void SingleRank::abort_all(int code, const std::string& message) const {
  std::cerr << "miniapp: rank 0: " << message << std::endl;
  std::exit(code);
}

} // namespace miniapp
