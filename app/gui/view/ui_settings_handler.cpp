#include "app/gui/view/ui_settings_handler.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstring>
#include <iostream>
#include <string>

#include "app/gui/state/settings_file.hpp"

namespace proteus::gui {
namespace {

constexpr const char* kTypeName = "ProteusLab";
constexpr const char* kEntryName = "Window";

void* read_open(ImGuiContext*, ImGuiSettingsHandler* handler, const char* name) {
  return std::strcmp(name, kEntryName) == 0 ? handler->UserData : nullptr;  // another entry: skipped
}

void read_line(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line) {
  read_ui_settings_line(*static_cast<UiSettings*>(entry), line);  // an unknown line is skipped
}

void write_all(ImGuiContext*, ImGuiSettingsHandler* handler, ImGuiTextBuffer* out) {
  const std::string lines = write_ui_settings_lines(*static_cast<const UiSettings*>(handler->UserData));
  out->appendf("[%s][%s]\n%s\n", kTypeName, kEntryName, lines.c_str());
}

}  // namespace

void register_ui_settings_handler(UiSettings* settings) {
  ImGuiSettingsHandler h;
  h.TypeName = kTypeName;
  h.TypeHash = ImHashStr(kTypeName);
  h.ReadOpenFn = read_open;
  h.ReadLineFn = read_line;
  h.WriteAllFn = write_all;
  h.UserData = settings;
  ImGui::GetCurrentContext()->SettingsHandlers.push_back(h);
}

void mark_ui_settings_changed() { ImGui::MarkIniSettingsDirty(); }

void load_settings_file(const std::filesystem::path& path) {
  const auto read = read_settings_file(path);
  for (const auto& m : read.messages) std::cerr << "proteus-lab: " << m << '\n';
  if (!read.text.empty()) ImGui::LoadIniSettingsFromMemory(read.text.data(), read.text.size());
}

void save_settings_file(const std::filesystem::path& path, bool now) {
  ImGuiIO& io = ImGui::GetIO();
  if (!now && !io.WantSaveIniSettings) return;
  io.WantSaveIniSettings = false;
  size_t size = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&size);
  std::string error;
  if (!write_settings_file(path, std::string(text, size), &error))
    std::cerr << "proteus-lab: the layout is not saved: " << error << '\n';
}

}  // namespace proteus::gui
