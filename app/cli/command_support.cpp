#include "app/cli/command_support.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

namespace proteus::cli {

void print_error(std::string_view program, std::string_view message) {
  std::string line(message);
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  while (!line.empty() && line.back() == ' ') line.pop_back();
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
