// Small input widgets the controls share: each edits a value the caller owns, clamps it to its
// range and returns whether it changed (Dear ImGui's own contract).
#pragma once
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/common/name_table.hpp"

namespace proteus::gui {

// The colour of every error the window shows (the status line's, a problem with the config, Explore's).
inline const ImVec4 kErrorColour(1.0f, 0.45f, 0.4f, 1.0f);

bool combo(const char* label, std::string& value, const std::vector<std::string>& items);
// The same over an enumerated choice, its items shown by the names of its one name table
// (core/common/name_table.hpp): every value, or `choices` where the caller offers fewer.
template <class E>
  requires common::is_named_choice_v<E>
bool combo(const char* label, E& value, const std::vector<E>& choices = common::choice_values<E>()) {
  std::vector<std::string> names;
  for (E choice : choices) names.emplace_back(common::choice_name(choice));
  std::string name(common::choice_name(value));
  if (!combo(label, name, names)) return false;
  value = choices[std::find(names.begin(), names.end(), name) - names.begin()];
  return true;
}
bool input_int(const char* label, int& v, int lo, int hi, int step = 1, int fast = 10);
// An integer config field, clamped to the range its schema bound gives (config::size_bound(path)),
// the same range the validator checks: the window offers nothing the config would refuse by size.
bool input_config_int(const char* label, const char* path, int& v, int step = 1, int fast = 10);
bool input_double(const char* label, double& v, double lo, double hi, const char* fmt = "%.4g");
// A horizon N where 0 means "the training length": an "auto" box showing what auto is
// ("auto (256)"), and the number when it is unticked.
bool horizon_input(const char* label, int& N, int auto_value);
// The least width horizon_input takes (its number field at its narrowest), for flow_same_line.
float horizon_input_width(const char* label, int auto_value);

// ImGui::SameLine when an item `width` pixels wide still fits on the current line, else nothing
// (the next item starts a new line): rows of controls wrap instead of running off a narrow or
// scaled-up panel.
void flow_same_line(float width);
// A text field's width that shows all of `text` (a path is read whole), at least `min_width`
// and at most what is left of the row.
float field_width_for(const std::string& text, float min_width);
// The width a widget's label takes beside its frame (inner spacing and text; 0 for "##id").
float label_width(const char* label);
// `text` whole when it fits `width` pixels at the current font, else its longest prefix that fits
// with "..." after it.
std::string text_fitting(const std::string& text, float width);
// A path whole when it fits `width` pixels at the current font, else its end: the file name with as
// many of its folders as fit, "..." in front ("...name" alone when even the name does not fit).
std::string path_end_fitting(const std::string& path, float width);
// A path a user types (a config file, a runs folder): while it is not being edited the field shows
// path_end_fitting's end of it (the file name, never the cut-off beginning) and the whole path in
// a tooltip; a click edits the whole path. Returns whether the path changed.
bool path_field(const char* id, std::string& path);

}  // namespace proteus::gui
