#include "results/run.hpp"

#include "core/backend_names.hpp"

namespace miniapp {
namespace compare {

Marks marks_of(const Row& row, int host_cpus) {
  const auto number = [&](const char* key, double missing) {
    const auto it = row.fields.find(key);
    return it != row.fields.end() && it->is_number() ? it->get<double>() : missing;
  };
  return row_marks(number("host_others", -1), number("host_load", -1), host_cpus,
                   row.flag("ceiling_disturbed"), number("ceiling_high", 0));
}

std::string Run::shape() const {
  if (ranks <= 0 && threads <= 0)
    return "?";
  return (ranks > 0 ? std::to_string(ranks) : std::string("?")) + "x" +
         (threads > 0 ? std::to_string(threads) : std::string("?"));
}

std::string Run::label() const {
  if (!given_label.empty())
    return given_label;
  std::string s = backend.empty() ? "unknown backend" : backend;
  if (!backend.empty() && !host_backend(backend) && ranks > 0)
    s += " " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks"); // host threads idle
  else if (ranks > 0 || threads > 0)
    s += " " + shape();
  if (!device.empty())
    s += " on " + device;
  if (!host.empty())
    s += " (" + host + ")";
  return s;
}

} // namespace compare
} // namespace miniapp
