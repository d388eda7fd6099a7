// `proteus config-reference`: prints docs/config.md, every config field with its default, values and
// meaning, generated from the schema (core/config/config_reference.hpp).
#pragma once

namespace CLI {
class App;
}

namespace proteus::cli {

void add_config_reference_command(CLI::App& app);

}  // namespace proteus::cli
