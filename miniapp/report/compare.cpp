#include "report/compare.hpp"
#include "kernels/families.hpp"
#include "report/results_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <utility>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace miniapp {
namespace compare {

namespace {

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}
std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// results.json keeps numbers typed, results.csv has text: both go through these two.
double num(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return 0;
  if (it->is_number())
    return it->get<double>();
  if (it->is_boolean())
    return it->get<bool>() ? 1 : 0;
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return end != s.c_str() ? v : 0;
  }
  return 0;
}
std::string str(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null())
    return "";
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_boolean())
    return it->get<bool>() ? "true" : "false";
  if (it->is_number_integer())
    return std::to_string(it->get<std::int64_t>());
  if (it->is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", it->get<double>());
    return buf;
  }
  return it->dump();
}
std::int64_t inum(const nlohmann::json& o, const char* key) {
  return static_cast<std::int64_t>(std::llround(num(o, key)));
}
// An array of numbers; anything else (absent, CSV text, a non-number inside) gives none.
std::vector<double> num_array(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  std::vector<double> v;
  if (it == o.end() || !it->is_array())
    return v;
  for (const auto& x : *it) {
    if (!x.is_number())
      return {};
    v.push_back(x.get<double>());
  }
  return v;
}

// results.json is a few levels deep; a deeper document is not ours, and nesting it 100,000 deep
// must not exhaust the stack of the parser or of the code walking the result.
constexpr int kMaxJsonDepth = 64;
void check_json_depth(const std::string& text, const std::string& path) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char ch : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxJsonDepth)
        throw std::runtime_error(path + ": JSON nested deeper than " +
                                 std::to_string(kMaxJsonDepth) +
                                 " levels; not a miniapp results.json");
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
}
nlohmann::json parse_results_json(const std::string& path) {
  const std::string text = read_text(path);
  check_json_depth(text, path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

Row row_from(const nlohmann::json& o) {
  Row r;
  r.family = str(o, "family");
  r.variant = str(o, "variant");
  r.precision = str(o, "precision");
  r.m = inum(o, "m");
  r.n = inum(o, "n");
  r.k = inum(o, "k");
  r.tile = inum(o, "tile");
  r.tile_cols = inum(o, "tile_cols");
  r.team_size = inum(o, "team_size");
  r.alpha = num(o, "alpha");
  r.beta = num(o, "beta");
  r.seed = inum(o, "seed");
  r.warmup = inum(o, "warmup");
  r.repetitions = inum(o, "repetitions");
  r.in_place = str(o, "in_place") == "true";
  r.pinned = str(o, "pinned") == "true";
  r.status = str(o, "status");
  r.valid = str(o, "valid");
  r.time_min = num(o, "time_min_s");
  r.time_median = num(o, "time_median_s");
  r.time_max = num(o, "time_max_s");
  r.total_median = num(o, "total_median_s");
  r.flops = num(o, "flops");
  r.bytes = num(o, "bytes");
  r.gflops = num(o, "gflops");
  r.gbs = num(o, "gbs");
  r.ceiling = str(o, "ceiling");
  r.ceiling_value = num(o, "ceiling_value");
  r.ceiling_unit = str(o, "ceiling_unit");
  r.ranks = inum(o, "ranks");
  r.compute_times = num_array(o, "compute_times_s");
  r.h2d_times = num_array(o, "h2d_times_s");
  r.d2h_times = num_array(o, "d2h_times_s");
  return r;
}

// RFC 4180 as results_writer writes it: commas, "quoted" fields with "" inside, \n rows.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
      continue;
    }
    if (ch == '"') {
      quoted = true;
      any = true;
    } else if (ch == ',') {
      row.push_back(field);
      field.clear();
      any = true;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
        ++i;
      if (any || !field.empty())
        row.push_back(field);
      if (!row.empty())
        rows.push_back(row);
      row.clear();
      field.clear();
      any = false;
    } else {
      field += ch;
      any = true;
    }
  }
  if (any || !field.empty())
    row.push_back(field);
  if (!row.empty())
    rows.push_back(row);
  return rows;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string rate_str(double v) {
  return fmt(v >= 100 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
}
std::string ms(double seconds) {
  return fmt("%.4g", seconds * 1e3);
}

std::string size_of(const Row& r) {
  std::string s = std::to_string(r.m) + "x" + std::to_string(r.n);
  if (r.k > 0)
    s += "x" + std::to_string(r.k);
  return s;
}
std::string tile_of(const Row& r) {
  if (r.tile <= 0)
    return "-";
  return r.tile_cols > 0 && r.tile_cols != r.tile
             ? std::to_string(r.tile) + "x" + std::to_string(r.tile_cols)
             : std::to_string(r.tile);
}
std::string case_name(const Line& l) {
  std::string s = l.family + "/" + l.variant + "/" + l.precision + "/" + l.size;
  if (l.tile != "-")
    s += "/tile " + l.tile;
  return s;
}
std::string run_name(const Comparison& c, std::size_t i) {
  return "run " + std::to_string(i + 1) + " (" + c.runs[i].label() + ")";
}
bool host_backend(const std::string& b) {
  return b == "serial" || b == "openmp" || b == "threads" || b == "hpx";
}

bool primary_is_gflops(const std::string& family, RateKind kind) {
  if (kind == RateKind::Gflops)
    return true;
  if (kind == RateKind::Gbs)
    return false;
  // The family table's primary rate (compute-bound families: GFLOP/s); a family this build does
  // not know (a results file of another version) is judged by GB/s.
  const Family* f = find_family(family);
  return f && f->rate == Rate::gflops;
}

Cell cell_from(const Row& r, bool gflops, bool with_transfers) {
  Cell c;
  c.present = true;
  c.valid = r.valid;
  if (!with_transfers) {
    c.times = r.compute_times;
    c.rate = gflops ? r.gflops : r.gbs;
    c.t_min = r.time_min;
    c.t_median = r.time_median;
    c.t_max = r.time_max;
    return c;
  }
  // Only the median total is recorded; shift the compute range by the median transfer time.
  const double transfers = std::max(0.0, r.total_median - r.time_median);
  if (r.h2d_times.size() == r.compute_times.size() && r.d2h_times.size() == r.compute_times.size())
    for (std::size_t i = 0; i < r.compute_times.size(); ++i)
      c.times.push_back(r.h2d_times[i] + r.compute_times[i] + r.d2h_times[i]);
  c.t_median = r.total_median;
  c.t_min = r.time_min + transfers;
  c.t_max = r.time_max + transfers;
  const double work = gflops ? r.flops : r.bytes;
  c.rate = r.total_median > 0 ? work / r.total_median / 1e9 : 0;
  return c;
}

std::string describe(double v) {
  std::string s = fmt("%.6g", v);
  return s;
}

// A warning about one case: what is wrong (the same text for every case it applies to, so the
// cases can be counted under it) and the case.
struct CaseNote {
  std::string what, where;
};

void param_notes(const Line& line, const Row& base, const Row& other, const std::string& base_name,
                 const std::string& other_name, bool on_device, std::vector<CaseNote>& notes) {
  const auto differ = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b)
      notes.push_back({std::string(what) + " differs: " + a + " in " + base_name + ", " + b +
                           " in " + other_name,
                       case_name(line)});
  };
  differ("alpha", describe(base.alpha), describe(other.alpha));
  differ("beta", describe(base.beta), describe(other.beta));
  differ("seed", std::to_string(base.seed), std::to_string(other.seed));
  differ("repetitions", std::to_string(base.repetitions), std::to_string(other.repetitions));
  differ("warmup", std::to_string(base.warmup), std::to_string(other.warmup));
  differ("team_size", std::to_string(base.team_size), std::to_string(other.team_size));
  differ("in_place", base.in_place ? "true" : "false", other.in_place ? "true" : "false");
  if (on_device) // host memory is what a host backend computes in: pinning changes nothing
    differ("pinned", base.pinned ? "true" : "false", other.pinned ? "true" : "false");
}

