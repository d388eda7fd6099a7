#include "app/cli/groups_command.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/command_support.hpp"
#include "core/cluster/job_state.hpp"
#include "core/common/folder_walk.hpp"
#include "core/engine/seed_groups.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::cli {

void add_groups_command(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto* c = app.add_subcommand("groups", "Write the seed-group summaries of saved runs (RUNS_DIR/groups/GROUP/)");
  c->add_option("runs", *paths, "run directories, or a runs directory (every run in it)")->required()->option_text("RUN...");
  c->footer("A seed group is the runs of one variant trained with an experiment's \"seeds\" (their config.json\n"
            "records the group). Each group's folder gets group.json and per_position.csv (mean over seeds,\n"
            "t interval) and, against the E = 1 group trained beside it, paired_vs_baseline.csv (per seed,\n"
            "t over seeds) and paired_vs_baseline_s<seed>.csv (bootstrap over the evaluation sequences).\n"
            "Given a runs folder, the failed runs of its Slurm jobs (RUNS_DIR/jobs/) are named with their reasons,\n"
            "and a summary whose runs are all gone is removed.");
  c->callback([paths] {
    const std::string program = "proteus groups";
    std::vector<std::string> dirs;
    std::vector<std::filesystem::path> folders;  // given whole: their summaries are checked even with no run left
    std::vector<std::string> notes;
    for (const auto& p : *paths) {
      std::error_code ec;
      if (common::holds_regular_file(p, runs::kConfigFile, &notes)) {
        dirs.push_back(p);
      } else if (std::filesystem::is_directory(p, ec)) {
        folders.push_back(p);
        for (const auto& name : runs::list_runs(p, &notes)) dirs.push_back((std::filesystem::path(p) / name).string());
        // A Slurm job's failed tasks are named here too: their runs are missing from the groups.
        for (auto& n : cluster::failed_run_notes(p)) notes.push_back(std::move(n));
      } else {
        fail(program, p + ": neither a run directory (no config.json) nor a folder of runs", exit_bad_input);
      }
    }
    std::vector<std::filesystem::path> written;
    try {
      written = engine::write_seed_group_results(dirs, &notes, folders);
    } catch (const std::exception& e) {
      fail(program, e.what(), exit_failure);
    }
    for (const auto& n : notes) std::cerr << program << ": " << n << '\n';
    for (const auto& w : written) std::cout << w.string() << '\n';
    std::cout << program << ": " << written.size() << " seed groups\n";
  });
}

}  // namespace proteus::cli
