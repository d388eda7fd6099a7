// The checked reader of a run config: a visitor over the schema (config_schema.hpp) that starts
// from the defaults, reads the fields a file gives, and refuses a wrong type, an unknown key or an
// unknown choice naming the field's full path; validate() (config_validation.cpp) checks the rest.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/config/config_schema.hpp"
#include "core/config/size_bounds.hpp"

namespace proteus::config {

using common::indexed;
using common::join;
using common::quoted;
using common::read_int64;
using nlohmann::json;

void refuse_unknown_value(const std::string& field, const std::string& value, const std::vector<std::string>& allowed) {
  std::string reason = "unknown value " + quoted(value);
  const std::string best = closest_name(value, allowed);
  if (!best.empty()) reason += " (did you mean " + best + "?)";
  throw InputError(field, reason + "; expected one of " + join(allowed));
}

namespace {

void read_value(const json& j, const std::string& field, std::string& out) {
  if (!j.is_string()) throw InputError(field, "expected a string, got " + describe_json(j));
  out = j.get<std::string>();
}

void read_value(const json& j, const std::string& field, bool& out) {
  if (!j.is_boolean()) throw InputError(field, "expected true or false, got " + describe_json(j));
  out = j.get<bool>();
}

void read_value(const json& j, const std::string& field, double& out) { out = common::read_number(j, field); }

// "eval.niah.lengths[2]" -> "eval.niah.lengths": the path a size bound is listed under.
std::string bound_path(const std::string& field) {
  std::string path;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '[') i = field.find(']', i);
    else path += field[i];
    if (i == std::string::npos) break;
  }
  return path;
}

void read_value(const json& j, const std::string& field, int& out) {
  const int64_t x = read_int64(j, field);
  check_size_bound(bound_path(field), x, field);  // the bound in the message, before any int cast
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
    throw InputError(field, "is out of range, got " + std::to_string(x));
  out = static_cast<int>(x);
}

void read_value(const json& j, const std::string& field, int64_t& out) { out = read_int64(j, field); }

// The one place a choice's name becomes its value: anything not in its name table is refused here,
// naming the field and the names it takes.
template <class E>
  requires common::is_named_choice_v<E>
void read_value(const json& j, const std::string& field, E& out) {
  std::string name;
  read_value(j, field, name);
  const auto value = common::choice_from_name<E>(name);
  if (!value) refuse_unknown_value(field, name, common::choice_names<E>());
  out = *value;
}

void read_value(const json& j, const std::string& field, uint64_t& out) {
  if (j.is_number_unsigned()) {
    out = j.get<uint64_t>();
    return;
  }
  const int64_t x = read_int64(j, field);
  if (x < 0) throw InputError(field, "expected a non-negative integer, got " + std::to_string(x));
  out = static_cast<uint64_t>(x);
}

template <class T>
void read_value(const json& j, const std::string& field, std::vector<T>& out) {
  if (!j.is_array()) throw InputError(field, "expected an array, got " + describe_json(j));
  std::vector<T> values(j.size());
  for (size_t i = 0; i < j.size(); ++i) read_value(j[i], indexed(field, i), values[i]);
  out = std::move(values);
}

// Reads the fields visit() names from the current object; anything else there is refused.
class Reader {
 public:
  explicit Reader(const json& root) : cur_(&root) {}

  template <class T>
  void field(const char* key, T& value, FieldRole) {
    keys_.emplace_back(key);
    if (const auto it = cur_->find(key); it != cur_->end()) read_value(*it, at(key), value);
  }

  template <class F>
  void object(const char* key, F&& body) {
    keys_.emplace_back(key);
    const auto it = cur_->find(key);
    if (it == cur_->end()) return;
    if (!it->is_object()) throw InputError(at(key), "expected an object, got " + describe_json(*it));
    enter(*it, at(key), body);
  }

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, FieldRole, F&& body) {
    keys_.emplace_back(key);
    const auto it = cur_->find(key);
    if (it == cur_->end()) return;
    const std::string path = at(key);
    if (!it->is_array()) throw InputError(path, "expected an array of objects, got " + describe_json(*it));
    std::vector<Item> read;
    for (size_t i = 0; i < it->size(); ++i) {
      const json& element = (*it)[i];
      if (!element.is_object()) throw InputError(indexed(path, i), "expected an object, got " + describe_json(element));
      Item item{};  // fields the element leaves out keep the struct's defaults
      enter(element, indexed(path, i), [&] { body(item); });
      read.push_back(std::move(item));
    }
    items = std::move(read);
  }

  // The root object: same as a nested one, plus the keys the root may hold but the schema does not.
  template <class F>
  void root(F&& body) {
    body();
    check_keys();
  }

 private:
  std::string at(const char* key) const { return path_.empty() ? std::string(key) : path_ + "." + key; }

  template <class F>
  void enter(const json& object, const std::string& path, F&& body) {
    const json* saved_cur = cur_;
    std::string saved_path = std::move(path_);
    std::vector<std::string> saved_keys = std::move(keys_);
    cur_ = &object;
    path_ = path;
    keys_.clear();
    body();
    check_keys();
    cur_ = saved_cur;
    path_ = std::move(saved_path);
    keys_ = std::move(saved_keys);
  }

  void check_keys() const {
    for (const auto& [key, value] : cur_->items()) {
      if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) continue;
      if (path_.empty()) {
        if (key == "comment") {
          if (!common::is_text(value))
            throw InputError("comment", "expected a string or an array of strings, got " + describe_json(value));
          continue;
        }
        if (key == "regime" && value.is_object()) continue;  // derived from the fields (memory_regime.hpp)
        if (key == "parent" || key == "variants" || key == "sweep")
          throw InputError(key, "belongs to an experiment file: load it with the experiment loader, which "
                                "expands it into runs");
      }
      const std::string shown = common::clipped(key);  // a 50 MB key is not echoed whole
      throw InputError(path_.empty() ? shown : path_ + "." + shown, unknown_key_reason(key, keys_));
    }
  }

  const json* cur_;
  std::string path_;
  std::vector<std::string> keys_;
};

}  // namespace

RunConfig read_run_config(const json& j) {
  if (!j.is_object()) throw InputError("config", "expected a JSON object, got " + describe_json(j));
  RunConfig c;
  Reader reader(j);
  reader.root([&] { schema::visit(reader, c); });
  // With bpe, data.vocab is the one fact: model.vocab follows it unless the file gives it too (then
  // validate() asks that the two agree).
  const bool model_vocab_given = j.contains("model") && j["model"].is_object() && j["model"].contains("vocab");
  if (c.data.tokenizer == Tokenizer::bpe && !model_vocab_given) c.model.vocab = c.data.vocab;
  return c;
}

RunConfig parse_run_config(const json& j) {
  RunConfig c = read_run_config(j);
  validate(c);
  return c;
}

}  // namespace proteus::config
