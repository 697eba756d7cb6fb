#include "report/compare.hpp"
#include "report/results_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
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

bool primary_is_gflops(const std::string& family, RateKind kind) {
  if (kind == RateKind::Gflops)
    return true;
  if (kind == RateKind::Gbs)
    return false;
  return family == "matmul"; // compute-bound; the others move data and are judged by GB/s
}

Cell cell_from(const Row& r, bool gflops, bool with_transfers) {
  Cell c;
  c.present = true;
  c.valid = r.valid;
  if (!with_transfers) {
    c.rate = gflops ? r.gflops : r.gbs;
    c.t_min = r.time_min;
    c.t_median = r.time_median;
    c.t_max = r.time_max;
    return c;
  }
  // Only the median total is recorded; shift the compute range by the median transfer time.
  const double transfers = std::max(0.0, r.total_median - r.time_median);
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

void param_notes(const Line& line, const Row& base, const Row& other, const std::string& base_name,
                 const std::string& other_name, std::vector<std::string>& notes) {
  const auto differ = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b)
      notes.push_back("case " + case_name(line) + ": " + what + " differs: " + a + " in " +
                      base_name + ", " + b + " in " + other_name);
  };
  differ("alpha", describe(base.alpha), describe(other.alpha));
  differ("beta", describe(base.beta), describe(other.beta));
  differ("seed", std::to_string(base.seed), std::to_string(other.seed));
  differ("repetitions", std::to_string(base.repetitions), std::to_string(other.repetitions));
  differ("warmup", std::to_string(base.warmup), std::to_string(other.warmup));
  differ("team_size", std::to_string(base.team_size), std::to_string(other.team_size));
  differ("in_place", base.in_place ? "true" : "false", other.in_place ? "true" : "false");
  differ("pinned", base.pinned ? "true" : "false", other.pinned ? "true" : "false");
}

} // namespace

std::string Run::label() const {
  std::string s = backend.empty() ? "unknown backend" : backend;
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
    if (m.contains("load_average") && m["load_average"].is_array() && !m["load_average"].empty())
      run.load1 = m["load_average"][0].get<double>();
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
  if (!json_path.empty()) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(read_text(json_path));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(json_path + ": " + e.what());
    }
    return run_from_json(doc, path);
  }
  Run run = run_from_csv(read_text(csv_path), path);
  // The CSV has no metadata; a results.json beside it (a run directory) has.
  const std::string sibling = dir_of(csv_path) + "/results.json";
  if (is_file(sibling)) {
    try {
      const Run meta = run_from_json(nlohmann::json::parse(read_text(sibling)), path);
      run.device = meta.device;
      run.host = meta.host;
      run.config_hash = meta.config_hash;
      run.complete = meta.complete;
      run.details = meta.details;
      run.load1 = meta.load1;
      run.host_cpus = meta.host_cpus;
      if (!meta.backend.empty())
        run.backend = meta.backend;
    } catch (const std::exception&) {
      // metadata is optional for a CSV; the rows alone are enough to compare
    }
  }
  return run;
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

  // Run-level warnings.
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].complete)
      c.warnings.push_back(run_name(c, i) + " is incomplete (interrupted or failed)");
    if (runs[i].host_cpus > 0 && runs[i].load1 > runs[i].host_cpus)
      c.warnings.push_back(run_name(c, i) + " started on a busy host: load average " +
                           fmt("%.2f", runs[i].load1) + " on " + std::to_string(runs[i].host_cpus) +
                           " CPUs (more runnable tasks than CPUs); its times include other work");
    if (i != b && !runs[i].config_hash.empty() && !runs[b].config_hash.empty() &&
        runs[i].config_hash != runs[b].config_hash)
      c.warnings.push_back("config differs: " + run_name(c, i) + " has config hash " +
                           runs[i].config_hash + ", baseline " + run_name(c, b) + " has " +
                           runs[b].config_hash);
  }

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

  for (std::size_t li = 0; li < c.lines.size(); ++li) {
    Line& line = c.lines[li];
    const bool gflops = line.unit == "GFLOP/s";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Row* row = rows_of[li][i];
      if (!row) {
        line.notes.push_back("case " + case_name(line) + " is missing from " + run_name(c, i));
        continue;
      }
      line.cells[i] = cell_from(*row, gflops, opt.with_transfers);
      if (row->valid != "true")
        line.notes.push_back("case " + case_name(line) + " in " + run_name(c, i) +
                             ": valid=" + (row->valid.empty() ? "missing" : row->valid) +
                             " (status " + row->status + ")");
    }
    const Cell& base = line.cells[b];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Cell& cell = line.cells[i];
      if (i == b || !cell.present || !base.present)
        continue;
      cell.ratio = base.rate > 0 ? cell.rate / base.rate : 0;
      cell.within_noise = !(cell.t_max < base.t_min || base.t_max < cell.t_min);
      param_notes(line, *rows_of[li][b], *rows_of[li][i], run_name(c, b), run_name(c, i),
                  line.notes);
    }
    c.warnings.insert(c.warnings.end(), line.notes.begin(), line.notes.end());
  }
  return c;
}

