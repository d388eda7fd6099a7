#include "app/gui/state/sweep_values.hpp"

#include <algorithm>
#include <sstream>

namespace proteus::gui {

std::optional<std::vector<nlohmann::json>> parse_sweep_values(const std::string& text) {
  std::vector<nlohmann::json> values;
  std::string entry;
  std::stringstream ss(text);
  while (std::getline(ss, entry, ',')) {
    const auto first = entry.find_first_not_of(' '), last = entry.find_last_not_of(' ');
    if (first == std::string::npos) return std::nullopt;
    entry = entry.substr(first, last - first + 1);
    const auto j = nlohmann::json::parse(entry, nullptr, false);
    values.push_back(j.is_discarded() ? nlohmann::json(entry) : j);
  }
  if (values.empty()) return std::nullopt;
  return values;
}

std::optional<std::vector<int>> parse_sweep_E(const std::string& text) {
  const auto values = parse_sweep_values(text);
  if (!values || !std::all_of(values->begin(), values->end(), [](const nlohmann::json& v) { return v.is_number_integer(); }))
    return std::nullopt;
  std::vector<int> es;
  for (const auto& v : *values) es.push_back(v.get<int>());
  return es;
}

std::string sweep_values_text(const std::vector<nlohmann::json>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + (values[i].is_string() ? values[i].get<std::string>() : values[i].dump());
  return s;
}

std::string sweep_values_text(const std::vector<int>& values) {
  return sweep_values_text(std::vector<nlohmann::json>(values.begin(), values.end()));
}

}  // namespace proteus::gui
