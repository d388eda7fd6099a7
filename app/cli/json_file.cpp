#include "app/cli/json_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/memory/input_error.hpp"

namespace proteus::cli {
namespace {

using nlohmann::json;

// Follows the parser through nested containers to name where a duplicate key sits.
class DuplicateKeyCheck {
 public:
  // Where the value being parsed goes: names a number the parser refuses ("beta[2]").
  std::string next_value_path() const {
    if (frames_.empty()) return "";
    const Frame& top = frames_.back();
    return top.object ? join(top.path, top.key) : top.path + "[" + std::to_string(top.count) + "]";
  }

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: open(true); break;
      case json::parse_event_t::array_start: open(false); break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end: frames_.pop_back(); break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second)
          throw InputError(join(top.path, top.key), "appears twice in the object (JSON would silently keep the last)");
        break;
      }
      case json::parse_event_t::value:
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().count;
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object = false;
    std::string path;            // "schedule", "q[2]"; empty at the top level
    std::set<std::string> keys;  // keys seen so far (objects)
    std::string key;             // the key whose value comes next (objects)
    size_t count = 0;            // elements seen so far (arrays)
  };

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  void open(bool object) {
    std::string path;
    if (!frames_.empty()) {
      Frame& parent = frames_.back();
      path = parent.object ? join(parent.path, parent.key)
                           : parent.path + "[" + std::to_string(parent.count++) + "]";
    }
    frames_.push_back(Frame{object, std::move(path), {}, {}, 0});
  }

  std::vector<Frame> frames_;
};

// nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1, column 5: ...";
// keep the part a user needs.
std::string parse_error_reason(const json::parse_error& e) {
  std::string what = e.what();
  const auto at = what.find("parse error ");
  if (at != std::string::npos) what = what.substr(at + std::strlen("parse error "));
  return "not valid JSON " + what;
}

}  // namespace

json read_json_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(name, "cannot read: is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(name, std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw InputError(name, std::string("cannot read: ") + std::strerror(errno));
  DuplicateKeyCheck check;
  try {
    return json::parse(text.str(), std::ref(check));
  } catch (const json::parse_error& e) {
    throw InputError(name, parse_error_reason(e));
  } catch (const json::out_of_range& e) {
    // nlohmann refuses numbers beyond float64 (1e999) with "number overflow parsing '1e999'".
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    const std::string number = open < close ? what.substr(open + 1, close - open - 1) : "a number";
    const std::string where = check.next_value_path();
    throw InputError(where.empty() ? name : where, "must be a finite number, got " + number + " (beyond float64)");
  }
}

void write_json_file(const std::filesystem::path& path, const json& value) {
  const std::string text = value.dump(2) + "\n";
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  const auto give_up = [&](const std::string& what) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error(what);
  };
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) give_up(tmp.string() + ": cannot create: " + std::strerror(errno));
    file << text;
    file.close();
    if (!file) give_up(tmp.string() + ": cannot write: " + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) give_up(path.string() + ": cannot replace with " + tmp.string() + ": " + ec.message());
}

}  // namespace proteus::cli
