#include "jobs/study_state.hpp"

#include "config/config.hpp"
#include "config/limits.hpp"
#include "core/files.hpp"
#include "core/input_file.hpp"
#include "core/sinks.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace miniapp::jobs {

using json = nlohmann::json;

namespace {

// The state is a file like any input: anyone may have edited it. A count outside what `study
// submit` writes (a node count of 2^30 made `collect`'s scaling plot loop for ever; 0 gave an
// efficiency of -nan) is refused, naming the file.
int read_count(const json& point, const char* key, std::size_t index, const std::string& path) {
  const auto found = point.find(key);
  const json v = found == point.end() ? json() : *found;
  const std::int64_t max = config::limits::kMaxJobCount;
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > max)
    throw config::ConfigError(path + ": point " + std::to_string(index + 1) + "'s " + key + " " +
                              for_terminal(v.dump()) + " is not a count from 1 to " +
                              std::to_string(max) + "; the state was not written by `miniapp " +
                              "study submit`: remove the study's directory and submit again");
  return int(v.get<std::int64_t>());
}

[[noreturn]] void not_written_by_submit(const std::string& path, const std::string& what) {
  throw config::ConfigError(path + ": " + what +
                            "; the state was not written by `miniapp study submit`: remove the "
                            "study's directory and submit again");
}

// A text field: a string of at most kMaxStringBytes, with no control character (it is printed,
// and names systems, files and jobs).
std::string text_field(const json& holder, const char* key, const std::string& what,
                       const std::string& path) {
  const auto v = holder.find(key);
  if (v == holder.end() || !v->is_string())
    not_written_by_submit(path, what + " is missing or not a string");
  const std::string value = v->get<std::string>();
  if (value.size() > config::limits::kMaxStringBytes)
    not_written_by_submit(path, what + " is longer than " +
                                    std::to_string(config::limits::kMaxStringBytes) + " bytes");
  if (const std::string why = path_problem(value); !why.empty())
    not_written_by_submit(path, what + " '" + for_terminal(value) + "' " + why);
  return value;
}

// The ids of the jobs that ran a point, oldest first: at most kMaxStudyJobs words a scheduler
// could have given (letters, digits, '_', '.', '-'; Slurm's are digits and '_').
std::vector<std::string> job_ids(const json& holder, const std::string& what,
                                 const std::string& path) {
  const auto v = holder.find("jobs");
  if (v == holder.end() || !v->is_array() || v->size() > config::limits::kMaxStudyJobs)
    not_written_by_submit(path, what + "jobs is not a list of at most " +
                                    std::to_string(config::limits::kMaxStudyJobs) + " job ids");
  std::vector<std::string> ids;
  for (const json& id : *v) {
    const std::string s = id.is_string() ? id.get<std::string>() : std::string();
    if (s.empty() || s.size() > 64 ||
        s.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-") !=
            std::string::npos)
      not_written_by_submit(path, what + "job id " + for_terminal(id.dump()) +
                                      " is not a scheduler's job id");
    ids.push_back(s);
  }
  return ids;
}

// A path the state names for the study to read, write or submit (a job script, a results
// directory): it must lie under the directory holding the state, the study's, or `resubmit` would
// hand sbatch any script and `collect` import any directory. Compared as written (absolute and
// normal), so "dir/../elsewhere" is elsewhere; the normal form is what the study uses. Where it
// exists, what its symbolic links resolve to must lie under the study's too: the point's directory
// made a link to another study's run was imported by `collect`.
std::string inside(const json& holder, const char* key, const std::string& what,
                   const std::string& dir, const std::string& path) {
  const auto under = [](const std::string& p, const std::string& d) {
    return p.size() > d.size() + 1 && p.compare(0, d.size() + 1, d + "/") == 0;
  };
  const std::string value = text_field(holder, key, what, path);
  const std::string normal = std::filesystem::path(value).lexically_normal().string();
  std::error_code ec, dir_ec;
  const std::string real = std::filesystem::weakly_canonical(normal, ec).string();
  const std::string real_dir = std::filesystem::weakly_canonical(dir, dir_ec).string();
  const bool linked_out = under(normal, dir) && !ec && !dir_ec && !under(real, real_dir);
  if (value.empty() || value[0] != '/' || !under(normal, dir) || linked_out)
    throw config::ConfigError(
        path + ": " + what + " '" + for_terminal(value) + "' lies outside the study's directory " +
        for_terminal(dir) +
        (linked_out ? " (a symbolic link leads to " + for_terminal(real) + ")" : std::string()) +
        "; the state was not written by `miniapp study submit` for this "
        "study: remove the study's directory and submit again");
  return normal;
}

} // namespace

std::string study_state_path(const Study& s) {
  return (s.directory.empty() ? std::string(".") : s.directory) + "/study-state.json";
}

