#include "results/console.hpp"
#include "core/case_fields.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"
#include "core/backend_names.hpp"

#include "core/device_info.hpp"
#include "core/energy.hpp"
#include "core/marks.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <thread>

namespace miniapp {

namespace {
std::string size_of(const Case& c) {
  std::string s = std::to_string(c.m) + "x" + std::to_string(c.n);
  if (c.uses(Param::k)) // MxNxK where the variant reads k (matmul), MxN elsewhere
    s += "x" + std::to_string(c.k);
  return s;
}
// The row's marks (core/marks.hpp) after its validity: ", busy", ", ceiling disturbed (re-checked
// X UNIT)", ", ceiling uncertain LOW-HIGH UNIT"; `shown` collects them for the legends.
std::string row_marks_text(const CaseResult& r, bool measured, Marks& shown) {
  Marks m = marks_of(r, int(std::thread::hardware_concurrency()));
  if (!measured) // no rate, no ceiling to doubt
    m.disturbed = m.uncertain = false;
  shown |= m;
  std::string s = m.busy ? ", busy" : "";
  if (m.disturbed)
    s += ", ceiling disturbed (re-checked " + fmt("%.1f", r.ceiling_recheck) + " " +
         r.ceiling_unit + ")";
  if (m.uncertain)
    s += ", ceiling " + uncertain_text(r.ceiling_low, r.ceiling_high) + " " + r.ceiling_unit;
  return s;
}
} // namespace

Parallelism describe_parallelism(int ranks, const std::string& backend) {
  const DeviceInfo d = device_info(backend);
  Parallelism p;
  p.ranks = ranks;
  p.backend = backend;
  p.device = d.name;
  const bool gpu = is_gpu_backend(backend);
  p.threads_per_rank = gpu ? 0 : d.concurrency;
  p.devices_per_rank = gpu ? 1 : 0;
  return p;
}

std::string Parallelism::summary() const {
  const auto count = [](int n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  return count(ranks, "rank") + " x " +
         (devices_per_rank ? count(devices_per_rank, "device")
                           : count(threads_per_rank, "thread")) +
         " (" + backend + ", " + for_terminal(device) + ")";
}

// %ceiling says which ceiling by a letter explained under the table: the copy bandwidth of the
// memory level a streaming kernel's working set lives in, the vendor GEMM of the same precision
// and size for products.
struct CeilingLegend {
  std::vector<std::string> keys;
  std::vector<std::string> values;  // the ceiling's value when every row of that key shares it
  std::vector<std::string> sources; // its rows' ceiling_source: "measured", "reused" or "" (both)
  // Where the figure came from: a reused one was measured by an earlier run (run/ceilings.hpp).
  std::string source_text(std::size_t i) const {
    return sources[i] == "reused"     ? "reused from the ceiling cache (an earlier run's)"
           : sources[i] == "measured" ? "measured in this run"
                                      : "measured in this run or reused from the ceiling cache";
  }
  std::string letter(const CaseResult& r) {
    std::string key =
        r.ceiling_level.empty() ? r.ceiling_name : r.ceiling_level + " " + r.ceiling_name;
    if (key.find("GEMM") != std::string::npos)
      key += " " + std::string(to_string(r.c.precision)) + " (same size)";
    const std::string value = fmt("%.1f ", r.ceiling) + r.ceiling_unit;
    const std::string source = r.ceiling_source == "reused" ? "reused" : "measured";
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      values.push_back(value);
      sources.push_back(source);
      it = keys.end() - 1;
    } else {
      const auto i = size_t(it - keys.begin());
      if (values[i] != value)
        values[i].clear();
      if (sources[i] != source)
        sources[i].clear();
    }
    return std::string(1, char('a' + (it - keys.begin()) % 26));
  }
};

namespace {
// The energy of the measured rows (joules per launch, mean watts, rate per watt), or once why
// there is none; results.json has every row's (energy_j, power_w, rate_per_watt, energy_note).
void print_energy(std::ostream& os, const std::vector<CaseResult>& rows) {
  std::string first_note, counter;
  bool header = false;
  for (const auto& r : rows) {
    if (r.energy.joules < 0) {
      if (first_note.empty())
        first_note = r.energy.note;
      continue;
    }
    if (!header)
      os << "\nenergy per launch, mean power and rate per watt:\n";
    header = true;
    counter = r.energy.counter;
    os << "  " << std::left << std::setw(44) << r.c.id() << std::right << std::setw(12)
       << fmt("%.4g J", r.energy.joules) << std::setw(10) << fmt("%.1f W", r.energy.watts)
       << std::setw(20)
       << (r.energy.per_watt >= 0 ? fmt("%.4g ", r.energy.per_watt) + r.energy.per_watt_unit : "")
       << "\n";
  }
  if (header)
    os << "energy counter: " << for_terminal(counter) << "\n";
  if (!first_note.empty())
    os << (header ? "energy of the other rows: " : "energy: ") << for_terminal(first_note)
       << (header ? " (first of them; results.json has each)" : "") << "\n";
  // The rows whose device held its clock down meanwhile (results' clock_limit).
  std::vector<std::string> limited;
  for (const auto& r : rows)
    if (clock_was_limited(r.energy.clock_limit))
      limited.push_back(r.c.id() + " (" + r.energy.clock_limit + ")");
  if (!limited.empty()) {
    os << "clock held down during " << limited.size() << " row(s); their rates depend on how long "
       << "the launches run (a longer run averages the clock's swings):\n";
    for (const std::string& l : limited)
      os << "  " << for_terminal(l) << "\n";
  }
}
} // namespace

void print_results_table(std::ostream& os, const Plan& plan, const std::vector<CaseResult>& rows) {
  os << "\n" << for_terminal(plan.settings.name) << " on " << plan.backend << "\n";
  os << std::left << std::setw(13) << "kernel" << std::setw(18) << "variant" << std::setw(8)
     << "type" << std::setw(20) << "size" << std::setw(7) << "tile" << std::setw(11) << "team size"
     << std::right << std::setw(13) << "median [s]" << std::setw(12) << "GFLOP/s" << std::setw(11)
     << "GB/s" << std::setw(11) << "%ceiling"
     << "  " << std::left << "valid\n";
  CeilingLegend legend;
  bool above = false;
  Marks shown;
  for (const auto& r : rows) {
    const Case& c = r.c;
    const bool measured = r.status == Status::ok || r.status == Status::invalid;
    std::string valid = r.status == Status::ok ? (r.validation.checked ? "yes" : "not checked")
                        : r.status == Status::invalid ? "NO"
                                                      : std::string(to_string(r.status));
    std::string pct = "-";
    if (measured && r.ceiling > 0) {
      // Above 100%: the row beat the ceiling measured for it (see the footnote).
      const bool over = r.pct_of_ceiling > 100;
      above = above || over;
      pct = fmt("%.1f", r.pct_of_ceiling) + (over ? "*" : " ") + legend.letter(r);
    }
    // An in-place case (axpby R = A) moves a third less data than out of place: say which it is.
    std::string variant = c.variant + (c.uses(Param::in_place) && c.in_place ? ", in place" : "");
    // A table parameter (core/case_fields.hpp) where it is not its default.
    for (const auto& f : case_fields())
      if (f.in_table() && c.uses(f.param) && c.table_param(f.name) != f.default_value)
        variant += ", " + std::string(f.name) + "=" + std::to_string(c.table_param(f.name));
    // What tiled_rb chose at launch (results' split_k and padded), where it split K or padded.
    if (r.launch.split_k > 1)
      variant += ", split " + std::to_string(r.launch.split_k);
    if (r.launch.padded)
      variant += ", padded";
    if (variant.size() >= 18) // wider than its column: never run into the type
      variant += " ";
    os << std::left << std::setw(13) << c.family << std::setw(18) << variant << std::setw(8)
       << to_string(c.precision) << std::setw(20) << size_of(c) << std::setw(7)
       << (c.tile ? std::to_string(c.tile) + (c.tile_cols ? "x" + std::to_string(c.tile_cols) : "")
                  : "-")
       << std::setw(11) << (r.team_size_ran > 0 ? std::to_string(r.team_size_ran) : "-")
       << std::right << std::setw(13) << (measured ? fmt("%.4e", r.compute.median) : "-")
       << std::setw(12) << (measured && r.gflops > 0 ? fmt("%.2f", r.gflops) : "-") << std::setw(11)
       << (measured ? fmt("%.2f", r.gbs) : "-") << std::setw(11) << pct << "  " << std::left
       << valid << row_marks_text(r, measured, shown) << "\n";
    if (!r.message.empty() && r.status != Status::ok)
      os << "    " << for_terminal(r.message) << "\n";
  }
  for (size_t i = 0; i < legend.keys.size(); ++i)
    os << "%ceiling " << char('a' + i % 26) << ": of the " << legend.keys[i]
       << (legend.values[i].empty() ? "" : ", " + legend.values[i]) << ", " << legend.source_text(i)
       << "\n";
  if (shown.busy)
    os << "busy: other work took more than a quarter of a CPU of the host's "
       << std::thread::hardware_concurrency()
       << " beside the case (host_others; with several ranks: the 1-minute load average was above "
          "the CPUs), so the times include other work (miniapp compare flags the row too)\n";
  if (above)
    os << "%ceiling *: above 100%: the row beat the ceiling of its memory level, or a GEMM row "
          "beat the vendor library (a few percent: timing noise; more: the ceiling's measurement "
          "was disturbed)\n";
  if (shown.disturbed)
    os << "ceiling disturbed: the row's ceiling, re-checked after the case, had moved by more "
          "than its spread (the machine changed around the case; the % is of the ceiling before)\n";
  if (shown.uncertain)
    os << "ceiling uncertain LOW-HIGH: the ceiling's estimates did not agree (within 10% for a "
          "level's bandwidth, 5% for the vendor GEMM), or its level read slower than a farther "
          "one, or a row beat it by more than 5%, also when measured again; the % is of the "
          "figure in the %ceiling legend (the ceilings below say which)\n";
  print_energy(os, rows);
}

void print_rank_table(std::ostream& os, const std::vector<CaseResult>& rows, int ranks) {
  os << "\nper-rank medians over repetitions, min / mean / max over " << ranks << " ranks [s]\n";
  // Each row named by its case id (a run's cases can share family and variant).
  int id_width = 6;
  for (const auto& r : rows)
    id_width = std::max(id_width, int(r.c.id().size()) + 2);
  os << std::left << std::setw(id_width) << "case" << std::setw(32) << "compute" << std::setw(32)
     << "communication" << std::setw(32) << "transfer" << std::setw(32) << "exposed"
     << std::setw(17) << "overlap"
     << "imbalance\n";
  const auto cell = [](const char* f, const CaseResult::Spread& s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, s.min, s.mean, s.max);
    return std::string(buf);
  };
  for (const auto& r : rows) {
    if (r.status != Status::ok && r.status != Status::invalid)
      continue;
    const char* seconds = "%.2e %.2e %.2e";
    os << std::left << std::setw(id_width) << for_terminal(r.c.id()) << std::setw(32)
       << cell(seconds, r.compute_ranks) << std::setw(32) << cell(seconds, r.comm_ranks)
       << std::setw(32) << cell(seconds, r.transfer_ranks) << std::setw(32)
       << cell(seconds, r.exposed_ranks) << std::setw(17) << cell("%.2f %.2f %.2f", r.overlap_ranks)
       << fmt("%.2f", r.imbalance) << "\n";
  }
}

Progress::Progress(std::ostream& os, size_t total, bool tty)
    : os_(os), total_(total), tty_(tty), start_(std::chrono::steady_clock::now()) {}

void Progress::case_done(const CaseResult& r) {
  ++done_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ ? elapsed / double(done_) * double(total_ - done_) : 0;
  if (tty_) {
    const int width = 30, filled = int(width * done_ / (total_ ? total_ : 1));
    os_ << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] " << done_
        << "/" << total_ << "  ETA " << fmt("%.0f", eta) << " s  " << std::left << std::setw(40)
        << r.c.id().substr(0, 40) << std::flush;
  } else {
    os_ << "[" << done_ << "/" << total_ << "] " << r.c.id() << ": " << to_string(r.status) << " ("
        << fmt("%.1f", elapsed) << " s elapsed, ETA " << fmt("%.0f", eta) << " s)\n"
        << std::flush;
  }
}

void Progress::finish() {
  if (tty_ && done_)
    os_ << "\n";
}

} // namespace miniapp
