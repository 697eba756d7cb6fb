#include "run/case_medians.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace miniapp {

namespace {

bool valid_id(const std::string& id) {
  return !id.empty() && id.size() <= kCaseIdChars && std::all_of(id.begin(), id.end(), [](char ch) {
    return ch >= 0x20 && ch <= 0x7e && ch != '"' && ch != '\\';
  });
}

bool valid(const CaseMedian& m) {
  return valid_id(m.id) && std::isfinite(m.seconds) && m.seconds >= kCaseMedianMinSeconds &&
         m.seconds <= kCaseMedianMaxSeconds;
}

std::optional<CaseMedian> median_of(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 3 || !j[0].is_string() || !j[1].is_number() ||
      !j[2].is_boolean())
    return std::nullopt;
  CaseMedian m{j[0].get<std::string>(), j[1].get<double>(), j[2].get<bool>()};
  return valid(m) ? std::optional<CaseMedian>(m) : std::nullopt;
}

// `m` as the newest of `list`, unless it is a busy host's time and the list has a quiet one.
void merge(std::vector<CaseMedian>& list, const CaseMedian& m) {
  const auto it =
      std::find_if(list.begin(), list.end(), [&](const CaseMedian& x) { return x.id == m.id; });
  if (it != list.end()) {
    if (m.busy && !it->busy)
      return;
    list.erase(it);
  }
  list.push_back(m);
}

nlohmann::json json_of(const std::vector<CaseMedian>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const CaseMedian& m : list)
    out.push_back(nlohmann::json::array({m.id, m.seconds, m.busy}));
  return out;
}

} // namespace

std::vector<CaseMedian> medians_of(const nlohmann::json& file, const std::string& key) {
  std::vector<CaseMedian> out;
  const auto all = file.find(kCaseMediansKey);
  if (all == file.end() || !all->is_object())
    return out;
  const auto list = all->find(key);
  if (list == all->end() || !list->is_array())
    return out;
  const std::size_t n = list->size();
  for (std::size_t i = n > kCaseMedians ? n - kCaseMedians : 0; i < n; ++i)
    if (auto m = median_of((*list)[i]))
      merge(out, *m);
  return out;
}

nlohmann::json case_medians_json(const nlohmann::json& file, const std::string& key,
                                 const std::vector<CaseMedian>& cases) {
  nlohmann::json out = nlohmann::json::object();
  if (const auto all = file.find(kCaseMediansKey); all != file.end() && all->is_object())
    for (auto it = all->begin(); it != all->end() && out.size() + 1 < kCaseMedianMachines; ++it)
      if (it.key() != key && it.key().size() <= 1024)
        if (const auto list = medians_of(file, it.key()); !list.empty())
          out[it.key()] = json_of(list);
  std::vector<CaseMedian> list = medians_of(file, key);
  for (const CaseMedian& m : cases)
    if (valid(m))
      merge(list, m);
  if (list.size() > kCaseMedians)
    list.erase(list.begin(), list.end() - kCaseMedians);
  if (!list.empty())
    out[key] = json_of(list);
  return out;
}

} // namespace miniapp
