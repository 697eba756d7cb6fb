#include "report/console.hpp"

#include <cstdio>
#include <iomanip>
#include <sstream>

namespace miniapp {

namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string size_of(const Case& c) {
  std::string s = std::to_string(c.m) + "x" + std::to_string(c.n);
  if (c.family == "matmul")
    s += "x" + std::to_string(c.k);
  return s;
}
} // namespace

void print_results_table(std::ostream& os, const Plan& plan, const std::vector<CaseResult>& rows) {
  os << "\n" << plan.settings.name << " on " << plan.backend << "\n";
  os << std::left << std::setw(13) << "kernel" << std::setw(12) << "variant" << std::setw(8)
     << "type" << std::setw(20) << "size" << std::setw(7) << "tile" << std::right << std::setw(13)
     << "median [s]" << std::setw(12) << "GFLOP/s" << std::setw(11) << "GB/s" << std::setw(10)
     << "%ceiling"
     << "  " << std::left << "valid\n";
  for (const auto& r : rows) {
    const Case& c = r.c;
    const bool measured = r.status == "ok" || r.status == "invalid";
    std::string valid = r.status == "ok"        ? (r.validation.checked ? "yes" : "not checked")
                        : r.status == "invalid" ? "NO"
                                                : r.status;
    os << std::left << std::setw(13) << c.family << std::setw(12) << c.variant << std::setw(8)
       << to_string(c.precision) << std::setw(20) << size_of(c) << std::setw(7)
       << (c.tile ? std::to_string(c.tile) + (c.tile_cols ? "x" + std::to_string(c.tile_cols) : "")
                  : "-")
       << std::right << std::setw(13) << (measured ? fmt("%.4e", r.compute.median) : "-")
       << std::setw(12) << (measured ? fmt("%.2f", r.gflops) : "-") << std::setw(11)
       << (measured ? fmt("%.2f", r.gbs) : "-") << std::setw(10)
       << (measured && r.ceiling > 0 ? fmt("%.1f", r.pct_of_ceiling) : "-") << "  " << std::left
       << valid << "\n";
    if (!r.message.empty() && r.status != "ok")
      os << "    " << r.message << "\n";
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
    os_ << "[" << done_ << "/" << total_ << "] " << r.c.id() << ": " << r.status << " ("
        << fmt("%.1f", elapsed) << " s elapsed, ETA " << fmt("%.0f", eta) << " s)\n"
        << std::flush;
  }
}

void Progress::finish() {
  if (tty_ && done_)
    os_ << "\n";
}

} // namespace miniapp