// "<what> in 3 cases: a, b, c" with at most kListed cases named.
std::vector<std::string> aggregate(const std::vector<CaseNote>& notes) {
  constexpr std::size_t kListed = 6;
  std::vector<std::string> kinds;
  std::map<std::string, std::vector<std::string>> cases;
  for (const auto& n : notes) {
    auto& list = cases[n.what];
    if (list.empty())
      kinds.push_back(n.what);
    list.push_back(n.where);
  }
  std::vector<std::string> out;
  for (const auto& k : kinds) {
    const auto& list = cases[k];
    std::string s =
        k + " in " + std::to_string(list.size()) + (list.size() == 1 ? " case: " : " cases: ");
    for (std::size_t i = 0; i < list.size() && i < kListed; ++i)
      s += (i ? ", " : "") + list[i];
    if (list.size() > kListed)
      s += " and " + std::to_string(list.size() - kListed) + " more";
    out.push_back(s);
  }
  return out;
}

// The smallest p-value samples of these sizes can reach (no overlap, no ties).
double smallest_p(std::size_t n1, std::size_t n2) {
  std::vector<double> a(n1), b(n2);
  std::iota(a.begin(), a.end(), 0.0);
  std::iota(b.begin(), b.end(), double(n1));
  return mann_whitney_p(a, b);
}

} // namespace

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
  if (ranks > 0 || threads > 0)
    s += " " + shape();
  if (!device.empty())
    s += " on " + device;
  if (!host.empty())
    s += " (" + host + ")";
  return s;
}

