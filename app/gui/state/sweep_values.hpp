// The sweep field's text and the swept values it stands for: "16, 32, 64" <-> the values, each a
// JSON number or word as the config takes it. What the controls column types is read here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace proteus::gui {

// Each comma-separated entry as JSON (a number, true) or else as a string ("layer"); nothing when
// the text is empty or an entry is blank.
std::optional<std::vector<nlohmann::json>> parse_sweep_values(const std::string& text);
// The same for E: whole numbers only.
std::optional<std::vector<int>> parse_sweep_E(const std::string& text);
// The values as the field shows them: "16, 32, 64", words unquoted.
std::string sweep_values_text(const std::vector<nlohmann::json>& values);
std::string sweep_values_text(const std::vector<int>& values);

}  // namespace proteus::gui
