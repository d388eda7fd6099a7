// `proteus train`, `proteus eval` and `proteus sweep`: thin faces over the engine's jobs.
#pragma once
#include <CLI/CLI.hpp>

namespace proteus::cli {

void add_train_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_sweep_command(CLI::App& app);

}  // namespace proteus::cli
