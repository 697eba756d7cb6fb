#pragma once
// JSON Schemas (draft-07) of the YAML files miniapp reads, for editors with the YAML language
// server (completion, hover, live checks) and for independent validators. Generated from the
// family table (kernels/families.hpp), the case-field table (core/case_fields.hpp), the key lists
// of the loader (config/config.hpp) and config/limits.hpp, so a schema cannot drift from what the
// loader accepts. `miniapp schema` prints them; docs/config.md shows the editor setup.
//
// A schema checks what one file says on its own: keys, types, ranges, enumerations, which
// parameters each variant reads, sweep syntax. What needs the machine (memory, the backends
// compiled in) or values together (int32 overflow, explicit matrix shapes) stays with the loader.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp::config {

// An experiment config (docs/config.md).
nlohmann::json config_schema();

// A string as config::read_line accepts it (config/yaml_strict.hpp): one non-empty line without
// control bytes (tabs allowed where `tabs`), at most limits::kMaxStringBytes long.
nlohmann::json line_schema(bool tabs = false);

} // namespace miniapp::config