// One results row into the run; the first rows name the backend and experiment where the
// metadata did not.
static void add_row(Run& run, const nlohmann::json& o) {
  run.rows.push_back(row_from(o));
  if (run.ranks == 0)
    run.ranks = int(run.rows.back().ranks);
  if (run.backend.empty())
    run.backend = str(o, "backend");
  if (run.experiment.empty())
    run.experiment = str(o, "experiment");
}

Run run_from_json(const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
    throw std::runtime_error(source + ": not a miniapp results.json (no \"results\" array)");
  Run run;
  run.source = source;
  run.complete = doc.value("complete", true);
  if (doc.contains("metadata") && doc["metadata"].is_object()) {
    const auto& m = doc["metadata"];
    run.backend = str(m, "backend");
    run.device = str(m, "device_name");
    run.host = str(m, "host_name");
    run.config_hash = str(m, "config_hash");
    run.host_cpus = int(num(m, "host_cpus"));
    if (m.contains("load_average") && m["load_average"].is_array() && !m["load_average"].empty() &&
        m["load_average"][0].is_number())
      run.load1 = m["load_average"][0].get<double>();
    run.given_label = str(m, "label");
    run.ranks = int(inum(m, "mpi_ranks"));
    run.threads = int(inum(m, "threads_per_rank"));
    if (run.threads == 0 && host_backend(run.backend)) // before threads_per_rank was recorded
      run.threads = int(inum(m, "concurrency"));
    if (m.contains("environment") && m["environment"].is_object()) {
      const auto& env = m["environment"];
      for (const char* var : {"OMP_PROC_BIND", "OMP_PLACES"})
        if (env.contains(var))
          run.binding += std::string(run.binding.empty() ? "" : ", ") + var + "=" + str(env, var);
    }
    if (m.contains("cpu_topology") && m["cpu_topology"].is_object()) {
      const std::string cpus = str(m["cpu_topology"], "process_binding");
      if (!cpus.empty())
        run.binding += (run.binding.empty() ? "" : ", ") + std::string("CPUs ") + cpus;
    }
    std::string d;
    const auto add = [&](const std::string& what, const std::string& v) {
      if (!v.empty())
        d += (d.empty() ? "" : ", ") + what + v;
    };
    add("Kokkos ", str(m, "kokkos_version"));
    add("", str(m, "compiler"));
    add("started ", str(m, "start_time"));
    if (run.load1 >= 0)
      add("load average ", fmt("%.2f", run.load1));
    if (run.host_cpus > 0)
      add("", std::to_string(run.host_cpus) + " host CPUs");
    run.details = d;
  }
  if (doc.contains("config") && doc["config"].is_object())
    run.experiment = str(doc["config"], "name");
  for (const auto& o : doc["results"]) {
    add_row(run, o);
  }
  return run;
}

