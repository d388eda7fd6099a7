#include "app/gui/state/tabs.hpp"

namespace proteus::gui {

const std::vector<TabInfo>& all_tabs() {
  static const std::vector<TabInfo> tabs = {
      {Tab::activation, "activation", "Activation map", "Map"},
      {Tab::training, "training", "Training", "Train"},
      {Tab::runs, "runs", "Runs", "Runs"},
      {Tab::explore, "explore", "Explore", "Explore"},
      {Tab::teach, "teach", "Teach: the gated rule", "Teach"},
  };
  return tabs;
}

std::vector<std::string> tab_names() {
  std::vector<std::string> out;
  for (const auto& t : all_tabs()) out.emplace_back(t.name);
  return out;
}

const char* tab_name(Tab t) {
  for (const auto& info : all_tabs())
    if (info.tab == t) return info.name;
  return all_tabs().front().name;
}

const char* tab_title(Tab t) {
  for (const auto& info : all_tabs())
    if (info.tab == t) return info.title;
  return all_tabs().front().title;
}

std::optional<Tab> tab_from_name(std::string_view name) {
  for (const auto& info : all_tabs())
    if (name == info.name) return info.tab;
  return std::nullopt;
}

}  // namespace proteus::gui
