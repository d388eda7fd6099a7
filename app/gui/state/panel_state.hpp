// What the panels' own widgets hold from one frame to the next (text being typed, a handle being
// dragged, ticked export formats). LabSession owns one of each, so the window's state is in one
// place and nothing lives in function statics; none of it needs ImGui.
#pragma once
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/figures/figure_export.hpp"

namespace proteus::gui {

struct ControlsPanelState {
  std::string experiment_file = "my-experiment.json";  // the file Load and Save use
  std::string last_saved;                               // the file this window wrote last: saved over without asking
  std::string save_as;                                  // Save as's name, as typed
  std::string sweep_text;                               // the E values as typed
  std::vector<int> sweep_shown;                         // the values sweep_text was last made from
  std::string sweep_values_text;                        // another swept field's values as typed
  std::vector<nlohmann::json> sweep_values_shown;       // the values sweep_values_text was last made from
};

struct RunsPanelState {
  std::string folder;     // the runs folder field (applied by Rescan)
  std::string open_path;  // a run directory to open by path
  std::string filter;     // the filter box (runs_table.hpp: rule=delta E=16 name-part)
  bool grouped = true;    // seed groups as one row each
  std::set<std::string> open_groups;  // seed groups opened to their runs
  std::vector<std::string> columns;   // config fields shown as columns (dotted paths)
  double next_rescan_s = 0;  // ImGui time of the next rescan while the tab is shown (live runs' states)
  float tail_height = 0;  // last frame's height of what follows the table (jobs, export): the table fills the rest
};

struct ActivationPanelState {
  int dragging_unlock = -1;  // the custom unlock point held by the mouse, -1 when none
};

struct ExplorePanelState {
  int dragging_unlock = -1;  // the edited schedule's unlock point held by the mouse
};

// The formats the export buttons write, shared by every view's export controls: one box per
// format of figures::export_formats(), in its order, all ticked at first.
struct ExportChoice {
  std::vector<char> ticked = std::vector<char>(figures::export_formats().size(), 1);
  std::vector<std::string> formats() const;
};

}  // namespace proteus::gui