Run run_from_csv(const std::string& text, const std::string& source) {
  const auto table = parse_csv(text);
  if (table.empty())
    throw std::runtime_error(source + ": empty CSV");
  const auto& header = table[0];
  if (std::find(header.begin(), header.end(), "family") == header.end())
    throw std::runtime_error(source + ": not a miniapp results.csv (no \"family\" column)");
  Run run;
  run.source = source;
  for (std::size_t i = 1; i < table.size(); ++i) {
    nlohmann::json o = nlohmann::json::object();
    for (std::size_t c = 0; c < header.size() && c < table[i].size(); ++c)
      o[header[c]] = table[i][c];
    add_row(run, o);
  }
  return run;
}

Run load_run(const std::string& path) {
  std::string json_path, csv_path;
  if (is_dir(path)) {
    if (is_file(path + "/results.json"))
      json_path = path + "/results.json";
    else if (is_file(path + "/results.csv"))
      csv_path = path + "/results.csv";
    else
      throw std::runtime_error(path + ": no results.json or results.csv in this directory");
  } else if (is_file(path)) {
    (ends_with(path, ".csv") ? csv_path : json_path) = path;
  } else {
    throw std::runtime_error(path + ": no such run directory or results file");
  }
  if (!json_path.empty())
    return run_from_json(parse_results_json(json_path), path);
  Run run = run_from_csv(read_text(csv_path), path);
  // The CSV has no metadata; a results.json beside it (a run directory) has.
  const std::string sibling = dir_of(csv_path) + "/results.json";
  if (is_file(sibling)) {
    try {
      const Run meta = run_from_json(parse_results_json(sibling), path);
      run.device = meta.device;
      run.host = meta.host;
      run.config_hash = meta.config_hash;
      run.complete = meta.complete;
      run.details = meta.details;
      run.load1 = meta.load1;
      run.host_cpus = meta.host_cpus;
      run.given_label = meta.given_label;
      run.threads = meta.threads;
      run.binding = meta.binding;
      if (meta.ranks > 0)
        run.ranks = meta.ranks;
      if (!meta.backend.empty())
        run.backend = meta.backend;
    } catch (const std::exception&) {
      // metadata is optional for a CSV; the rows alone are enough to compare
    }
  }
  return run;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 < 2 || n2 < 2)
    return -1;
  // Ranks of the pooled sample, ties sharing their average rank.
  std::vector<std::pair<double, bool>> pooled; // value, from a
  for (double x : a)
    pooled.emplace_back(x, true);
  for (double x : b)
    pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first)
      ++j;
    const double t = double(j - i), avg_rank = 0.5 * double(i + 1 + j);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second)
        rank_sum_a += avg_rank;
    i = j;
  }
  const double u1 = rank_sum_a - double(n1) * double(n1 + 1) / 2;
  const double u2 = double(n1) * double(n2) - u1;
  const double mu = double(n1) * double(n2) / 2;
  const double sigma = std::sqrt(double(n1) * double(n2) / 12 *
                                 (double(n + 1) - tie_term / (double(n) * double(n - 1))));
  if (sigma <= 0)
    return 1;                                             // every value equal
  const double z = (std::max(u1, u2) - mu - 0.5) / sigma; // 0.5: continuity correction
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));    // two-sided: 2 * (1 - Phi(z))
}

