#include "core/backend/registry.hpp"

#include <map>
#include <mutex>

#include "core/backend/cpu_backend.hpp"
#include "core/backend/self_check.hpp"

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

BackendFactory factory_of(const std::string& device) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(device);
  return it == registry().end() ? BackendFactory() : it->second;
}

// One verdict per device per process. The lock is held through the check, so threads asking at
// once (runs side by side) wait for the one check instead of each running it.
SelfCheckVerdict checked_once(const std::string& device, Backend<float>& be) {
  static std::mutex mu;
  static std::map<std::string, SelfCheckVerdict> verdicts;
  std::lock_guard<std::mutex> lock(mu);
  auto it = verdicts.find(device);
  if (it == verdicts.end()) it = verdicts.emplace(device, self_check(be)).first;
  return it->second;
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

std::unique_ptr<Backend<float>> make_unchecked_backend(const std::string& device, int threads,
                                                       std::string* why_not) {
  if (device == "cpu") return make_cpu_backend<float>(threads);
  BackendFactory factory = factory_of(device);
  if (!factory) {
    if (why_not) *why_not = "this build has no " + device + " backend";
    return nullptr;
  }
  std::string why;
  auto be = factory(threads, &why);
  if (!be && why_not) *why_not = why;
  return be;
}

BackendChoice make_backend(const std::string& device, int threads) {
  BackendChoice choice;
  if (device != "cpu") {
    std::string why;
    auto be = make_unchecked_backend(device, threads, &why);
    if (be) {
      const SelfCheckVerdict verdict = checked_once(device, *be);
      if (verdict.passed) {
        apply_refusals(verdict, *be);  // the verdict may come from an earlier instance
        if (!verdict.notice.empty()) choice.message = "device " + device + ": " + verdict.notice;
        choice.backend = std::move(be);
        choice.device = device;
        return choice;
      }
      choice.message = "device " + device + " failed its self-check against the CPU: " + verdict.failure +
                       "; running on the CPU";
    } else {
      choice.message = "device " + device + " is not available (" + why + "); running on the CPU";
    }
  }
  choice.backend = make_cpu_backend<float>(threads);
  choice.device = "cpu";
  return choice;
}

}  // namespace proteus::backend
