// `miniapp schema [config]`: the JSON Schema of a YAML file miniapp reads (config/schema.hpp),
// for the YAML language server of an editor and for independent validators (docs/config.md).
#include "app/command.hpp"
#include "app/commands.hpp"

#include "config/schema.hpp"
#include "jobs/study.hpp"

#include <iostream>
#include <memory>

namespace miniapp {

namespace {

struct SchemaArgs {
  std::string what = "config";
};

int cmd_schema(const SchemaArgs& args) {
  if (args.what == "config")
    std::cout << config::config_schema().dump(2) << "\n";
  else if (args.what == "study")
    std::cout << jobs::study_schema().dump(2) << "\n";
  return kOk;
}

} // namespace

void add_schema_command(CLI::App& app, std::vector<Command>& commands) {
  auto args = std::make_shared<SchemaArgs>();
  auto* schema = app.add_subcommand(
      "schema",
      "Print the JSON Schema (draft-07) of experiment configs or study files, for editors "
      "with the YAML language server and for validators (docs/config.md, \"Editing "
      "configs\")");
  schema->add_option("what", args->what, "which file kind: config or study")
      ->check(CLI::IsMember({"config", "study"}))
      ->capture_default_str();
  commands.push_back({schema, Needs::nothing, [args](const MpiEnv*) { return cmd_schema(*args); }});
}

} // namespace miniapp