Comparison compare_runs(const std::vector<Run>& runs, const Options& opt) {
  if (runs.empty())
    throw std::runtime_error("nothing to compare: no runs given");
  if (opt.baseline >= runs.size())
    throw std::runtime_error("baseline run " + std::to_string(opt.baseline + 1) +
                             " does not exist (" + std::to_string(runs.size()) + " run(s) given)");
  Comparison c;
  c.options = opt;
  for (const auto& r : runs) {
    Run id = r;
    id.rows.clear();
    c.runs.push_back(id);
  }
  const std::size_t b = opt.baseline;

  // Run-level warnings, one line per kind.
  std::string busy;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].complete)
      c.run_warnings.push_back(run_name(c, i) + " is incomplete (interrupted or failed)");
    if (runs[i].host_cpus > 0 && runs[i].load1 > runs[i].host_cpus)
      busy += (busy.empty() ? "" : ", ") + std::string("run ") + std::to_string(i + 1) +
              " (load average " + fmt("%.2f", runs[i].load1) + " on " +
              std::to_string(runs[i].host_cpus) + " CPUs)";
    if (i == b)
      continue;
    if (!runs[i].config_hash.empty() && !runs[b].config_hash.empty() &&
        runs[i].config_hash != runs[b].config_hash)
      c.run_warnings.push_back("config differs: " + run_name(c, i) + " has config hash " +
                               runs[i].config_hash + ", baseline " + run_name(c, b) + " has " +
                               runs[b].config_hash);
    const auto differ = [&](const char* what, const std::string& mine, const std::string& base,
                            const char* why) {
      if (!mine.empty() && !base.empty() && mine != base)
        c.run_warnings.push_back(std::string(what) + " differ: " + base + " in " + run_name(c, b) +
                                 ", " + mine + " in " + run_name(c, i) + " (" + why + ")");
    };
    const auto known = [](int v) { return v > 0 ? std::to_string(v) : std::string(); };
    differ("MPI ranks", known(runs[i].ranks), known(runs[b].ranks),
           "the work is split differently");
    differ("threads per rank", known(runs[i].threads), known(runs[b].threads),
           "host kernels run on a different number of threads");
    differ("thread bindings", runs[i].binding, runs[b].binding,
           "threads may share cores or move between them");
  }
  if (!busy.empty())
    c.run_warnings.push_back(
        "busy host when the run started (more runnable tasks than CPUs, so its times include "
        "other work): " +
        busy);
  c.warnings = c.run_warnings;

  // Join on (family, variant, precision, m, n, k, tile); the n-th row with the same key in each run
  // pairs with the n-th in the others (a sweep over alpha, say). Baseline rows come first.
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<const Row*>> rows_of; // per line, per run
  std::vector<std::size_t> order(runs.size());
  order[0] = b;
  for (std::size_t i = 0, j = 1; i < runs.size(); ++i)
    if (i != b)
      order[j++] = i;
  for (std::size_t i : order) {
    std::map<std::string, int> seen;
    for (const auto& row : runs[i].rows) {
      std::string key = row.family + "|" + row.variant + "|" + row.precision + "|" + size_of(row) +
                        "|" + tile_of(row);
      key += "#" + std::to_string(seen[key]++);
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, c.lines.size()).first;
        Line l;
        l.family = row.family;
        l.variant = row.variant;
        l.precision = row.precision;
        l.size = size_of(row);
        l.tile = tile_of(row);
        l.m = row.m;
        l.n = row.n;
        l.k = row.k;
        l.unit = primary_is_gflops(row.family, opt.rate) ? "GFLOP/s" : "GB/s";
        l.cells.resize(runs.size());
        c.lines.push_back(l);
        rows_of.emplace_back(runs.size(), nullptr);
      }
      rows_of[it->second][i] = &row;
    }
  }

  std::vector<CaseNote> all_notes;
  for (std::size_t li = 0; li < c.lines.size(); ++li) {
    Line& line = c.lines[li];
    const bool gflops = line.unit == "GFLOP/s";
    std::vector<CaseNote> notes;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Row* row = rows_of[li][i];
      if (!row) {
        notes.push_back({"missing from " + run_name(c, i), case_name(line)});
        continue;
      }
      line.cells[i] = cell_from(*row, gflops, opt.with_transfers);
      if (row->valid != "true")
        notes.push_back({"valid=" + (row->valid.empty() ? std::string("missing") : row->valid) +
                             " (status " + row->status + ") in " + run_name(c, i),
                         case_name(line)});
    }
    const Cell& base = line.cells[b];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Cell& cell = line.cells[i];
      if (i == b || !cell.present || !base.present)
        continue;
      cell.ratio = base.rate > 0 ? cell.rate / base.rate : 0;
      cell.p_value = mann_whitney_p(cell.times, base.times);
      if (cell.p_value >= 0) {
        cell.within_noise = cell.p_value >= kAlpha;
        if (smallest_p(cell.times.size(), base.times.size()) >= kAlpha)
          notes.push_back({"too few repetitions for the significance test to reach p < " +
                               fmt("%g", kAlpha) + " (" + std::to_string(base.times.size()) +
                               " in " + run_name(c, b) + ", " + std::to_string(cell.times.size()) +
                               " in " + run_name(c, i) + "; 4 or more each are needed)",
                           case_name(line)});
      } else {
        cell.within_noise = !(cell.t_max < base.t_min || base.t_max < cell.t_min);
      }
      const bool on_device = !host_backend(runs[b].backend) || !host_backend(runs[i].backend);
      param_notes(line, *rows_of[li][b], *rows_of[li][i], run_name(c, b), run_name(c, i), on_device,
                  notes);
    }
    for (const auto& n : notes)
      line.notes.push_back(n.what);
    all_notes.insert(all_notes.end(), notes.begin(), notes.end());
  }
  const auto per_kind = aggregate(all_notes);
  c.warnings.insert(c.warnings.end(), per_kind.begin(), per_kind.end());
  return c;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    switch (ch) {
    case '|':
      out += "\\|";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '`':
      out += "\\`";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '\n':
    case '\r':
      out += ' ';
      break;
    default:
      out += ch;
    }
  }
  return out;
}

