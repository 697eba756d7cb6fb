#pragma once
// The measured kernel times a time estimate takes from the history database (plan/estimate.hpp):
// for each case id, the median of its latest good row at one backend and rank count.
#include <map>
#include <string>

namespace miniapp::history {

// host: a glob over the runs' host names ("" = any). Throws DbError / InputError as Database.
std::map<std::string, double> measured_medians(const std::string& db_path,
                                               const std::string& backend, int ranks,
                                               const std::string& host);

} // namespace miniapp::history
