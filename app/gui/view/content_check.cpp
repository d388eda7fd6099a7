#include "app/gui/view/content_check.hpp"

#include <imgui_internal.h>

namespace proteus::gui {
namespace {

std::vector<DrawnContent>* content_register() { return static_cast<std::vector<DrawnContent>*>(ImGui::GetIO().UserData); }

// Whether `w` or a window it sits in can be scrolled by the user along y (axis 1) or x (axis 0):
// it has more content than room and a scrollbar to reach it (a window without one, like the
// presentation view, shows what fits and no more).
bool scrolls(const ImGuiWindow* w, int axis) {
  for (; w; w = w->ParentWindow) {
    const bool bar = axis == 0 ? (w->Flags & ImGuiWindowFlags_HorizontalScrollbar) != 0 : (w->Flags & ImGuiWindowFlags_NoScrollbar) == 0;
    if (bar && (axis == 0 ? w->ScrollMax.x : w->ScrollMax.y) > 0) return true;
    if (!(w->Flags & ImGuiWindowFlags_ChildWindow)) break;
  }
  return false;
}

}  // namespace

void begin_content_frame(std::vector<DrawnContent>& drawn) {
  drawn.clear();
  ImGui::GetIO().UserData = &drawn;
}

void register_content(ContentKind kind, const std::string& name, ImVec2 min, ImVec2 max, float readable_px) {
  const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
  std::vector<DrawnContent>* drawn = content_register();
  if (!w || !drawn) return;
  // What the window shows: its inner clip rectangle (a child's is already clipped to its parent's),
  // within the screen.
  ImRect shown = w->InnerClipRect;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  shown.ClipWithFull(ImRect(vp->Pos, ImVec2(vp->Pos.x + vp->Size.x, vp->Pos.y + vp->Size.y)));
  DrawnContent c;
  c.window = w->Name;
  c.name = name;
  c.kind = kind;
  c.rect = {min.x, min.y, max.x, max.y};
  c.readable_px = readable_px;
  c.visible = {shown.Min.x, shown.Min.y, shown.Max.x, shown.Max.y};
  c.scrolls_x = scrolls(w, 0);
  c.scrolls_y = scrolls(w, 1);
  drawn->push_back(std::move(c));
}

const std::vector<DrawnContent>& drawn_content() {
  static const std::vector<DrawnContent> none;
  const auto* drawn = content_register();
  return drawn ? *drawn : none;
}

}  // namespace proteus::gui
