// The schema's own walks: the list of paths (config_paths) and the role of each field.
#include <functional>
#include <map>
#include <optional>

#include "core/config/config_json.hpp"
#include "core/config/config_schema.hpp"
#include "core/config/field_role.hpp"

namespace proteus::config {

const std::vector<common::Named<FieldRole>>& name_table(FieldRole) {
  static const std::vector<common::Named<FieldRole>> table = {
      {FieldRole::trained, "trained"},
      {FieldRole::identity, "identity"},
      {FieldRole::reporting, "reporting"},
      {FieldRole::schedule, "schedule"},
      {FieldRole::schedule_reading, "schedule_reading"},
      {FieldRole::schedule_horizon, "schedule_horizon"},
      {FieldRole::reading, "reading"},
      {FieldRole::derived, "derived"},
      {FieldRole::evaluation, "evaluation"},
  };
  return table;
}

RoleTraits role_traits(FieldRole role) {
  RoleTraits t;
  switch (role) {
    case FieldRole::trained: break;
    case FieldRole::identity:
    case FieldRole::reporting: t.run_identity = true; break;
    case FieldRole::schedule: t.schedule_owned = true; break;
    case FieldRole::schedule_reading: t.schedule_owned = t.reading = true; break;
    case FieldRole::schedule_horizon: t.schedule_owned = t.derived = true; break;
    case FieldRole::reading: t.reading = true; break;
    case FieldRole::derived:
    case FieldRole::evaluation: t.derived = true; break;
  }
  return t;
}

const std::vector<std::pair<std::string, FieldRole>>& field_roles() {
  static const auto roles = [] {
    std::vector<std::pair<std::string, FieldRole>> out;
    RunConfig c;
    schema::PathWalker walker([&](const std::string& path, const auto&, FieldRole role) { out.emplace_back(path, role); });
    schema::visit(walker, c);
    return out;
  }();
  return roles;
}

namespace {

// Each leaf's role, and each object's: the role its leaves share, or none when they differ.
struct RoleIndex {
  std::map<std::string, FieldRole, std::less<>> leaves;
  std::map<std::string, std::optional<FieldRole>, std::less<>> objects;
};

const RoleIndex& role_index() {
  static const RoleIndex index = [] {
    RoleIndex r;
    for (const auto& [path, role] : field_roles()) {
      r.leaves.emplace(path, role);
      for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
        const auto [it, added] = r.objects.emplace(path.substr(0, dot), role);
        if (!added && it->second != role) it->second.reset();
      }
    }
    return r;
  }();
  return index;
}

}  // namespace

FieldRole field_role(std::string_view path) {
  const RoleIndex& index = role_index();
  // The path itself, else the nearest leaf or object holding it (a key the schema lacks).
  for (std::string_view p = path;;) {
    if (const auto leaf = index.leaves.find(p); leaf != index.leaves.end()) return leaf->second;
    if (const auto object = index.objects.find(p); object != index.objects.end())
      return object->second.value_or(FieldRole::trained);
    const auto dot = p.rfind('.');
    if (dot == std::string_view::npos) return FieldRole::trained;
    p = p.substr(0, dot);
  }
}

bool run_identity_field(std::string_view path) { return role_traits(field_role(path)).run_identity; }
bool reading_field(std::string_view path) { return role_traits(field_role(path)).reading; }
bool derived_field(std::string_view path) { return role_traits(field_role(path)).derived; }

std::vector<std::string> config_paths() {
  std::vector<std::string> paths;
  for (const auto& [path, role] : field_roles()) paths.push_back(path);
  return paths;
}

}  // namespace proteus::config
