// Reading runs for `miniapp compare`: run directories, results.json (schema 1 and 2) and
// results.csv, within the limits on a results file (config/limits.hpp); each row is typed by the
// results table in results/row.cpp.
#include "results/run.hpp"
#include "config/limits.hpp"
#include "core/backend_names.hpp"
#include "core/files.hpp"
#include "core/input_file.hpp"
#include "results/row.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <vector>

namespace miniapp {
namespace compare {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
void check_results_size(std::uint64_t bytes, const std::string& source) {
  if (bytes > config::limits::kMaxResultsFileBytes)
    throw std::runtime_error(source + ": larger than " +
                             std::to_string(config::limits::kMaxResultsFileBytes >> 20) +
                             " MiB, the limit on a results file; not miniapp results");
}
// A results file larger than the limit is not one miniapp wrote, and parsing it could exhaust
// memory: it is refused (unread when its size says so; a file that grows is read no further than
// the limit); a FIFO or a device (/dev/zero) is refused before a byte is read (core/input_file).
std::string read_text(const std::string& path) {
  return read_regular_file(path, config::limits::kMaxResultsFileBytes);
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
nlohmann::json parse_results_json(const std::string& path) {
  return parse_results_text(read_text(path), path);
}

void check_results_rows(std::uint64_t rows, const std::string& source) {
  if (rows > config::limits::kMaxResultsRows)
    throw std::runtime_error(source + ": more than " +
                             std::to_string(config::limits::kMaxResultsRows) +
                             " rows, the most one config runs; not miniapp results");
}

// RFC 4180 as results_writer writes it: commas, "quoted" fields with "" inside, \n rows. Each row
// goes to on_row as soon as it ends, so only one row's cells are held at a time; a row of more than
// kMaxResultsColumns cells throws while it is read (256 MiB of commas would otherwise be 256
// million empty strings).
void parse_csv(const std::string& text, const std::string& source,
               const std::function<void(const std::vector<std::string>&)>& on_row) {
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  const auto end_field = [&] {
    if (row.size() >= config::limits::kMaxResultsColumns)
      throw std::runtime_error(source + ": a row of more than " +
                               std::to_string(config::limits::kMaxResultsColumns) +
                               " cells; not miniapp results");
    row.push_back(field);
    field.clear();
  };
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
      end_field();
      any = true;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
        ++i;
      if (any || !field.empty())
        end_field();
      if (!row.empty())
        on_row(row);
      row.clear();
      field.clear();
      any = false;
    } else {
      field += ch;
      any = true;
    }
  }
  if (any || !field.empty())
    end_field();
  if (!row.empty())
    on_row(row);
}

} // namespace

// One results row into the run; the first rows name the backend and experiment where the
// metadata did not.
static void add_row(Run& run, const nlohmann::json& o) {
  run.rows.push_back(row_from(o));
  const Row& row = run.rows.back();
  const auto text = [&](const char* k) {
    const auto it = row.fields.find(k);
    return it == row.fields.end() || !it->is_string() ? std::string() : it->get<std::string>();
  };
  if (run.ranks == 0)
    run.ranks = int(row.ranks);
  if (run.backend.empty())
    run.backend = text("backend");
  if (run.experiment.empty())
    run.experiment = text("experiment");
}

Run run_from_json(const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
    throw std::runtime_error(source + ": not a miniapp results.json (no \"results\" array)");
  Run run;
  run.source = source;
  const auto complete = doc.find("complete");
  if (complete != doc.end() && !complete->is_boolean())
    throw std::runtime_error(source + ": \"complete\" is a " + complete->type_name() +
                             ", not true or false; not a miniapp results.json");
  run.complete = complete == doc.end() || complete->get<bool>();
  run.schema_version = int(inum(doc, "schema_version"));
  if (doc.contains("metadata") && doc["metadata"].is_object()) {
    const auto& m = doc["metadata"];
    run.metadata = m;
    run.backend = str(m, "backend");
    run.device = str(m, "device_name");
    run.host = str(m, "host_name");
    run.config_hash = str(m, "config_hash");
    run.experiment_hash = str(m, "experiment_hash");
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
    if (run.load1 >= 0) {
      char load[32];
      std::snprintf(load, sizeof load, "%.2f", run.load1);
      add("load average ", load);
    }
    if (run.host_cpus > 0)
      add("", std::to_string(run.host_cpus) + " host CPUs");
    run.details = d;
  }
  if (doc.contains("config") && doc["config"].is_object())
    run.experiment = str(doc["config"], "name");
  check_results_rows(doc["results"].size(), source);
  for (const auto& o : doc["results"]) {
    if (!o.is_object())
      throw std::runtime_error(source + ": a results row is a " + o.type_name() +
                               ", not an object; not a miniapp results.json");
    add_row(run, o);
  }
  return run;
}

Run run_from_csv(const std::string& text, const std::string& source) {
  Run run;
  run.source = source;
  std::vector<std::string> header;
  std::uint64_t rows = 0;
  parse_csv(text, source, [&](const std::vector<std::string>& cells) {
    if (header.empty()) {
      if (std::find(cells.begin(), cells.end(), "family") == cells.end())
        throw std::runtime_error(source + ": not a miniapp results.csv (no \"family\" column)");
      header = cells;
      return;
    }
    check_results_rows(++rows, source);
    nlohmann::json o = nlohmann::json::object();
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c)
      o[header[c]] = cells[c];
    add_row(run, o);
  });
  if (header.empty())
    throw std::runtime_error(source + ": empty CSV");
  return run;
}

nlohmann::json parse_results_text(const std::string& text, const std::string& source) {
  check_results_size(text.size(), source);
  // results.json is a few levels deep; a deeper document is not ours, and nesting it 100,000 deep
  // must not exhaust the stack of the parser or of the code walking (or copying) the result. Its
  // maps and lists are bounded too, as they cost 25 times their text once parsed.
  return parse_json_bounded(text, source, config::limits::kMaxResultsJsonDepth,
                            config::limits::kMaxResultsJsonContainers);
}

nlohmann::json read_results_json(const std::string& path) {
  return parse_results_json(path);
}

Run load_run(const std::string& path) {
  std::string json_path, csv_path;
  // A file that is there but not a regular file (a FIFO, a device) goes to the strict reader,
  // which refuses it unread and names it (passed over, a FIFO results.json read as "no results").
  if (is_dir(path)) {
    if (path_exists(path + "/results.json"))
      json_path = path + "/results.json";
    else if (path_exists(path + "/results.csv"))
      csv_path = path + "/results.csv";
    else
      throw std::runtime_error(path + ": no results.json or results.csv in this directory");
  } else if (path_exists(path)) {
    (ends_with(path, ".csv") ? csv_path : json_path) = path;
  } else {
    throw std::runtime_error(path + ": no such run directory or results file");
  }
  if (!json_path.empty()) {
    const nlohmann::json doc = parse_results_json(json_path);
    // miniapp-bench's JSON too (compare and report only; the history database keeps results)
    return run_from_json(is_bench_json(doc) ? bench_as_results(doc, path) : doc, path);
  }
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
      run.metadata = meta.metadata;
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
} // namespace compare
} // namespace miniapp
