// A result file's record, walked once: each record's visit(walker, record) names its fields in
// order (eval_files.cpp), and the writer and the checked reader below are two walkers over it, so
// a field added to the record and to its visit() is written and read back at once (as the config's
// visit() does for config.json). A read error names the file and the field:
//   runs/q/per_position.json: bucket_interval[2].mean: expected a number, got "x"
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/json_writer.hpp"
#include "core/runs/eval_records.hpp"

namespace proteus::runs {

// Builds the file's JSON object from the record (visit() takes a mutable record, so the writer
// walks a copy); an Interval through its to_json (eval_files.hpp).
using RecordWriter = common::JsonWriter;

// Reads the fields visit() names from the file's object; what the file lacks or holds wrongly is
// an InputError naming the file and the field. Keys it does not name are left alone.
class RecordReader {
 public:
  // Throws InputError(file, ...) when root is not an object.
  RecordReader(const nlohmann::json& root, std::string file);

  template <class T>
  void field(const char* key, T& value) {
    const auto it = cur_->find(key);
    if (it == cur_->end()) fail(at(key), "missing");
    read(*it, at(key), value);
  }
  // Absent in files written before the field existed: the record keeps its default.
  template <class T>
  void optional(const char* key, T& value) {
    if (const auto it = cur_->find(key); it != cur_->end()) read(*it, at(key), value);
  }
  template <class T>
  void derived(const char*, const T&) {}

  template <class Item, class F>
  void list(const char* key, std::vector<Item>& items, F&& body) {
    const auto it = cur_->find(key);
    const std::string path = at(key);
    if (it == cur_->end()) fail(path, "missing");
    if (!it->is_array()) fail(path, "expected an array of objects, got " + shown(*it));
    std::vector<Item> read_items;
    const nlohmann::json* saved = cur_;
    const std::string saved_path = path_;
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& element = (*it)[i];
      path_ = path + "[" + std::to_string(i) + "]";
      if (!element.is_object()) fail(path_, "expected an object, got " + shown(element));
      cur_ = &element;
      Item item{};
      body(item);
      read_items.push_back(std::move(item));
    }
    cur_ = saved;
    path_ = saved_path;
    items = std::move(read_items);
  }

 private:
  std::string at(const char* key) const { return path_.empty() ? std::string(key) : path_ + "." + key; }
  [[noreturn]] void fail(const std::string& field, const std::string& reason) const;
  static std::string shown(const nlohmann::json& j);

  void read(const nlohmann::json& j, const std::string& field, int& out) const;
  void read(const nlohmann::json& j, const std::string& field, uint64_t& out) const;
  void read(const nlohmann::json& j, const std::string& field, double& out) const;  // null reads as NaN
  void read(const nlohmann::json& j, const std::string& field, float& out) const;
  void read(const nlohmann::json& j, const std::string& field, bool& out) const;
  void read(const nlohmann::json& j, const std::string& field, std::string& out) const;
  void read(const nlohmann::json& j, const std::string& field, Interval& out) const;
  template <class T>
  void read(const nlohmann::json& j, const std::string& field, std::vector<T>& out) const {
    if (!j.is_array()) fail(field, "expected an array, got " + shown(j));
    std::vector<T> values(j.size());
    for (size_t i = 0; i < j.size(); ++i) read(j[i], field + "[" + std::to_string(i) + "]", values[i]);
    out = std::move(values);
  }

  const nlohmann::json* cur_;
  std::string file_;
  std::string path_;
};

}  // namespace proteus::runs
