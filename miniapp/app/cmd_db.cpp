// `miniapp db import|rebuild` (issue 17): run directories into the history database.
#include "app/commands.hpp"
#include "core/sinks.hpp"

#include "report/history_db.hpp"

#include <iostream>

namespace miniapp {

int cmd_db(const DbArgs& args) {
  try {
    history::Database db(args.db, history::Access::read_write);
    std::vector<history::ImportResult> done;
    if (args.action == "rebuild") {
      done = db.rebuild(args.runs);
    } else {
      for (const auto& run : args.runs)
        for (auto& r : db.import_path(run))
          done.push_back(std::move(r));
    }
    for (const auto& r : done)
      std::cout << r.source << ": run " << for_terminal(r.run_id) << ", " << r.rows << " row(s), " << r.changed
                << " new or changed" << (r.run_changed ? "" : ", run unchanged") << "\n";
    std::cout << args.db << ": " << done.size() << " run(s) "
              << (args.action == "rebuild" ? "rebuilt" : "imported") << " (schema version "
              << db.schema_version() << ")\n";
  } catch (const history::InputError& e) {
    std::cerr << "miniapp db: " << e.what() << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp db: " << e.what() << " (resource: history database)\n";
    return kRuntimeError;
  }
  return kOk;
}

} // namespace miniapp
