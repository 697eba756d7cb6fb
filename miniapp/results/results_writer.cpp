#include "results/results_writer.hpp"
#include "core/environment.hpp"

#include "config/limits.hpp"
#include "jobs/scheduler.hpp"
#include "results/metadata.hpp"
#include "results/result_fields.hpp"
#include "run/stop_signals.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <fcntl.h>

namespace miniapp {

namespace {

// Room left after each results.json for writing the final status in place (see the header).
constexpr std::size_t kFinalReserve = 256;

// The last results.json document with status "interrupted", kept ready for the stop hook, which
// runs in a signal handler: two buffers, the writer fills the one the handler does not read.
struct EmergencyCopy {
  std::string path[2], tmp[2], text[2];
  std::atomic<int> current{-1};
};
EmergencyCopy g_emergency;

extern "C" void write_emergency_copy() {
  const int i = g_emergency.current.load();
  if (i < 0)
    return;
  // open/write/close/rename only: async-signal-safe.
  const int fd =
      ::open(g_emergency.tmp[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return;
  const bool ok = write_all(fd, g_emergency.text[i].data(), g_emergency.text[i].size());
  ::close(fd);
  if (!ok || ::rename(g_emergency.tmp[i].c_str(), g_emergency.path[i].c_str()) != 0)
    ::unlink(g_emergency.tmp[i].c_str());
}

void set_emergency_copy(const std::string& path, const std::string& text) {
  const int next = g_emergency.current.load() == 0 ? 1 : 0;
  g_emergency.path[next] = path;
  g_emergency.tmp[next] = path + ".tmp." + std::to_string(::getpid()) + ".signal";
  g_emergency.text[next] = text;
  g_emergency.current.store(next);
}

} // namespace

std::string create_run_directory(const std::string& base, const std::string& name,
                                 const std::string& explicit_dir_arg) {
  std::string explicit_dir = explicit_dir_arg; // "new/" names "new"
  while (explicit_dir.size() > 1 && explicit_dir.back() == '/')
    explicit_dir.pop_back();
  if (!explicit_dir.empty()) {
    if (path_exists(explicit_dir))
      throw std::runtime_error(
          "results directory " + explicit_dir +
          " already exists; results are never overwritten (resource: output directory)");
    const auto slash = explicit_dir.find_last_of('/');
    if (slash != std::string::npos && slash > 0)
      make_dirs(explicit_dir.substr(0, slash));
    if (::mkdir(explicit_dir.c_str(), 0755) != 0)
      throw std::runtime_error("cannot create " + explicit_dir + ": " + std::strerror(errno) +
                               " (resource: output directory)");
    return explicit_dir;
  }
  make_dirs(base);
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::string dir = base + "/" + name + "-" + stamp;
  if (const char* job = env::value(jobs::site_scheduler().job_id_variable().c_str()))
    dir += std::string("-job") + job;
  // Bounded, and a stop request ends it: a retry loop must never outlive the user's patience.
  for (int i = 1; i <= config::limits::kMaxRunDirectoryTries; ++i) {
    if (stop_requested())
      throw std::runtime_error("interrupted while creating a run directory under " + base +
                               " (resource: output directory)");
    const std::string candidate = i == 1 ? dir : dir + "-" + std::to_string(i);
    if (::mkdir(candidate.c_str(), 0755) == 0)
      return candidate;
    if (errno != EEXIST)
      throw std::runtime_error("cannot create " + candidate + ": " + std::strerror(errno) +
                               " (resource: output directory)");
  }
  throw std::runtime_error("cannot create a new run directory: " + dir +
                           " and its suffixes -2 to -" +
                           std::to_string(config::limits::kMaxRunDirectoryTries) +
                           " all exist (resource: output directory)");
}

ResultsWriter::ResultsWriter(std::string dir, const Plan& plan, nlohmann::json metadata,
                             const ResumeState& resume)
    : dir_(std::move(dir)), plan_(plan), metadata_(std::move(metadata)), kept_(resume.kept) {
  metadata_["start_time"] = iso8601_now();
  if (resume.active)
    metadata_["resumed"] = resume.earlier_runs;
  try {
    write_files(false);
  } catch (...) {
    if (resume.active) // the earlier run's directory and files stay as they were
      throw;
    // Nothing was recorded: leave no half-made run directory to block a rerun.
    ::unlink((dir_ + "/results.csv").c_str());
    ::unlink((dir_ + "/results.json").c_str());
    ::rmdir(dir_.c_str());
    throw;
  }
  set_stop_hook(write_emergency_copy);
}

ResultsWriter::~ResultsWriter() {
  set_stop_hook(nullptr);
  g_emergency.current.store(-1);
}

void ResultsWriter::add(const CaseResult& r) {
  if (r.status == Status::interrupted)
    return; // only completed cases become rows
  rows_.push_back(r);
  write_files(false);
}

void ResultsWriter::update(std::size_t index, const CaseResult& r) {
  if (index >= rows_.size() || r.status == Status::interrupted)
    return;
  rows_[index] = r;
  write_files(false);
}

const char* to_string(RunStatus s) {
  switch (s) {
  case RunStatus::running:
    return "running";
  case RunStatus::complete:
    return "complete";
  case RunStatus::interrupted:
    return "interrupted";
  default:
    return "failed";
  }
}

std::string ResultsWriter::finish(RunStatus status) noexcept {
  std::string error;
  try {
    status_ = status;
    metadata_["end_time"] = iso8601_now();
    write_files(status == RunStatus::complete);
    set_stop_hook(nullptr); // final: a late signal must not turn it into "interrupted"
    g_emergency.current.store(-1);
    return "";
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "cannot write the results files";
  }
  set_stop_hook(nullptr);
  g_emergency.current.store(-1);
  write_final_in_place(status == RunStatus::interrupted ? status : RunStatus::failed, error);
  return error;
}

void ResultsWriter::write_final_in_place(RunStatus status, const std::string& error) noexcept {
  try {
    if (on_disk_.is_null())
      return;
    nlohmann::json doc = on_disk_;
    doc["complete"] = false;
    doc["status"] = to_string(status);
    doc["error"] = error.substr(0, 160);
    std::string text = json_text(doc, 2) + "\n";
    if (text.size() > on_disk_size_) {
      doc.erase("error");
      text = json_text(doc, 2) + "\n";
    }
    if (text.size() > on_disk_size_)
      return;
    text.append(on_disk_size_ - text.size(), ' '); // only the blocks the file already has
    const std::string path = dir_ + "/results.json";
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      return;
    write_all(fd, text.data(), text.size());
    ::fsync(fd);
    ::close(fd);
  } catch (...) {
  }
}

void ResultsWriter::write_files(bool complete) {
  const int ranks = metadata_.value("mpi_ranks", 1);
  const auto& formats = plan_.settings.formats;
  const auto want = [&](const char* f) {
    return std::find(formats.begin(), formats.end(), f) != formats.end();
  };
  if (want("csv")) {
    std::ostringstream csv;
    const auto cols = csv_columns();
    for (size_t i = 0; i < cols.size(); ++i)
      csv << (i ? "," : "") << cols[i];
    csv << "\n";
    std::vector<std::pair<long long, std::vector<std::string>>> lines; // by case position
    for (const auto& kept : kept_) {
      std::vector<std::string> cells;
      for (const auto& c : cols)
        cells.push_back(csv_text(kept.contains(c) ? kept[c] : nlohmann::json()));
      lines.emplace_back(kept["case"].get<long long>(), std::move(cells));
    }
    for (const auto& r : rows_)
      lines.emplace_back(r.c.index, csv_row(r, plan_, ranks));
    std::stable_sort(lines.begin(), lines.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, row] : lines) {
      for (size_t i = 0; i < row.size(); ++i)
        csv << (i ? "," : "") << csv_escape(row[i]);
      csv << "\n";
    }
    write_file_atomically(dir_ + "/results.csv", csv.str());
  }
  if (want("json")) {
    std::vector<nlohmann::json> merged = kept_;
    for (const auto& r : rows_)
      merged.push_back(result_json(r, {plan_, ranks}));
    std::stable_sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) {
      return a["case"].template get<long long>() < b["case"].template get<long long>();
    });
    const nlohmann::json rows(merged);
    // The directory the results really went to (--output-dir overrides the config's value).
    nlohmann::json config = plan_to_json(plan_);
    const std::string run_dir = dir_.substr(0, dir_.find_last_not_of('/') + 1);
    const auto slash = run_dir.find_last_of('/');
    config["output"]["directory"] = slash == std::string::npos ? "."
                                    : slash == 0               ? "/"
                                                               : run_dir.substr(0, slash);
    config["output"]["run_directory"] = dir_;
    nlohmann::json doc = {{"schema_version", kResultsSchemaVersion},
                          {"complete", complete},
                          {"status", to_string(status_)},
                          {"cases_planned", plan_.cases.size()},
                          {"cases_completed", rows.size()},
                          {"config", config},
                          {"metadata", metadata_},
                          {"results", rows}};
    if (before_write) // --references, --db (see the header)
      before_write(doc);

    // Spare whitespace after the document: room for the final status written in place.
    const std::string text = json_text(doc, 2) + "\n" + std::string(kFinalReserve, ' ');
    const std::string path = dir_ + "/results.json";
    write_file_atomically(path, text);
    on_disk_ = doc;
    on_disk_size_ = text.size();
    if (status_ == RunStatus::running) {
      nlohmann::json stopped = doc;
      stopped["status"] = "interrupted";
      stopped["error"] = "stopped by a signal";
      set_emergency_copy(path, json_text(stopped, 2) + "\n");
    }
  }
}

} // namespace miniapp
