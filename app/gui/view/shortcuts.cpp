#include "app/gui/view/shortcuts.hpp"

#include <algorithm>
#include <array>

namespace proteus::gui {
namespace {

using S = ShortcutScope;
using A = ShortcutAction;

// Ctrl + and Ctrl - take '=' and '-' with or without Shift, and the keypad's + and -.
constexpr std::array kShortcuts{
    Shortcut{S::everywhere, key::f1, false, false, '?', "F1 or ?", "show or hide this list of shortcuts", A::toggle_help},
    Shortcut{S::everywhere, key::escape, false, false, 0, "Esc", "close this list, or leave the presentation view", A::close_overlay},
    Shortcut{S::everywhere, key::f11, false, false, 0, "F11", "presentation view: this tab full-window, large type", A::toggle_presentation},
    Shortcut{S::everywhere, key::equal, true, true, 0, "Ctrl +", "larger: UI scale up a step", A::scale_up},
    Shortcut{S::everywhere, key::keypad_add, true, true, 0, "Ctrl keypad +", "larger: UI scale up a step", A::scale_up},
    Shortcut{S::everywhere, key::minus, true, true, 0, "Ctrl -", "smaller: UI scale down a step", A::scale_down},
    Shortcut{S::everywhere, key::keypad_subtract, true, true, 0, "Ctrl keypad -", "smaller: UI scale down a step", A::scale_down},
    Shortcut{S::everywhere, key::zero, true, false, 0, "Ctrl 0", "UI scale back to the monitor's", A::scale_reset},
    Shortcut{S::everywhere, key::keypad_0, true, false, 0, "Ctrl keypad 0", "UI scale back to the monitor's", A::scale_reset},
    Shortcut{S::teach, key::space, false, false, 0, "Space", "play or pause the stream", A::teach_play_pause},
    Shortcut{S::teach, key::right, false, true, 0, "Right", "next token", A::teach_step_forward},
    Shortcut{S::teach, key::left, false, true, 0, "Left", "previous token", A::teach_step_back},
    Shortcut{S::teach, key::home, false, false, 0, "Home", "before the first token", A::teach_first},
    Shortcut{S::teach, key::end, false, false, 0, "End", "after the last token", A::teach_last},
    Shortcut{S::presented_figures, key::right, false, true, 0, "Right", "next figure", A::figure_next},
    Shortcut{S::presented_figures, key::page_down, false, true, 0, "Page Down", "next figure", A::figure_next},
    Shortcut{S::presented_figures, key::left, false, true, 0, "Left", "previous figure", A::figure_previous},
    Shortcut{S::presented_figures, key::page_up, false, true, 0, "Page Up", "previous figure", A::figure_previous},
};

bool typed(ImWchar c) {
  const auto& q = ImGui::GetIO().InputQueueCharacters;
  return c != 0 && std::find(q.begin(), q.end(), c) != q.end();
}

}  // namespace

std::span<const Shortcut> shortcut_table() { return kShortcuts; }

const char* shortcut_keys(ShortcutAction action) {
  for (const auto& s : kShortcuts)
    if (s.action == action) return s.keys;
  return "";
}

bool applies(const Shortcut& s, const ShortcutContext& c) {
  switch (s.scope) {
    case S::everywhere: return true;
    case S::teach: return c.teach_tab;
    case S::presented_figures: return c.presenting && !c.teach_tab;
  }
  return false;
}

std::vector<const Shortcut*> shortcuts_for(const ShortcutContext& c) {
  std::vector<const Shortcut*> out;
  for (const auto& s : kShortcuts)
    if (applies(s, c)) out.push_back(&s);
  return out;
}

std::vector<ShortcutAction> pressed_shortcuts(const ShortcutContext& c) {
  const ImGuiIO& io = ImGui::GetIO();
  std::vector<ShortcutAction> out;
  for (const auto& s : kShortcuts) {
    if (!applies(s, c)) continue;
    const bool function_key = s.key >= key::f1 && s.key <= key::f11;
    if (io.WantTextInput && !s.ctrl && !function_key) continue;  // the key is the text field's
    const bool by_key = io.KeyCtrl == s.ctrl && ImGui::IsKeyPressed(s.key, s.repeat);
    const bool by_character = !io.KeyCtrl && !io.WantTextInput && typed(s.character);
    if ((by_key || by_character) && std::find(out.begin(), out.end(), s.action) == out.end()) out.push_back(s.action);
  }
  return out;
}

}  // namespace proteus::gui
