// `proteus bench`: training throughput of a config's runs (tokens/s, per-phase step times),
// printed as a table and optionally appended to a results file with the date and machine.
#pragma once
#include <CLI/CLI.hpp>

namespace proteus::cli {

void add_bench_command(CLI::App& app);

}  // namespace proteus::cli
