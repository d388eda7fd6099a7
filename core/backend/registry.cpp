#include "core/backend/registry.hpp"

#include <map>
#include <mutex>

#include "core/backend/cpu_backend.hpp"

namespace proteus::backend {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, BackendFactory>& registry() {
  static std::map<std::string, BackendFactory> factories;
  return factories;
}

}  // namespace

void register_backend(const std::string& name, BackendFactory factory) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[name] = std::move(factory);
}

std::vector<std::string> registered_backends() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> names = {"cpu"};
  for (const auto& [name, f] : registry())
    if (name != "cpu") names.push_back(name);
  return names;
}

BackendChoice make_backend(const std::string& device, int threads) {
  BackendChoice choice;
  if (device != "cpu") {
    BackendFactory factory;
    {
      std::lock_guard<std::mutex> lock(registry_mutex());
      auto it = registry().find(device);
      if (it != registry().end()) factory = it->second;
    }
    std::string why;
    if (factory) {
      choice.backend = factory(threads, &why);
      if (choice.backend) {
        choice.device = device;
        return choice;
      }
    } else {
      why = "this build has no " + device + " backend";
    }
    choice.message = "device " + device + " is not available (" + why + "); running on the CPU";
  }
  choice.backend = make_cpu_backend<float>(threads);
  choice.device = "cpu";
  return choice;
}

}  // namespace proteus::backend
