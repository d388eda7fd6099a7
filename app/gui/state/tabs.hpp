// The window's tabs, in the order the tab bar shows them: the one list of their names (what
// --tab, the settings file and the help overlay say) and their titles (what the tab bar shows).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proteus::gui {

enum class Tab { activation, training, runs, explore, teach };

struct TabInfo {
  Tab tab;
  const char* name;   // "activation", "training", "runs", "explore", "teach"
  const char* title;  // "Activation map", ...: the tab bar's label
  const char* brief;  // "Map", ...: its label when the bar cannot hold every title (1280 x 720 at scale 2)
};

// Every tab, in the tab bar's order.
const std::vector<TabInfo>& all_tabs();
// The names alone, in the same order (--tab's choices).
std::vector<std::string> tab_names();
const char* tab_name(Tab t);
const char* tab_title(Tab t);
std::optional<Tab> tab_from_name(std::string_view name);

}  // namespace proteus::gui
