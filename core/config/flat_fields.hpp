// A config as a flat list of leaf fields by dotted path: what compares runs field by field (a seed
// group's members, a sweep's axes and its baselines, the runs table's columns), and the one
// answer to "which fields differ" they all ask.
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config_json.hpp"
#include "core/config/field_role.hpp"

namespace proteus::config {

using FlatConfig = std::map<std::string, nlohmann::json>;

// Every leaf of to_json(c, form) by its dotted path ("model.mixer.E" -> 16); arrays are leaves.
FlatConfig flat_fields(const RunConfig& c, JsonForm form = JsonForm::resolved);

// A leaf's value as a table, a filter or a label shows it: a string as it is, a number in the
// shortest form that reads back ("16", "0.001"), anything else as its JSON.
std::string field_text(const nlohmann::json& value);

// "model.mixer.E" -> "E": the short name a label or a filter term uses.
std::string_view last_component(std::string_view path);

// Which of the differing fields differing_fields() names, and in which order.
struct DifferingOptions {
  // Run identity fields (run_identity_field) are left out, but for these (the runs table shows the seed).
  std::vector<std::string> shown = {};
  // One field per lockstep class (fields that split the configs the same way: a budget sweep's
  // train.steps and train.warmup): `named_first` when it is one of them, else a model field, else
  // another field a user sets, a derived field (derived_field) last; ties by path.
  bool lockstep = false;
  std::string named_first = {};
  // By dotted path, or in the schema's order with the derived fields after the others and fields
  // outside the schema last (so the first is the one a user set: what a message names).
  enum class Order { path, schema };
  Order order = Order::path;
};

namespace detail {
struct Varying {
  std::string path;
  std::vector<int> partition;  // per config, the index of its value among the values seen
};
bool reported(std::string_view path, const DifferingOptions& options);
std::vector<std::string> named_fields(std::vector<Varying> varying, const DifferingOptions& options);
}  // namespace detail

// The fields whose values differ across the configs, each a map from dotted path to a value
// (flat_fields, or the same fields as text). A field some of them lack differs; an empty config
// (one that did not read) says nothing.
template <class Flat>
std::vector<std::string> differing_fields(const std::vector<const Flat*>& configs, const DifferingOptions& options = {}) {
  using Value = std::remove_cvref_t<decltype(std::declval<const Flat&>().begin()->second)>;
  std::vector<const Flat*> read;
  for (const Flat* c : configs)
    if (c && !c->empty()) read.push_back(c);
  std::set<std::string> paths;
  for (const Flat* c : read)
    for (const auto& [path, value] : *c)
      if (detail::reported(path, options)) paths.insert(path);
  std::vector<detail::Varying> varying;
  for (const auto& path : paths) {
    detail::Varying v{path, {}};
    std::vector<const Value*> seen;  // null: absent
    for (const Flat* c : read) {
      const auto it = c->find(path);
      const Value* value = it == c->end() ? nullptr : &it->second;
      const auto at = std::find_if(seen.begin(), seen.end(), [&](const Value* s) {
        return s && value ? *s == *value : s == value;
      });
      v.partition.push_back(static_cast<int>(at - seen.begin()));
      if (at == seen.end()) seen.push_back(value);
    }
    if (seen.size() > 1) varying.push_back(std::move(v));
  }
  return detail::named_fields(std::move(varying), options);
}

}  // namespace proteus::config
