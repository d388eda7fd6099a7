// Registers the CUDA backend as "cuda" with core/backend/registry.hpp when the program loads.
// Nothing references this object, so the linker keeps it only because proteus_kernels is
// linked whole (LINK_LIBRARY:WHOLE_ARCHIVE in the top-level CMakeLists.txt): the core stays
// free of any dependency on kernels/.
#include <string>

#include "core/backend/registry.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/device.hpp"

namespace proteus::cuda {

// Named (not in an anonymous namespace) so `nm -C proteus | grep cuda_backend_registered`
// shows whether a binary carries the backend.
extern const bool cuda_backend_registered;
const bool cuda_backend_registered = [] {
  backend::register_backend(
      "cuda", [](int /*threads*/, std::string* why_not) { return make_cuda_backend(why_not); }, reset_device);
  return true;
}();

}  // namespace proteus::cuda