std::string to_markdown(const Comparison& c) {
  const std::size_t b = c.options.baseline;
  const std::size_t nr = c.runs.size();
  std::ostringstream os;
  os << "# miniapp compare\n\n";
  os << "| run | backend | device | host | config hash | source | details |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < nr; ++i) {
    const Run& r = c.runs[i];
    os << "| " << i + 1 << (i == b ? " (baseline)" : "") << " | " << r.backend << " | "
       << (r.device.empty() ? "?" : r.device) << " | " << (r.host.empty() ? "?" : r.host) << " | "
       << (r.config_hash.empty() ? "?" : r.config_hash) << " | " << r.source << " | " << r.details
       << " |\n";
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
     << "; `~` marks a difference within the noise (the [min, max] time ranges overlap).\n\n";

  os << "| case | size | tile | unit |";
  for (std::size_t i = 0; i < nr; ++i)
    os << " run " << i + 1 << " rate | run " << i + 1 << " time ms |";
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
    os << "| " << l.family << "/" << l.variant << "/" << l.precision << " | " << l.size << " | "
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
        os << " " << fmt(cell.ratio >= 0.1 ? "%.2f" : "%.2g", cell.ratio) << "x"
           << (cell.within_noise ? " ~" : "") << " |";
    }
    os << "\n";
  }
  if (c.warnings.empty()) {
    os << "\nNo warnings: the runs share their config hash and case parameters, and every row is "
          "valid.\n";
  } else {
    os << "\n## Warnings\n\n";
    for (const auto& w : c.warnings)
      os << "- " << w << "\n";
    os << "\n(!) after a rate marks a row whose validation did not pass or was not checked.\n";
  }
  return os.str();
}

std::string to_csv(const Comparison& c) {
  const std::size_t b = c.options.baseline;
  std::ostringstream os;
  os << "case,family,variant,precision,m,n,k,tile,run,run_label,backend,device,host,baseline,"
        "with_transfers,unit,rate,time_min_s,time_median_s,time_max_s,ratio_to_baseline,"
        "within_noise,valid,notes\n";
  std::vector<std::string> run_notes(c.runs.size());
  for (std::size_t i = 0; i < c.runs.size(); ++i)
    for (const auto& w : c.warnings)
      if (w.find("run " + std::to_string(i + 1) + " (") != std::string::npos &&
          w.rfind("case ", 0) != 0)
        run_notes[i] += (run_notes[i].empty() ? "" : "; ") + w;
  for (std::size_t li = 0; li < c.lines.size(); ++li) {
    const Line& l = c.lines[li];
    std::string notes;
    for (const auto& n : l.notes)
      notes += (notes.empty() ? "" : "; ") + n;
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      const Cell& cell = l.cells[i];
      const Run& r = c.runs[i];
      std::string all = run_notes[i];
      if (!notes.empty())
        all += (all.empty() ? "" : "; ") + notes;
      os << li + 1 << "," << l.family << "," << l.variant << "," << l.precision << "," << l.m << ","
         << l.n << "," << l.k << "," << l.tile << "," << i + 1 << "," << csv_escape(r.label())
         << "," << csv_escape(r.backend) << "," << csv_escape(r.device) << "," << csv_escape(r.host)
         << "," << (i == b ? "true" : "false") << ","
         << (c.options.with_transfers ? "true" : "false") << "," << l.unit << ",";
      if (cell.present) {
        os << fmt("%.6g", cell.rate) << "," << fmt("%.6g", cell.t_min) << ","
           << fmt("%.6g", cell.t_median) << "," << fmt("%.6g", cell.t_max) << ",";
        if (i == b)
          os << "1,,";
        else if (cell.ratio > 0)
          os << fmt("%.6g", cell.ratio) << "," << (cell.within_noise ? "true" : "false") << ",";
        else
          os << ",,";
        os << cell.valid;
      } else {
        os << ",,,,,,missing";
      }
      os << "," << csv_escape(all) << "\n";
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
    return r.label() + " (" + r.source + (r.details.empty() ? "" : "; " + r.details) + ")";
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
      os << "- " << w << "\n";
  }
  return os.str();
}

} // namespace compare
} // namespace miniapp
