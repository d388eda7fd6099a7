#include "app/gui/state/kept_grid.hpp"

#include <algorithm>

namespace proteus::gui {
namespace {

std::string shown(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::string values_text(const nlohmann::json& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + shown(v);
  return s;
}

std::vector<std::string> KeptGrid::describe() const {
  std::vector<std::string> lines;
  if (has_variants()) {
    for (const auto& v : variants) {
      std::string line = v.value("name", std::string("?")) + ":";
      if (const auto set = v.find("set"); set != v.end() && set->is_object()) {
        bool first = true;
        for (const auto& [path, value] : set->items()) line += (first ? " " : ", ") + path + " = " + shown(value), first = false;
      }
      lines.push_back(line);
    }
  }
  for (const auto& [path, values] : sweep.items()) lines.push_back("sweep " + path + ": " + values_text(values));
  return lines;
}

std::vector<std::string> KeptGrid::fields_set() const {
  std::vector<std::string> fields;
  if (has_variants())
    for (const auto& v : variants)
      if (const auto set = v.find("set"); set != v.end() && set->is_object())
        for (const auto& [path, value] : set->items()) fields.push_back(path);
  for (const auto& [path, values] : sweep.items()) fields.push_back(path);
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
  return fields;
}

}  // namespace proteus::gui
