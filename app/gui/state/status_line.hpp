// The line at the bottom of the window: the last notice, and the recent ones (its tooltip).
#pragma once
#include <string>
#include <vector>

namespace proteus::gui {

enum class Notice { info, error };

struct StatusLine {
  std::string text;
  bool is_error = false;
  std::vector<std::string> log;  // the last 200 notices, errors marked "error: "
  void post(const std::string& message, Notice kind);
};

}  // namespace proteus::gui
