// `proteus groups RUN... | RUNS_DIR`: the seed-group summaries of saved runs (RUNS_DIR/groups/),
// as the engine writes them after training; for runs trained before, or evaluated again.
#pragma once

namespace CLI {
class App;
}

namespace proteus::cli {

void add_groups_command(CLI::App& app);

}  // namespace proteus::cli
