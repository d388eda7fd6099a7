// The Teach lesson itself, shared by the tab and the presentation view: the caption, the gated
// blocks over the tokens and both memories side by side, each with its state grid, its recall
// bars at this step and its recall history (the step triangle). The tab scrolls, so its sizes
// follow the UI's; the presentation view has no scrollbar, so there the lesson is fitted to the
// window: cells, bars and triangle sized by fit_lesson_column (app/gui/state/lesson_layout.hpp),
// the text made smaller where the window is small for the UI scale.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/state/lesson_layout.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/teaching_views.hpp"
#include "app/gui/view/ui_scale.hpp"

namespace proteus::gui {
namespace {

// What one memory's column says (its numbers come from the stepper).
struct MemoryColumn {
  const char* id;
  std::string title;
  const MemoryStep* m;
  const nlohmann::json* whole;  // memory-op's output over every step
};

std::string open_line(const MemoryStep& m, const TeachingExample& e) {
  return "k(t) = " + std::to_string(m.active_blocks) + " blocks, " + std::to_string(m.active_elements) + " of " +
         std::to_string(e.d_k * e.d_v) + " elements, " + std::to_string(m.open_rows) + " of " + std::to_string(e.d_k) +
         " key rows and " + std::to_string(m.open_values) + " of " + std::to_string(e.d_v) + " value dimensions open";
}

std::string state_heading(const TeachingExample& e) {
  return "state S_t (" + std::to_string(e.d_k) + " x " + std::to_string(e.d_v) + "): hatched = locked, outlined = written at t";
}
constexpr const char* kSideHeading = "left: state S_t (hatched = locked, outlined = written at t); right: recall error of "
                                     "each association over the steps (faded: still to come)";
constexpr const char* kHistoryHeading = "recall error of each association over the steps (faded: still to come)";
std::string bars_heading(int t) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "recall error of each association at t = %d (dashed: %.2f)", t, kRecalledBelow);
  return buf;
}

float wrapped_height(const std::string& text, float width) {
  return ImGui::CalcTextSize(text.c_str(), nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y;
}

// The sizes the tab draws at: the UI's, as before the window had to fit (the tab scrolls).
LessonColumnLayout tab_column_layout(const TeachingExample& e, float width) {
  LessonColumnLayout l;
  l.grid_cell = std::clamp(std::min(width * 0.55f / e.d_v, ui_px(190) / e.d_k), ui_px(6), ui_px(40));
  l.bars_px = ui_px(120);
  l.history_cell = std::clamp((width - ui_px(40)) / e.T, ui_px(5), ui_px(16));
  return l;
}

// The column's box, with its text measured at the current font, for fit_lesson_column.
LessonColumnSpace column_space(const MemoryColumn& c, const TeachingExample& e, int t, float width, float height) {
  const float spacing = ImGui::GetStyle().ItemSpacing.y, line = ImGui::GetTextLineHeightWithSpacing();
  const float font = ImGui::GetFontSize();
  const float heads = wrapped_height(c.title, width) + wrapped_height(open_line(*c.m, e), width);
  const float bars_extra = font * 1.5f + ui_px(2) + spacing + wrapped_height(bars_heading(t), width);
  const float history_extra = line + spacing;
  LessonColumnSpace s;
  s.width = width, s.height = height;
  s.d_k = e.d_k, s.d_v = e.d_v, s.T = e.T;
  s.stacked_text_px = heads + wrapped_height(state_heading(e), width) + spacing + bars_extra +
                      wrapped_height(kHistoryHeading, width) + history_extra;
  s.side_text_px = heads + wrapped_height(kSideHeading, width) + history_extra + bars_extra;
  s.history_label_px = ImGui::CalcTextSize("00").x + ui_px(8);
  s.gap_px = ui_px(20);
  s.min_bars_px = std::max(120.0f, ui_px(90));
  s.max_cell_px = ui_px(64);
  return s;
}

void draw_memory_column(const MemoryColumn& c, const TeachingExample& e, int t, float width, const LessonColumnLayout& l) {
  ImGui::PushID(c.id);
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + width);  // the column's text wraps within it
  ImGui::TextUnformatted(c.title.c_str());
  ImGui::TextDisabled("%s", open_line(*c.m, e).c_str());
  double scale = 1e-9;
  for (double v : c.m->state) scale = std::max(scale, std::abs(v));
  const std::string id(c.id);
  ImGui::TextUnformatted(l.side_by_side ? kSideHeading : state_heading(e).c_str());
  draw_cell_grid((id + " state").c_str(), e.d_k, e.d_v, l.grid_cell, c.m->state, &c.m->mask, &c.m->written, scale);
  if (l.side_by_side) {
    ImGui::SameLine(0, ui_px(20));
    draw_recall_history((id + " recall history").c_str(), (*c.whole)["recall_error"], e.T, t, l.history_cell);
  }
  ImGui::TextUnformatted(bars_heading(t).c_str());
  draw_recall_bars((id + " recall bars").c_str(), c.m->recall, e.T, width - ui_px(10), l.bars_px);
  if (!l.side_by_side) {
    ImGui::TextUnformatted(kHistoryHeading);
    draw_recall_history((id + " recall history").c_str(), (*c.whole)["recall_error"], e.T, t, l.history_cell);
  }
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  ImGui::PopID();
}

