#include "config/settings.hpp"

#include "config/limits.hpp"
#include "core/text.hpp"
#include "core/backend_names.hpp"

#include <algorithm>

namespace miniapp::config {

bool is_one_of(const std::string& s, const std::vector<std::string>& choices) {
  return std::find(choices.begin(), choices.end(), s) != choices.end();
}

namespace {

int read_count(const Source& src, const YAML::Node& n, const std::string& what, int min, int max) {
  const auto v = read_int(src, n, what);
  if (v < min || v > max)
    src.fail(n, what + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                    ", got " + std::to_string(v));
  return int(v);
}

} // namespace

Settings read_settings(const Source& src, const YAML::Node& root) {
  Settings s;
  s.backend_pos = s.grid_pos = Position{src.file(), 1, 1};
  // Each key on its own: an error in one does not hide those of the others.
  src.attempt([&] {
    s.name = read_string(src, require_key(src, root, "name", "the experiment"), "name");
    const auto name_char = [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.' || c == '-';
    };
    if (!std::all_of(s.name.begin(), s.name.end(), name_char))
      src.fail(root["name"], "name may hold only letters, digits, '_', '.' and '-' (it names the "
                             "results directory), got '" +
                                 s.name + "'");
  });
  src.attempt([&] {
    if (root["description"])
      s.description = read_string(src, root["description"], "description");
  });
  src.attempt([&] {
    if (root["backend"]) {
      s.backend = read_string(src, root["backend"], "backend");
      s.backend_pos = src.position(root["backend"]);
    }
  });
  src.attempt([&] {
    if (root["precision"]) {
      s.precision = read_string(src, root["precision"], "precision");
      if (s.precision != "int32" && s.precision != "float32" && s.precision != "float64")
        src.fail(root["precision"],
                 "precision must be int32, float32 or float64, got '" + s.precision + "'");
    }
  });
  src.attempt([&] {
    if (root["warmup"])
      s.warmup = read_count(src, root["warmup"], "warmup", 0, limits::kMaxRepetitions);
  });
  src.attempt([&] {
    if (root["repetitions"])
      s.repetitions =
          read_count(src, root["repetitions"], "repetitions", 1, limits::kMaxRepetitions);
  });
  src.attempt([&] {
    if (root["pinned"])
      s.pinned = read_bool(src, root["pinned"], "pinned");
  });
  src.attempt([&] {
    if (root["energy"])
      s.energy = read_bool(src, root["energy"], "energy");
  });
  src.attempt([&] {
    if (root["reuse_ceilings"])
      s.reuse_ceilings = read_bool(src, root["reuse_ceilings"], "reuse_ceilings");
  });
  src.attempt([&] {
    const YAML::Node v = root["validation"];
    if (!v)
      return;
    require_map(src, v, "validation");
    check_keys(src, v, {"enabled", "rtol"}, "validation");
    if (v["enabled"])
      s.validate = read_bool(src, v["enabled"], "validation.enabled");
    if (v["rtol"]) {
      s.rtol = read_double(src, v["rtol"], "validation.rtol");
      if (s.rtol < 0 || s.rtol >= 1)
        src.fail(v["rtol"], "validation.rtol must be in [0, 1) (0 = the stated per-kernel bound)");
    }
  });
  src.attempt([&] {
    const YAML::Node o = root["output"];
    if (!o)
      return;
    require_map(src, o, "output");
    check_keys(src, o, {"directory", "formats", "print"}, "output");
    if (o["directory"])
      s.output_directory = read_string(src, o["directory"], "output.directory");
    if (o["print"])
      s.print = read_bool(src, o["print"], "output.print");
    if (const YAML::Node f = o["formats"]) {
      s.formats.clear();
      const std::vector<YAML::Node> items =
          f.IsSequence() ? std::vector<YAML::Node>(f.begin(), f.end()) : std::vector<YAML::Node>{f};
      for (const auto& item : items) {
        const std::string fmt = read_string(src, item, "output.formats");
        if (!is_one_of(fmt, output_formats()))
          src.fail(item, "output.formats entries must be csv or json, got '" + fmt + "'");
        s.formats.push_back(fmt);
      }
      if (s.formats.empty())
        src.fail(f, "output.formats must name at least one of csv, json");
    }
  });
  src.attempt([&] {
    const YAML::Node m = root["mpi"];
    if (!m)
      return;
    require_map(src, m, "mpi");
    check_keys(src, m, {"grid", "panel", "transport"}, "mpi");
    if (const YAML::Node g = m["grid"]) {
      s.grid_pos = src.position(g);
      if (!g.IsSequence() || g.size() != 2)
        src.fail(g, "mpi.grid must be a list of two positive integers [P, Q]");
      s.grid_p = read_count(src, g[0], "mpi.grid[0]", 1, limits::kMaxGridSide);
      s.grid_q = read_count(src, g[1], "mpi.grid[1]", 1, limits::kMaxGridSide);
    }
    if (m["panel"])
      s.panel = read_count(src, m["panel"], "mpi.panel", 1, limits::kMaxGridSide);
    if (const YAML::Node t = m["transport"]) {
      s.transport = read_string(src, t, "mpi.transport");
      if (!is_one_of(s.transport, transports()))
        src.fail(t, "mpi.transport must be one of " + join(transports(), ", ") + ", got '" +
                        s.transport + "'");
    }
  });
  return s;
}

} // namespace miniapp::config
