#include "core/config/flat_fields.hpp"

namespace proteus::config {
namespace {

using nlohmann::json;

void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    return;
  }
  out[prefix] = j;  // arrays are leaves
}

}  // namespace

bool derived_field(const std::string& path) {
  return path == "model.d_hidden" || path == "model.mixer.N" || path == "model.param_schedule.N" ||
         path.starts_with("eval.");
}

std::map<std::string, json> flat_fields(const RunConfig& c, JsonForm form) {
  std::map<std::string, json> out;
  flatten(to_json(c, form), "", out);
  return out;
}

}  // namespace proteus::config
