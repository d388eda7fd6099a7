// The writing walker of a record walked by its visit() (config.json's in config_json.cpp, the
// result files' in core/runs/eval_files.cpp): each field the walk names becomes a key of the JSON
// object, through nlohmann's to_json (so a type with its own to_json, an interval say, is one line).
#pragma once
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace proteus::common {

class JsonWriter {
 public:
  explicit JsonWriter(nlohmann::json& root) : cur_(&root) {}

  template <class T>
  void field(const char* key, const T& value) { (*cur_)[key] = value; }
  // A field older files lack (a reader keeps its default): written like any other.
  template <class T>
  void optional(const char* key, const T& value) { field(key, value); }
  // Written for other readers (Python, a person), never read back: it follows from the fields.
  template <class T>
  void derived(const char* key, const T& value) { field(key, value); }

  template <class F>
  void object(const char* key, F&& body) {
    (*cur_)[key] = nlohmann::json::object();
    nlohmann::json* saved = cur_;
    cur_ = &(*cur_)[key];
    body();
    cur_ = saved;
  }

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, F&& body) {
    nlohmann::json array = nlohmann::json::array();
    nlohmann::json* saved = cur_;
    for (Item& item : items) {
      nlohmann::json element = nlohmann::json::object();
      cur_ = &element;
      body(item);
      array.push_back(std::move(element));
    }
    cur_ = saved;
    (*cur_)[key] = std::move(array);
  }

 private:
  nlohmann::json* cur_;
};

}  // namespace proteus::common
