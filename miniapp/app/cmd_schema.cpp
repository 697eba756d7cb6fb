// `miniapp schema [config|study|profile|references]`: the JSON Schema of a YAML file miniapp reads
// (config/schema.hpp, each loader's own), for the YAML language server of an editor and for
// independent validators (docs/config.md).
#include "app/command.hpp"
#include "app/commands.hpp"

#include "config/schema.hpp"
#include "jobs/study.hpp"
#include "jobs/system_profile.hpp"
#include "results/references.hpp"

#include <functional>
#include <iostream>
#include <map>
#include <memory>

namespace miniapp {

namespace {

struct SchemaArgs {
  std::string what = "config";
};

// Each file kind and the loader's schema of it.
const std::map<std::string, std::function<nlohmann::json()>>& schemas() {
  static const std::map<std::string, std::function<nlohmann::json()>> all = {
      {"config", config::config_schema},
      {"study", jobs::study_schema},
      {"profile", jobs::system_profile_schema},
      {"references", references::references_schema}};
  return all;
}

int cmd_schema(const SchemaArgs& args) {
  std::cout << schemas().at(args.what)().dump(2) << "\n";
  return kOk;
}

} // namespace

void add_schema_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<SchemaArgs>();
  auto* schema = app.add_subcommand(
      "schema",
      "Print the JSON Schema (draft-07) of experiment configs, study files, system profiles "
      "or references files, for editors with the YAML language server and for validators "
      "(docs/config.md, \"Editing configs\")");
  std::vector<std::string> kinds;
  for (const auto& [kind, make] : schemas())
    kinds.push_back(kind);
  schema->add_option("what", args->what, "which file kind: config, study, profile or references")
      ->check(CLI::IsMember(kinds))
      ->capture_default_str();
  commands.push_back({schema, Needs::nothing, [args](const MpiEnv*) { return cmd_schema(*args); }});
}

} // namespace miniapp
