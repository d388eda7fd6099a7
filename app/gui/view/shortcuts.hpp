// The window's keyboard shortcuts as one table: LabApp's key handling and the help overlay (F1)
// both read it, so what the overlay lists is what the keys do.
//
// Keys are the indices of io.KeysDown that Dear ImGui 1.86's GLFW backend fills: GLFW's key
// codes. ImGui 1.86 names only a few keys (ImGuiKey_ has no F-keys, '=' or '-'), so the table
// uses the codes themselves (the values of GLFW_KEY_*, kept here so the view needs no GLFW).
#pragma once
#include <imgui.h>

#include <optional>
#include <span>
#include <vector>

namespace proteus::gui {

namespace key {
inline constexpr int space = 32, slash = 47, zero = 48, minus = 45, equal = 61, escape = 256;
inline constexpr int right = 262, left = 263, down = 264, up = 265, page_up = 266, page_down = 267;
inline constexpr int home = 268, end = 269, f1 = 290, f11 = 300, keypad_0 = 320, keypad_subtract = 333,
                     keypad_add = 334;
}  // namespace key

// Where a shortcut acts: everywhere, in the Teach tab (normal or presented), or in the
// presentation view of a tab's figures.
enum class ShortcutScope { everywhere, teach, presented_figures };

enum class ShortcutAction {
  toggle_help,
  close_overlay,  // Escape: the help overlay, else the presentation view
  toggle_presentation,
  scale_up,
  scale_down,
  scale_reset,  // back to the monitor's content scale
  teach_play_pause,
  teach_step_forward,
  teach_step_back,
  teach_first,
  teach_last,
  figure_next,
  figure_previous,
};

struct Shortcut {
  ShortcutScope scope;
  int key;              // key:: code
  bool ctrl;            // Ctrl must be held (and must not be, when false)
  bool repeat;          // fires again while held
  ImWchar character;    // also fires on this typed character (0: none): '?' on any keyboard layout
  const char* keys;     // as the overlay shows it
  const char* what;     // what it does, in the overlay
  ShortcutAction action;
};

// Every shortcut, in the overlay's order.
std::span<const Shortcut> shortcut_table();

// Where the window is, for choosing which shortcuts apply.
struct ShortcutContext {
  bool teach_tab = false;   // the Teach tab is shown (normal or presented)
  bool presenting = false;  // the presentation view is on
};
bool applies(const Shortcut& s, const ShortcutContext& c);
// The keys of the action's first shortcut in the table ("Ctrl +"), as menus show them; "" if none.
const char* shortcut_keys(ShortcutAction action);
// The shortcuts that apply in `c`, in table order (what the help overlay lists).
std::vector<const Shortcut*> shortcuts_for(const ShortcutContext& c);

// The actions whose keys were pressed this frame (ImGui's io, between NewFrame and Render), in
// table order. While a text field has the keyboard, only Ctrl shortcuts and F-keys act.
std::vector<ShortcutAction> pressed_shortcuts(const ShortcutContext& c);

}  // namespace proteus::gui
