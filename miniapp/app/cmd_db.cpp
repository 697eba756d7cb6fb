// `miniapp db import|rebuild` (issue 17): run directories into the history database.
#include "app/command.hpp"

#include <memory>
#include "app/commands.hpp"
#include "core/sinks.hpp"
#include "core/text.hpp"

#include "history/db.hpp"

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
    for (const auto& r : done) {
      std::cout << for_terminal(r.source) << ": run " << for_terminal(r.run_id) << ", " << r.rows
                << " row(s), ";
      if (!r.resumed_by.empty()) {
        std::cout << "not imported: run " << for_terminal(r.resumed_by)
                  << " resumed it and holds its rows\n";
        continue;
      }
      std::cout << r.changed << " new or changed" << (r.run_changed ? "" : ", run unchanged");
      if (!r.replaced.empty())
        std::cout << "; replaces the run(s) it resumed: " << for_terminal(join(r.replaced, ", "));
      std::cout << "\n";
    }
    std::cout << args.db << ": " << done.size() << " run(s) "
              << (args.action == "rebuild" ? "rebuilt" : "imported") << " (schema version "
              << db.schema_version() << ")\n";
  } catch (const history::InputError& e) {
    std::cerr << "miniapp db: " << for_terminal(e.what()) << "\n";
    return kConfigError;
  } catch (const std::exception& e) {
    std::cerr << "miniapp db: " << for_terminal(e.what()) << " (resource: history database)\n";
    return kRuntimeError;
  }
  return kOk;
}

void add_db_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<DbArgs>();
  auto* db = app.add_subcommand(
      "db", "The history database: import run directories (import), or rebuild it from them");
  db->add_option("action", args->action, "import or rebuild")
      ->check(CLI::IsMember({"import", "rebuild"}))
      ->required();
  db->add_option("runs", args->runs,
                 "Run directories or results.json files (a directory of runs imports each)")
      ->required();
  db->add_option("--db", args->db, "The SQLite database file (created if missing)")->required();
  commands.push_back({db, Needs::nothing, [args](const MpiEnv*) { return cmd_db(*args); }});
}

} // namespace miniapp