void save_study_state(const std::string& path, const StudyState& st) {
  json points = json::array();
  for (const PointState& p : st.points)
    points.push_back({{"system", p.point.system},
                      {"system_name", p.system_name},
                      {"nodes", p.point.nodes},
                      {"ranks_per_node", p.point.ranks_per_node},
                      {"script", p.script},
                      {"output_dir", p.output_dir},
                      {"jobs", p.jobs}});
  const json doc = {{"study", st.study},
                    {"study_file", st.study_file},
                    {"scheduler", st.scheduler},
                    {"scaling", st.weak ? "weak" : "strong"},
                    {"points", points},
                    {"collect", {{"script", st.collect_script}, {"jobs", st.collect_jobs}}}};
  write_file_atomically(path, doc.dump(2) + "\n");
}

StudyState load_study_state(const std::string& path) {
  try {
    return parse_study_state(read_regular_file(path, config::limits::kMaxStudyStateBytes), path);
  } catch (const InputFileError& e) {
    if (e.why == InputFileError::Why::missing)
      throw config::ConfigError(path + ": no such file: the study has not been submitted "
                                       "(miniapp study submit STUDY)");
    throw config::ConfigError(e.what());
  }
}

StudyState parse_study_state(const std::string& text, const std::string& path) {
  std::error_code ec;
  const std::string dir =
      std::filesystem::absolute(path, ec).lexically_normal().parent_path().string();
  if (ec)
    throw config::ConfigError(path + ": cannot tell the study's directory (" + ec.message() + ")");
  json doc;
  try {
    // The state as submit writes it is four levels deep (state, points, a point, its jobs) and
    // holds two maps or lists a point and four more; twice that is counted before parsing, so a
    // list of too many points is refused by the sentence that says so, below.
    doc = parse_json_bounded(text, path, 4, 4 * config::limits::kMaxStudyPoints + 8);
  } catch (const InputFileError& e) {
    throw config::ConfigError(e.what());
  }
  if (!doc.is_object())
    not_written_by_submit(path, "not a JSON object");
  StudyState st;
  st.study = text_field(doc, "study", "\"study\"", path);
  st.study_file = text_field(doc, "study_file", "\"study_file\"", path);
  st.scheduler = text_field(doc, "scheduler", "\"scheduler\"", path);
  const std::string scaling = text_field(doc, "scaling", "\"scaling\"", path);
  if (scaling != "weak" && scaling != "strong")
    not_written_by_submit(path,
                          "\"scaling\" is '" + for_terminal(scaling) + "', not 'strong' or 'weak'");
  st.weak = scaling == "weak";
  const auto points = doc.find("points");
  if (points == doc.end() || !points->is_array() ||
      points->size() > config::limits::kMaxStudyPoints)
    not_written_by_submit(path, "\"points\" is not a list of at most " +
                                    std::to_string(config::limits::kMaxStudyPoints) + " points");
  for (const json& p : *points) {
    const std::size_t i = st.points.size();
    const std::string point = "point " + std::to_string(i + 1) + "'s ";
    if (!p.is_object())
      not_written_by_submit(path, "point " + std::to_string(i + 1) + " is not a JSON object");
    PointState ps;
    ps.point.system = text_field(p, "system", point + "system", path);
    ps.point.nodes = read_count(p, "nodes", i, path);
    ps.point.ranks_per_node = read_count(p, "ranks_per_node", i, path);
    if (std::int64_t(ps.point.nodes) * ps.point.ranks_per_node > config::limits::kMaxJobRanks)
      not_written_by_submit(path, point + "nodes x ranks_per_node is more than " +
                                      std::to_string(config::limits::kMaxJobRanks) + " ranks");
    ps.system_name = text_field(p, "system_name", point + "system_name", path);
    ps.script = inside(p, "script", point + "script", dir, path);
    ps.output_dir = inside(p, "output_dir", point + "output_dir", dir, path);
    ps.jobs = job_ids(p, point, path);
    st.points.push_back(std::move(ps));
  }
  const auto collect = doc.find("collect");
  if (collect == doc.end() || !collect->is_object())
    not_written_by_submit(path, "\"collect\" is missing or not a JSON object");
  st.collect_script = inside(*collect, "script", "the collect script", dir, path);
  st.collect_jobs = job_ids(*collect, "the collect job's ", path);
  return st;
}

StudyLock::StudyLock(const std::string& state_path) {
  const std::string lock = state_path.substr(0, state_path.rfind(".json")) + ".lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error(disk_error("create the study's lock", lock, errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    if (err == EWOULDBLOCK)
      throw StudyBusy("another `miniapp study submit` or `resubmit` of this study is running (it "
                      "holds " +
                      for_terminal(lock) +
                      "); wait for it to end, then follow the "
                      "study with `miniapp study status`");
    throw std::runtime_error(disk_error("lock", lock, err));
  }
}

StudyLock::~StudyLock() {
  ::close(fd_); // releases the flock
}

} // namespace miniapp::jobs
