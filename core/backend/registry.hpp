// Which backend a run gets. The CPU backend is always there; others (CUDA, from kernels/)
// register a factory at start-up when they are built. Asking for a missing or unusable device
// falls back to the CPU and says so plainly, instead of failing the run. A non-CPU backend is
// used only after it passes the self-check (self_check.hpp), run once per process and device.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/ops/backend.hpp"

namespace proteus::backend {

// Returns null when the device cannot be used here (no GPU, no driver), with the reason.
using BackendFactory = std::function<std::unique_ptr<Backend<float>>(int threads, std::string* why_not)>;

// Resets a device after a fault left it unusable (Backend::device_lost), once every backend on it
// is destroyed; the registry then makes a fresh one with the faulting rule's chunked form refused.
using DeviceReset = std::function<void()>;

void register_backend(const std::string& name, BackendFactory factory, DeviceReset reset = {});
std::vector<std::string> registered_backends();  // "cpu" first

struct BackendChoice {
  std::unique_ptr<Backend<float>> backend;
  std::string device;   // what the run actually got
  // Non-empty when the request could not be honoured, or (device kept) when the self-check sent a
  // rule's chunked form back to the recurrent kernel: one line either way.
  std::string message;
};

// device: "cpu" | "cuda" | any registered name. threads: CPU threads, 0 = all cores.
// The first call for a non-CPU device runs the self-check on it; its verdict is kept for the
// process, so later calls cost nothing. A device that fails it gives the CPU and a message
// naming the failing ops and their errors.
BackendChoice make_backend(const std::string& device, int threads);

// The backend a device's factory makes, without the self-check: for the parity test, which must
// see a wrong backend fail rather than be replaced. Null with the reason when it cannot be made.
std::unique_ptr<Backend<float>> make_unchecked_backend(const std::string& device, int threads,
                                                       std::string* why_not);

}  // namespace proteus::backend
