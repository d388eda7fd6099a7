// Reading and writing the JSON files that `proteus` subcommands take and make.
// Reading refuses duplicate keys, which JSON parsers would otherwise resolve silently to the last.
// Writing goes through PATH.tmp and a rename, so a failed run never leaves a partial file.
#pragma once
#include <filesystem>

#include <nlohmann/json.hpp>

namespace proteus::cli {

// Throws InputError: field = the path for an unreadable file or invalid JSON ("in.json: not valid
// JSON at line 3, column 5: ..."), or the key's path for a duplicate ("schedule.type").
nlohmann::json read_json_file(const std::filesystem::path& path);

// Writes `value` indented by 2 with round-trip exact numbers, then a newline. Throws
// std::runtime_error naming the path when it cannot be written; PATH is then untouched.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace proteus::cli
