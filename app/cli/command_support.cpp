#include "app/cli/command_support.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/common/data_root.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/preset_path.hpp"

#include <CLI/CLI.hpp>

namespace proteus::cli {

namespace {

// Any stretch without a space longer than this in a message (a 5000-character path or value that
// reached it whole) is cut to its first kShownText characters, as the README promises.
constexpr size_t kLongestWord = 160;

std::string cut_long_words(const std::string& line) {
  std::string out;
  for (size_t at = 0; at < line.size();) {
    const size_t end = std::min(line.find(' ', at), line.size());
    if (end - at > kLongestWord) out.append(line, at, common::kShownText).append(line[end - 1] == ':' ? "...:" : "...");
    else out.append(line, at, end - at);
    if (end < line.size()) out += ' ';
    at = end + 1;
  }
  return out;
}

}  // namespace

std::string shipped_or_given(std::string_view program, const std::string& config) {
  const auto found = config::find_preset(config, common::data_root(), config::user_experiments_dir());
  if (found == std::filesystem::path(config)) return config;
  std::cerr << program << ": " << config << " is not in this folder; reading the preset " << found.string() << '\n';
  return found.string();
}

void print_error(std::string_view program, std::string_view message) {
  std::string line(message);
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  while (!line.empty() && line.back() == ' ') line.pop_back();
  line = cut_long_words(line);
  std::cerr << program << ": error: " << line << '\n' << std::flush;
}

void fail(std::string_view program, std::string_view message, int status) {
  print_error(program, message);
  throw CLI::RuntimeError(status);
}

namespace {
std::string recorded_command_line = "proteus";
}

void set_command_line(int argc, const char* const* argv) {
  recorded_command_line.clear();
  for (int i = 0; i < argc; ++i) {
    if (i > 0) recorded_command_line += ' ';
    recorded_command_line += argv[i];
  }
}

const std::string& command_line() { return recorded_command_line; }

}  // namespace proteus::cli
