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

}  // namespace proteus::cli
