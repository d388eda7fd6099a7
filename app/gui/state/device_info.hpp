// What the window says about the device: whether a CUDA GPU can train here, in plain words.
#pragma once
#include <string>

namespace proteus::gui {

struct DeviceInfo {
  bool cuda = false;     // a CUDA backend is built in and found a GPU
  std::string summary;   // "GPU: CUDA available" / "CPU only: <why>"
  std::string headline;  // the status bar's one line: "GPU: CUDA" / "CPU only (2 cores)"; the why is in summary
};

// Asks the backend registry for a CUDA backend once (cheap when there is none).
DeviceInfo probe_device();

}  // namespace proteus::gui
