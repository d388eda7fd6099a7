// A Dear ImGui context without a window, for the GUI tests: no ini file, a 1600 x 1000 display,
// 60 frames a second, and the font atlas built (a frame needs it; a platform backend would build it).
#pragma once
#include <imgui.h>

namespace proteus::test_support {

// The new context is made current (ImGui::CreateContext does so only for the first one).
inline ImGuiContext* create_headless_imgui() {
  ImGuiContext* context = ImGui::CreateContext();
  ImGui::SetCurrentContext(context);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1600, 1000);
  io.DeltaTime = 1.0f / 60;
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  return context;
}

}  // namespace proteus::test_support
