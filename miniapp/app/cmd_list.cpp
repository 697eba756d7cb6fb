// `miniapp list`: what a config may name, read from where each fact lives (the family table's
// families, variants, parameters and defaults, the plan's range checks, the system profile
// directories, the backends compiled in), so this listing cannot drift from what `run` accepts.
#include "app/command.hpp"

#include <memory>
#include "app/commands.hpp"
#include "core/text.hpp"

#include "config/config.hpp"
#include "config/limits.hpp"
#include "core/case_fields.hpp"
#include "jobs/system_profile.hpp"
#include "kernels/families.hpp"
#include "plan/plan.hpp"
#include "core/backend_names.hpp"

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

// The tile shapes (kernels/matmul_shapes.hpp) per backend kind compiled in, precision and tile:
// the values 'shape' takes, the default first.
void print_shapes(std::ostream& os, const Family& f, const Variant& v) {
  std::set<bool> kinds; // gpu or host
  for (const auto& b : compiled_backends())
    if (kinds.insert(is_gpu_backend(b)).second)
      for (Precision p : {Precision::int32, Precision::float32, Precision::float64})
        for (int tile : v.tile_values.empty() ? std::vector<int>{v.tile} : v.tile_values) {
          Case c;
          c.family = f.name;
          c.variant = v.name;
          c.precision = p;
          c.tile = tile;
          os << "        shapes (" << (is_gpu_backend(b) ? "GPU" : "host") << "), " << to_string(p)
             << ", tile " << tile << ": " << join(shape_names(c, b), ", ") << "\n";
        }
}

// How `list` shows a parameter's value in c: the row's words for "left to the plan or the
// backend" where it is 0 or "", a double as ostream writes it.
std::string shown(const CaseField& field, const Case& c) {
  const nlohmann::json v = case_value(field, c);
  if (field.unset_text && (v == 0 || v == ""))
    return field.unset_text;
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number_float())
    return number(v.get<double>());
  return v.dump(); // integers, true, false
}

// A tuning parameter (core/case_fields.hpp): `list` shows its range.
bool range_listed(const CaseField& field) {
  return field.type == FieldType::integer && (field.in_table() || field.id_segment);
}

// One line per variant: the parameters it reads with their defaults (the case-field table, the
// family table), then the plan's ranges.
void print_parameters(std::ostream& os, const Family& f) {
  os << "  " << f.name << "\n";
  for (const Variant& v : f.variants) {
    Case c; // what the plan makes of a case that gives only n
    c.family = f.name;
    c.variant = v.name;
    c.alpha = f.alpha;
    c.beta = f.beta;
    resolve_parameters(c);
    // The sizes the variant reads (k, like m, defaults to n) ahead of the precision, then the rest.
    std::string sizes, rest;
    for (const auto& field : case_fields())
      if (field.param != Param{} && v.reads(field.param))
        (field.max == config::limits::kMaxDimension ? sizes : rest) +=
            ", " + std::string(field.name) + "=" + shown(field, c);
    os << "    " << v.name << ": n (required), m=n" << sizes
       << ", precision=" << config::Settings().precision << rest << ", seed=" << c.seed << "\n";
    std::set<std::string> ranges;
    // Below the generic bounds, then inside them but beyond what the variant takes.
    for (const auto& field : case_fields())
      if (range_listed(field) && v.reads(field.param))
        for (const char* probe : {"-1", "1000"}) {
          const std::string r = range_of(f.name, v.name, field.name, probe);
          if (!r.empty())
            ranges.insert(r);
        }
    for (const char* probe : {"-1", "1000"}) {
      const std::string r = range_of(f.name, v.name, "n", probe);
      if (!r.empty())
        ranges.insert(r);
    }
    for (const auto& r : ranges)
      os << "        " << r << "\n";
    if (v.reads(Param::shape))
      print_shapes(os, f, v);
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
      for (const auto& f : families())
        os << f.name << "\n";
    if (args.what == "variants")
      for (const auto& f : families())
        for (const auto& v : f.variants)
          os << v.name << "\n";
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
    for (const auto& f : families())
      os << "  " << std::left << std::setw(13) << f.name << join(f.variant_names(), ", ") << "\n";
  }
  if (want("parameters")) {
    os << (args.what == "all" ? "\n" : "")
       << "parameters and their defaults per variant (a list sweeps; docs/config.md):\n";
    for (const auto& f : families())
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

void add_list_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<ListArgs>();
  auto* list = app.add_subcommand(
      "list", "Families, variants, parameters (defaults, ranges), system profiles, backends");
  list->add_option("what", args->what, "all, " + join(list_sections(), ", "))
      ->check(CLI::IsMember([] {
        auto s = list_sections();
        s.insert(s.begin(), "all");
        return s;
      }()))
      ->capture_default_str();
  list->add_flag("--names", args->names,
                 "Bare names, one per line (for scripts and shell completion)");

  commands.push_back({list, Needs::nothing, [args](const MpiEnv*) { return cmd_list(*args); }});
}

} // namespace miniapp
