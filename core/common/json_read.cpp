// parse_json: a linear pre-scan for the depth (json_read.hpp), then nlohmann's parser with a
// callback that follows the nesting to name where a duplicate key or a too-large number sits.
#include "core/common/json_read.hpp"

#include <functional>
#include <set>
#include <vector>

#include "core/common/file_read.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"

namespace proteus::common {
namespace {

using nlohmann::json;

constexpr size_t kShownDetail = 160;  // the longest parser message a report shows

// "name:line:column" of a byte offset.
std::string position(std::string_view text, size_t offset, const std::string& source) {
  offset = std::min(offset, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return source + ":" + std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

// The first byte where arrays and objects nest deeper than max_depth, or npos. Strings are skipped
// with their escapes, so brackets inside them do not count; malformed text is the parser's to report.
size_t too_deep_at(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// Text cut to `limit` bytes on a UTF-8 character boundary, "..." marking the cut.
std::string cut(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...";
}

// Follows the parser through nested containers to name where a duplicate key sits. Each object's
// keys go into a set as they come: n log n for an object of n keys.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string source) : source_(std::move(source)) {}

  // Where the value being parsed goes ("beta[2]"); "" at the top level.
  std::string next_value_path() const {
    if (frames_.empty()) return "";
    const Frame& top = frames_.back();
    return top.object ? join(top.path, top.key) : top.path + "[" + std::to_string(top.count) + "]";
  }

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: open(Container::object); break;
      case json::parse_event_t::array_start: open(Container::array); break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end: frames_.pop_back(); break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        const auto& key = parsed.get_ref<const std::string&>();
        if (!top.keys.insert(key).second)
          throw InputError(join(top.path, clipped(key)), "appears twice in one object of " + source_ +
                                                               " (JSON would silently keep the last)");
        top.key = clipped(key);
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
    std::string key;             // the key whose value comes next, as shown (objects)
    size_t count = 0;            // elements seen so far (arrays)
  };

  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

  enum class Container { object, array };

  void open(Container kind) {
    const bool object = kind == Container::object;
    std::string path;
    if (!frames_.empty()) {
      Frame& parent = frames_.back();
      path = parent.object ? join(parent.path, parent.key) : parent.path + "[" + std::to_string(parent.count++) + "]";
    }
    frames_.push_back(Frame{object, std::move(path), {}, {}, 0});
  }

  std::string source_;
  std::vector<Frame> frames_;
};

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ...":
// what follows the position, since ours says where, cut short (it quotes the text it read).
std::string parse_error_detail(const json::parse_error& e) {
  std::string detail = e.what();
  if (const size_t at = detail.find("parse error"); at != std::string::npos)
    if (const size_t colon = detail.find(": ", at); colon != std::string::npos) detail = detail.substr(colon + 2);
  return cut(detail, kShownDetail);
}

}  // namespace

void check_json_shape(std::string_view text, const std::string& source, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw InputError(source, "is larger than the limit of " + format_bytes(limits.max_bytes) + " for " + limits.what);
  if (const size_t at = too_deep_at(text, limits.max_depth); at != std::string_view::npos)
    throw InputError(position(text, at, source), "nesting deeper than " + std::to_string(limits.max_depth) +
                                                     " levels (the limit for " + limits.what + ")");
}

json parse_json(std::string_view text, const std::string& source, const JsonLimits& limits) {
  check_json_shape(text, source, limits);
  DuplicateKeyCheck check(source);
  try {
    return json::parse(text, std::ref(check));
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based position of the byte the parser stopped at.
    throw InputError(position(text, e.byte == 0 ? 0 : e.byte - 1, source), "parse error: " + parse_error_detail(e));
  } catch (const json::out_of_range& e) {
    // nlohmann refuses numbers beyond float64 (1e999) with "number overflow parsing '1e999'".
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    const std::string number = open < close ? clipped(what.substr(open + 1, close - open - 1)) : "a number";
    const std::string where = check.next_value_path();
    throw InputError(where.empty() ? source : where, "must be a finite number, got " + number + " (beyond float64)");
  }
}

json read_json_file(const std::filesystem::path& path, const JsonLimits& limits) {
  const std::string text = read_file(path, limits.max_bytes, limits.what);
  return parse_json(text, path.generic_string(), limits);
}

}  // namespace proteus::common