struct LessonParts {
  std::string caption;
  MemoryColumn ungated, gated;
};

LessonParts lesson_parts(const TeachingStepper& st) {
  const auto& s = st.current();
  const auto& e = st.example();
  const std::string gated_title = "Gated memory (E = " + std::to_string(e.E) + ", " +
                                  std::string(memory::schedule_type_name(e.schedule)) + " over N = " +
                                  std::to_string(e.horizon()) + ", " + std::string(memory::key_normalize_name(e.normalize)) +
                                  ", " + std::string(memory::block_axis_name(e.block_axis)) + ")";
  return {st.caption(), {"ungated", "Ungated memory (E = 1)", &s.ungated, &st.ungated_output()},
          {"gated", gated_title, &s.gated, &st.gated_output()}};
}

// The height above the columns: the caption wrapped to `width`, a separator, the block strip.
float lesson_header_height(const LessonParts& p, const TeachingExample& e, float width) {
  return wrapped_height(p.caption, width) + ImGui::GetStyle().ItemSpacing.y + block_strip_height(e.E) +
         ImGui::GetStyle().ItemSpacing.y;
}

// The fitted layout of both columns (the one whose text takes more room decides) in `avail`.
LessonColumnLayout fitted_columns(const LessonParts& p, const TeachingExample& e, int t, ImVec2 avail) {
  const float gap = ui_px(30);
  const float half = (avail.x - gap) / 2;
  const float height = avail.y - lesson_header_height(p, e, avail.x);
  // Both columns draw one layout, fitted to the text of whichever column has more of it (the
  // gated column's title is the longer), so each fits.
  LessonColumnSpace space = column_space(p.ungated, e, t, half, height);
  const LessonColumnSpace gated = column_space(p.gated, e, t, half, height);
  space.stacked_text_px = std::max(space.stacked_text_px, gated.stacked_text_px);
  space.side_text_px = std::max(space.side_text_px, gated.side_text_px);
  return fit_lesson_column(space);
}

// Smaller text, from the scale the lesson's row was drawn at, until the fitted lesson fits `avail`
// with cells at least half a line of text tall. Leaves the window's font at the chosen scale and
// tells `text` of it.

LessonColumnLayout fit_lesson_text(const LessonParts& p, const TeachingExample& e, int t, ImVec2 avail, LessonTextScale& text) {
  LessonColumnLayout l;
  float chosen = text.scale();
  for (float k : kPresentationTextSteps) {
    if (k > text.scale() + 1e-3f) continue;
    chosen = k;
    ImGui::SetWindowFontScale(k);
    l = fitted_columns(p, e, t, avail);
    const float header = lesson_header_height(p, e, avail.x);
    if (header + l.height <= avail.y && l.smallest_cell() >= std::max(12.0f, ImGui::GetFontSize() * 0.5f)) break;
  }
  text.fitted(chosen);
  return l;
}

}  // namespace

void draw_teaching_lesson(LabApp& app, LessonFit fit) {
  auto& st = app.teach.stepper;
  const auto& s = st.current();
  const auto& e = st.example();
  const LessonParts parts = lesson_parts(st);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  LessonColumnLayout layout = tab_column_layout(e, (avail.x - ui_px(30)) / 2);
  if (fit == LessonFit::window) layout = fit_lesson_text(parts, e, s.t, avail, app.display.lesson_text);
  const float column_gap = ui_px(30);  // after fit_lesson_text: at the size the text is drawn
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + avail.x);
  ImGui::TextUnformatted(parts.caption.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  draw_block_strip(st.gated_output()["active_blocks"], e.E, s.t);
  const float half = (avail.x - column_gap) / 2;
  draw_memory_column(parts.ungated, e, s.t, half, layout);
  ImGui::SameLine(0, column_gap);
  draw_memory_column(parts.gated, e, s.t, half, layout);
}

}  // namespace proteus::gui
