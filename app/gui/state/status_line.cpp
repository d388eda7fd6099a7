#include "app/gui/state/status_line.hpp"

namespace proteus::gui {

void StatusLine::post(const std::string& message, Notice kind) {
  const bool error = kind == Notice::error;
  text = message;
  is_error = error;
  log.push_back((error ? "error: " : "") + message);
  if (log.size() > 200) log.erase(log.begin());
}

}  // namespace proteus::gui
