#include "core/config/flat_fields.hpp"

#include <charconv>
#include <tuple>

namespace proteus::config {
namespace {

using nlohmann::json;

void flatten(const json& j, const std::string& prefix, FlatConfig& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    return;
  }
  out[prefix] = j;  // arrays are leaves
}

// Which field names a lockstep class: the one asked for, then a model field (d_head, not the batch
// or seq_len scaled with it), then the other fields a user sets, derived fields last.
int naming_rank(const std::string& path, const std::string& named_first) {
  if (path == named_first) return 0;
  if (derived_field(path)) return 3;
  return path.starts_with("model.") ? 1 : 2;
}

// The schema's order, the fields a user sets first: (0 set, 1 derived, 2 outside the schema; index).
std::pair<int, size_t> schema_rank(const std::string& path) {
  const auto& roles = field_roles();
  const auto it = std::find_if(roles.begin(), roles.end(), [&](const auto& r) { return r.first == path; });
  if (it == roles.end()) return {2, 0};
  return {role_traits(it->second).derived ? 1 : 0, static_cast<size_t>(it - roles.begin())};
}

}  // namespace

FlatConfig flat_fields(const RunConfig& c, JsonForm form) {
  FlatConfig out;
  flatten(to_json(c, form), "", out);
  return out;
}

std::string field_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_number()) return value.dump();
  char buf[64];
  const double x = value.get<double>();
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(x);
}

std::string_view last_component(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

namespace detail {

bool reported(std::string_view path, const DifferingOptions& options) {
  return !run_identity_field(path) || std::find(options.shown.begin(), options.shown.end(), path) != options.shown.end();
}

std::vector<std::string> named_fields(std::vector<Varying> varying, const DifferingOptions& options) {
  std::vector<std::string> out;
  if (options.lockstep) {
    std::map<std::vector<int>, std::string> classes;  // which configs share a value -> the naming field
    for (const auto& v : varying) {
      auto [c, added] = classes.emplace(v.partition, v.path);
      if (!added && std::pair(naming_rank(v.path, options.named_first), v.path) <
                        std::pair(naming_rank(c->second, options.named_first), c->second))
        c->second = v.path;
    }
    for (const auto& [partition, path] : classes) out.push_back(path);
  } else {
    for (auto& v : varying) out.push_back(std::move(v.path));
  }
  if (options.order == DifferingOptions::Order::schema)
    std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
      return std::tuple_cat(schema_rank(a), std::tie(a)) < std::tuple_cat(schema_rank(b), std::tie(b));
    });
  else
    std::sort(out.begin(), out.end());
  return out;
}

}  // namespace detail
}  // namespace proteus::config
