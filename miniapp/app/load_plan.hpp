#pragma once
// The checks of `miniapp validate`, shared by run, validate and jobscript: load CONFIG with its
// --set overrides and expand it into a plan (sizes checked against the backend's memory).
// Throws config::ConfigError("file:line:col: message").
#include "app/commands.hpp"
#include "plan/plan.hpp"

namespace miniapp {

Plan load_plan(const RunArgs& args);

} // namespace miniapp
