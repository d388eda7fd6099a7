// Reading JSON text the one way every reader of the program uses (configs and their parents,
// `--set` values, memory-op inputs, run files, metrics lines): the size and the nesting depth are
// checked before the parser runs, so a 100,000-deep input costs a scan, not a stack; and a key
// given twice in one object is refused, where a JSON parser would silently keep the last.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace proteus::common {

struct JsonLimits {
  size_t max_bytes = size_t{4} << 20;
  int max_depth = 64;              // arrays and objects inside each other
  const char* what = "a JSON file";  // "for a config file" in the size message
};

// Errors are InputErrors:
//   size:      "<source>: is larger than the limit of 4 MiB for a config file"
//   depth:     "<source>:3:14: nesting deeper than 64 levels (the limit for a config file)"
//   syntax:    "<source>:3:14: parse error: <what the parser says, the text it read cut short>"
//   duplicate: "<key path>: appears twice in one object of <source> (JSON would silently keep the last)"
//   overflow:  "<value path>: must be a finite number, got 1e999 (beyond float64)"
// A key path is "schedule.type" or "q[2]"; a value path names a top-level value by <source>.
nlohmann::json parse_json(std::string_view text, const std::string& source, const JsonLimits& limits);

// The checks parse_json makes before parsing (size, then depth), for a reader with its own parser
// (the safetensors header). Throws the same InputErrors.
void check_json_shape(std::string_view text, const std::string& source, const JsonLimits& limits);

// The file's bytes (read_file, bounded by limits.max_bytes) through parse_json, source = the path.
nlohmann::json read_json_file(const std::filesystem::path& path, const JsonLimits& limits);

}  // namespace proteus::common
