#include "history/medians.hpp"

#include "history/db.hpp"

namespace miniapp::history {

std::map<std::string, double> measured_medians(const std::string& db_path,
                                               const std::string& backend, int ranks,
                                               const std::string& host) {
  Database db(db_path, Access::read_only);
  Filter f;
  f.backend = backend;
  f.host = host;
  std::map<std::string, double> out;
  for (const compare::Run& run : select_runs(db, f)) // oldest first: later runs replace
    for (const compare::Row& row : run.rows) {
      const std::int64_t row_ranks = row.ranks > 0 ? row.ranks : run.ranks;
      if (row_ranks == ranks && row.status == "ok" && row.time_median > 0 && !row.case_id.empty())
        out[row.case_id] = row.time_median;
    }
  return out;
}

} // namespace miniapp::history
