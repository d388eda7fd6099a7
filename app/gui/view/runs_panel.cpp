// The runs browser: the runs folder's run directories (and any opened by path) as a table that
// fills the panel: filtered, sorted by any column, seed groups as one row (mean [t interval], n)
// that open to their runs, chosen config fields as columns; the ticked runs overlaid below.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {
namespace {

// The Slurm jobs of the runs folder (`proteus jobs` without squeue): each run's state and why.
void draw_jobs(const RunsBrowser& rb) {
  for (const auto& u : rb.unreadable()) ImGui::TextDisabled("%s", u.c_str());  // named, and the rest still shown
  if (rb.jobs().empty() || !ImGui::CollapsingHeader("Slurm jobs", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (const auto& j : rb.jobs()) {
    ImGui::PushID(j.path.c_str());
    ImGui::Text("job %s", j.name.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", j.path.c_str());
    if (!j.error.empty()) ImGui::TextDisabled("%s", j.error.c_str());
    if (!j.runs.empty() && ImGui::BeginTable("job", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      for (const char* h : {"run", "state", "why"}) ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const auto& r : j.runs) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.name.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cluster::job_run_state_name(r.state));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.reason.c_str());
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
  }
}

float button_width(const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; }

// The runs folder (Rescan) and a run opened by path. The fields take the row's width: a path is
// read whole where the panel allows.
void draw_folder_fields(LabApp& app) {
  auto& rb = app.runs.browser;
  auto& runs_dir = app.runs.panel.folder;
  auto& open_path = app.runs.panel.open_path;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  // Beside its label and button when the path fits there, else on a line of its own under the label.
  const float tail = label_width("runs folder") + spacing + button_width("Rescan");
  const bool beside = field_width_for(runs_dir, 0) + tail <= ImGui::GetContentRegionAvail().x;
  if (!beside) ImGui::TextUnformatted("runs folder");
  ImGui::SetNextItemWidth(beside ? -tail : -FLT_MIN);
  path_field(beside ? "runs folder" : "##runs folder", runs_dir);
  if (beside) ImGui::SameLine();
  if (ImGui::Button("Rescan")) {
    app.runs.dir = runs_dir;
    rb.start_rescan(app.runs.dir);  // on a worker; the table takes the result in when it is read
  }
  ImGui::SetNextItemWidth(-(spacing + button_width("Open run")));
  ImGui::InputTextWithHint("##open", "path/to/a/run", &open_path);
  ImGui::SameLine();
  if (ImGui::Button("Open run")) {
    try {
      rb.add(open_path);
      const auto err = rb.load();
      if (err.empty()) app.notify("opened " + open_path);
      else app.notify_error(err);
    } catch (const std::exception& e) {
      app.notify_error(e.what());
    }
  }
}

// A run's state, with resume (a stopped run) and explore (a trained one) beside it.
void draw_state_cell(LabApp& app, const RunEntry& e) {
  ImGui::TextUnformatted(e.state.c_str());
  if (e.resumable()) {
    ImGui::SameLine();
    ImGui::BeginDisabled(app.training.active());
    if (ImGui::SmallButton("resume")) {
      try {
        app.training.resume_run(e.path);
        app.show(Tab::training);
      } catch (const std::exception& ex) {
        app.notify_error(ex.what());
      }
    }
    ImGui::EndDisabled();
  }
  if (e.observed == runs::ObservedState::finished || e.observed == runs::ObservedState::cancelled) {
    ImGui::SameLine();
    if (ImGui::SmallButton("explore")) app.open_explore(e.path);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("edit this model's schedule and watch its curves move");
  }
}

// The filter box (its error in place of the count when the text is bad), the seed-group switch and
// the column chooser: the config fields that differ across the folder.
void draw_table_tools(LabApp& app) {
  auto& p = app.runs.panel;
  const auto& view = app.runs.view;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float tail = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                     ImGui::CalcTextSize("seed groups").x + spacing + button_width("Columns");
  const float width = std::max(ui_px(160), ImGui::GetContentRegionAvail().x - tail - spacing);
  ImGui::SetNextItemWidth(width);
  // The longest hint the field shows whole (a narrow window gets the short one; the tooltip says all).
  const char* hint = "filter";
  for (const char* h : {"filter: rule=delta E=16 name-part (terms ANDed)", "filter: rule=delta E=16"})
    if (ImGui::CalcTextSize(h).x + 2 * ImGui::GetStyle().FramePadding.x <= width) {
      hint = h;
      break;
    }
  ImGui::InputTextWithHint("##filter", hint, &p.filter);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("key=value: a config field by its last path component (E) or its dotted path (model.mixer.E);\n"
                      "a bare word: part of the run's name. Every term must hold.");
  ImGui::SameLine();
  ImGui::Checkbox("seed groups", &p.grouped);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("a seed group as one row: mean [95%% t interval over its seeds], n");
  ImGui::SameLine();
  if (ImGui::Button("Columns")) ImGui::OpenPopup("columns");
  if (ImGui::BeginPopup("columns")) {
    if (view.differing().empty()) ImGui::TextDisabled("every run has the same config");
    else ImGui::TextDisabled("config fields that differ across the folder");
    for (const auto& f : view.differing()) {
      bool on = std::find(p.columns.begin(), p.columns.end(), f) != p.columns.end();
      if (ImGui::Checkbox(f.c_str(), &on)) {
        if (on) p.columns.push_back(f);
        else p.columns.erase(std::find(p.columns.begin(), p.columns.end(), f));
      }
    }
    ImGui::EndPopup();
  }
  if (!view.filter().error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.75f, 0.1f, 0.1f, 1));
    ImGui::TextUnformatted(("filter not applied: " + view.filter().error).c_str());
    ImGui::PopStyleColor();
  } else {
    const auto* scan = app.runs.browser.last_scan();
    std::string line = std::to_string(view.shown_runs()) + " of " + std::to_string(app.runs.browser.entries().size()) + " runs";
    if (app.runs.browser.scanning()) line += " (reading the folder...)";
    else if (scan) line += " (read in " + std::to_string(static_cast<int>(scan->seconds * 1000)) + " ms)";
    ImGui::TextDisabled("%s", line.c_str());
  }
}

// The table's columns: their ids (SortSpec::column) in order. The table starts sorted as
// app.runs.sort says (--runs-sort, else by run); a click on a header sorts by that column.
std::vector<std::string> setup_columns(const RunsPanelState& p, const SortSpec& sort) {
  ImGui::TableSetupScrollFreeze(1, 1);
  std::vector<std::string> ids{"", "run", "state", "step", "bpb", "effect", "model"};
  for (const auto& c : p.columns) ids.push_back(c);
  const std::vector<std::string> headers{"overlay", "run", "state", "step", "held-out bpb", "effect vs E=1", "model"};
  // Every column fits what it holds (the table is not resizable, so the widths follow the rows in view).
  for (size_t i = 0; i < ids.size(); ++i) {
    ImGuiTableColumnFlags f = 0;
    if (i == 0) f |= ImGuiTableColumnFlags_NoSort;
    if (i <= 1) f |= ImGuiTableColumnFlags_NoHide;
    if (ids[i] == sort.column) f |= ImGuiTableColumnFlags_DefaultSort | (sort.ascending ? 0 : ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableSetupColumn(i < headers.size() ? headers[i].c_str() : ids[i].c_str(), f);
  }
  ImGui::TableHeadersRow();
  // The header's tooltips say what the two numbers are.
  for (int col : {4, 5}) {
    ImGui::TableSetColumnIndex(col);
    if (ImGui::TableGetColumnFlags(col) & ImGuiTableColumnFlags_IsHovered)
      ImGui::SetTooltip(col == 4 ? "held-out bits per byte within the training length (the final evaluation's, else the "
                                   "last validation value)"
                                 : "a gated run (E > 1) minus its E = 1 baseline: same config otherwise, same seed; "
                                   "in held-out bits per byte (negative: gating helps)");
  }
  return ids;
}

// The header's sort, when the user clicked it.
void take_sort_specs(LabApp& app, const std::vector<std::string>& ids) {
  auto* specs = ImGui::TableGetSortSpecs();
  if (!specs || !specs->SpecsDirty) return;
  if (specs->SpecsCount > 0) {
    const auto& s = specs->Specs[0];
    if (s.ColumnIndex >= 0 && static_cast<size_t>(s.ColumnIndex) < ids.size() && !ids[s.ColumnIndex].empty())
      app.runs.sort = {ids[s.ColumnIndex], s.SortDirection != ImGuiSortDirection_Descending};
  }
  specs->SpecsDirty = false;
}

std::string interval_text(const eval::Interval& i, const char* fmt) {
  if (i.n == 0) return "";
  char m[32], lo[32], hi[32];
  std::snprintf(m, sizeof m, fmt, i.mean);
  if (i.n < 2) return m;
  std::snprintf(lo, sizeof lo, fmt, i.lo);
  std::snprintf(hi, sizeof hi, fmt, i.hi);
  return std::string(m) + " [" + lo + ", " + hi + "]";
}

// A collapsed (or open) seed group: one tick overlays its runs (the figures draw a group as its mean
// with its band), the arrow opens it. True when the tick changed.
bool draw_group_row(LabApp& app, const SeedGroupRow& g, const std::vector<std::string>& ids) {
  auto& entries = app.runs.browser.entries();
  auto& open = app.runs.panel.open_groups;
  bool changed = false;
  ImGui::PushID(("group:" + g.name).c_str());
  ImGui::TableNextColumn();
  bool all = std::all_of(g.members.begin(), g.members.end(), [&](size_t m) { return entries[m].selected; });
  if (ImGui::Checkbox("##sel", &all)) {
    for (size_t m : g.members) entries[m].selected = all;
    changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("overlay the group: its mean with its band over seeds");
  ImGui::TableNextColumn();
  const bool was_open = open.count(g.name) > 0;
  ImGui::SetNextItemOpen(was_open);
  const std::string label = g.name + " (n=" + std::to_string(g.members.size()) + ")";
  const bool now_open = ImGui::TreeNodeEx(label.c_str(), ImGuiTreeNodeFlags_NoTreePushOnOpen | ImGuiTreeNodeFlags_SpanFullWidth);
  if (now_open != was_open) {
    if (now_open) open.insert(g.name);
    else open.erase(g.name);
  }
  if (!g.notes.empty() && ImGui::IsItemHovered()) {
    std::string t;
    for (const auto& n : g.notes) t += n + "\n";
    ImGui::SetTooltip("%s", t.c_str());
  }
  ImGui::TableNextColumn();
  ImGui::TextDisabled("seed group");
  ImGui::TableNextColumn();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(interval_text(g.bpb, "%.4f").c_str());
  if (ImGui::IsItemHovered() && g.bpb.n > 0) ImGui::SetTooltip("mean [95%% t interval] over %d seeds", g.bpb.n);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(interval_text(g.effect, "%+.4f").c_str());
  if (ImGui::IsItemHovered() && g.effect.n > 0) ImGui::SetTooltip("mean [95%% t interval] over %d paired seeds", g.effect.n);
  ImGui::TableNextColumn();
  if (!g.members.empty()) ImGui::TextUnformatted(entries[g.members.front()].summary.c_str());
  // A chosen field: its value when every run of the group holds the same, else "(varies)".
  for (size_t c = 7; c < ids.size(); ++c) {
    ImGui::TableNextColumn();
    if (g.members.empty()) continue;
    const auto first = field_text(entries[g.members.front()], ids[c]);
    const bool same = std::all_of(g.members.begin(), g.members.end(), [&](size_t m) { return field_text(entries[m], ids[c]) == first; });
    if (same) ImGui::TextUnformatted(first.c_str());
    else ImGui::TextDisabled("(varies)");
  }
  ImGui::PopID();
  return changed;
}

// One run's row; true when its tick changed.
bool draw_run_row(LabApp& app, RunEntry& e, bool member, const std::vector<std::string>& ids) {
  ImGui::PushID(e.path.c_str());
  ImGui::TableNextColumn();
  const bool changed = ImGui::Checkbox("##sel", &e.selected);
  ImGui::TableNextColumn();
  if (member) ImGui::Indent();
  ImGui::TextUnformatted(e.name.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.path.c_str());
  if (member) ImGui::Unindent();
  ImGui::TableNextColumn();
  draw_state_cell(app, e);
  ImGui::TableNextColumn();
  ImGui::Text("%lld", static_cast<long long>(e.step));
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(field_text(e, "bpb").c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(field_text(e, "effect").c_str());
  if (!e.baseline.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("minus %s", e.baseline.c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(e.summary.c_str());
  for (size_t c = 7; c < ids.size(); ++c) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(field_text(e, ids[c]).c_str());
  }
  ImGui::PopID();
  return changed;
}

// The table of runs, a tick per run (or seed group) to overlay it, `height` tall; true when a tick changed.
// Only the rows in view are drawn (a list clipper): a thousand runs cost what a screenful does.
bool draw_runs_table(LabApp& app, float height) {
  auto& rb = app.runs.browser;
  auto& p = app.runs.panel;
  std::vector<const RunRow*> rows;
  rows.reserve(rb.entries().size());
  for (const auto& e : rb.entries()) rows.push_back(&e);
  app.runs.view.update(rows, rb.generation(), p.filter, app.runs.sort, p.grouped, p.open_groups);
  const auto& view = app.runs.view;
  const int columns = 7 + static_cast<int>(p.columns.size());
  const auto flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_Sortable |
                     ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("runs", columns, flags, ImVec2(0, height))) return false;
  const auto ids = setup_columns(p, app.runs.sort);
  take_sort_specs(app, ids);
  bool selection_changed = false;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(view.lines().size()));  // the first row measures the rest
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const auto& line = view.lines()[i];
      ImGui::TableNextRow(0, ImGui::GetFrameHeight());
      if (line.group >= 0) selection_changed |= draw_group_row(app, view.groups()[line.group], ids);
      else selection_changed |= draw_run_row(app, rb.entries()[line.row], line.member, ids);
    }
  }
  ImGui::EndTable();
  return selection_changed;
}

// How the gating-effect maps read the overlaid runs: the x axis (the swept field, or the tokens a
// budget sweep trained on) and the position ranges (the regime map's or the diagnosis's). Shown
// once a map is drawn (or either choice was changed); true when a choice changed.
bool draw_effect_options(RunsBrowser& rb) {
  auto& o = rb.figure_options;
  const bool maps = std::any_of(rb.figures().begin(), rb.figures().end(),
                                [](const figures::NamedFigure& f) { return f.name.starts_with("gating_effect_nll"); });
  if (!maps && o.effect_x.empty() && o.effect_ranges == figures::EffectRanges::regime_map) return false;
  const std::string swept = "swept field", tokens = "training tokens";
  std::string x = o.effect_x.empty() ? swept : tokens;
  bool changed = false;
  ImGui::SetNextItemWidth(ui_px(150));
  if (combo("effect x axis", x, {swept, tokens})) {
    o.effect_x = x == tokens ? figures::kTrainingTokensX : "";
    changed = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("training tokens: train.steps x data.batch x data.seq_len, for runs trained on different budgets");
  flow_same_line(ui_px(250));
  ImGui::SetNextItemWidth(ui_px(120));
  changed |= combo("effect ranges", o.effect_ranges);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("map: first N/16, N/16-N, N-4N, all (by buckets); diagnosis: 1-2, 3-16, 17-256, 257-N, N-4N, all "
                      "(position by position)");
  return changed;
}

// Copies the ticked runs' folders, with their figures, to the export folder.
void draw_export_folders(LabApp& app) {
  const auto& rb = app.runs.browser;
  flow_same_line(button_width("Export run folders"));
  ImGui::BeginDisabled(rb.selected().empty());
  if (ImGui::Button("Export run folders")) {
    try {
      std::vector<std::string> unreadable;
      for (const auto& p : rb.selected()) export_run_folder(p, app.exports.dir, app.exports.settings, &unreadable);
      app.notify("copied " + std::to_string(rb.selected().size()) + " runs with their figures to " + app.exports.dir);
      for (const auto& u : unreadable) app.notify_error(u);
    } catch (const std::exception& ex) {
      app.notify_error(ex.what());
    }
  }
  ImGui::EndDisabled();
}

}  // namespace

void draw_runs_panel(LabApp& app) {
  auto& rb = app.runs.browser;
  // While the tab is shown the folder is read again every few seconds on the worker (live runs'
  // states and steps; new runs): a run's unchanged files are not read again, and an unchanged scan
  // leaves the table's cache alone.
  if (const double now = ImGui::GetTime(); now >= app.runs.panel.next_rescan_s) {
    if (!rb.scanning() && app.runs.panel.next_rescan_s > 0) rb.start_rescan(app.runs.dir);
    app.runs.panel.next_rescan_s = now + 5.0;
  }
  draw_folder_fields(app);
  draw_table_tools(app);
  // The table fills the panel; with runs overlaid it shares it with their figures (the table at
  // least a screenful of rows, at most what its rows need).
  const float avail = ImGui::GetContentRegionAvail().y;
  const float row = ImGui::GetFrameHeightWithSpacing();
  float height = std::max(avail - app.runs.panel.tail_height, 6 * row);
  if (!rb.figures().empty()) {
    const float needed = (static_cast<float>(app.runs.view.lines().size()) + 1.5f) * row;
    height = std::min(std::min(needed, std::max(0.4f * avail, ui_px(160))), height);
  }
  const bool selection_changed = draw_runs_table(app, height);
  const float tail_top = ImGui::GetCursorPosY();
  if (rb.entries().empty()) {
    ImGui::PushTextWrapPos(0.0f);
    if (rb.scanning()) ImGui::TextDisabled("Reading %s ...", app.runs.panel.folder.c_str());
    else ImGui::TextDisabled("No runs in %s yet: train one, or open a run folder by path.", app.runs.panel.folder.c_str());
    ImGui::PopTextWrapPos();
  }
  draw_jobs(rb);
  if (draw_effect_options(rb) || selection_changed) {
    const auto err = rb.load();
    if (!err.empty()) app.notify_error(err);
  }
  draw_export_controls(app, rb.figures(), "runs-export");
  draw_export_folders(app);
  app.runs.panel.tail_height = ImGui::GetCursorPosY() - tail_top;
  if (rb.figures().empty()) return;
  ImGui::BeginChild("overlay", ImVec2(0, 0), false);
  draw_figure_grid(rb.figures(), 2, ui_px(300));
  ImGui::EndChild();
}

}  // namespace proteus::gui
