#include "app/gui/view/ui_scale.hpp"

#include <cstdio>
#include <filesystem>

#include "core/figures/layout.hpp"

namespace proteus::gui {
namespace {

constexpr const char* kRegularFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr const char* kBoldFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

// One font at `px` pixels named `name` (the figure painter finds the bold faces by name).
ImFont* add_font(ImFontAtlas& atlas, const char* file, float px, const char* name) {
  ImFontConfig cfg;
  cfg.SizePixels = px;
  std::snprintf(cfg.Name, sizeof cfg.Name, "%s", name);
  if (std::filesystem::exists(file)) return atlas.AddFontFromFileTTF(file, px, &cfg);
  return atlas.AddFontDefault(&cfg);  // ProggyClean, drawn at px
}

}  // namespace

UiFonts build_ui_fonts(ImFontAtlas& atlas, float scale) {
  atlas.Clear();
  const float ui = kBaseFontPx * scale;
  // Figure titles at the size the figures' own scale gives them (plot_view.hpp).
  const float title = ui * float(figures::kTitleSize / figures::kLabelSize);
  const float big = ui * kPresentationFontFactor;
  UiFonts f;
  f.ui = add_font(atlas, kRegularFile, ui, "ui");
  f.bold = add_font(atlas, kBoldFile, title, "ui Bold");
  f.presentation = add_font(atlas, kRegularFile, big, "presentation");
  f.presentation_bold = add_font(atlas, kBoldFile, big * float(figures::kTitleSize / figures::kLabelSize), "presentation Bold");
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  atlas.GetTexDataAsRGBA32(&pixels, &w, &h);
  return f;
}

ImGuiStyle scaled_style(float scale) {
  ImGuiStyle style;
  ImGui::StyleColorsLight(&style);
  style.FrameRounding = 3;
  style.ScaleAllSizes(scale);
  return style;
}

UiFonts apply_ui_scale(float scale) {
  const UiFonts f = build_ui_fonts(*ImGui::GetIO().Fonts, scale);
  ImGui::GetIO().FontDefault = f.ui;
  ImGui::GetStyle() = scaled_style(scale);
  return f;
}

}  // namespace proteus::gui
