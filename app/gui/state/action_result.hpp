// What one of the window's actions did (LabSession: load, save, train, explore, export): whether
// it happened, what the status line says of it, and the file or folder it acted on. Callers act on
// this, never on the status line's text or colour.
#pragma once
#include <filesystem>
#include <string>

namespace proteus::gui {

struct ActionResult {
  bool ok = true;
  std::string message;         // posted to the status line (in red when !ok)
  std::filesystem::path path;  // the experiment read or written, the run opened; empty for the others
  explicit operator bool() const { return ok; }
};

inline ActionResult succeeded(std::string message, std::filesystem::path path = {}) {
  return {true, std::move(message), std::move(path)};
}
inline ActionResult failed(std::string message, std::filesystem::path path = {}) {
  return {false, std::move(message), std::move(path)};
}

}  // namespace proteus::gui
