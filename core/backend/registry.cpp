#include "core/backend/registry.hpp"

#include <map>
#include <mutex>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/check/self_check.hpp"

namespace proteus::backend {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
struct Registered {
  BackendFactory factory;
  DeviceReset reset;
};
std::map<std::string, Registered>& registry() {
  static std::map<std::string, Registered> backends;
  return backends;
}

Registered registered(const std::string& device) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(device);
  return it == registry().end() ? Registered() : it->second;
}

// The self-check, through device faults: when a chunked case leaves the device unusable, the
// backend is destroyed, the device reset, and a fresh backend checked with that rule's chunked
// form refused (at most once per rule). `be` is the backend the verdict is about.
SelfCheckVerdict check_through_faults(const std::string& device, int threads, std::unique_ptr<Backend<float>>& be) {
  std::vector<FaultedRule> faulted;
  for (;;) {
    SelfCheckVerdict v = self_check(*be, faulted);
    if (!v.device_lost_by) return v;
    const memory::Rule rule = *v.device_lost_by;
    const std::string what = "the chunked form of memory rule " + std::string(memory::rule_name(rule)) +
                             " left the device unusable (" + v.failure + ")";
    for (const auto& f : faulted)
      if (f.rule == rule) {  // refused, and it faulted again: its recurrent form is at fault too
        v.failure = what + " on its recurrent form too";
        return v;
      }
    const DeviceReset reset = registered(device).reset;
    if (!reset) {
      v.failure = what + ", and " + device + " cannot be reset";
      return v;
    }
    be.reset();  // every allocation of the poisoned context goes before the reset
    reset();
    std::string why;
    be = make_unchecked_backend(device, threads, &why);
    if (!be) {
      v.failure = what + "; after the reset it could not be made again (" + why + ")";
      return v;
    }
    faulted.push_back({rule, v.failure});
    be->refuse_chunked_form(rule);
  }
}

// One verdict per device per process. The lock is held through the check, so threads asking at
// once (runs side by side) wait for the one check instead of each running it. A device lost in
// the check leaves `be` null or recreated.
SelfCheckVerdict checked_once(const std::string& device, int threads, std::unique_ptr<Backend<float>>& be) {
  static std::mutex mu;
  static std::map<std::string, SelfCheckVerdict> verdicts;
  std::lock_guard<std::mutex> lock(mu);
  auto it = verdicts.find(device);
  if (it == verdicts.end()) it = verdicts.emplace(device, check_through_faults(device, threads, be)).first;
  return it->second;
}

}  // namespace

void register_backend(const std::string& name, BackendFactory factory, DeviceReset reset) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[name] = {std::move(factory), std::move(reset)};
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
  BackendFactory factory = registered(device).factory;
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
      const SelfCheckVerdict verdict = checked_once(device, threads, be);
      if (verdict.passed && be) {
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
