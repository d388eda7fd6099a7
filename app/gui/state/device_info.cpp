#include "app/gui/state/device_info.hpp"

#include <thread>

#include "core/backend/registry.hpp"

namespace proteus::gui {

DeviceInfo probe_device() {
  DeviceInfo d;
  const auto cores = std::max(1u, std::thread::hardware_concurrency());
  auto choice = backend::make_backend("cuda", 1);
  if (choice.device == "cuda") {
    d.cuda = true;
    d.summary = "GPU: CUDA is available; runs with device \"cuda\" train on it";
    d.headline = "GPU: CUDA available";
    if (!choice.message.empty()) d.summary += " (" + choice.message + ")";  // a chunked form sent back to recurrent
  } else {
    d.headline = "CPU only (" + std::to_string(cores) + " cores)";
    d.summary = d.headline + ": " +
                (choice.message.empty() ? std::string("no CUDA backend in this build") : choice.message);
  }
  return d;
}

}  // namespace proteus::gui
