// libFuzzer harness for the config reader: an input is one to eight files separated by a line
// "---" (p0.json, p1.json, ...; p0.json is the experiment), read through Experiment::load
// (parent chains and cycles), expanded with runs() and, when there is a grid, sweep_runs().
// Every run that comes out must write and read back to itself, and so must the experiment.
// A finding is any crash, leak or sanitizer report, any exception but the InputError a user
// sees, or a run that does not round-trip. Parents are kept inside the harness's own folder.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/common/json_read.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kSeparator = "\n---\n";
constexpr size_t kMaxFiles = 8;

// A folder of this process's own, on a memory file system when there is one.
const fs::path& work_dir() {
  static const fs::path dir = [] {
    const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path d = base / ("proteus-fuzz-config-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::vector<std::string_view> split_files(std::string_view input) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < kMaxFiles) {
    const size_t at = input.find(kSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + kSeparator.size());
  }
  parts.push_back(input);
  return parts;
}

// A parent must be one of the harness's files (p0.json .. p7.json): the reader follows a parent
// anywhere, as it should for a user, and a fuzzer must not wander into /proc/kmsg.
bool parents_stay_inside(const std::vector<std::string_view>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    json value;
    try {
      value = proteus::common::parse_json(parts[i], "p.json", proteus::config::kConfigFileLimits);
    } catch (const proteus::InputError&) {
      continue;  // the reader refuses it before following anything
    }
    if (!value.is_object()) continue;
    const auto parent = value.find("parent");
    if (parent == value.end() || !parent->is_string()) continue;
    const std::string name = parent->get<std::string>();
    if (name.size() != 7 || name.compare(0, 1, "p") != 0 || name[1] < '0' || name[1] > '7' || name.compare(2, 5, ".json") != 0)
      return false;
  }
  return true;
}

void check_round_trip(const proteus::config::RunConfig& run) {
  const json written = proteus::config::to_json(run);
  const json again = proteus::config::to_json(proteus::config::parse_run_config(written));
  if (written != again) std::abort();  // the writer made what the reader reads differently
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto parts = split_files(input);
  if (!parents_stay_inside(parts)) return -1;  // not kept in the corpus
  const fs::path& dir = work_dir();
  for (size_t i = 0; i < kMaxFiles; ++i) {
    const fs::path file = dir / ("p" + std::to_string(i) + ".json");
    if (i < parts.size()) std::ofstream(file, std::ios::binary | std::ios::trunc) << parts[i];
    else fs::remove(file);
  }
  try {
    const auto experiment = proteus::config::Experiment::load(dir / "p0.json");
    const json written = experiment.to_json();
    if (proteus::config::Experiment::from_json(written).to_json() != written) std::abort();  // not read back the same
    for (const auto& run : experiment.runs()) check_round_trip(run);
    if (experiment.sweep)
      for (const auto& run : experiment.sweep_runs()) check_round_trip(run);
  } catch (const proteus::InputError&) {
    // what a user sees: one line naming the field
  }
  return 0;
}
