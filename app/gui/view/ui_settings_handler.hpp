// The window's own entry in Dear ImGui's settings file ("[ProteusLab][Window]": UI scale, window
// size, tab; state/ui_settings.hpp reads and writes its lines), so they are saved and loaded
// with ImGui's layout in one file.
#pragma once
#include <filesystem>

#include "app/gui/state/ui_settings.hpp"

namespace proteus::gui {

// Registers the entry with the current ImGui context: loading the settings file fills
// `*settings`, saving it writes `*settings`, which must outlive the context (or its last save).
// Call before the file is loaded (ImGui::LoadIniSettingsFromDisk, or the first NewFrame).
void register_ui_settings_handler(UiSettings* settings);
// The settings changed: ImGui saves the file within its saving interval (io.IniSavingRate).
void mark_ui_settings_changed();

// ImGui never opens the settings file itself (io.IniFilename stays null): these read it through
// state/settings_file.hpp (a regular file, bounded, only lines ImGui reads safely; anything else
// set aside or dropped, said on stderr) and write it atomically.
void load_settings_file(const std::filesystem::path& path);
// Writes ImGui's settings when it asks to (io.WantSaveIniSettings, after a change) or `now`.
void save_settings_file(const std::filesystem::path& path, bool now);

}  // namespace proteus::gui
