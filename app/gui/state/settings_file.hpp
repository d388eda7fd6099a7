// The window's ImGui settings file (imgui.ini in the user's config folder), read before Dear ImGui
// sees a byte of it: ImGui trusts what it reads (a table entry's column count sizes an allocation,
// a column's order indexes an array) and opens whatever is at the path, so a crafted line could
// crash the window and a FIFO there would block it before it opens. Here the file must be a
// regular file within a size limit, and only the lines whose values ImGui 1.86 reads safely are
// handed on; anything else is set aside or dropped with a message. No ImGui here: tested headless.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace proteus::gui {

// More than any layout this window saves (a few KiB): a larger file is not ours.
inline constexpr size_t kSettingsFileLimit = size_t{1} << 20;

// ImGui 1.86's IMGUI_TABLE_MAX_COLUMNS: a table entry claiming more is not one ImGui wrote.
inline constexpr int kMaxTableColumns = 64;

struct SettingsFileText {
  std::string text;                   // what ImGui may be handed (LoadIniSettingsFromMemory)
  std::vector<std::string> messages;  // what was set aside or dropped, and why: one line each
};

// The entries ImGui may read: [Window][...] (Pos, Size, Collapsed), [Table][0xID,N] with N in
// [1, kMaxTableColumns] (RefScale, Column lines with every index and order in range) and the
// window's own [ProteusLab][Window]. Any other entry, or line, or a line with a control byte, is
// dropped, each kind said once in `messages`.
std::string sanitize_settings(std::string_view text, std::vector<std::string>* messages);

// Reads the settings file without blocking: a missing one is empty; one that is not a regular
// file (a FIFO, a device, a folder, a link to one), larger than kSettingsFileLimit or unreadable
// is set aside (renamed to PATH.set-aside, so the next save makes a fresh one) with a message,
// and gives no text. Then sanitize_settings.
SettingsFileText read_settings_file(const std::filesystem::path& path);

// Writes the settings atomically (never through a link, into a FIFO or over a folder); false with
// a message in `error` when it cannot.
bool write_settings_file(const std::filesystem::path& path, const std::string& text, std::string* error);

}  // namespace proteus::gui