namespace {
// The ratio with its mark: "1.52x * (p 0.001)" significant, "1.02x ~ (p 0.4)" not; without
// repetition times "1.02x ~" when the [min, max] ranges overlap.
std::string ratio_text(const Cell& cell) {
  std::string s = fmt(cell.ratio >= 0.1 ? "%.2f" : "%.2g", cell.ratio) + "x";
  if (cell.p_value >= 0)
    return s + (cell.within_noise ? " ~" : " *") + " (p " + fmt("%.2g", cell.p_value) + ")";
  return s + (cell.within_noise ? " ~" : "");
}
} // namespace

std::string to_markdown(const Comparison& c) {
  const std::size_t b = c.options.baseline;
  const std::size_t nr = c.runs.size();
  const auto md = markdown_cell;
  std::ostringstream os;
  os << "# miniapp compare\n\n";
  os << "| run | label | ranks x threads | backend | device | host | binding | config hash | "
        "source | details |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < nr; ++i) {
    const Run& r = c.runs[i];
    const auto or_q = [&](const std::string& v) { return v.empty() ? std::string("?") : md(v); };
    os << "| " << i + 1 << (i == b ? " (baseline)" : "") << " | " << md(r.label()) << " | "
       << r.shape() << " | " << md(r.backend) << " | " << or_q(r.device) << " | " << or_q(r.host)
       << " | " << or_q(r.binding) << " | " << or_q(r.config_hash) << " | " << md(r.source) << " | "
       << md(r.details) << " |\n";
  }
  os << "\nRate: "
     << (c.options.rate == RateKind::Gflops ? "GFLOP/s"
         : c.options.rate == RateKind::Gbs  ? "GB/s"
                                            : "GFLOP/s for matmul, GB/s otherwise")
     << ", from the "
     << (c.options.with_transfers ? "median total time (host-to-device + compute + device-to-host)"
                                  : "median compute time")
     << ". Time: median [min, max] in ms over the repetitions"
     << (c.options.with_transfers ? " (range estimated: compute range + median transfer time)" : "")
     << ". Ratio: rate / rate of run " << b + 1
     << ", then `*` where the difference is significant and `~` where it is not: a two-sided "
        "Mann-Whitney U test on the repetition times at alpha = "
     << fmt("%g", kAlpha)
     << " (p shown; normal approximation with tie correction, as Google Benchmark's compare.py). "
        "Runs without repetition times (results.csv, older results.json) show no p; `~` then "
        "marks overlapping [min, max] time ranges.\n\n";

  os << "| case | size | tile | unit |";
  for (std::size_t i = 0; i < nr; ++i)
    os << " run " << i + 1
       << (c.runs[i].shape() == "?" ? std::string() : " (" + c.runs[i].shape() + ")")
       << " rate | run " << i + 1 << " time ms |";
  for (std::size_t i = 0; i < nr; ++i)
    if (i != b)
      os << " run " << i + 1 << " / run " << b + 1 << " |";
  os << "\n|" << std::string("---|---|---|---|");
  for (std::size_t i = 0; i < nr; ++i)
    os << "---:|---:|";
  for (std::size_t i = 0; i + 1 < nr; ++i)
    os << "---:|";
  os << "\n";
  for (const auto& l : c.lines) {
    os << "| " << md(l.family + "/" + l.variant + "/" + l.precision) << " | " << l.size << " | "
       << l.tile << " | " << l.unit << " |";
    for (const auto& cell : l.cells) {
      if (!cell.present) {
        os << " - | - |";
        continue;
      }
      os << " " << rate_str(cell.rate) << (cell.valid == "true" ? "" : " (!)") << " | "
         << ms(cell.t_median) << " [" << ms(cell.t_min) << ", " << ms(cell.t_max) << "] |";
    }
    for (std::size_t i = 0; i < nr; ++i) {
      if (i == b)
        continue;
      const Cell& cell = l.cells[i];
      if (!cell.present || !l.cells[b].present || cell.ratio <= 0)
        os << " - |";
      else
        os << " " << ratio_text(cell) << " |";
    }
    os << "\n";
  }
  if (c.warnings.empty()) {
    os << "\nNo warnings: the runs share their config hash and case parameters, and every row is "
          "valid.\n";
  } else {
    os << "\n## Warnings\n\n";
    for (const auto& w : c.warnings)
      os << "- " << md(w) << "\n";
    os << "\n(!) after a rate marks a row whose validation did not pass or was not checked.\n";
  }
  return os.str();
}

