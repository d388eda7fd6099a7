// The cluster face of the `proteus` command: `train`/`sweep --slurm` (submit_to_slurm), `jobs`
// (each submitted job's runs and their states) and what the job's scripts run, `job-task` and
// `job-merge`. The work is core/cluster's; these parse, print and set exit statuses.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/cluster/job_folder.hpp"
#include "core/config/config.hpp"
#include "core/config/experiment.hpp"

namespace proteus::cli {

// The --slurm options of `train` and `sweep`.
struct SlurmCliOptions {
  bool slurm = false;
  bool print = false;  // write the job folder, do not submit
  std::string job_name;
  cluster::SlurmOptions sbatch;
  // The options as registered, to tell one given '' or 0 (refused) from one left out (Slurm's default).
  std::vector<CLI::Option*> text_options;
  std::vector<CLI::Option*> count_options;
};

void add_slurm_options(CLI::App* command, SlurmCliOptions& o);
// What --slurm does, for the commands' --help.
const char* slurm_help();

// Refuses the --slurm options without --slurm, and --slurm where Slurm is missing (exit 2, nothing
// written); call before the config is read.
void check_slurm_request(const std::string& program, const SlurmCliOptions& o);

// Writes RUNS_DIR/jobs/NAME/ for these runs and (without --print) submits the array and its
// merge; prints the job ids. Returns the exit status.
int submit_to_slurm(const std::string& program, const std::vector<config::RunConfig>& runs,
                    const config::Experiment& experiment, const SlurmCliOptions& o);

void add_jobs_command(CLI::App& app);
void add_job_task_command(CLI::App& app);
void add_job_merge_command(CLI::App& app);

}  // namespace proteus::cli
