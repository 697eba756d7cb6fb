#pragma once
// The stable id of a run (issue 17): the key under which the history database keeps it, so a run
// imported twice, or from two copies of its directory, is one run.
#include <nlohmann/json.hpp>

#include <string>

namespace miniapp {

// A new run's id: host, UTC start time, process id and random bits ("node01-20261122T075223Z-
// 4242-9f3a1c0e"): unique across the jobs of a cluster that start in the same second.
std::string new_run_id(const std::string& host);

// The id of a results.json document: metadata.run_id when the run recorded one; for runs made
// before run ids, "legacy-" + a hash of host, start time, config hash and experiment, which two
// copies of the same run share.
std::string run_id_of(const nlohmann::json& doc);

} // namespace miniapp