std::string to_csv(const Comparison& c) {
  const std::size_t b = c.options.baseline;
  const auto q = csv_escape;
  std::ostringstream os;
  os << "case,family,variant,precision,m,n,k,tile,run,run_label,backend,device,host,ranks,threads,"
        "baseline,with_transfers,unit,rate,time_min_s,time_median_s,time_max_s,ratio_to_baseline,"
        "within_noise,p_value,valid,notes,run_warnings\n";
  // Run-level warnings once per run (on its first row), not on every row.
  std::vector<std::string> run_notes(c.runs.size());
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    for (const auto& w : c.run_warnings)
      if (w.find("run " + std::to_string(i + 1) + " ") != std::string::npos)
        run_notes[i] += (run_notes[i].empty() ? "" : "; ") + w;
  std::vector<bool> first(c.runs.size(), true);
  for (std::size_t li = 0; li < c.lines.size(); ++li) {
    const Line& l = c.lines[li];
    std::string notes;
    for (const auto& n : l.notes)
      notes += (notes.empty() ? "" : "; ") + n;
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      const Cell& cell = l.cells[i];
      const Run& r = c.runs[i];
      os << li + 1 << "," << q(l.family) << "," << q(l.variant) << "," << q(l.precision) << ","
         << l.m << "," << l.n << "," << l.k << "," << q(l.tile) << "," << i + 1 << ","
         << q(r.label()) << "," << q(r.backend) << "," << q(r.device) << "," << q(r.host) << ","
         << (r.ranks > 0 ? std::to_string(r.ranks) : "") << ","
         << (r.threads > 0 ? std::to_string(r.threads) : "") << "," << (i == b ? "true" : "false")
         << "," << (c.options.with_transfers ? "true" : "false") << "," << l.unit << ",";
      if (cell.present) {
        os << fmt("%.6g", cell.rate) << "," << fmt("%.6g", cell.t_min) << ","
           << fmt("%.6g", cell.t_median) << "," << fmt("%.6g", cell.t_max) << ",";
        if (i == b)
          os << "1,,,";
        else if (cell.ratio > 0)
          os << fmt("%.6g", cell.ratio) << "," << (cell.within_noise ? "true" : "false") << ","
             << (cell.p_value >= 0 ? fmt("%.6g", cell.p_value) : "") << ",";
        else
          os << ",,,";
        os << q(cell.valid);
      } else {
        os << ",,,,,,,missing";
      }
      os << "," << q(notes) << "," << q(first[i] ? run_notes[i] : "") << "\n";
      first[i] = false;
    }
  }
  return os.str();
}

