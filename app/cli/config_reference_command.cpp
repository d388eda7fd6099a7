#include "app/cli/config_reference_command.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include "core/config/config_reference.hpp"

namespace proteus::cli {

void add_config_reference_command(CLI::App& app) {
  auto* c = app.add_subcommand("config-reference",
                               "Print every config field with its default, values and meaning (Markdown: docs/config.md)");
  c->callback([] { std::cout << config::config_reference_markdown(); });
}

}  // namespace proteus::cli
