// `miniapp list`: what a config may name, read from where each fact lives (config's families and
// variants, the plan's defaults and range checks, the system profile directories, the backends
// compiled in), so this listing cannot drift from what `run` accepts.
#include "app/commands.hpp"

#include "config/config.hpp"
#include "jobs/system_profile.hpp"
#include "plan/plan.hpp"
#include "run/backends.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace miniapp {

namespace {

namespace fs = std::filesystem;

std::string program_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("miniapp") : p.string();
}

std::string one_case_config(const std::string& family, const std::string& variant,
                            const std::string& extra) {
  const bool sets_n = extra.rfind(", n:", 0) == 0;
  return "name: list\ncases:\n  - {family: " + family + ", variant: " + variant +
         (sets_n ? "" : ", n: 64") + extra + "}\n";
}

// The case the plan makes from `family/variant, n: 64`: its fields are the defaults.
Case default_case(const std::string& family, const std::string& variant) {
  const auto cfg = config::parse_config("list", one_case_config(family, variant, ""), {});
  return make_plan(cfg).cases.at(0);
}

// The plan's own words for a value out of range: `key: -1` (or `key: x` for words), with the
// position and the ", got ..." tail cut off. Empty when the plan accepts it.
std::string range_of(const std::string& family, const std::string& variant, const std::string& key,
                     const std::string& probe) {
  try {
    const auto cfg = config::parse_config(
        "list", one_case_config(family, variant, ", " + key + ": " + probe), {});
    make_plan(cfg);
    return "";
  } catch (const config::ConfigError& e) {
    std::string m = e.what();
    const auto colon = m.find(": ");
    m = colon == std::string::npos ? m : m.substr(colon + 2);
    const auto got = m.rfind(", got ");
    return got == std::string::npos ? m : m.substr(0, got);
  }
}

std::string number(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// Whether the plan reads `key` for this variant: it keeps a probed value or rejects it as out of
// range for the variant; it clears parameters a variant ignores (and says "applies to X only").
bool reads(const std::string& family, const std::string& variant, const std::string& key,
           const std::string& probe) {
  try {
    const auto cfg = config::parse_config(
        "list", one_case_config(family, variant, ", " + key + ": " + probe), {});
    const Case c = make_plan(cfg).cases.at(0);
    return key == "tile" ? c.tile != 0 : key == "tile_cols" ? c.tile_cols != 0 : c.team_size != 0;
  } catch (const config::ConfigError& e) {
    return std::string(e.what()).find("applies to") == std::string::npos;
  }
}

// One line per variant: the parameters it reads with their defaults, then the plan's ranges.
void print_parameters(std::ostream& os, const std::string& family) {
  os << "  " << family << "\n";
  for (const auto& variant : config::family_variants(family)) {
    const Case c = default_case(family, variant);
    os << "    " << variant << ": n (required), m=n" << (family == "matmul" ? ", k=n" : "")
       << ", precision=" << to_string(c.precision);
    if (reads(family, variant, "tile", "64"))
      os << ", tile=" << (c.tile ? std::to_string(c.tile) : "the kernel's (docs/kernels.md)");
    if (reads(family, variant, "tile_cols", "4"))
      os << ", tile_cols=" << c.tile_cols;
    if (reads(family, variant, "team_size", "8"))
      os << ", team_size=fitted to the backend";
    if (family == "axpby")
      os << ", alpha=" << number(c.alpha) << ", beta=" << number(c.beta)
         << ", in_place=" << (c.in_place ? "true" : "false");
    os << ", seed=" << c.seed << "\n";
    std::set<std::string> ranges;
    // Below the generic bounds, then inside them but beyond what the variant takes.
    for (const auto& key : {"n", "tile", "tile_cols", "team_size"})
      if (std::string(key) == "n" || reads(family, variant, key, "8"))
        for (const char* probe : {"-1", "1000"}) {
          const std::string r = range_of(family, variant, key, probe);
          if (!r.empty())
            ranges.insert(r);
        }
    for (const auto& r : ranges)
      os << "        " << r << "\n";
  }
}

std::vector<std::pair<std::string, std::string>> system_profiles() {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const auto& dir : jobs::system_profile_dirs(program_path())) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".yaml")
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
      if (seen.insert(f.stem().string()).second) // the first directory wins, as in jobscript
        out.emplace_back(f.stem().string(), fs::path(f).lexically_normal().string());
  }
  return out;
}

} // namespace

const std::vector<std::string>& list_sections() {
  static const std::vector<std::string> s = {"families", "variants", "parameters", "systems",
                                             "backends"};
  return s;
}

int cmd_list(const ListArgs& args) {
  const auto want = [&](const char* s) { return args.what == "all" || args.what == s; };
  auto& os = std::cout;
  if (args.names) { // bare names, one per line: for shell completion and scripts
    if (args.what == "families")
      for (const auto& f : config::family_names())
        os << f << "\n";
    if (args.what == "variants")
      for (const auto& f : config::family_names())
        for (const auto& v : config::family_variants(f))
          os << v << "\n";
    if (args.what == "parameters")
      for (const auto& k : config::sweep_keys())
        os << k << "\n";
    if (args.what == "systems")
      for (const auto& [name, file] : system_profiles())
        os << name << "\n";
    if (args.what == "backends")
      for (const auto& b : compiled_backends())
        os << b << "\n";
    return kOk;
  }
  if (want("families") || want("variants")) {
    os << "families and variants (config key: family, variant):\n";
    for (const auto& f : config::family_names())
      os << "  " << std::left << std::setw(13) << f << join(config::family_variants(f), ", ")
         << "\n";
  }
  if (want("parameters")) {
    os << (args.what == "all" ? "\n" : "")
       << "parameters and their defaults per variant (a list sweeps; docs/config.md):\n";
    for (const auto& f : config::family_names())
      print_parameters(os, f);
  }
  if (want("systems")) {
    os << (args.what == "all" ? "\n" : "") << "system profiles (miniapp jobscript --system):\n";
    for (const auto& [name, file] : system_profiles())
      os << "  " << std::left << std::setw(17) << name << file << "\n";
  }
  if (want("backends"))
    os << (args.what == "all" ? "\n" : "")
       << "backends compiled in: " << join(compiled_backends(), ", ")
       << " (auto = " << default_backend() << ")\n";
  return kOk;
}

} // namespace miniapp