std::string paper_table1_markdown(const std::vector<Run>& runs,
                                  std::vector<std::string>* warnings) {
  if (runs.empty() || runs.size() > 2)
    throw std::runtime_error("--table paper1 takes one CPU run and optionally one GPU run");
  Options opt;
  opt.with_transfers = true;
  opt.rate = RateKind::Gflops;
  const Comparison c = compare_runs(runs, opt);
  if (warnings)
    *warnings = c.warnings;
  const bool gpu = runs.size() == 2;
  std::ostringstream os;
  const auto who = [&](std::size_t i) {
    const Run& r = c.runs[i];
    return markdown_cell(r.label() + " (" + r.source + (r.details.empty() ? "" : "; " + r.details) +
                         ")");
  };
  os << "CPU: " << who(0) << "  \n"
     << "GPU: " << (gpu ? who(1) : std::string("pending")) << "\n\n";
  os << "| N x N | CPU time (ms) | CPU GFLOPS | GPU time (ms) | GPU GFLOPS | speedup |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  std::vector<const Line*> lines;
  for (const auto& l : c.lines)
    if (l.family == "axpby" && l.variant == "flat" && l.precision == "float32" && l.m == l.n)
      lines.push_back(&l);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line* a, const Line* b) { return a->n < b->n; });
  for (const Line* l : lines) {
    const Cell& cpu = l->cells[0];
    os << "| " << l->n << " x " << l->n << " | ";
    if (cpu.present)
      os << fmt("%.4g", cpu.t_median * 1e3) << " | " << fmt("%.3g", cpu.rate);
    else
      os << "- | -";
    if (!gpu) {
      os << " | pending | pending | pending |\n";
      continue;
    }
    const Cell& g = l->cells[1];
    if (g.present)
      os << " | " << fmt("%.4g", g.t_median * 1e3) << " | " << fmt("%.3g", g.rate);
    else
      os << " | - | -";
    os << " | " << (g.present && cpu.present && g.ratio > 0 ? fmt("%.1f", g.ratio) : "-") << " |\n";
  }
  if (lines.empty())
    os << "| (no axpby/flat/float32 square cases in the CPU run) | | | | | |\n";
  os << "\nTime: median over the repetitions of host-to-device copy + compute + device-to-host "
        "copy "
        "(on a host backend the copies are none, so it is the compute time). GFLOPS = 3 N^2 / "
        "time. "
        "Speedup = GPU GFLOPS / CPU GFLOPS.\n";
  if (!c.warnings.empty()) {
    os << "\nWarnings:\n\n";
    for (const auto& w : c.warnings)
      os << "- " << markdown_cell(w) << "\n";
  }
  return os.str();
}

} // namespace compare
} // namespace miniapp
