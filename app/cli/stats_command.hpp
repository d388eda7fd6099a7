// `proteus stats`: core/eval's statistics and the seed-group rule for the scripts that make the
// results pages' tables (scripts/paired_seeds.py, budget_report.py, budget_shape.py), so the
// numbers they print are computed once, here, and not again in Python. JSON in, JSON out.
#pragma once

namespace CLI {
class App;
}

namespace proteus::cli {

// Registers the stats subcommand on the `proteus` app.
void add_stats_command(CLI::App& app);

}  // namespace proteus::cli
